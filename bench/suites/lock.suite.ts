import { RedlockService } from '@nestjs-redis/lock';
import type Redis from 'ioredis';
import { createClient } from 'redis';
import Redlock from 'redlock';
import type { BenchGroup, Contender } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { createOurContext, missingExports, resolveService } from '../lib/our-library';
import { peerTargetAt } from '../lib/sweep';
import { apSuffix, peerIoredis } from '../lib/peer-clients';
import type { SuiteContext } from './suite-context';

interface LockLike {
  release(): Promise<unknown>;
}
interface LockServiceLike {
  acquire(resource: string, options: { ttlMs: number; waitMs?: number }): Promise<LockLike>;
}
interface Redlock4Like {
  lock(resource: string, ttl: number): Promise<{ unlock(): Promise<unknown> }>;
  quit?(): Promise<unknown>;
}

const TTL_MS = 10_000;

// Compare-and-delete: only the holder's token may delete the key (the release every correct lock needs).
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** redlock 5 on one ioredis client, plain or auto-pipelined. */
function redlock5Contender(ctx: SuiteContext, autoPipelining: boolean): Contender {
  const client = peerIoredis(ctx, autoPipelining);
  const prefix = autoPipelining ? 'r5ap' : 'r5';
  let redlock: Redlock;
  return libraryContender({
    id: autoPipelining ? 'redlock5-ap' : 'redlock5',
    label: `redlock 5 (beta) acquire + release${apSuffix(autoPipelining)}`,
    concurrency: ctx.concurrency,
    setup: async () => {
      client.open();
      redlock = new Redlock([client.get()], { retryCount: 0 });
    },
    op: async (w) => (await redlock.acquire([`${prefix}:res${w}`], TTL_MS)).release(),
    teardown: async () => client.close(),
  });
}

/** redlock 4 on one ioredis client, plain or auto-pipelined. */
function redlock4Contender(ctx: SuiteContext, autoPipelining: boolean): Contender {
  const client = peerIoredis(ctx, autoPipelining);
  const prefix = autoPipelining ? 'r4ap' : 'r4';
  let redlock: Redlock4Like;
  return libraryContender({
    id: autoPipelining ? 'redlock4-ap' : 'redlock4',
    label: `redlock 4 lock + unlock${apSuffix(autoPipelining)}`,
    concurrency: ctx.concurrency,
    setup: async () => {
      const Redlock4 = require('redlock4') as new (clients: Redis[], options: object) => Redlock4Like;
      client.open();
      redlock = new Redlock4([client.get()], { retryCount: 0 });
    },
    op: async (w) => (await redlock.lock(`${prefix}:res${w}`, TTL_MS)).unlock(),
    teardown: async () => client.close(),
  });
}

/** @nestjs-redis/lock's RedlockService (@redis-kit/lock underneath) on one node-redis client, which pipelines by design. */
function nodeRedisLockContender(ctx: SuiteContext): Contender {
  const client = createClient({ url: ctx.redis.url });
  let redlock: RedlockService;
  return libraryContender({
    id: 'nestjs-redis-lock',
    label: '@nestjs-redis/lock RedlockService acquire + release (node-redis)',
    concurrency: ctx.concurrency,
    setup: async () => {
      await client.connect();
      redlock = new RedlockService([client as never], { maxRetryAttempts: 0 });
    },
    op: async (w) => {
      const lock = await redlock.acquire(`nr:res${w}`, TTL_MS);
      if (!lock) throw new Error('not acquired');
      await lock.release();
    },
    teardown: async () => void (await client.close()),
  });
}

/**
 * Locks, uncontended: acquire + release of a resource of the worker's own (so every acquire succeeds at the first
 * attempt). Ours (LockService.acquire, fencing token included) against redlock 5 and 4 on one server (each with
 * and without auto-pipelining), @nestjs-redis/lock on node-redis, and a hand-written SET NX PX + Lua
 * compare-and-delete, the two round trips every lock needs.
 */
export function lockGroup(ctx: SuiteContext): BenchGroup {
  const c = ctx.concurrency;
  const missing = missingExports('LockService');
  let closeOurs: (() => Promise<void>) | undefined;
  let ours: LockServiceLike;
  const raw = peerIoredis(ctx, true);
  let seq = 0;
  type Releasing = Redis & { benchRelease?: (key: string, token: string) => Promise<number> };
  return {
    id: 'lock',
    title: 'Locks: acquire + release, uncontended',
    unit: 'acquire + release',
    load: `${c} concurrent worker${c === 1 ? '' : 's'}, each on its own resource, closed loop`,
    probe: true,
    contenders: [
      missing
        ? unavailableContender('ours', 'LockService acquire + release', missing)
        : libraryContender({
            id: 'ours',
            label: 'LockService acquire + release',
            concurrency: c,
            setup: async () => {
              const app = await createOurContext(ctx.redis.url, 'bench-lock');
              ours = resolveService<LockServiceLike>(app, 'LockService');
              closeOurs = () => app.close();
            },
            op: async (w) => (await ours.acquire(`res${w}`, { ttlMs: TTL_MS })).release(),
            teardown: async () => closeOurs?.(),
          }),
      redlock5Contender(ctx, false),
      redlock5Contender(ctx, true),
      redlock4Contender(ctx, false),
      redlock4Contender(ctx, true),
      nodeRedisLockContender(ctx),
      libraryContender({
        id: 'raw',
        label: 'hand-written SET NX PX + Lua release (auto-pipelining)',
        concurrency: c,
        setup: async () => {
          raw.open();
          raw.get().defineCommand('benchRelease', { numberOfKeys: 1, lua: RELEASE_LUA });
        },
        op: async (w) => {
          const key = `raw:res${w}`;
          const token = `${process.pid}:${seq++}`;
          if ((await raw.get().set(key, token, 'PX', TTL_MS, 'NX')) !== 'OK') throw new Error('not acquired');
          await (raw.get() as Releasing).benchRelease!(key, token);
        },
        teardown: async () => raw.close(),
      }),
    ],
    ratios: [
      { label: 'ours / redlock 5 (better row)', numerator: 'ours', denominator: ['redlock5', 'redlock5-ap'], target: peerTargetAt(c, 1.8) },
      {
        label: 'ours / redlock 4 (better row)',
        numerator: 'ours',
        denominator: ['redlock4', 'redlock4-ap'],
        target: peerTargetAt(c, undefined),
      },
      { label: 'ours / @nestjs-redis/lock', numerator: 'ours', denominator: 'nestjs-redis-lock', target: peerTargetAt(c, undefined) },
      { label: 'ours / hand-written SET NX + Lua', numerator: 'ours', denominator: 'raw' },
    ],
  };
}
