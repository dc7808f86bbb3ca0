// CONN-6 (goal G15): the slots of hot keys move between masters (SETSLOT IMPORTING/MIGRATING, MIGRATE one key at a
// time to keep the ASK/TRYAGAIN window open, SETSLOT NODE) while cache, rate-limit and lock calls hammer them; then
// SCRIPT FLUSH on every master under the same load. Callers must see no error, and no CROSSSLOT anywhere.
import { Redis } from 'ioredis';
import { CacheService, LockService, RateLimiterService } from 'nestjs-redis-patterns';
import { CaptureLogger } from '../lib/capture-logger';
import { now, pause, percentile } from '../lib/measure';
import { check, type Scenario } from '../lib/scenario';
import { ownApp, ownCluster, scanAll } from '../lib/servers';

const HOT = 5;
const LOOPS = 16;

interface Load {
  calls: number;
  errors: string[];
  latencies: number[];
  stop(): Promise<void>;
}

function startLoad(cache: CacheService, limiter: RateLimiterService, locks: LockService): Load {
  let running = true;
  const load: Load = { calls: 0, errors: [], latencies: [], stop: async () => undefined };
  const one = async (): Promise<void> => {
    const i = Math.floor(Math.random() * HOT);
    const started = now();
    try {
      switch (load.calls % 4) {
        case 0:
          await cache.wrap(`hot:${i}`, () => ({ i, at: Date.now() }), { ttl: 60 });
          break;
        case 1:
          await cache.set(`hot:${i}`, { i }, { ttl: 60, tags: [`tag${i}`] });
          break;
        case 2:
          await limiter.consume(`hot${i}`, { algorithm: 'sliding-window', limit: 100_000, windowMs: 60_000 });
          break;
        default: {
          const lock = await locks.tryAcquire(`hot:${i}`, { ttlMs: 2000 });
          await lock?.release();
        }
      }
    } catch (error) {
      load.errors.push(
        `${(error as Error).name}: ${(error as Error).message} ${String((error as { cause?: Error }).cause?.message ?? '')}`,
      );
    }
    load.calls++;
    load.latencies.push(now() - started);
  };
  const loops = Array.from({ length: LOOPS }, async () => {
    while (running) {
      await one();
      await pause(1);
    }
  });
  load.stop = async () => {
    running = false;
    await Promise.all(loops);
  };
  return load;
}

