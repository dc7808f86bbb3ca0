import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CacheLoadTimeoutError, CacheService, InvalidOptionsError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { uniquePrefix, waitFor } from '../../support/redis-env';
// The cache's store, an internal, by relative path: the spec watches instance B meet A's fill lock.
import { CacheRuntime } from '../../../libs/redis-patterns/src/cache/cache.runtime';

/** An application with the cache on `backend`, under `prefix`; `cache` options added to the spec's defaults. */
async function startCache(backend: BackendName, prefix: string, cache: Record<string, unknown> = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RedisPatternsModule.forRoot({
        connection: connectionOf(backend),
        keyPrefix: prefix,
        cache: { defaultTtl: 30, lockTtlMs: 2000, lockWaitMs: 2000, graceRetryMs: 300, ...cache },
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/** A loader the test finishes by hand, counting its calls. */
function controlledLoader<T>() {
  let calls = 0;
  let finish: (value: T) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const loader = () => {
    calls++;
    return new Promise<T>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return {
    loader,
    get calls() {
      return calls;
    },
    finish: (value: T) => finish(value),
    fail: (error: Error) => fail(error),
  };
}

const failing = () => Promise.reject(new Error('data source down'));

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('a cache that survives its loader, on %s', (backend) => {
  let app: INestApplication;
  let cache: CacheService;
  let inspect: KeyInspector;
  const prefix = uniquePrefix(`cache-grace-${backend}`);
  const entry = (key: string) => `${prefix}:cache:{${key}}`;

  /** Stores `value` with a 1 ms fresh TTL and a grace window, then waits until the server says it is past fresh. */
  async function expiredIntoGrace(key: string, value: unknown, graceMs = 60_000): Promise<void> {
    await cache.wrap(key, () => value, { ttlMs: 1, graceMs });
    await waitFor(
      async () => (await inspect.pttl(entry(key))) <= graceMs,
      2000,
      () => `${key} past its fresh TTL`,
    );
  }

  beforeAll(async () => {
    app = await startCache(backend, prefix);
    cache = app.get(CacheService);
    inspect = inspectKeys(backend, app);
  });

  afterAll(async () => {
    await app?.close();
    inspect?.close();
  });

  it('keeps an entry for its grace window past the fresh TTL (one TTL in Redis)', async () => {
    const written = Date.now();
    await cache.wrap('kept', () => 'v', { ttlMs: 10_000, graceMs: 50_000 });
    const pttl = await inspect.pttl(entry('kept'));
    // Jitter may cut up to 10% of the fresh TTL (1 s), never of the grace window; the clock has used the rest.
    expect(pttl).toBeGreaterThan(59_000 - (Date.now() - written) - 5);
    expect(pttl).toBeLessThanOrEqual(60_000);
    expect(await inspect.get(entry('kept'))).toMatch(/^1::0g50000:/);
  });

  it('answers a failing loader with the grace value (stale), and tries the loader again only after graceRetryMs', async () => {
    await expiredIntoGrace('profile', { name: 'Ada' });
    let calls = 0;
    const broken = () => {
      calls++;
      return failing();
    };
    const before = cache.stats().graceAnswers;
    expect(await cache.wrapWithStatus('profile', broken, { ttlMs: 1000, graceMs: 60_000 })).toEqual({
      value: { name: 'Ada' },
      status: 'stale',
    });
    // Within the retry interval the grace value answers without calling the failing source again.
    expect(await cache.wrapWithStatus('profile', broken, { ttlMs: 1000, graceMs: 60_000 })).toEqual({
      value: { name: 'Ada' },
      status: 'stale',
    });
    expect(calls).toBe(1);
    expect(cache.stats().graceAnswers - before).toBe(2);
    // Once it has passed, the loader runs again; a success replaces the entry.
    await waitFor(
      async () =>
        (await cache.wrapWithStatus('profile', async () => ({ name: 'Grace' }), { ttlMs: 10_000, graceMs: 60_000 })).status === 'miss',
      3000,
      () => 'the loader tried again after graceRetryMs',
    );
    expect(await cache.wrapWithStatus('profile', broken, { graceMs: 60_000 })).toEqual({ value: { name: 'Grace' }, status: 'hit' });
  });

  it('lets the loader error through without a grace window, and when there is no value to answer with', async () => {
    await expiredIntoGrace('no-grace-call', 'old');
    // The entry has a grace window, but this call does not ask for one: the error is the caller's.
    await expect(cache.wrap('no-grace-call', failing, { graceMs: 0 })).rejects.toThrow('data source down');
    await expect(cache.wrap('never-stored', failing, { graceMs: 60_000 })).rejects.toThrow('data source down');
  });

  it('answers with the grace value at the soft timeout, and the load refreshes the entry in the background', async () => {
    await expiredIntoGrace('slow', 'old');
    const source = controlledLoader<string>();
    const answered = await cache.wrapWithStatus('slow', source.loader, { ttlMs: 10_000, graceMs: 60_000, softTimeoutMs: 50 });
    expect(answered).toEqual({ value: 'old', status: 'stale' });
    expect(source.calls).toBe(1);
    source.finish('new');
    await waitFor(
      async () => (await cache.get('slow')) === 'new',
      2000,
      () => 'the background load stored its result',
    );
    expect(await cache.wrapWithStatus('slow', source.loader, { softTimeoutMs: 50 })).toEqual({ value: 'new', status: 'hit' });
    expect(source.calls).toBe(1);
  });

  it('stops waiting at the hard timeout with CacheLoadTimeoutError; the load goes on, shared, and fills the entry', async () => {
    const source = controlledLoader<string>();
    const started = performance.now();
    const first = cache.wrap('hard', source.loader, { hardTimeoutMs: 100 });
    const second = cache.wrap('hard', source.loader, { hardTimeoutMs: 100 });
    await expect(first).rejects.toBeInstanceOf(CacheLoadTimeoutError);
    await expect(second).rejects.toMatchObject({ code: 'CACHE_LOAD_TIMEOUT', hardTimeoutMs: 100 });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(source.calls).toBe(1);
    expect(cache.stats().loadTimeouts).toBeGreaterThanOrEqual(2);
    source.finish('late');
    await waitFor(
      async () => (await cache.get('hard')) === 'late',
      2000,
      () => 'the late load filled the entry',
    );
  });

  it('answers with the grace value at the hard timeout when there is one', async () => {
    await expiredIntoGrace('hard-grace', 'kept');
    const source = controlledLoader<string>();
    expect(await cache.wrapWithStatus('hard-grace', source.loader, { graceMs: 60_000, hardTimeoutMs: 80 })).toEqual({
      value: 'kept',
      status: 'stale',
    });
    source.fail(new Error('too late anyway'));
  });

  it('forceFresh skips a fresh entry, and concurrent forced calls share one load', async () => {
    await cache.set('catalog', 'v1');
    let loads = 0;
    const loader = async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return `v${loads + 1}`;
    };
    const forced = await Promise.all(Array.from({ length: 5 }, () => cache.wrapWithStatus('catalog', loader, { forceFresh: true })));
    expect(loads).toBe(1);
    expect(forced.map((result) => result.value)).toEqual(Array(5).fill('v2'));
    expect(await cache.get('catalog')).toBe('v2');
    expect(await cache.wrapWithStatus('catalog', loader)).toEqual({ value: 'v2', status: 'hit' });
  });

  it('takes the module defaults of a call that names none', async () => {
    const defaults = await startCache(backend, prefix, { graceMs: 60_000, hardTimeoutMs: 5000, softTimeoutMs: 40 });
    // In memory each application has its own keyspace.
    const keys = inspectKeys(backend, defaults);
    try {
      const withDefaults = defaults.get(CacheService);
      await withDefaults.wrap('defaults', () => 'first', { ttlMs: 1 });
      await waitFor(
        async () => (await keys.pttl(entry('defaults'))) <= 60_000,
        2000,
        () => 'past fresh',
      );
      const source = controlledLoader<string>();
      expect(await withDefaults.wrapWithStatus('defaults', source.loader)).toEqual({ value: 'first', status: 'stale' });
      source.fail(new Error('gone'));
    } finally {
      keys.close();
      await defaults.close();
    }
  });
});

describe.each<BackendName>(['standalone', 'cluster'])('a forced refresh across instances, on %s', (backend) => {
  it('joins the load another instance is running rather than starting a second one', async () => {
    const prefix = uniquePrefix(`cache-force-${backend}`);
    const [a, b] = await Promise.all([startCache(backend, prefix), startCache(backend, prefix)]);
    try {
      await a.get(CacheService).set('report', 'old');
      const first = controlledLoader<string>();
      const second = controlledLoader<string>();
      const running = a.get(CacheService).wrap('report', first.loader, { forceFresh: true });
      await waitFor(
        () => first.calls === 1,
        2000,
        () => 'instance A loading',
      );
      // B finds A's fill lock (its store answers busy): it waits for A's result and never runs its own loader.
      const store = b.get(CacheRuntime).engine.store;
      const fillLock = store.fillLock.bind(store);
      let busy = 0;
      store.fillLock = async (...args) => {
        const reply = await fillLock(...args);
        if (reply.kind === 'busy') busy++;
        return reply;
      };
      const joined = b.get(CacheService).wrapWithStatus('report', second.loader, { forceFresh: true });
      await waitFor(
        () => busy > 0,
        2000,
        () => 'instance B waiting on A',
      );
      first.finish('fresh');
      expect(await running).toBe('fresh');
      expect((await joined).value).toBe('fresh');
      expect(second.calls).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('loader protection options at startup', () => {
  it('fails naming the option when the soft timeout is not below the hard one', async () => {
    await expect(startCache('memory', uniquePrefix('grace-options'), { softTimeoutMs: 500, hardTimeoutMs: 500 })).rejects.toThrow(
      InvalidOptionsError,
    );
    await expect(startCache('memory', uniquePrefix('grace-options'), { graceMs: -1 })).rejects.toThrow(/cache\.graceMs/);
  });
});
