import { Controller, Get, Injectable, type INestApplication, Module, Param } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { LockLostError, LockNotAcquiredError, LockService, WithLock, InvalidOptionsError } from 'nestjs-redis-patterns';
import { RedisPatternsNotBoundError } from '../../../libs/redis-patterns/src/errors/redis-patterns-not-bound.error';
import { type BackendName, connectionOf } from '../../support/backends';
import { connectionFor, rawClient, uniquePrefix } from '../../support/redis-env';
import { startLockApp, yieldTurn } from './lock-test-app';

@Injectable()
class Jobs {
  active = 0;
  maxActive = 0;
  runs = 0;
  activeIds = new Set<string>();
  maxDistinct = 0;

  @WithLock({ resource: 'nightly', ttlMs: 2000, waitMs: 10_000 })
  async nightly(): Promise<number> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    for (let i = 0; i < 5; i++) await yieldTurn();
    this.active--;
    return ++this.runs;
  }

  @WithLock({ resource: 'report', ttlMs: 2000, onContention: 'skip' })
  async report(): Promise<string> {
    this.runs++;
    return 'ran';
  }

  @WithLock({ resource: 'report', ttlMs: 2000 })
  async reportOrThrow(): Promise<string> {
    this.runs++;
    return 'ran';
  }

  @WithLock({ resource: (id: string) => `order:${id}`, ttlMs: 2000 })
  async perOrder(id: string, release: Promise<void>): Promise<string> {
    this.activeIds.add(id);
    this.maxDistinct = Math.max(this.maxDistinct, this.activeIds.size);
    await release;
    this.activeIds.delete(id);
    return id;
  }
}

@Controller('orders')
class OrdersController {
  handled = 0;

  // On a handler the resource function gets the request (it runs before pipes).
  @Get(':id/capture')
  @WithLock({ resource: (request: { params: { id: string } }) => `capture:${request.params.id}`, ttlMs: 5000 })
  async capture(@Param('id') id: string): Promise<{ id: string }> {
    this.handled++;
    return { id };
  }
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('@WithLock on %s', (backend) => {
  let app: INestApplication;
  let jobs: Jobs;
  let locks: LockService;

  beforeAll(async () => {
    app = await startLockApp(
      { connection: connectionOf(backend), keyPrefix: uniquePrefix(`withlock-${backend}`) },
      { providers: [Jobs], controllers: [OrdersController] },
    );
    await app.listen(0, '127.0.0.1');
    jobs = app.get(Jobs);
    locks = app.get(LockService);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('serialises concurrent calls of a provider method across the lock', async () => {
    jobs.runs = 0;
    const results = await Promise.all(Array.from({ length: 20 }, () => jobs.nightly()));
    expect(results.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(jobs.maxActive).toBe(1);
    expect(locks.heldLocks()).toHaveLength(0);
  });

  it('skips or throws on contention as configured, without running the method', async () => {
    const holder = (await locks.tryAcquire('report', { ttlMs: 5000 }))!;
    jobs.runs = 0;
    expect(await jobs.report()).toBeUndefined();
    await expect(jobs.reportOrThrow()).rejects.toBeInstanceOf(LockNotAcquiredError);
    expect(jobs.runs).toBe(0);
    await holder.release();
    expect(await jobs.report()).toBe('ran');
    expect(jobs.runs).toBe(1);
  });

  it('derives the resource from the arguments: different orders run in parallel', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const calls = [jobs.perOrder('a', gate), jobs.perOrder('b', gate)];
    await new Promise<void>((resolve) => {
      const check = () => (jobs.activeIds.size === 2 ? resolve() : setTimeout(check, 10));
      check();
    });
    await expect(jobs.perOrder('a', Promise.resolve())).rejects.toMatchObject({ reason: 'contention' });
    open();
    expect(await Promise.all(calls)).toEqual(['a', 'b']);
    expect(jobs.maxDistinct).toBe(2);
  });

  it('answers 409 with Retry-After on an HTTP handler under contention, 200 otherwise', async () => {
    const controller = app.get(OrdersController);
    const before = controller.handled;
    const holder = (await locks.tryAcquire('capture:7', { ttlMs: 3000 }))!;
    const busy = await request(app.getHttpServer()).get('/orders/7/capture');
    expect(busy.status).toBe(409);
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(busy.headers['retry-after'])).toBeLessThanOrEqual(3);
    expect(controller.handled).toBe(before);
    await holder.release();
    const ok = await request(app.getHttpServer()).get('/orders/7/capture');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: '7' });
    expect(controller.handled).toBe(before + 1);
  });
});

