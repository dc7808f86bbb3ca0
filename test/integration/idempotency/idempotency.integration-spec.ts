import { randomUUID } from 'node:crypto';
import { Controller, Headers, type INestApplication, type INestMicroservice, Injectable, Post, Res } from '@nestjs/common';
import { type ClientProxy, ClientProxyFactory, MessagePattern, Transport } from '@nestjs/microservices';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { firstValueFrom, timeout } from 'rxjs';
import request from 'supertest';
import {
  Idempotent,
  IdempotencyKeyReusedError,
  IdempotencyService,
  IdempotencyNotClaimedError,
  InvalidOptionsError,
  RedisPatternsModule,
} from 'nestjs-redis-patterns';
import { UnsupportedHandlerError } from '../../../libs/redis-patterns/src/errors/unsupported-handler.error';
import { IdempotencyRuntime } from '../../../libs/redis-patterns/src/idempotency/idempotency.runtime';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from '../../../libs/redis-patterns/src/idempotency/idempotency.store';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { connectionFor, freeLoopbackPort, privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';
import { gates, Ledger, PaymentsController, runsOf, startIdempotencyApp } from './idempotency-test-app';

const LOCK_TTL_MS = 600;
const TTL_MS = 60_000;

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('@Idempotent on %s', (backend) => {
  const prefix = uniquePrefix(`idem-${backend}`);
  // Two application instances share one Redis; in memory each process is its own world, so one instance.
  const instances = backend === 'memory' ? 1 : 2;
  let apps: INestApplication[] = [];
  let inspector: KeyInspector;

  beforeAll(async () => {
    const options = { connection: connectionOf(backend), keyPrefix: prefix, idempotency: { defaultTtlMs: TTL_MS, lockTtlMs: LOCK_TTL_MS } };
    for (let i = 0; i < instances; i++)
      apps.push(await startIdempotencyApp(options, { controllers: [PaymentsController], providers: [Ledger] }));
    inspector = inspectKeys(backend, apps[0]);
  });

  afterAll(async () => {
    inspector?.close();
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
  });

  // Requests alternate between the instances.
  const http = (i = 0) => request(apps[i % apps.length].getHttpServer());
  const recordKey = (scope: string, key: string, identity?: string) => apps[0].get(IdempotencyRuntime).recordKey(scope, identity, key);
  const pay = (key: string, amount: number, i = 0) =>
    http(i).post('/idem/pay').set('Idempotency-Key', key).send({ amount }).timeout(15_000);

  it('runs 100 concurrent duplicates (onConcurrent wait) exactly once: every caller gets the same result', async () => {
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => pay(key, 10, i)));
    expect(runsOf(`pay:${key}`)).toBe(1);
    expect(responses.map((r) => r.status)).toEqual(Array(100).fill(202));
    expect(new Set(responses.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(responses[0].body).toMatchObject({ paid: 10, run: 1 });
    expect(responses.every((r) => r.headers.location === `/payments/${key}`)).toBe(true);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(99);
  });

  it('answers concurrent duplicates with 409 and Retry-After at once with onConcurrent reject; the handler runs once', async () => {
    const key = randomUUID();
    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        http(i).post('/idem/pay-reject').set('Idempotency-Key', key).send({ amount: 3 }).timeout(15_000),
      ),
    );
    expect(runsOf(`reject:${key}`)).toBe(1);
    const ok = responses.filter((r) => r.status === 201);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(ok.length + conflicts.length).toBe(100);
    expect(ok.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(ok.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(conflicts.length).toBeGreaterThan(0);
    for (const conflict of conflicts) {
      expect(Number(conflict.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(conflict.body).toMatchObject({ statusCode: 409 });
    }
    // Nobody waited: the whole burst is answered in about one handler run.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('replays a later duplicate: same status, safe headers and body, marked replayed, never the cookie', async () => {
    const key = randomUUID();
    const first = await pay(key, 25, 0);
    expect(first.status).toBe(202);
    expect(first.headers['set-cookie']).toEqual(['session=first-caller']);
    expect(first.headers['x-trace']).toBe('not-replayed');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The draft's form of the header (a quoted Structured Field String) names the same key as the bare token.
    const again = await pay(`"${key}"`, 25, 1);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(`/payments/${key}`);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.headers['x-trace']).toBeUndefined();
    expect(runsOf(`pay:${key}`)).toBe(1);
    // Stored with the result TTL, replacing the shorter in-progress one.
    const ttl = await inspector.pttl(recordKey('PaymentsController.pay', key));
    expect(ttl).toBeGreaterThan(LOCK_TTL_MS);
    expect(ttl).toBeLessThanOrEqual(TTL_MS);
  });

  it('refuses the same key with a different body (422) and leaves the stored result alone', async () => {
    const key = randomUUID();
    const first = await pay(key, 40);
    const reused = await pay(key, 41, 1);
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ statusCode: 422 });
    const replay = await pay(key, 40, 1);
    expect(replay.body).toEqual(first.body);
    expect(runsOf(`pay:${key}`)).toBe(1);
  });

  it('does not store a failing first call: the claim is removed and a retry runs', async () => {
    const key = randomUUID();
    const failed = await http(0).post('/idem/flaky').set('Idempotency-Key', key).timeout(5000);
    expect(failed.status).toBe(500);
    expect(await inspector.exists(recordKey('PaymentsController.flaky', key))).toBe(0);
    const retried = await http(1).post('/idem/flaky').set('Idempotency-Key', key).timeout(5000);
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual({ ok: true, run: 2 });
    const replayed = await http(0).post('/idem/flaky').set('Idempotency-Key', key).timeout(5000);
    expect(replayed.body).toEqual({ ok: true, run: 2 });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(runsOf(`flaky:${key}`)).toBe(2);
  });

  it('stores and replays an HttpException with storeFailures', async () => {
    const key = randomUUID();
    const first = await http(0).post('/idem/declined').set('Idempotency-Key', key).timeout(5000);
    const again = await http(1).post('/idem/declined').set('Idempotency-Key', key).timeout(5000);
    expect([first.status, again.status]).toEqual([402, 402]);
    expect(again.body).toEqual(first.body);
    expect(again.body).toMatchObject({ message: 'card declined', run: 1 });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(runsOf(`declined:${key}`)).toBe(1);
  });

  it('runs a request without the header normally, and refuses it (400) where the key is required or malformed', async () => {
    const before = runsOf('flaky:undefined');
    const plain = [await http(0).post('/idem/flaky').timeout(5000), await http(1).post('/idem/flaky').timeout(5000)];
    expect(runsOf('flaky:undefined')).toBe(before + 2); // both ran, unguarded
    expect(plain.every((r) => r.headers['idempotent-replayed'] === undefined)).toBe(true);
    const missing = await http(0).post('/idem/required').timeout(5000);
    expect(missing.status).toBe(400);
    const malformed = await http(0).post('/idem/required').set('Idempotency-Key', '"a", "b"').timeout(5000);
    expect(malformed.status).toBe(400);
    expect(runsOf('required:undefined') + runsOf('required:"a", "b"')).toBe(0);
  });

  it('scopes keys by the caller identity: two callers never share or collide on a key', async () => {
    const key = randomUUID();
    const send = (user: string, body: object) =>
      http(0).post('/idem/per-user').set('Idempotency-Key', key).set('X-User', user).send(body).timeout(5000);
    const alice = await send('alice', { item: 1 });
    const bob = await send('bob', { item: 2 }); // another payload under the same key: not a reuse, another caller
    expect([alice.status, bob.status]).toEqual([201, 201]);
    expect(bob.body).toMatchObject({ user: 'bob', run: 1 });
    const aliceAgain = await send('alice', { item: 1 });
    expect(aliceAgain.body).toEqual(alice.body);
    expect(aliceAgain.headers['idempotent-replayed']).toBe('true');
    expect((await send('alice', { item: 3 })).status).toBe(422);
  });

  it('lets a retry run once a crashed first call (claimed, never completed) passes the in-progress TTL', async () => {
    const store = apps[0].get<IdempotencyStore>(IDEMPOTENCY_STORE);
    // A process that claimed the key and died: nobody refreshes or completes its claim.
    const rejectKey = randomUUID();
    expect(await store.claim(recordKey('PaymentsController.payOrReject', rejectKey), 'dead-process', '', LOCK_TTL_MS)).toEqual({
      state: 'claimed',
    });
    const ttl = await inspector.pttl(recordKey('PaymentsController.payOrReject', rejectKey));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LOCK_TTL_MS);
    const busy = await http(1).post('/idem/pay-reject').set('Idempotency-Key', rejectKey).send({ amount: 1 }).timeout(5000);
    expect(busy.status).toBe(409);
    let retried: request.Response | undefined;
    await waitFor(
      async () =>
        (retried = await http(1).post('/idem/pay-reject').set('Idempotency-Key', rejectKey).send({ amount: 1 }).timeout(5000)).status ===
        201,
      5000,
      () => 'a retry to run after the dead claim expired',
    );
    expect(retried!.headers['idempotent-replayed']).toBeUndefined();
    expect(runsOf(`reject:${rejectKey}`)).toBe(1);

    // With onConcurrent wait, the duplicate waits for the dead claim to expire, then runs itself.
    const waitKey = randomUUID();
    await store.claim(recordKey('PaymentsController.pay', waitKey), 'dead-process', '', LOCK_TTL_MS);
    const started = Date.now();
    const waited = await pay(waitKey, 7, 1);
    expect(waited.status).toBe(202);
    expect(waited.headers['idempotent-replayed']).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(LOCK_TTL_MS - 100);
    expect(runsOf(`pay:${waitKey}`)).toBe(1);
  });

  it('keeps the claim of a first call that runs longer than the in-progress TTL: duplicates never run beside it', async () => {
    const key = randomUUID();
    let open!: () => void;
    gates.set(key, new Promise<void>((resolve) => (open = resolve)));
    const long = () => http(1).post('/idem/long').set('Idempotency-Key', key).timeout(10_000);
    // then() sends it: a supertest request is lazy.
    const first = long().then((response) => response);
    await waitFor(
      () => runsOf(`long:${key}`) === 1,
      5000,
      () => 'the first call to start',
    );
    const started = Date.now();
    // Duplicates keep arriving for three in-progress TTLs: the heartbeat keeps the claim, each one is refused.
    let duplicates = 0;
    while (Date.now() - started < 3 * LOCK_TTL_MS) {
      const duplicate = await http(duplicates).post('/idem/long').set('Idempotency-Key', key).timeout(5000);
      expect(duplicate.status).toBe(409);
      const ttl = await inspector.pttl(recordKey('PaymentsController.long', key));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(LOCK_TTL_MS);
      duplicates++;
    }
    expect(duplicates).toBeGreaterThan(3);
    open();
    expect((await first).status).toBe(201);
    const replay = await long();
    expect(replay.body).toEqual({ run: 1 });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(runsOf(`long:${key}`)).toBe(1);
  });

  it('makes a provider method idempotent by a key function of its arguments', async () => {
    const id = randomUUID();
    const ledgers = apps.map((app) => app.get(Ledger));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => ledgers[i % ledgers.length].credit('acct-1', { id, amount: 12 })),
    );
    expect(runsOf(`credit:acct-1:${id}`)).toBe(1);
    for (const result of results) {
      expect(result).toEqual(results[0]);
      // The cache's value codec keeps typed values through the replay.
      expect(result.at).toBeInstanceOf(Date);
      expect(result.cents).toBe(1200n);
    }
    await expect(ledgers[0].credit('acct-1', { id, amount: 13 })).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    await ledgers[0].credit('acct-2', { id, amount: 12 });
    expect(runsOf(`credit:acct-2:${id}`)).toBe(1);
  });

  it('runs work once per key through IdempotencyService.execute', async () => {
    const service = apps[apps.length - 1].get(IdempotencyService);
    let calls = 0;
    const key = randomUUID();
    const values = await Promise.all(Array.from({ length: 10 }, () => service.execute(key, async () => ++calls, { scope: 'jobs' })));
    expect(values).toEqual(Array(10).fill(1));
    expect(calls).toBe(1);
    await expect(service.execute(key, async () => ++calls, { scope: 'jobs', fingerprint: 'other' })).resolves.toBe(1);
    expect(await service.execute(key, async () => ++calls, { scope: 'other-jobs' })).toBe(2);
  });

  it('leaves no key without a TTL (invariant 1)', async () => {
    expect((await inspector.keys(prefix)).length).toBeGreaterThan(10);
    expect(await inspector.keysWithoutTtl(prefix)).toEqual([]);
  });
});

