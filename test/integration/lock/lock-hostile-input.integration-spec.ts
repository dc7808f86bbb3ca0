import { Controller, Get, Injectable, type INestApplication, type LoggerService } from '@nestjs/common';
import request from 'supertest';
import { Redis } from 'ioredis';
import {
  LeaderElection,
  LockNotAcquiredError,
  LockService,
  RedisRefusedError,
  SemaphoreService,
  WithLock,
  WithPermit,
} from 'nestjs-redis-patterns';
import { RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';
import { type AclUser, createAclUser } from '../connections/acl-user';
import { uniquePrefix } from '../../support/redis-env';
import { startLockApp } from './lock-test-app';

@Injectable()
class Jobs {
  runs = 0;

  @WithLock({ resource: 'refused-skip', ttlMs: 2000, onContention: 'skip' })
  async skipOnContention(): Promise<string> {
    this.runs++;
    return 'ran';
  }

  @WithPermit({ resource: 'refused-permit', permits: 2, ttlMs: 2000 })
  async withPermit(): Promise<string> {
    this.runs++;
    return 'ran';
  }
}

@Controller('refused')
class RefusedController {
  handled = 0;

  @Get()
  @WithLock({ resource: 'refused-http', ttlMs: 2000 })
  async handle(): Promise<string> {
    this.handled++;
    return 'ok';
  }
}

/** Collects what the module logs at error level. */
class ErrorLog implements LoggerService {
  readonly errors: string[] = [];
  log(): void {}
  warn(): void {}
  debug(): void {}
  verbose(): void {}
  error(message: unknown): void {
    this.errors.push(String(message));
  }
}

/** A refusal of EVALSHA for a missing permission: the command and the reply are named. */
function expectNoPermRefusal(error: unknown): void {
  expect(error).toBeInstanceOf(RedisRefusedError);
  expect(error).toMatchObject({ command: 'evalsha', reply: 'NOPERM', code: 'REDIS_REFUSED' });
  expect((error as Error).message).toMatch(/EVALSHA.*NOPERM/);
}

describe('Locks, semaphores and leader election when Redis refuses the scripts (ACL without @scripting)', () => {
  let user: AclUser;
  let app: INestApplication;
  const log = new ErrorLog();

  beforeAll(async () => {
    user = await createAclUser('lock-noscript', ['~*', '&*', '+@all']);
    app = await startLockApp(
      { connection: user.url, keyPrefix: uniquePrefix('lock-refused'), logger: log },
      { providers: [Jobs], controllers: [RefusedController] },
    );
    await app.listen(0, '127.0.0.1');
    // Taken away at runtime: the startup check passed, as it would before an operator tightened the ACL.
    await user.change(['-@scripting']);
  });
  afterAll(async () => {
    await app?.close();
    await user?.remove();
  });

  it('tryAcquire and acquire reject with the RedisRefusedError, not "unavailable", and do not wait out waitMs', async () => {
    const locks = app.get(LockService);
    expectNoPermRefusal(await locks.tryAcquire('refused-try').catch((e: unknown) => e));
    const started = Date.now();
    expectNoPermRefusal(await locks.acquire('refused-wait', { waitMs: 10_000 }).catch((e: unknown) => e));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(locks.heldLocks()).toHaveLength(0);
  });

  it('using() rejects with the refusal and never runs the work (fail closed)', async () => {
    let ran = false;
    const error = await app
      .get(LockService)
      .using('refused-using', () => {
        ran = true;
      })
      .catch((e: unknown) => e);
    expectNoPermRefusal(error);
    expect(ran).toBe(false);
  });

  it('read-write leases reject with the refusal', async () => {
    expectNoPermRefusal(
      await app
        .get(LockService)
        .readWrite('refused-rw')
        .read(() => 1)
        .catch((e: unknown) => e),
    );
  });

  it('@WithLock does not take a refusal for contention (onContention: skip still throws) and @WithPermit throws it', async () => {
    const jobs = app.get(Jobs);
    expectNoPermRefusal(await jobs.skipOnContention().catch((e: unknown) => e));
    expectNoPermRefusal(await jobs.withPermit().catch((e: unknown) => e));
    expect(jobs.runs).toBe(0);
  });

  it('answers a @WithLock HTTP handler with 503 without the refusal details, and never runs the handler', async () => {
    const response = await request(app.getHttpServer()).get('/refused');
    expect(response.status).toBe(503);
    expect(JSON.stringify(response.body)).not.toMatch(/NOPERM|EVALSHA|lock-noscript/i);
    expect(app.get(RefusedController).handled).toBe(0);
  });

  it('semaphores reject with the refusal', async () => {
    const semaphores = app.get(SemaphoreService);
    expectNoPermRefusal(await semaphores.tryAcquire('refused-sem', 3).catch((e: unknown) => e));
    expectNoPermRefusal(await semaphores.acquire('refused-sem', 3, { waitMs: 5000 }).catch((e: unknown) => e));
  });

  it('leader election stays a follower and logs the refusal at error level, once per interval', async () => {
    const election = app.get(LeaderElection);
    const before = log.errors.length;
    expect(await election.campaign('refused-role', { ttlMs: 1000, renewEveryMs: 100 })).toBe(false);
    expect(election.isLeader('refused-role')).toBe(false);
    const logged = log.errors.slice(before).filter((m) => m.includes('refused-role'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/EVALSHA.*NOPERM/);
    await election.resign('refused-role');
  });
});

describe('Locks on a key of another type (WRONGTYPE)', () => {
  let app: INestApplication;
  let other: Redis;
  const prefix = uniquePrefix('lock-wrongtype');

  beforeAll(async () => {
    app = await startLockApp({ connection: process.env.REDIS_URL_STANDALONE!, keyPrefix: prefix });
    other = new Redis(process.env.REDIS_URL_STANDALONE!);
  });
  afterAll(async () => {
    await app?.close();
    await other?.del(`${prefix}:lock:{wrongtype}:fence`);
    other?.disconnect();
  });

  it('rejects with a RedisRefusedError naming WRONGTYPE rather than reporting Redis unavailable', async () => {
    // Another client wrote a hash where the lock keeps its fencing counter.
    await other.hset(`${prefix}:lock:{wrongtype}:fence`, 'field', 'value');
    const error = await app
      .get(LockService)
      .tryAcquire('wrongtype')
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(LockNotAcquiredError);
    expect(error).toBeInstanceOf(RedisRefusedError);
    expect((error as Error).message).toMatch(/WRONGTYPE/);
  });
});

describe('Locks with lock.waitReplicas when Redis refuses WAIT (an ACL without it)', () => {
  let user: AclUser;
  let app: INestApplication;
  let admin: Redis;
  const prefix = uniquePrefix('lock-nowait');

  beforeAll(async () => {
    user = await createAclUser('lock-nowait', ['~*', '&*', '+@all', '-wait']);
    app = await startLockApp({ connection: user.url, keyPrefix: prefix, lock: { waitReplicas: 1, waitReplicasTimeoutMs: 50 } });
    admin = new Redis(process.env.REDIS_URL_STANDALONE!);
  });
  afterAll(async () => {
    await app?.close();
    await user?.remove();
    await admin?.del(`${prefix}:lock:{refused-wait}:fence`);
    admin?.disconnect();
  });

  it('rejects with a RedisRefusedError naming WAIT (a configuration error, not "unavailable") and gives the lock back', async () => {
    const locks = app.get(LockService);
    const error = await locks.tryAcquire('refused-wait').catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(LockNotAcquiredError);
    expect(error).toBeInstanceOf(RedisRefusedError);
    expect(error).toMatchObject({ command: 'wait', reply: 'NOPERM', code: 'REDIS_REFUSED' });
    expect(locks.heldLocks()).toHaveLength(0);
    // The script ran before WAIT was refused: the lease it wrote was released, not left to expire.
    expect(await admin.exists(`${prefix}:lock:{refused-wait}`)).toBe(0);
    // Health names the refusal until WAIT is allowed again; then, with no replica to acknowledge, the lock is
    // refused for replication (an answer, not a configuration error) and health is up.
    const health = app.get(RedisPatternsHealthIndicator);
    const down = await health.check('redis');
    expect(down.redis.status).toBe('down');
    expect(down.redis.connections.default.error).toMatch(/WAIT.*NOPERM/);
    await user.change(['+wait']);
    await expect(locks.tryAcquire('refused-wait')).rejects.toMatchObject({ reason: 'replication' });
    expect((await health.check('redis')).redis.status).toBe('up');
  });
});
