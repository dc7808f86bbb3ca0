// CONN-7: Redis out of memory (maxmemory reached, noeviction). Every feature maps the OOM reply to its own policy:
// the cache skips the write and serves the source (no error reaches a caller), each limiter follows its outage
// policy (fail-open admits without counting, fail-closed refuses with RateLimitDeniedError, reason unavailable), a lock is never
// handed out (LockNotAcquiredError), a stream producer gets the error. The process keeps running, nothing is left
// half-written, and every feature works again once memory is available.
//
// Redis refuses a script's write only while the script has written nothing yet ("OOM command not allowed"), so a
// script is all or nothing; a feature made of several commands could still leave part of its structure behind,
// which the SCAN before/after looks for: a lock key without its fencing counter, a cache entry missing from its
// tags' member sets, a key (other than a stream) without a TTL.
import { Redis } from 'ioredis';
import {
  CacheService,
  LockNotAcquiredError,
  LockService,
  RateLimitDeniedError,
  RateLimiterService,
  type RateLimitPolicy,
} from 'nestjs-redis-patterns';
import { CappedList, Leaderboard, SessionStore, UniqueCounter } from 'nestjs-redis-patterns/structures';
import { StreamsService } from 'nestjs-redis-patterns/messaging';
import { mb, tally, waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario, type ScenarioContext } from '../lib/scenario';
import { ownApp, ownStandalone, scanAll } from '../lib/servers';

const PREFIX = 'foo';
/** The memory the fill may use on top of what the server holds when the scenario starts. */
const HEADROOM = 2 * 1024 * 1024;
const FILL_VALUE = 'x'.repeat(16 * 1024);
const TAGS = ['oom-a', 'oom-b'];
const POLICIES: Record<string, RateLimitPolicy> = {
  'fixed-window': { algorithm: 'fixed-window', limit: 100, windowMs: 60_000 },
  'sliding-log': { algorithm: 'sliding-log', limit: 100, windowMs: 60_000 },
  'sliding-window-counter': { algorithm: 'sliding-window-counter', limit: 100, windowMs: 60_000 },
  'token-bucket': { algorithm: 'token-bucket', capacity: 100, refillPerSecond: 10 },
  gcra: { algorithm: 'gcra', limit: 100, periodMs: 60_000 },
};

const usedMemory = async (admin: Redis): Promise<number> => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);

const isOom = (error: unknown): boolean => error instanceof Error && error.message.startsWith('OOM');

