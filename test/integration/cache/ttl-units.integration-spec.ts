import { Injectable, type INestApplication, type Provider } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import {
  CachePut,
  CacheService,
  Cacheable,
  InvalidArgumentError,
  InvalidOptionsError,
  RedisPatternsModule,
  type CacheOptions,
} from 'nestjs-redis-patterns';
import { RecordingLogger } from '../../contexts/recording-logger';
import { connectionFor, rawClient, uniquePrefix } from '../../support/redis-env';

@Injectable()
class Catalog {
  @Cacheable({ key: 'catalog:ms', ttlMs: 1500 })
  async inMs(): Promise<string> {
    return 'ms';
  }

  @Cacheable({ key: 'catalog:stale-ms', ttlMs: 1500, staleTtlMs: 2000 })
  async staleInMs(): Promise<string> {
    return 'stale';
  }

  @CachePut({ key: 'catalog:put-ms', ttlMs: 1500 })
  async putInMs(): Promise<string> {
    return 'put';
  }
}

/** Methods whose seconds TTLs read like ms (and some that do not). */
@Injectable()
class Habits {
  @Cacheable({ key: 'habit:minute', ttl: 60_000 })
  async minute(): Promise<number> {
    return 1;
  }

  @CachePut({ key: 'habit:stale', ttl: 30, staleTtl: 5000 })
  async stale(): Promise<number> {
    return 1;
  }

  @Cacheable({ key: 'habit:hour', ttl: 3600, staleTtl: 86_400 })
  async hour(): Promise<number> {
    return 1;
  }

  @Cacheable({ key: 'habit:meant', ttlMs: 60_000_000 })
  async meant(): Promise<number> {
    return 1;
  }
}

