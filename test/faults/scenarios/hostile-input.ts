// CACHE-7/8/9, RL-4, RL-5 and invariants 8–9 (goals G9, G10, G12): hostile key parts, prototype-polluting JSON,
// oversized values, invalid options, wrong types from plain-JS callers, spoofed X-Forwarded-For, 200k identities.
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import {
  CacheService,
  CacheValueTooLargeError,
  InvalidArgumentError,
  InvalidOptionsError,
  LockService,
  RateLimiterService,
  type RedisPatternsModuleOptions,
  SessionStore,
} from 'nestjs-redis-patterns';
import { XFF_LIMIT, XffAppModule } from '../../fixtures/faults/xff-app';
import { createContext } from '../../fixtures/faults/fixture-env';
import { httpRequest } from '../lib/http';
import { mb } from '../lib/measure';
import { check, type Check, type Scenario } from '../lib/scenario';
import { keysWithoutTtl, ownApp, ownStandalone, scanAll } from '../lib/servers';

const HOSTILE_PARTS = ['a*b?c[d]', '{tag}', 'a}b{', 'a:b', 'with space', 'new\nline\r\t', '\u0000nul', 'x'.repeat(1 << 20)];
const IDENTITIES = 200_000;

/** A call that must be refused with a typed error naming `name`. */
async function refused(call: () => unknown, type: Function, name: string): Promise<string | null> {
  try {
    await call();
    return `accepted (expected ${type.name} naming ${name})`;
  } catch (error) {
    if (!(error instanceof type)) return `${(error as Error)?.name}: ${(error as Error)?.message}`;
    return (error as Error).message.includes(name) ? null : `message does not name ${name}: ${(error as Error).message}`;
  }
}