describe('@Idempotent on Fastify (real HTTP)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await startIdempotencyApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('idem-fastify'), idempotency: { lockTtlMs: LOCK_TTL_MS } },
      { controllers: [PaymentsController] },
      new FastifyAdapter(),
    );
  });

  afterAll(() => app?.close());

  it('replays status, headers and body, refuses a reused key (422) and a concurrent duplicate (409)', async () => {
    const key = randomUUID();
    const http = () => request(app.getHttpServer());
    const [first, concurrent] = await Promise.all([
      http().post('/idem/pay').set('Idempotency-Key', key).send({ amount: 9 }).timeout(5000),
      http().post('/idem/pay').set('Idempotency-Key', key).send({ amount: 9 }).timeout(5000),
    ]);
    expect([first.status, concurrent.status]).toEqual([202, 202]);
    expect(concurrent.body).toEqual(first.body);
    const later = await http().post('/idem/pay').set('Idempotency-Key', key).send({ amount: 9 }).timeout(5000);
    expect(later.status).toBe(202);
    expect(later.body).toEqual(first.body);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.headers.location).toBe(`/payments/${key}`);
    expect(later.headers['content-type']).toBe(first.headers['content-type']);
    expect(later.headers['set-cookie']).toBeUndefined();
    expect(runsOf(`pay:${key}`)).toBe(1);
    const reused = await http().post('/idem/pay').set('Idempotency-Key', key).send({ amount: 10 }).timeout(5000);
    expect(reused.status).toBe(422);

    const busyKey = randomUUID();
    const [a, b] = await Promise.all([
      http().post('/idem/pay-reject').set('Idempotency-Key', busyKey).send({ amount: 1 }).timeout(5000),
      http().post('/idem/pay-reject').set('Idempotency-Key', busyKey).send({ amount: 1 }).timeout(5000),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect(Number((a.status === 409 ? a : b).headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('@Idempotent startup checks', () => {
  const start = (options: object, classes: Parameters<typeof startIdempotencyApp>[1]) =>
    startIdempotencyApp({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('idem-startup'), ...options }, classes).then(
      (app) => app.close().then(() => undefined),
      (error: unknown) => error,
    );

  it('fails startup naming the option: a provider method without a key function', async () => {
    @Injectable()
    class NoKey {
      @Idempotent()
      async run(): Promise<void> {}
    }
    const error = await start({}, { providers: [NoKey] });
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('@Idempotent(NoKey.run).key');
  });

  it('fails startup naming the option: invalid decorator values', async () => {
    @Injectable()
    class BadOptions {
      @Idempotent({ key: (id: string) => id, onConcurrent: 'queue' as 'wait' })
      async run(_id: string): Promise<void> {}
    }
    const error = await start({}, { providers: [BadOptions] });
    expect((error as InvalidOptionsError).option).toBe('@Idempotent(BadOptions.run).onConcurrent');

    @Injectable()
    class BadTtl {
      @Idempotent({ key: (id: string) => id, ttlMs: 0 })
      async run(_id: string): Promise<void> {}
    }
    expect(((await start({}, { providers: [BadTtl] })) as InvalidOptionsError).option).toBe('@Idempotent(BadTtl.run).ttlMs');
  });

  it('fails startup naming the option: an invalid idempotency section', async () => {
    const error = await start({ idempotency: { defaultTtlMs: 1000, lockTtlMs: 5000 } }, {});
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('idempotency.lockTtlMs');
    const header = await start({ idempotency: { replayHeaders: ['set-cookie'] } }, {});
    expect((header as InvalidOptionsError).option).toBe('idempotency.replayHeaders[0]');
  });

  it('fails startup for a handler that sends its own response, which cannot be replayed', async () => {
    @Controller('sends-itself')
    class SendsItself {
      @Post()
      @Idempotent()
      send(@Res() res: { send(body: string): void }): void {
        res.send('done');
      }
    }
    const error = await start({}, { controllers: [SendsItself] });
    expect(error).toBeInstanceOf(UnsupportedHandlerError);
    expect((error as Error).message).toContain('SendsItself.send');
  });
});

@Controller()
class ChargesRpcController {
  runs = 0;

  @MessagePattern('charge')
  @Idempotent({ key: (payload: { chargeId: string }) => payload.chargeId, onConcurrent: 'reject' })
  async charge(payload: { chargeId: string; amount: number }): Promise<{ chargeId: string; amount: number; nonce: string }> {
    this.runs++;
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { chargeId: payload.chargeId, amount: payload.amount, nonce: randomUUID() };
  }
}

describe('@Idempotent on a microservice message pattern (real TCP ClientProxy)', () => {
  let app: INestMicroservice;
  let client: ClientProxy;
  const send = (data: unknown): Promise<unknown> => firstValueFrom(client.send('charge', data).pipe(timeout(5000)));
  const failure = (data: unknown): Promise<Record<string, unknown>> =>
    send(data).then(
      (value) => Promise.reject(new Error(`expected an error reply, got ${JSON.stringify(value)}`)),
      (error: unknown) => error as Record<string, unknown>,
    );

  beforeAll(async () => {
    const port = await freeLoopbackPort();
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('cluster'), keyPrefix: uniquePrefix('idem-rpc') })],
      controllers: [ChargesRpcController],
    }).compile();
    app = moduleRef.createNestMicroservice({ transport: Transport.TCP, options: { host: '127.0.0.1', port }, logger: false });
    await app.listen();
    client = ClientProxyFactory.create({ transport: Transport.TCP, options: { host: '127.0.0.1', port } });
    await client.connect();
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it('runs a charge once per key: a concurrent duplicate gets the RPC form of 409, a later one the stored reply, another payload 422', async () => {
    const chargeId = randomUUID();
    const [first, concurrent] = await Promise.all([send({ chargeId, amount: 5 }), failure({ chargeId, amount: 5 })]);
    expect(first).toMatchObject({ chargeId, amount: 5 });
    expect(concurrent).toMatchObject({ status: 409, error: 'IdempotencyNotClaimedError' });
    expect(concurrent.retryAfterMs).toBeGreaterThan(0);
    await expect(send({ chargeId, amount: 5 })).resolves.toEqual(first);
    await expect(failure({ chargeId, amount: 6 })).resolves.toMatchObject({ status: 422, error: 'IdempotencyKeyReusedError' });
    expect(app.get(ChargesRpcController).runs).toBe(1);
  });
});

@Controller('outage')
class OutageController {
  runs = { closed: 0, open: 0 };

  @Post('closed')
  @Idempotent()
  closed(@Headers('idempotency-key') _key: string): { ok: true } {
    this.runs.closed++;
    return { ok: true };
  }

  @Post('open')
  @Idempotent({ failOpen: true })
  open(@Headers('idempotency-key') _key: string): { ok: true } {
    this.runs.open++;
    return { ok: true };
  }
}

// A private server: freezing the shared one would disturb every other spec.
describe('@Idempotent while Redis is frozen (SIGSTOP)', () => {
  const TIMEOUT_MS = 300;
  let server: RedisServerProcess;
  let app: INestApplication;

  beforeAll(async () => {
    server = await privateServer();
    app = await startIdempotencyApp(
      { connection: server.url, keyPrefix: uniquePrefix('idem-outage'), commandTimeoutMs: TIMEOUT_MS },
      { controllers: [OutageController] },
    );
    server.freeze();
  });

  afterAll(async () => {
    server?.resume();
    await app?.close();
    await server?.stop();
  });

  it('fails closed by default (503, the handler does not run), and runs unguarded with failOpen', async () => {
    const controller = app.get(OutageController);
    const started = Date.now();
    const closed = await request(app.getHttpServer()).post('/outage/closed').set('Idempotency-Key', 'k1').timeout(5000);
    expect(closed.status).toBe(503);
    expect(closed.headers['retry-after']).toBe('1');
    expect(controller.runs.closed).toBe(0);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2000);
    const open = await request(app.getHttpServer()).post('/outage/open').set('Idempotency-Key', 'k2').timeout(5000);
    expect(open.status).toBe(201);
    expect(controller.runs.open).toBe(1);
    await expect(app.get(IdempotencyService).execute('k3', () => 1)).rejects.toMatchObject({
      constructor: IdempotencyNotClaimedError,
      reason: 'unavailable',
      code: 'IDEMPOTENCY_NOT_CLAIMED',
    });
  });
});
