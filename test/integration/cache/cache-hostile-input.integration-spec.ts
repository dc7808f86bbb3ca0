import { Controller, Get, Injectable, type INestApplication, type LoggerService, Param } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { CacheService, Cacheable, InvalidOptionsError, RedisPatternsModule, RedisRefusedError } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { connectionFor, uniquePrefix, waitFor } from '../../support/redis-env';
import { type AclUser, createAclUser } from '../connections/acl-user';
import { CapturingLogger } from '../../support/capturing-logger';
// The key escaper, an internal, by relative path: the attacker's key is what it makes of the victim's.
import { escapeKeyPart } from '../../../libs/redis-patterns/src/core/keys/escape-key-part';

/** A filter whose state is private: invisible to any encoding of its own properties. */
class ReportFilter {
  readonly #tenant: string;
  constructor(tenant: string) {
    this.#tenant = tenant;
  }
  get tenant(): string {
    return this.#tenant;
  }
}

/** The same, with a toJSON() saying what identifies it. */
class TenantQuery {
  readonly #tenant: string;
  constructor(tenant: string) {
    this.#tenant = tenant;
  }
  get tenant(): string {
    return this.#tenant;
  }
  toJSON(): { tenant: string } {
    return { tenant: this.#tenant };
  }
}

@Injectable()
class ReportsService {
  runs = 0;

  @Cacheable({ ttl: 30 })
  async search(query: string): Promise<string> {
    this.runs++;
    return `results for ${query}`;
  }

  @Cacheable({ ttl: 30 })
  async report(filter: ReportFilter): Promise<string> {
    this.runs++;
    return `report of tenant ${filter.tenant}`;
  }

  @Cacheable({ ttl: 30 })
  async tenantReport(query: TenantQuery): Promise<string> {
    this.runs++;
    return `report of tenant ${query.tenant}`;
  }

  @Cacheable({ ttl: 30 })
  async page(url: URL): Promise<string> {
    this.runs++;
    return `page ${url.pathname}`;
  }

  @Cacheable({ ttl: 30 })
  async matching(pattern: RegExp): Promise<string> {
    this.runs++;
    return `matching ${pattern.source} #${this.runs}`;
  }
}

@Controller('items')
class ItemsController {
  served = 0;

  @Get(':id')
  @Cacheable({ ttl: 30 })
  async item(@Param('id') id: string): Promise<{ id: string; n: number }> {
    return { id, n: ++this.served };
  }
}

async function start(
  connection: ReturnType<typeof connectionOf>,
  prefix: string,
  cache: Record<string, unknown>,
  logger: LoggerService,
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot({ connection, keyPrefix: prefix, logger, cache: { jitter: 0, ...cache } })],
    providers: [ReportsService],
    controllers: [ItemsController],
  }).compile();
  const app = moduleRef.createNestApplication();
  await app.init();
  return app;
}