describe('@WithLock startup checks', () => {
  it('fails startup naming the option when the decorator options are invalid', async () => {
    @Injectable()
    class BadTtl {
      @WithLock({ resource: 'x', ttlMs: 0 })
      async run(): Promise<void> {}
    }
    const error = await startLockApp({ connection: connectionFor('standalone') }, { providers: [BadTtl] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('@WithLock(BadTtl.run).ttlMs');
  });

  it('never runs the method when RedisPatternsModule is missing (fails closed)', async () => {
    let ran = 0;
    @Injectable()
    class Unbound {
      @WithLock({ resource: 'x', ttlMs: 1000 })
      async run(): Promise<void> {
        ran++;
      }
    }
    @Module({ providers: [Unbound] })
    class WithoutLocks {}
    // Nest creates the decorator's interceptor with the class, which it cannot without the module.
    await expect(Test.createTestingModule({ imports: [WithoutLocks] }).compile()).rejects.toBeInstanceOf(RedisPatternsNotBoundError);
    await expect(new Unbound().run()).rejects.toBeInstanceOf(RedisPatternsNotBoundError);
    expect(ran).toBe(0);
  });
});

describe('LockService.current inside @WithLock', () => {
  @Injectable()
  class Ledger {
    constructor(readonly locks: LockService) {}

    @WithLock({ resource: 'ledger', ttlMs: 2000 })
    async write(): Promise<{ fencingToken: number; aborted: boolean; resource: string }> {
      const lock = this.locks.current()!;
      return { fencingToken: lock.fencingToken, aborted: this.locks.currentSignal()!.aborted, resource: lock.resource };
    }
  }

  it('exposes the held lock (and its fencing token) to the decorated method, and nothing outside it', async () => {
    const app = await startLockApp(
      { connection: connectionFor('standalone'), keyPrefix: uniquePrefix('current') },
      { providers: [Ledger] },
    );
    try {
      const ledger = app.get(Ledger);
      const first = await ledger.write();
      const second = await ledger.write();
      expect(first).toMatchObject({ resource: 'ledger', aborted: false });
      expect(second.fencingToken).toBeGreaterThan(first.fencingToken);
      expect(ledger.locks.current()).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  @Injectable()
  class Watcher {
    constructor(readonly locks: LockService) {}

    /** Resolves with the reason its lock's signal aborted with; `started` once it runs under the lock. */
    @WithLock({ resource: 'watched', ttlMs: 400 })
    async hold(started: () => void): Promise<unknown> {
      const signal = this.locks.currentSignal()!;
      started();
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
    }
  }

  it("aborts the decorated method's currentSignal() when its lock is lost (taken away in Redis)", async () => {
    const prefix = uniquePrefix('lost');
    const app = await startLockApp({ connection: connectionFor('standalone'), keyPrefix: prefix }, { providers: [Watcher] });
    const admin = rawClient('standalone');
    try {
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const reason = app.get(Watcher).hold(started);
      await running;
      // Someone else's compare-and-delete went wrong: the key is gone, and the next extension finds it so.
      expect(await admin.del(`${prefix}:lock:{watched}`)).toBe(1);
      expect(await reason).toBeInstanceOf(LockLostError);
    } finally {
      admin.disconnect();
      await app.close();
    }
  });
});