async function start(prefix: string, cache: CacheOptions, providers: Provider[], logger?: RecordingLogger): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: prefix, logger, cache })],
    providers,
  }).compile();
  const app = moduleRef.createNestApplication();
  try {
    await app.init();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/** The error `start` rejects with (the test fails if it starts). */
async function startupError(cache: CacheOptions, providers: Provider[] = []): Promise<unknown> {
  const started = await start(uniquePrefix('ttlbad'), cache, providers).then(
    async (app) => app.close().then(() => 'started'),
    (error: unknown) => error,
  );
  expect(started).not.toBe('started');
  return started;
}

describe('TTLs in ms: ttlMs, staleTtlMs, defaultTtlMs', () => {
  const prefix = uniquePrefix('ttlms');
  let app: INestApplication;
  let admin: Redis;
  const pttl = (key: string) => admin.pttl(`${prefix}:cache:{${encodeURIComponent(key)}}`);
  /**
   * Checks a key's PTTL against the TTL written since `writtenFrom` (performance.now() before the write): at most the
   * TTL, and at least what is left of it by the clock, so a TTL rounded to whole seconds (1000 or 2000 for 1500) fails
   * whenever the check runs within half a second of the write, and a loaded machine cannot fail a correct one.
   */
  const expectTtlLeft = async (key: string, ttlMs: number, writtenFrom: number) => {
    const left = await pttl(key);
    const elapsed = Math.ceil(performance.now() - writtenFrom);
    expect(left).toBeLessThanOrEqual(ttlMs);
    expect(left).toBeGreaterThanOrEqual(ttlMs - elapsed - 1);
  };

  beforeAll(async () => {
    admin = rawClient('standalone') as Redis;
    app = await start(prefix, { defaultTtlMs: 1500, jitter: 0 }, [Catalog]);
  });
  afterAll(async () => {
    await app?.close();
    admin?.disconnect();
  });

  it('set, setMany and wrap write an entry whose PTTL is at most ttlMs', async () => {
    const cache = app.get(CacheService);
    const writtenFrom = performance.now();
    expect(await cache.set('set-ms', 'v', { ttlMs: 1500 })).toBe(true);
    expect(await cache.setMany([{ key: 'many-ms', value: 'v', options: { ttlMs: 1500 } }])).toEqual([true]);
    expect(await cache.wrap('wrap-ms', () => 'v', { ttlMs: 1500 })).toBe('v');
    for (const key of ['set-ms', 'many-ms', 'wrap-ms']) await expectTtlLeft(key, 1500, writtenFrom);
  });

  it('defaultTtlMs is the TTL of a write that names none', async () => {
    const writtenFrom = performance.now();
    await app.get(CacheService).set('default-ms', 'v');
    await expectTtlLeft('default-ms', 1500, writtenFrom);
  });

  it('@Cacheable and @CachePut take ttlMs, and staleTtlMs extends the entry by its stale window', async () => {
    const catalog = app.get(Catalog);
    const writtenFrom = performance.now();
    expect(await catalog.inMs()).toBe('ms');
    expect(await catalog.putInMs()).toBe('put');
    expect(await catalog.staleInMs()).toBe('stale');
    for (const key of ['catalog:ms', 'catalog:put-ms']) await expectTtlLeft(key, 1500, writtenFrom);
    await expectTtlLeft('catalog:stale-ms', 3500, writtenFrom);
  });

  it('a call giving both spellings, or ms that are not a whole number, is refused naming the option', async () => {
    const cache = app.get(CacheService);
    await expect(cache.set('both', 'v', { ttl: 1, ttlMs: 1000 })).rejects.toMatchObject({
      constructor: InvalidArgumentError,
      argument: 'options.ttlMs',
      message: expect.stringContaining('either ttl (seconds) or ttlMs, not both'),
    });
    await expect(cache.wrap('both', () => 'v', { staleTtl: 1, staleTtlMs: 1000 })).rejects.toMatchObject({
      argument: 'options.staleTtlMs',
    });
    await expect(cache.setMany([{ key: 'k', value: 'v', options: { ttlMs: 1.5 } }])).rejects.toMatchObject({
      argument: 'entries[0].options.ttlMs',
    });
    expect(await admin.exists(`${prefix}:cache:{both}`, `${prefix}:cache:{k}`)).toBe(0);
  });
});

describe('both spellings of one TTL fail startup naming them', () => {
  it('cache.defaultTtl with cache.defaultTtlMs', async () => {
    const error = await startupError({ defaultTtl: 60, defaultTtlMs: 60_000 });
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('cache.defaultTtlMs');
    expect((error as Error).message).toContain('either cache.defaultTtl (seconds) or cache.defaultTtlMs, not both');
  });

  it.each([
    [{ ttl: 60, ttlMs: 60_000 }, '@Cacheable(BothTtls.find).ttlMs'],
    [{ staleTtl: 60, staleTtlMs: 60_000 }, '@Cacheable(BothTtls.find).staleTtlMs'],
    [{ ttlMs: 0 }, '@Cacheable(BothTtls.find).ttlMs'],
  ])('%j on a decorator fails startup naming %s', async (options, option) => {
    @Injectable()
    class BothTtls {
      @Cacheable(options)
      async find(): Promise<number> {
        return 1;
      }
    }
    const error = await startupError({}, [BothTtls]);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe(option);
  });
});

describe('a seconds TTL that reads like ms is logged once at startup', () => {
  const logger = new RecordingLogger();
  let app: INestApplication;
  const unitWarnings = () => logger.at('warn').filter((message) => message.includes(' is seconds ('));

  beforeAll(async () => {
    app = await start(uniquePrefix('ttlhabit'), { defaultTtl: 60_000 }, [Habits], logger);
  });
  afterAll(() => app?.close());

  it('names the option, the decorator and method, and the reading', () => {
    const warnings = unitWarnings();
    expect(warnings).toEqual(
      expect.arrayContaining([
        'cache.defaultTtl: 60000 is seconds (16.7 h); for 60 s write defaultTtl: 60 or defaultTtlMs: 60000. ' +
          'If 16.7 h is meant, write defaultTtlMs: 60000000 (ms spellings are not checked)',
        '@Cacheable(Habits.minute).ttl: 60000 is seconds (16.7 h); for 60 s write ttl: 60 or ttlMs: 60000. ' +
          'If 16.7 h is meant, write ttlMs: 60000000 (ms spellings are not checked)',
        expect.stringMatching(
          /^@CachePut\(Habits\.stale\)\.staleTtl: 5000 is seconds \(1\.4 h\); for 5 s write staleTtl: 5 or staleTtlMs: 5000\./,
        ),
      ]),
    );
    // 3600 s, 86400 s and an ms spelling are what they say: no warning.
    expect(warnings).toHaveLength(3);
    expect(warnings.join('\n')).not.toMatch(/Habits\.(hour|meant)/);
  });

  it('a call with such a TTL is logged once, however often it is made', async () => {
    const cache = app.get(CacheService);
    for (let i = 0; i < 3; i++) await cache.set(`habit:${i}`, i, { ttl: 300_000 });
    await cache.set('habit:fine', 1, { ttl: 300 });
    const calls = unitWarnings().filter((message) => message.startsWith('CacheService.'));
    expect(calls).toEqual([
      'CacheService.set options.ttl: 300000 is seconds (3.5 d); for 5 min write ttl: 300 or ttlMs: 300000. ' +
        'If 3.5 d is meant, write ttlMs: 300000000 (ms spellings are not checked)',
    ]);
  });
});