// A 275-character key, such as a query string, of characters that need no escaping: long enough to be shortened, so
// its key part is a readable head and a digest, which an attacker can compute and send as a key of its own.
const VICTIM_KEY = `search-q=${'long-query&page=2&'.repeat(20)}`.slice(0, 275);

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('cache under hostile input on %s', (backend) => {
  const prefix = uniquePrefix(`cache-hostile-${backend}`);
  const logger = new CapturingLogger();
  let app: INestApplication;
  let cache: CacheService;
  let reports: ReportsService;
  let inspect: KeyInspector;

  beforeAll(async () => {
    app = await start(connectionOf(backend), prefix, {}, logger);
    cache = app.get(CacheService);
    reports = app.get(ReportsService);
    inspect = inspectKeys(backend, app);
  });

  afterAll(async () => {
    await app?.close();
    inspect?.close();
  });

  const entryKeys = async (): Promise<string[]> => (await inspect.keys(`${prefix}:cache:`)).filter((key) => key.endsWith('}')).sort();

  describe('key escaping', () => {
    it('gives a long key and its shortened form, sent verbatim as a key, their own entries (wrap, either order)', async () => {
      expect(VICTIM_KEY).toHaveLength(275);
      const forged = escapeKeyPart(VICTIM_KEY);
      expect(forged.length).toBeLessThan(VICTIM_KEY.length);

      // Victim first, then the attacker sending the victim's shortened part as its own key.
      expect(await cache.wrap(VICTIM_KEY, async () => 'victim data')).toBe('victim data');
      expect(await cache.wrap(forged, async () => 'attacker data')).toBe('attacker data');
      expect(await cache.wrap(VICTIM_KEY, async () => 'reloaded')).toBe('victim data');
      expect(await cache.get(forged)).toBe('attacker data');
      expect(await cache.get(VICTIM_KEY)).toBe('victim data');
      // The victim's entry sits under its shortened part; the attacker's key escapes to something else.
      expect(await inspect.get(`${prefix}:cache:{${forged}}`)).toContain('victim data');
      expect((await entryKeys()).length).toBe(2);

      // Attacker first: its planted value never reaches the victim.
      const victim2 = `${VICTIM_KEY.slice(0, 274)}!`;
      const forged2 = escapeKeyPart(victim2);
      expect(await cache.wrap(forged2, async () => 'planted')).toBe('planted');
      expect(await cache.wrap(victim2, async () => 'victim 2 data')).toBe('victim 2 data');
      expect(await cache.get(victim2)).toBe('victim 2 data');
      expect(await cache.get(forged2)).toBe('planted');
      await cache.del(VICTIM_KEY, forged, victim2, forged2);
    });

    it("keeps '\\u2028' and ' 28' apart (wrap)", async () => {
      expect(await cache.wrap('\u2028', async () => 'line separator')).toBe('line separator');
      expect(await cache.wrap(' 28', async () => 'space 28')).toBe('space 28');
      expect(await cache.get('\u2028')).toBe('line separator');
      expect(await cache.get(' 28')).toBe('space 28');
      await cache.del('\u2028', ' 28');
    });

    it('keeps such arguments apart in @Cacheable default keys', async () => {
      const forged = escapeKeyPart(VICTIM_KEY);
      expect(await reports.search(VICTIM_KEY)).toBe(`results for ${VICTIM_KEY}`);
      expect(await reports.search(forged)).toBe(`results for ${forged}`);
      expect(await reports.search(escapeKeyPart(JSON.stringify(VICTIM_KEY)))).toBe(
        `results for ${escapeKeyPart(JSON.stringify(VICTIM_KEY))}`,
      );
      expect(await reports.search('\u2028')).toBe('results for \u2028');
      expect(await reports.search(' 28')).toBe('results for  28');
      const runs = reports.runs;
      // Every one of them is cached under its own key: asked again, none runs.
      expect(await reports.search(VICTIM_KEY)).toBe(`results for ${VICTIM_KEY}`);
      expect(await reports.search(forged)).toBe(`results for ${forged}`);
      expect(await reports.search(' 28')).toBe('results for  28');
      expect(await reports.search('\u2028')).toBe('results for \u2028');
      expect(reports.runs).toBe(runs);
    });

    it('clears a namespace holding shortened keys', async () => {
      const long = `ns:${VICTIM_KEY}`;
      expect(await cache.set(long, 'v')).toBe(true);
      expect(await cache.set('ns-other', 'kept')).toBe(true);
      expect(await cache.clear('ns:')).toBe(1);
      expect(await cache.get(long)).toBeUndefined();
      expect(await cache.get('ns-other')).toBe('kept');
    });
  });

  describe('default @Cacheable keys of non-plain arguments', () => {
    it('gives tenants with private-state filters their own results: such a call runs uncached, warned once', async () => {
      const before = reports.runs;
      expect(await reports.report(new ReportFilter('A'))).toBe('report of tenant A');
      expect(await reports.report(new ReportFilter('B'))).toBe('report of tenant B');
      expect(await reports.report(new ReportFilter('A'))).toBe('report of tenant A');
      expect(await reports.report(new ReportFilter('B'))).toBe('report of tenant B');
      expect(reports.runs - before).toBe(4);
      expect((await entryKeys()).filter((key) => key.includes('ReportsService.report'))).toEqual([]);
      const warnings = logger.warnings.filter((line) => line.includes('ReportsService.report'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/@Cacheable on ReportsService\.report runs without the cache: argument 0 \(ReportFilter\)/);
    });

    it('caches arguments with toJSON() per value', async () => {
      expect(await reports.tenantReport(new TenantQuery('A'))).toBe('report of tenant A');
      expect(await reports.tenantReport(new TenantQuery('B'))).toBe('report of tenant B');
      const runs = reports.runs;
      expect(await reports.tenantReport(new TenantQuery('A'))).toBe('report of tenant A');
      expect(await reports.tenantReport(new TenantQuery('B'))).toBe('report of tenant B');
      expect(reports.runs).toBe(runs);
    });

    it('gives distinct URLs their own results, and caches each', async () => {
      expect(await reports.page(new URL('https://a/x'))).toBe('page /x');
      expect(await reports.page(new URL('https://a/y'))).toBe('page /y');
      const runs = reports.runs;
      expect(await reports.page(new URL('https://a/x'))).toBe('page /x');
      expect(await reports.page(new URL('https://a/y'))).toBe('page /y');
      expect(reports.runs).toBe(runs);
    });

    it('runs a call with a RegExp argument uncached every time, writing nothing, and warns once', async () => {
      const first = await reports.matching(/a+/);
      const second = await reports.matching(/a+/);
      const third = await reports.matching(/b/);
      expect(new Set([first, second, third]).size).toBe(3);
      expect((await entryKeys()).filter((key) => key.includes('ReportsService.matching'))).toEqual([]);
      const warnings = logger.warnings.filter((line) => line.includes('ReportsService.matching'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/argument 0 \(RegExp\)/);
    });
  });

  describe('near cache with compression', () => {
    const nearPrefix = uniquePrefix(`cache-near-z-${backend}`);
    const maxBytes = 1024 * 1024;
    let nearApp: INestApplication;
    let near: CacheService;

    beforeAll(async () => {
      nearApp = await start(
        connectionOf(backend),
        nearPrefix,
        { nearCache: { enabled: true, maxBytes }, compression: { thresholdBytes: 1024 } },
        new CapturingLogger(),
      );
      near = nearApp.get(CacheService);
      await waitFor(
        async () => near.nearStats().live,
        5000,
        () => 'the near cache to go live',
      );
    });

    afterAll(async () => {
      await nearApp?.close();
    });

    it('holds no more decoded bytes than its budget, however well the values compress', async () => {
      // 100 000 characters that compress to a few hundred bytes: 200 KB of UTF-16 each once decoded.
      const value = 'x'.repeat(100_000);
      const keys = Array.from({ length: 20 }, (_, i) => `big${i}`);
      for (const key of keys) expect(await near.set(key, value)).toBe(true);
      for (const key of keys) {
        for (let read = 0; read < 3; read++) expect(await near.get(key)).toBe(value);
      }
      const stats = near.nearStats();
      const decodedBytes = value.length * 2;
      expect(stats.entries).toBeGreaterThan(0);
      expect(stats.entries * decodedBytes).toBeLessThanOrEqual(maxBytes);
      expect(stats.bytes).toBeGreaterThanOrEqual(stats.entries * decodedBytes);
      expect(stats.bytes).toBeLessThanOrEqual(maxBytes);
    });
  });
});

describe('X-Cache status header (cache.statusHeader) on standalone', () => {
  const apps: INestApplication[] = [];

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  it('is sent by default', async () => {
    const app = await start(connectionFor('standalone'), uniquePrefix('cache-status-on'), {}, new CapturingLogger());
    apps.push(app);
    const http = request(app.getHttpServer());
    expect((await http.get('/items/1').expect(200)).headers['x-cache']).toBe('MISS');
    expect((await http.get('/items/1').expect(200)).headers['x-cache']).toBe('HIT');
  });

  it('is not sent with statusHeader: false, while responses are still cached', async () => {
    const app = await start(connectionFor('standalone'), uniquePrefix('cache-status-off'), { statusHeader: false }, new CapturingLogger());
    apps.push(app);
    const http = request(app.getHttpServer());
    const first = await http.get('/items/1').expect(200);
    const second = await http.get('/items/1').expect(200);
    expect(first.headers['x-cache']).toBeUndefined();
    expect(second.headers['x-cache']).toBeUndefined();
    expect(second.body).toEqual(first.body);
    expect(app.get(ItemsController).served).toBe(1);
  });

  it('fails startup on a value other than true or false, naming cache.statusHeader', async () => {
    const started = start(connectionFor('standalone'), uniquePrefix('cache-status-bad'), { statusHeader: 'no' }, new CapturingLogger());
    await expect(started).rejects.toThrow(InvalidOptionsError);
    await expect(started).rejects.toThrow('cache.statusHeader');
  });
});

describe('cache with a Redis user that may not run scripts or DEL (standalone)', () => {
  const logger = new CapturingLogger();
  let user: AclUser;
  let app: INestApplication;
  let cache: CacheService;

  beforeAll(async () => {
    // Permissions are taken away once the module has started (its startup check runs a script): the refusals then
    // come from the cache's own commands, as when an operator tightens an ACL under a running service.
    user = await createAclUser('cache-noscript', ['~*', '&*', '+@all']);
    app = await start(user.url, uniquePrefix('cache-refused'), { failureLogIntervalMs: 60_000 }, logger);
    cache = app.get(CacheService);
    await user.change(['-@scripting', '-del']);
  });

  afterAll(async () => {
    await app?.close();
    await user?.remove();
  });

  it('serves wrap and @Cacheable from the source, logging the refusal at error level (throttled) and counting it', async () => {
    const values = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.wrap(`refused${i}`, async () => `v${i}`)));
    expect(values).toEqual(Array.from({ length: 20 }, (_, i) => `v${i}`));
    const reports = app.get(ReportsService);
    expect(await reports.search('q')).toBe('results for q');
    const stats = cache.stats();
    expect(stats.refusals).toBeGreaterThanOrEqual(21);
    // Not an outage: nothing counted as one, nothing bypassed, and commands the user may run still go to Redis.
    expect(stats.errors).toBe(0);
    expect(stats.bypassed).toBe(0);
    expect(await cache.set('plain', 'stored')).toBe(true);
    expect(await cache.get('plain')).toBe('stored');
    const lines = logger.errors.filter((line) => line.includes('Redis refused'));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(lines[0]).toMatch(/Redis refused EVALSHA: NOPERM/);
  });

  it('throws the refusal from explicit writes instead of failing open', async () => {
    await expect(cache.set('tagged', 'v', { tags: ['t'] })).rejects.toThrow(RedisRefusedError);
    await expect(cache.set('tagged', 'v', { tags: ['t'] })).rejects.toThrow(/NOPERM/);
    await expect(cache.del('plain')).rejects.toThrow(RedisRefusedError);
    await expect(cache.invalidateTags('t')).rejects.toThrow(RedisRefusedError);
  });
});