export const clusterScenario: Scenario = {
  id: 'CLUSTER',
  title: 'cluster slot migration and SCRIPT FLUSH under load',
  deadlineMs: 120_000,
  async run(context) {
    const cluster = await ownCluster(context);
    const logger = new CaptureLogger();
    const prefix = 'fcl';
    const app = await ownApp(context, {
      connection: {
        cluster: {
          nodes: cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
          options: process.env.FAULTS_NO_AUTOPIPELINE ? { enableAutoPipelining: false } : undefined,
        },
      },
      keyPrefix: prefix,
      rateLimit: { failOpen: false },
      logger,
    });
    const cache = app.get(CacheService);
    const limiter = app.get(RateLimiterService);
    const masters = cluster.masters.map((m) => new Redis(m.port));
    context.defer(() => masters.forEach((m) => m.disconnect()));
    const ids = await Promise.all(masters.map(async (m) => String(await m.call('CLUSTER', 'MYID'))));

    const load = startLoad(cache, limiter, app.get(LockService));
    context.defer(() => load.stop());
    await pause(1000);
    const cacheErrorsBefore = cache.stats().errors;

    // The hot keys' slots and their owners.
    const hotKeys = (await Promise.all(masters.map((m) => scanAll(m, `${prefix}:*`)))).flat();
    const slots = new Map<number, number>();
    for (const key of hotKeys) {
      const slot = Number(await masters[0].call('CLUSTER', 'KEYSLOT', key));
      if (slots.has(slot)) continue;
      const owner = (await Promise.all(masters.map((m) => m.call('CLUSTER', 'COUNTKEYSINSLOT', slot)))).findIndex((n) => Number(n) > 0);
      if (owner >= 0) slots.set(slot, owner);
    }
    context.log(`${hotKeys.length} hot keys in ${slots.size} slots; migrating them under load`);
    const migrationStart = now();
    let migratedKeys = 0;
    // How long each slot stays half-migrated (MIGRATING on the source until it is assigned): the window in which a
    // multi-key script on it can only get TRYAGAIN or ASK, whatever the client does.
    let longestWindowMs = 0;
    for (const [slot, from] of slots) {
      const to = (from + 1) % masters.length;
      const source = masters[from];
      const target = masters[to];
      await target.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', ids[from]);
      await source.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', ids[to]);
      const windowStart = now();
      for (;;) {
        const keys = (await source.call('CLUSTER', 'GETKEYSINSLOT', slot, 1)) as string[];
        if (keys.length === 0) break;
        await source.call('MIGRATE', '127.0.0.1', cluster.masters[to].port, '', 0, 5000, 'KEYS', ...keys);
        migratedKeys += keys.length;
        await pause(50);
      }
      // Target first, then source, then the others (the order redis-cli --cluster uses).
      await target.call('CLUSTER', 'SETSLOT', slot, 'NODE', ids[to]);
      await source.call('CLUSTER', 'SETSLOT', slot, 'NODE', ids[to]);
      longestWindowMs = Math.max(longestWindowMs, Math.round(now() - windowStart));
      for (const other of masters) if (other !== source && other !== target) await other.call('CLUSTER', 'SETSLOT', slot, 'NODE', ids[to]);
    }
    const migrationMs = Math.round(now() - migrationStart);
    await pause(1000);
    const migrationErrors = [...load.errors];
    const migrationCacheErrors = cache.stats().errors - cacheErrorsBefore;
    const p99Migration = percentile(load.latencies, 99);

    // Script caches are per node and lost on restart or failover: flush them all, five times, under load.
    const flushStart = load.errors.length;
    const cacheErrorsBeforeFlush = cache.stats().errors;
    for (let i = 0; i < 5; i++) {
      await Promise.all(masters.map((m) => m.script('FLUSH')));
      await pause(200);
    }
    await pause(500);
    await load.stop();
    const flushErrors = load.errors.slice(flushStart);
    const flushCacheErrors = cache.stats().errors - cacheErrorsBeforeFlush;
    const crossSlot = [...load.errors, ...logger.lines].filter((line) => /CROSSSLOT/.test(line)).length;
    Object.assign(context.figures, {
      calls: load.calls,
      slots: slots.size,
      migratedKeys,
      migrationMs,
      longestWindowMs,
      migrationErrors: migrationErrors.slice(0, 5),
      migrationErrorCount: migrationErrors.length,
      migrationCacheErrors,
      flushErrors: flushErrors.slice(0, 5),
      flushErrorCount: flushErrors.length,
      flushCacheErrors,
      crossSlot,
      p99Ms: p99Migration,
      distinctErrors: [...new Set([...load.errors, ...logger.lines].map((l) => l.slice(0, 200)))].slice(0, 8),
    });
    const sample = (errors: string[]) => (errors.length ? `; e.g. ${errors[0].slice(0, 160)}` : '');
    return [
      check(
        `${slots.size} hot slots (${migratedKeys} keys, one MIGRATE each) moved between masters under ${LOOPS} loops of cache/rate-limit/lock calls: caller-visible errors 0`,
        // Multi-key scripts cannot run on a half-migrated slot; they pass because ioredis retries TRYAGAIN every
        // 100 ms within the 500 ms command deadline and each slot here is half-migrated for less than that.
        `errors ${migrationErrors.length} thrown + ${migrationCacheErrors} swallowed by the fail-open cache, in ${load.calls} calls; migration ${migrationMs} ms; p99 ${p99Migration} ms; each slot half-migrated ≤ ${longestWindowMs} ms (multi-key scripts wait it out on TRYAGAIN within the 500 ms deadline; a slot half-migrated longer fails them)${sample(migrationErrors)}`,
        migrationErrors.length === 0 && migrationCacheErrors === 0,
      ),
      check('no CROSSSLOT error anywhere (errors and library logs)', `CROSSSLOT ${crossSlot}`, crossSlot === 0),
      check(
        'SCRIPT FLUSH on every master ×5 under load: no errors (NOSCRIPT path)',
        `errors ${flushErrors.length} thrown + ${flushCacheErrors} swallowed by the cache${sample(flushErrors)}`,
        flushErrors.length === 0 && flushCacheErrors === 0,
      ),
    ];
  },
};
