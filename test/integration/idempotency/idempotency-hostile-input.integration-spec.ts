import { randomUUID } from 'node:crypto';
import { Controller, Headers, type INestApplication, type LoggerService, Post } from '@nestjs/common';
import request from 'supertest';
import { Idempotent, InvalidOptionsError } from 'nestjs-redis-patterns';
import { IdempotencyRuntime } from '../../../libs/redis-patterns/src/idempotency/idempotency.runtime';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';
import { startIdempotencyApp } from './idempotency-test-app';

const runs = new Map<string, number>();
const count = (name: string) => {
  const n = (runs.get(name) ?? 0) + 1;
  runs.set(name, n);
  return n;
};

type Req = { headers: Record<string, string | undefined> };

@Controller('hostile')
class HostileController {
  /** No identity: every caller shares the key space (warned at startup). */
  @Post('unscoped')
  @Idempotent()
  unscoped(@Headers('idempotency-key') key: string, @Headers('x-user') user: string): { user: string; run: number } {
    return { user, run: count(`unscoped:${key}`) };
  }

  /** Shared on purpose: no warning. */
  @Post('shared')
  @Idempotent({ identity: false })
  shared(@Headers('idempotency-key') key: string): { run: number } {
    return { run: count(`shared:${key}`) };
  }

  /** Scoped by a header that may be missing or empty. */
  @Post('scoped')
  @Idempotent({ identity: (req: Req) => (req.headers['x-user'] === 'null' ? (null as unknown as string) : req.headers['x-user']) })
  scoped(@Headers('idempotency-key') key: string, @Headers('x-user') user: string): { user: string; run: number } {
    return { user, run: count(`scoped:${user}:${key}`) };
  }

  /** A result of `size` characters. */
  @Post('large')
  @Idempotent({ identity: false })
  large(@Headers('idempotency-key') key: string, @Headers('x-size') size: string): { run: number; blob: string } {
    return { run: count(`large:${key}`), blob: 'x'.repeat(Number(size)) };
  }
}

function recordingLogger(): LoggerService & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, log: () => undefined, error: () => undefined, warn: (message: unknown) => void warnings.push(String(message)) };
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('@Idempotent hostile input on %s', (backend) => {
  const prefix = uniquePrefix(`idem-hostile-${backend}`);
  const logger = recordingLogger();
  let app: INestApplication;
  let keys: KeyInspector;

  beforeAll(async () => {
    app = await startIdempotencyApp(
      { connection: connectionOf(backend), keyPrefix: prefix, logger, idempotency: { maxRecordBytes: 4096 } },
      { controllers: [HostileController] },
    );
    keys = inspectKeys(backend, app);
  });

  afterAll(async () => {
    keys?.close();
    await app?.close();
  });

  const post = (path: string, key: string, headers: Record<string, string> = {}) => {
    let req = request(app.getHttpServer()).post(`/hostile/${path}`).set('Idempotency-Key', key);
    for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
    return req.timeout(10_000);
  };

  it('warns at startup, naming each HTTP handler without an identity, and not those with identity false or a function', () => {
    const unscoped = logger.warnings.filter((w) => /identity/.test(w));
    expect(unscoped.some((w) => w.includes('HostileController.unscoped'))).toBe(true);
    expect(unscoped.some((w) => /HostileController\.(shared|scoped|large)\b/.test(w))).toBe(false);
  });

  it('refuses (400) a request whose identity function finds no caller, instead of using the shared key space', async () => {
    const key = randomUUID();
    const alice = await post('scoped', key, { 'X-User': 'alice' });
    expect(alice.status).toBe(201);
    for (const headers of [{}, { 'X-User': '' }, { 'X-User': 'null' }] as Array<Record<string, string>>) {
      const anonymous = await post('scoped', key, headers);
      expect(anonymous.status).toBe(400);
      expect(anonymous.body.message).toMatch(/identity/);
      expect(anonymous.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(runs.get(`scoped:undefined:${key}`)).toBeUndefined();
    expect(runs.get(`scoped::${key}`)).toBeUndefined();
    expect(runs.get(`scoped:alice:${key}`)).toBe(1);
  });

  it('stores nothing above maxRecordBytes, releases the claim so a retry runs again, and warns once', async () => {
    const key = randomUUID();
    const first = await post('large', key, { 'X-Size': '20000' });
    expect(first.status).toBe(201);
    expect(first.body.blob).toHaveLength(20_000);
    const record = app.get(IdempotencyRuntime).recordKey('HostileController.large', undefined, key);
    expect(await keys.exists(record)).toBe(0);
    const retry = await post('large', key, { 'X-Size': '20000' });
    expect(retry.body.run).toBe(2);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const warnings = logger.warnings.filter((w) => w.includes('maxRecordBytes'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/HostileController\.large/);
    // A small result is still stored and replayed.
    const small = randomUUID();
    await post('large', small, { 'X-Size': '10' });
    const replay = await post('large', small, { 'X-Size': '10' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await keys.keysWithoutTtl(prefix)).toEqual([]);
  });
});

describe('idempotency.maxRecordBytes at startup', () => {
  const start = async (options: object, logger = recordingLogger()) => {
    try {
      const app = await startIdempotencyApp(
        { connection: connectionOf('standalone'), keyPrefix: uniquePrefix('idem-max'), logger, ...options },
        { controllers: [HostileController] },
      );
      return { app, logger };
    } catch (error) {
      return { error, logger };
    }
  };

  it.each([0, -1, 1.5, '4096', Number.NaN])('fails startup naming the option for %p', async (value) => {
    const { error, app } = await start({ idempotency: { maxRecordBytes: value } });
    await app?.close();
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('idempotency.maxRecordBytes');
  });

  it("defaults to the cache's maxValueBytes", async () => {
    const { app, error } = await start({ cache: { maxValueBytes: 2048 } });
    expect(error).toBeUndefined();
    try {
      const key = randomUUID();
      const post = () =>
        request(app!.getHttpServer()).post('/hostile/large').set('Idempotency-Key', key).set('X-Size', '3000').timeout(10_000);
      expect((await post()).status).toBe(201);
      expect((await post()).body.run).toBe(2);
    } finally {
      await app?.close();
    }
  });
});