export const hostileScenario: Scenario = {
  id: 'HOSTILE',
  title: 'hostile input',
  deadlineMs: 120_000,
  async run(context) {
    const server = await ownStandalone(context, 'hostile');
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());
    const prefix = 'fho';
    const app = await ownApp(context, { connection: server.url, keyPrefix: prefix });
    const cache = app.get(CacheService);
    const locks = app.get(LockService);
    const limiter = app.get(RateLimiterService);
    const sessions = app.get(SessionStore);
    const checks: Check[] = [];

    // 1. Structure characters and huge parts: each call works on an escaped, bounded key, or is refused cleanly.
    const problems: string[] = [];
    for (const [i, part] of HOSTILE_PARTS.entries()) {
      const label = JSON.stringify(part.slice(0, 12));
      try {
        await cache.set(part, { i }, { ttl: 60 });
        const back = await cache.get<{ i: number }>(part);
        if (back?.i !== i) problems.push(`cache ${label} read back ${JSON.stringify(back)}`);
        const lock = await locks.tryAcquire(part, { ttlMs: 5000 });
        if (!lock) problems.push(`lock ${label} not granted`);
        await lock?.release();
        const decision = await limiter.consume(part, { algorithm: 'fixed-window', limit: 1, windowMs: 60_000 });
        const second = await limiter.consume(part, { algorithm: 'fixed-window', limit: 1, windowMs: 60_000 });
        if (!decision.allowed || second.allowed) problems.push(`limiter ${label} ${decision.allowed}/${second.allowed}`);
      } catch (error) {
        if (!(error instanceof InvalidArgumentError))
          problems.push(`${label}: ${(error as Error).name} ${(error as Error).message.slice(0, 80)}`);
      }
    }
    const keys = await scanAll(admin, '*');
    const longest = Math.max(...keys.map((k) => Buffer.byteLength(k)));
    const unescaped = keys.filter((k) => /[\s*?[\]\x00]/.test(k) || (k.match(/\{/g) ?? []).length > 1 || (k.match(/\}/g) ?? []).length > 1);
    // Distinct hostile parts must not collide: one cache entry each.
    const cacheEntries = keys.filter((k) => k.startsWith(`${prefix}:cache:`) && !k.includes(':tag')).length;
    checks.push(
      check(
        'key parts with * ? [ ] { } : space, newline, NUL and 1 MB: round-trip through cache, lock and limiter on escaped, bounded keys',
        `problems ${problems.length}${problems.length ? ` (${problems[0]})` : ''}; unescaped keys ${unescaped.length}; longest key ${longest} B; cache entries ${cacheEntries} for ${HOSTILE_PARTS.length} parts`,
        problems.length === 0 && unescaped.length === 0 && longest <= 1024 && cacheEntries >= HOSTILE_PARTS.length,
      ),
    );

    // 2. Prototype pollution through every read path that returns objects.
    const hostileJson = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"ok":1}';
    await cache.set('proto', JSON.parse(hostileJson), { ttl: 60 });
    const fromCache = await cache.get<Record<string, unknown>>('proto');
    const merged = Object.assign({}, fromCache, { ...fromCache });
    const sessionId = await sessions.create(JSON.parse(hostileJson), { ttlMs: 60_000 });
    const fromSession = await sessions.get(sessionId);
    Object.assign({}, fromSession);
    const plain = {} as Record<string, unknown>;
    const polluted =
      plain.polluted !== undefined ||
      (plain as { x?: unknown }).x !== undefined ||
      (Object.prototype as Record<string, unknown>).polluted !== undefined;
    checks.push(
      check(
        'JSON with __proto__ / constructor.prototype through cache and session reads, then merged: no prototype pollution',
        `({}).polluted ${String(plain.polluted)}, ({}).x ${String((plain as { x?: unknown }).x)}; values kept: cache ok=${String(merged.ok)}`,
        !polluted,
      ),
    );

    // 3. Oversized values, wrong types from plain-JS callers: typed errors naming the argument, nothing written.
    const before = new Set(await scanAll(admin, '*'));
    const js = (f: unknown) => f as (...args: unknown[]) => unknown;
    const refusals = await Promise.all([
      refused(() => cache.set('big', 'x'.repeat(2 << 20), { ttl: 60 }), CacheValueTooLargeError, 'maxValueBytes'),
      refused(() => js(cache.get.bind(cache))({ toString: () => 'x' }), InvalidArgumentError, 'key'),
      refused(() => js(cache.set.bind(cache))(null, 1), InvalidArgumentError, 'key'),
      refused(() => js(cache.set.bind(cache))('k', 1, { ttl: 'soon' }), InvalidArgumentError, 'ttl'),
      refused(
        () => js(limiter.consume.bind(limiter))({}, { algorithm: 'fixed-window', limit: 1, windowMs: 1000 }),
        InvalidArgumentError,
        'key',
      ),
      refused(() => js(limiter.consume.bind(limiter))('k', { algorithm: 'nope', limit: 1 }), InvalidArgumentError, 'algorithm'),
      refused(
        () =>
          js(limiter.consume.bind(limiter))('k', [
            { algorithm: 'fixed-window', limit: 1, windowMs: 1000 },
            { algorithm: 'gcra', limit: -1, periodMs: 1 },
          ]),
        InvalidArgumentError,
        'policy[1].limit',
      ),
      refused(() => js(locks.tryAcquire.bind(locks))(undefined), InvalidArgumentError, 'resource'),
      refused(() => js(locks.acquire.bind(locks))('r', { ttlMs: '100' }), InvalidArgumentError, 'ttlMs'),
      refused(() => js(locks.using.bind(locks))('r', 'not a function'), InvalidArgumentError, 'work'),
    ]);
    const after = (await scanAll(admin, '*')).filter((k) => !before.has(k));
    const badRefusals = refusals.filter((r): r is string => r !== null);
    checks.push(
      check(
        `oversized value and ${refusals.length - 1} wrong-typed calls: typed errors naming the argument; nothing half-written (SCAN before/after)`,
        `unclear or missing errors ${badRefusals.length}${badRefusals.length ? ` (${badRefusals.join(' / ').slice(0, 240)})` : ''}; new keys ${after.length}`,
        badRefusals.length === 0 && after.length === 0,
      ),
    );

    // 4. Invalid options fail startup naming the option.
    const invalid: Array<[RedisPatternsModuleOptions, string]> = [
      [{ connection: server.url, cache: { defaultTtl: -1 } }, 'cache.defaultTtl'],
      [{ connection: server.url, rateLimit: { failOpen: 'yes' as unknown as boolean } }, 'rateLimit.failOpen'],
      [{ connection: server.url, lock: { bogus: 1 } as never }, 'bogus'],
      [{ connection: server.url, keyPrefix: 'a{b' }, 'keyPrefix'],
      [{ connection: server.url, commandTimeoutMs: 0 }, 'commandTimeoutMs'],
    ];
    const optionProblems: string[] = [];
    for (const [options, name] of invalid) {
      const problem = await refused(async () => (await createContext(options)).close(), InvalidOptionsError, name);
      if (problem) optionProblems.push(`${name}: ${problem.slice(0, 100)}`);
    }
    checks.push(
      check(
        `${invalid.length} invalid option sets fail startup with InvalidOptionsError naming the option`,
        `unclear ${optionProblems.length}${optionProblems.length ? ` (${optionProblems[0]})` : ''}`,
        optionProblems.length === 0,
      ),
    );

    // 5. X-Forwarded-For spoofing: rotating the header buys no budget, with or without one trusted proxy.
    for (const hops of [0, 1]) {
      const http = await NestFactory.create(
        XffAppModule.forRoot({ connection: server.url, keyPrefix: `fxf${hops}`, rateLimit: { trustProxyHops: hops } }),
        { logger: false, abortOnError: false },
      );
      context.defer(() => http.close());
      await http.listen(0, '127.0.0.1');
      const port = (http.getHttpServer().address() as AddressInfo).port;
      let admitted = 0;
      for (let i = 0; i < 200; i++) {
        // What a client sends (a fresh fake address each time), plus what the one trusted proxy appends.
        const header = hops ? `1.2.${i >> 8}.${i & 255}, 10.0.0.7` : `1.2.${i >> 8}.${i & 255}`;
        if ((await httpRequest(port, '/limited', { headers: { 'x-forwarded-for': header } })).status === 200) admitted++;
      }
      const limiterKeys = (await scanAll(admin, `fxf${hops}:rl:*`)).length;
      await http.close();
      checks.push(
        check(
          `200 requests rotating X-Forwarded-For, trustProxyHops ${hops}, limit ${XFF_LIMIT}: over-admission 0, one limiter key`,
          `admitted ${admitted}; limiter keys ${limiterKeys}`,
          admitted === XFF_LIMIT && limiterKeys === 1,
        ),
      );
    }

    // 6. 200k distinct identities: every key has a TTL; memory figure.
    const memory = async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    const baseline = await memory();
    const policy = { algorithm: 'sliding-window-counter', limit: 10, windowMs: 60_000 } as const;
    const outagesBefore = limiter.outageStats().failedOpen;
    for (let start = 0; start < IDENTITIES; start += 500) {
      await Promise.all(Array.from({ length: 500 }, (_, j) => limiter.consume(`client-${start + j}`, policy)));
    }
    const failedOpen = limiter.outageStats().failedOpen - outagesBefore;
    const grown = (await memory()) - baseline;
    const rlKeys = (await scanAll(admin, `${prefix}:rl:*`)).length;
    const noTtl = await keysWithoutTtl(admin, `${prefix}:*`);
    checks.push(
      check(
        `${IDENTITIES / 1000}k distinct identities: no key without a TTL`,
        `limiter keys ${rlKeys}; decisions failed open ${failedOpen}; keys without TTL ${noTtl.length}; used_memory +${mb(grown)} MB (${Math.round(grown / Math.max(1, rlKeys))} B/key)`,
        noTtl.length === 0 && failedOpen === 0 && rlKeys >= IDENTITIES,
      ),
    );
    Object.assign(context.figures, {
      longestKeyBytes: longest,
      problems,
      badRefusals,
      optionProblems,
      identities: IDENTITIES,
      memoryMb: mb(grown),
      noTtl: noTtl.length,
    });
    return checks;
  },
};
