import Redis from 'ioredis';
import Redlock from 'redlock';
import type { BenchGroup } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { createOurContext, missingExports, resolveService } from '../lib/our-library';
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

/**
 * Locks, uncontended: acquire + release of a resource of the worker's own (so every acquire succeeds at the first
 * attempt). Ours (LockService.acquire, fencing token included) against redlock 5 and 4 on one server and a
 * hand-written SET NX PX + Lua compare-and-delete, the two round trips every lock needs.
 */
export function lockGroup(ctx: SuiteContext): BenchGroup {
  const concurrency = 16;
  const missing = missingExports('LockService');
  let closeOurs: (() => Promise<void>) | undefined;
  let ours: LockServiceLike;
  const peerClient = () => new Redis({ port: ctx.redis.port, host: '127.0.0.1' });
  let r5Client: Redis, r4Client: Redis;
  let redlock5: Redlock, redlock4: Redlock4Like;

  return {
    id: 'lock',
    title: 'Locks: acquire + release, uncontended',
    unit: 'acquire + release',
    load: `${concurrency} concurrent workers, each on its own resource, closed loop`,
    probe: true,
    contenders: [
      missing
        ? unavailableContender('ours', 'LockService acquire + release', missing)
        : libraryContender({
            id: 'ours',
            label: 'LockService acquire + release',
            concurrency,
            setup: async () => {
              const app = await createOurContext(ctx.redis.url, 'bench-lock');
              ours = resolveService<LockServiceLike>(app, 'LockService');
              closeOurs = () => app.close();
            },
            op: async (w) => (await ours.acquire(`res${w}`, { ttlMs: TTL_MS })).release(),
            teardown: async () => closeOurs?.(),
          }),
      libraryContender({
        id: 'redlock5',
        label: 'redlock 5 (beta) acquire + release',
        concurrency,
        setup: async () => {
          r5Client = peerClient();
          redlock5 = new Redlock([r5Client], { retryCount: 0 });
        },
        op: async (w) => (await redlock5.acquire([`r5:res${w}`], TTL_MS)).release(),
        teardown: async () => void r5Client.disconnect(),
      }),
      libraryContender({
        id: 'redlock4',
        label: 'redlock 4 lock + unlock',
        concurrency,
        setup: async () => {
          const Redlock4 = require('redlock4') as new (clients: Redis[], options: object) => Redlock4Like;
          r4Client = peerClient();
          redlock4 = new Redlock4([r4Client], { retryCount: 0 });
        },
        op: async (w) => (await redlock4.lock(`r4:res${w}`, TTL_MS)).unlock(),
        teardown: async () => void r4Client.disconnect(),
      }),
      (() => {
        let client: Redis & { benchRelease?: (key: string, token: string) => Promise<number> };
        let seq = 0;
        return libraryContender({
          id: 'raw',
          label: 'hand-written SET NX PX + Lua release',
          concurrency,
          setup: async () => {
            client = peerClient();
            client.defineCommand('benchRelease', { numberOfKeys: 1, lua: RELEASE_LUA });
          },
          op: async (w) => {
            const key = `raw:res${w}`;
            const token = `${process.pid}:${seq++}`;
            if ((await client.set(key, token, 'PX', TTL_MS, 'NX')) !== 'OK') throw new Error('not acquired');
            await client.benchRelease!(key, token);
          },
          teardown: async () => void client.disconnect(),
        });
      })(),
    ],
    ratios: [
      { label: 'ours / redlock 5', numerator: 'ours', denominator: 'redlock5', target: 1.5 },
      { label: 'ours / redlock 4', numerator: 'ours', denominator: 'redlock4' },
      { label: 'ours / hand-written SET NX + Lua', numerator: 'ours', denominator: 'raw' },
    ],
  };
}