// Typed errors by class (not by name), anything else with its message.
const classOf = (error: unknown): string => {
  if (error instanceof LockNotAcquiredError) return `LockNotAcquiredError (${error.reason})`;
  if (error instanceof RateLimitDeniedError && error.reason === 'unavailable') return 'RateLimitDeniedError(unavailable)';
  if (isOom(error)) return 'OOM reply';
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 80)}` : String(error);
};

/** Runs `call` and names its outcome: a result's class, or the error's. */
async function outcome<T>(call: () => Promise<T>, name: (value: T) => string): Promise<string> {
  try {
    return name(await call());
  } catch (error) {
    return `error: ${classOf(error)}`;
  }
}

/** Fills the server up to maxmemory (used + 2 MB, noeviction), then lowers the ceiling below what is used. */
async function fill(admin: Redis): Promise<{ keys: number; maxmemory: number }> {
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
  await admin.config('SET', 'maxmemory', String((await usedMemory(admin)) + HEADROOM));
  let n = 0;
  for (let refused = false; !refused;) {
    if (n > 10_000) throw new Error('the server never ran out of memory');
    const replies = await admin.pipeline(Array.from({ length: 16 }, () => ['set', `fill:${n++}`, FILL_VALUE])).exec();
    refused = (replies ?? []).some(([error]) => isOom(error));
  }
  // Deletes during the run (lock releases, cache lock releases) free a few bytes: 1 MB under what is used keeps
  // every write refused however the run goes.
  const maxmemory = (await usedMemory(admin)) - 1024 * 1024;
  await admin.config('SET', 'maxmemory', String(maxmemory));
  return { keys: n, maxmemory };
}

/** Type and PTTL of every key of the library's namespace. */
async function snapshot(admin: Redis): Promise<Map<string, { type: string; pttl: number }>> {
  const keys = await scanAll(admin, `${PREFIX}:*`);
  const pipeline = admin.pipeline();
  for (const key of keys) pipeline.type(key).pttl(key);
  const replies = (await pipeline.exec()) ?? [];
  return new Map(keys.map((key, i) => [key, { type: String(replies[2 * i][1]), pttl: Number(replies[2 * i + 1][1]) }]));
}

/** Structures a feature left incomplete, or keys that would live forever. */
async function halfWritten(admin: Redis, keys: Map<string, { type: string; pttl: number }>): Promise<string[]> {
  const problems: string[] = [];
  for (const [key, { type, pttl }] of keys) {
    if (type !== 'stream' && pttl === -1) problems.push(`${key}: no TTL`);
    if (/:lock:\{[^}]*\}$/.test(key) && !keys.has(`${key}:fence`)) problems.push(`${key}: lock without its fencing counter`);
    const entry = /^[^:]+:cache:\{([^}]*)\}$/.exec(key);
    // Every entry but 'hot' is written with TAGS.
    if (entry && entry[1] !== 'hot') {
      for (const tag of TAGS) {
        if ((await admin.zscore(`${PREFIX}:cache-tag:{${tag}}:idx`, key)) === null) problems.push(`${key}: missing from tag ${tag}`);
      }
    }
  }
  return problems;
}

/** One call of every feature, on fresh keys: what fails (nothing, when Redis has memory). */
async function everyFeatureWorks(app: Awaited<ReturnType<typeof ownApp>>, round: string): Promise<string[]> {
  const failures: string[] = [];
  const expect = async (what: string, call: () => Promise<boolean>): Promise<void> => {
    try {
      if (!(await call())) failures.push(what);
    } catch (error) {
      failures.push(`${what}: ${classOf(error)}`);
    }
  };
  const cache = app.get(CacheService);
  const locks = app.get(LockService);
  const limiter = app.get(RateLimiterService);
  await expect('cache write', () => cache.set(`works-${round}`, { round }, { ttl: 60, tags: TAGS }));
  await expect('cache read', async () => (await cache.get<{ round: string }>(`works-${round}`))?.round === round);
  await expect('lock acquire', async () => {
    const lock = await locks.tryAcquire(`works-${round}`, { ttlMs: 5000 });
    return lock !== null && (await lock.release());
  });
  for (const [name, policy] of Object.entries(POLICIES)) {
    await expect(`limiter ${name}`, async () => (await limiter.consume(`works-${round}`, policy, { failOpen: false })).source === 'redis');
  }
  await expect('stream add', async () => /^\d+-\d+$/.test(await app.get(StreamsService).add('oom', { round })));
  await expect('leaderboard incr', async () => (await app.get(Leaderboard).incr('oom', `works-${round}`)) === 1);
  await expect('capped-list push', async () => (await app.get(CappedList).push(`works-${round}`, round)) === 1);
  await expect('session create', async () => (await app.get(SessionStore).create({ round })).length > 0);
  await expect('unique-counter add', () => app.get(UniqueCounter).add(`works-${round}`, round));
  return failures;
}

async function underOom(context: ScenarioContext, app: Awaited<ReturnType<typeof ownApp>>, calls: number) {
  const cache = app.get(CacheService);
  const locks = app.get(LockService);
  const limiter = app.get(RateLimiterService);
  const streams = app.get(StreamsService);
  let loads = 0;
  let wrongValues = 0;
  let bodiesRun = 0;
  const cacheWrap: string[] = [];
  const cacheSet: string[] = [];
  const cacheHot: string[] = [];
  const lockOutcomes: string[] = [];
  const streamOutcomes: string[] = [];
  const limiterOpen: Record<string, string[]> = {};
  const limiterClosed: Record<string, string[]> = {};
  const others: Record<string, string[]> = {
    'leaderboard incr': [],
    'capped-list push': [],
    'session create': [],
    'unique-counter add': [],
  };
  for (let i = 0; i < calls && !context.signal.aborted; i++) {
    cacheWrap.push(
      await outcome(
        () => cache.wrap(`oom-${i}`, () => ({ n: i, load: ++loads }), { ttl: 60, tags: TAGS }),
        (value) => {
          if (value.n !== i) wrongValues++;
          return 'served';
        },
      ),
    );
    cacheSet.push(
      await outcome(
        () => cache.set(`oom-set-${i}`, { i }, { ttl: 60, tags: TAGS }),
        (w) => (w ? 'written' : 'skipped'),
      ),
    );
    cacheHot.push(
      await outcome(
        () => cache.get('hot'),
        (v) => (v === undefined ? 'miss' : 'hit'),
      ),
    );
    for (const [name, policy] of Object.entries(POLICIES)) {
      const decision = (d: { allowed: boolean; source: string }): string => `${d.allowed ? 'allowed' : 'denied'} (${d.source})`;
      (limiterOpen[name] ??= []).push(await outcome(() => limiter.consume(`oom-${i}`, policy, { failOpen: true }), decision));
      (limiterClosed[name] ??= []).push(await outcome(() => limiter.consume(`oom-c-${i}`, policy, { failOpen: false }), decision));
      // An identity that already has state: its script updates existing keys.
      (limiterClosed[name] ??= []).push(await outcome(() => limiter.consume('warm', policy, { failOpen: false }), decision));
    }
    lockOutcomes.push(
      await outcome(
        () => locks.tryAcquire(`oom-${i}`, { ttlMs: 5000 }),
        (l) => (l ? 'lock handed out' : 'held by another'),
      ),
    );
    lockOutcomes.push(
      await outcome(
        () =>
          locks.using(
            `oom-u-${i}`,
            () => {
              bodiesRun++;
            },
            { ttlMs: 5000, waitMs: 50 },
          ),
        () => 'lock handed out (using)',
      ),
    );
    streamOutcomes.push(
      await outcome(
        () => streams.add('oom', { i: String(i) }),
        () => 'added',
      ),
    );
    others['leaderboard incr'].push(
      await outcome(
        () => app.get(Leaderboard).incr('oom', `m${i}`),
        () => 'written',
      ),
    );
    others['capped-list push'].push(
      await outcome(
        () => app.get(CappedList).push('oom', `i${i}`),
        () => 'written',
      ),
    );
    others['session create'].push(
      await outcome(
        () => app.get(SessionStore).create({ i }),
        () => 'written',
      ),
    );
    others['unique-counter add'].push(
      await outcome(
        () => app.get(UniqueCounter).add('oom', `i${i}`),
        () => 'written',
      ),
    );
  }
  return {
    loads,
    wrongValues,
    bodiesRun,
    cacheWrap,
    cacheSet,
    cacheHot,
    lockOutcomes,
    streamOutcomes,
    limiterOpen,
    limiterClosed,
    others,
    cacheStats: cache.stats(),
  };
}

const list = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

export const oomScenario: Scenario = {
  id: 'OOM',
  title: 'memory full (maxmemory, noeviction): every feature follows its policy, nothing half-written',
  deadlineMs: 30_000,
  quickDeadlineMs: 20_000,
  async run(context) {
    const calls = context.quick ? 50 : 200;
    const server = await ownStandalone(context, 'oom');
    const admin = new Redis(server.url);
    admin.on('error', () => undefined);
    context.defer(() => admin.disconnect());
    const app = await ownApp(context, { connection: server.url, keyPrefix: PREFIX });
    const before = await everyFeatureWorks(app, 'before');
    if (before.length > 0) throw new Error(`features fail before any fault: ${before.join('; ')}`);
    await app.get(CacheService).set('hot', { hot: true }, { ttl: 600 });
    for (const policy of Object.values(POLICIES)) await app.get(RateLimiterService).consume('warm', policy);

    const filled = await fill(admin);
    const probe = await admin.set('oom-probe', '1').then(
      () => 'accepted',
      (error: unknown) => classOf(error),
    );
    if (probe !== 'OOM reply') throw new Error(`the filled server still accepts writes (${probe})`);
    const keysBefore = await snapshot(admin);
    context.log(`filled with ${filled.keys} × 16 KB, maxmemory ${mb(filled.maxmemory)} MB; ${calls} calls of every feature`);
    const run = await underOom(context, app, calls);
    const keysAfter = await snapshot(admin);
    const created = [...keysAfter.keys()].filter((key) => !keysBefore.has(key));
    const problems = await halfWritten(admin, keysAfter);

    await admin.config('SET', 'maxmemory', '0');
    // An OOM reply is an answer, not an outage: nothing keeps any feature off Redis once it accepts writes again.
    const recoveryBoundMs = 2000;
    let after: string[] = [];
    let attempt = 0;
    const recoveryMs = await waitUntil(
      async () => (after = await everyFeatureWorks(app, `after-${attempt++}`)).length === 0,
      recoveryBoundMs,
      'every feature to work again',
    ).catch(() => undefined);

    const wrap = tally(run.cacheWrap);
    const set = tally(run.cacheSet);
    const locksOut = tally(run.lockOutcomes);
    const streamsOut = tally(run.streamOutcomes);
    const open = Object.values(run.limiterOpen).flat();
    const closed = Object.values(run.limiterClosed).flat();
    const openCounts = tally(open);
    const closedCounts = tally(closed);
    const cacheErrors = [...run.cacheWrap, ...run.cacheSet, ...run.cacheHot].filter((o) => o.startsWith('error')).length;
    const handedOut = run.lockOutcomes.filter((o) => o.startsWith('lock handed out')).length;
    Object.assign(context.figures, {
      fill: filled,
      cache: { wrap, set, hot: tally(run.cacheHot), loads: run.loads, stats: run.cacheStats },
      limiter: {
        open: Object.fromEntries(Object.entries(run.limiterOpen).map(([k, v]) => [k, tally(v)])),
        closed: Object.fromEntries(Object.entries(run.limiterClosed).map(([k, v]) => [k, tally(v)])),
      },
      lock: locksOut,
      stream: streamsOut,
      others: Object.fromEntries(Object.entries(run.others).map(([k, v]) => [k, tally(v)])),
      created,
      problems,
      after,
      recoveryMs,
    });

    const checks: Check[] = [
      check(
        'CONN-7',
        `cache under OOM (${calls} tagged wraps, sets and reads): write skipped and the source served — 0 errors to callers, every wrap answered with the source's value`,
        `errors ${cacheErrors}; wrap: ${list(wrap)} (${run.wrongValues} wrong values, ${run.loads} source loads); set: ${list(set)}; cache errors absorbed ${run.cacheStats.errors}`,
        cacheErrors === 0 && run.wrongValues === 0 && wrap.served === calls && set.written === undefined,
      ),
      check(
        'CONN-7 RL-3',
        `fail-open limiters under OOM (${Object.keys(POLICIES).length} algorithms × ${calls}): every call admitted, no error`,
        list(openCounts),
        open.length > 0 && open.every((o) => o.startsWith('allowed')) && (openCounts['allowed (fail-open)'] ?? 0) > 0,
      ),
      check(
        'CONN-7 RL-3',
        `fail-closed limiters under OOM (${Object.keys(POLICIES).length} algorithms × ${calls} new + ${calls} existing identities): RateLimitDeniedError (unavailable), never admitted without Redis`,
        list(closedCounts),
        closed.length > 0 &&
          closed.every((o) => o === 'error: RateLimitDeniedError(unavailable)' || o.endsWith('(redis)')) &&
          (closedCounts['error: RateLimitDeniedError(unavailable)'] ?? 0) > 0,
      ),
      check(
        'CONN-7 LOCK-9',
        `lock acquire under OOM (${calls} tryAcquire + ${calls} using): fails closed with LockNotAcquiredError, never a lock handed out, no locked work run`,
        `${list(locksOut)}; locked work run ${run.bodiesRun}`,
        run.lockOutcomes.length === 2 * calls &&
          handedOut === 0 &&
          run.bodiesRun === 0 &&
          run.lockOutcomes.every((o) => o.startsWith('error: LockNotAcquiredError')),
      ),
      check(
        'CONN-7',
        `stream add under OOM (${calls}): the producer gets the error, no entry id`,
        list(streamsOut),
        run.streamOutcomes.length === calls && (streamsOut['error: OOM reply'] ?? 0) === calls,
      ),
      check(
        'CONN-7',
        'nothing half-written (SCAN before/after: no lock without its fencing counter, no cache entry outside its tag sets, no key but a stream without a TTL)',
        `${created.length} keys created under OOM${created.length ? ` (${created.slice(0, 3).join(', ')})` : ''}; ${problems.length} incomplete${problems.length ? `: ${problems.slice(0, 3).join('; ')}` : ''}`,
        problems.length === 0,
      ),
      check(
        'CONN-7',
        `never crash the process: once maxmemory is lifted every feature works again in the same process, no restart, within ${recoveryBoundMs} ms`,
        recoveryMs !== undefined
          ? `cache, lock, 5 limiters, stream, leaderboard, capped list, session, unique counter all work after ${Math.round(recoveryMs)} ms`
          : `still failing: ${after.join('; ')}`,
        recoveryMs !== undefined,
      ),
      figure(
        'CONN-7',
        'other writes under OOM (outcome: count)',
        Object.entries(run.others)
          .map(([k, v]) => `${k}: ${list(tally(v))}`)
          .join('; '),
      ),
      figure('CONN-7', 'cache reads of an entry written before the OOM', list(tally(run.cacheHot))),
      figure(
        'CONN-7',
        'keys created under OOM, by kind (complete, see above): a script whose first write does not add memory (e.g. a trim) may write the rest',
        list(tally(created.map((key) => key.replace(/\{[^}]*\}/, '{…}')))) || 'none',
      ),
    ];
    await app.close();
    return checks;
  },
};
