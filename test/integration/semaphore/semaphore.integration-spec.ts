import { performance } from 'node:perf_hooks';
import { Controller, Get, Injectable, type INestApplication, Param } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { Cluster } from 'ioredis';
import request from 'supertest';
import {
  InvalidOptionsError,
  PermitLostError,
  PermitNotAcquiredError,
  RedisConnections,
  SemaphoreService,
  WithPermit,
} from 'nestjs-redis-patterns';
import { type BackendName, connectionOf, inspectKeys, type KeyInspector } from '../../support/backends';
import { connectionFor, rawClient, uniquePrefix, waitFor } from '../../support/redis-env';
import { aborted, startLockApp } from '../lock/lock-test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Injectable()
class Renders {
  active = 0;
  maxActive = 0;
  runs = 0;

  @WithPermit({ resource: 'render', permits: 2, ttlMs: 2000, waitMs: 20_000 })
  async render(): Promise<number> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    await sleep(3);
    this.active--;
    return ++this.runs;
  }
}

@Controller('exports')
class ExportsController {
  handled = 0;

  @Get(':tenant')
  @WithPermit({ resource: (request: { params: { tenant: string } }) => `export:${request.params.tenant}`, permits: 1, ttlMs: 3000 })
  async run(@Param('tenant') tenant: string): Promise<{ tenant: string }> {
    this.handled++;
    return { tenant };
  }
}

describe.each<BackendName>(['standalone', 'cluster', 'memory'])('SemaphoreService on %s', (backend) => {
  const prefix = uniquePrefix(`semaphore-${backend}`);
  // Memory is per module instance: there the instances are one application.
  const instanceCount = backend === 'memory' ? 1 : 3;
  let apps: INestApplication[] = [];
  let semaphores: SemaphoreService;
  let admin: KeyInspector;
  const start = () =>
    startLockApp({ connection: connectionOf(backend), keyPrefix: prefix }, { providers: [Renders], controllers: [ExportsController] });

  beforeAll(async () => {
    apps = await Promise.all(Array.from({ length: instanceCount }, start));
    await apps[0].listen(0, '127.0.0.1');
    semaphores = apps[0].get(SemaphoreService);
    admin = inspectKeys(backend, apps[0]);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    admin?.close();
  });

  it(`never lets more than 3 of 32 contenders (over ${instanceCount} instance(s)) hold a 3-permit semaphore, fencing in order`, async () => {
    const permits = 3;
    const services = apps.map((app) => app.get(SemaphoreService));
    let active = 0;
    let maxActive = 0;
    let overbooked = 0;
    const holds: Array<{ fencingToken: number; calledAt: number; enteredAt: number }> = [];
    const contender = async (service: SemaphoreService) => {
      for (let i = 0; i < 3; i++) {
        const calledAt = performance.now();
        await service.using(
          'pool',
          permits,
          async (signal, permit) => {
            // Occupancy is counted here, by the test, independently of Redis: every entry is checked.
            active++;
            if (active > permits) overbooked++;
            maxActive = Math.max(maxActive, active);
            holds.push({ fencingToken: permit.fencingToken, calledAt, enteredAt: performance.now() });
            await sleep(4);
            expect(signal.aborted).toBe(false);
            active--;
          },
          { ttlMs: 5000, waitMs: 30_000 },
        );
      }
    };
    await Promise.all(Array.from({ length: 32 }, (_, i) => contender(services[i % services.length])));
    expect(overbooked).toBe(0);
    expect(maxActive).toBe(permits);
    expect(holds).toHaveLength(96);
    expect(new Set(holds.map((h) => h.fencingToken)).size).toBe(96);
    expect(holds.every((h) => Number.isSafeInteger(h.fencingToken))).toBe(true);
    // A permit asked for after another was granted gets a larger token (strictly increasing per semaphore).
    for (const a of holds) for (const b of holds) if (a.enteredAt < b.calledAt) expect(b.fencingToken).toBeGreaterThan(a.fencingToken);
    for (const service of services) expect(service.heldPermits()).toHaveLength(0);
    expect(await admin.exists(`${prefix}:semaphore:{pool}`)).toBe(0);
  });

  it('frees the permit of a holder that stopped extending (crashed) at its TTL, and lets others proceed', async () => {
    const ttlMs = 600;
    if (backend === 'memory') {
      // A holder that never extends nor releases: the permit's TTL is all that frees it.
      const stale = (await semaphores.tryAcquire('crash', 1, { ttlMs }))!;
      const startedAt = performance.now();
      const next = await semaphores.acquire('crash', 1, { ttlMs: 1000, waitMs: 5000 });
      expect(performance.now() - startedAt).toBeLessThan(ttlMs + 600);
      expect(next.fencingToken).toBeGreaterThan(stale.fencingToken);
      await next.release();
      return;
    }
    // An instance whose connections are cut abruptly while its work holds the permit: its extender can no longer
    // reach Redis, and it never releases.
    const crashed = await start();
    try {
      let entered = false;
      const holding = crashed.get(SemaphoreService).using(
        'crash',
        1,
        async (signal) => {
          entered = true;
          return aborted(signal);
        },
        { ttlMs },
      );
      await waitFor(() => entered, 5000);
      crashed.get(RedisConnections).get().disconnect();
      const cutAt = performance.now();
      await expect(crashed.get(SemaphoreService).tryAcquire('other', 1)).rejects.toMatchObject({ reason: 'unavailable' });
      const permit = await semaphores.acquire('crash', 1, { ttlMs: 1000, waitMs: 5000 });
      // At most one TTL after the last extension (before the cut), plus one backoff step.
      expect(performance.now() - cutAt).toBeLessThan(ttlMs + 700);
      // The crashed holder's own validity ran out too: its signal fired.
      expect(await holding).toBeInstanceOf(PermitLostError);
      await permit.release();
    } finally {
      await crashed.close();
    }
  });

  it('aborts the signal when the permit is removed behind its holder, and still returns the result', async () => {
    let reason: unknown;
    const result = await semaphores.using(
      'removed',
      2,
      async (signal, permit) => {
        await admin.del(permit.keys.lease);
        reason = await aborted(signal);
        return 'done';
      },
      { ttlMs: 600 },
    );
    expect(result).toBe('done');
    expect(reason).toBeInstanceOf(PermitLostError);
    expect((reason as PermitLostError).message).toMatch(/permit of semaphore "removed" was lost/);
    expect(reason).toMatchObject({ resource: 'removed', code: 'PERMIT_LOST' });
  });

  it('gives up after waitMs with a 409-able PermitNotAcquiredError, and tryAcquire answers null at once', async () => {
    const held = [(await semaphores.tryAcquire('busy', 2, { ttlMs: 5000 }))!, (await semaphores.tryAcquire('busy', 2, { ttlMs: 5000 }))!];
    expect(await semaphores.tryAcquire('busy', 2)).toBeNull();
    const startedAt = performance.now();
    const error = await semaphores.acquire('busy', 2, { ttlMs: 1000, waitMs: 200 }).catch((e: unknown) => e);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(190);
    expect(performance.now() - startedAt).toBeLessThan(1500);
    expect(error).toBeInstanceOf(PermitNotAcquiredError);
    expect(error).toMatchObject({ resource: 'busy', permits: 2, reason: 'contention' });
    expect(error).not.toHaveProperty('semaphore');
    expect((error as PermitNotAcquiredError).message).toMatch(/No permit of semaphore "busy" \(2 permits\)/);
    const answer = (error as PermitNotAcquiredError).toHttpResponse();
    expect(answer.status).toBe(409);
    expect(Number(answer.headers!['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(Number(answer.headers!['Retry-After'])).toBeLessThanOrEqual(5);
    // A release wakes a waiter of this instance at once.
    const waiting = semaphores.acquire('busy', 2, { ttlMs: 1000, waitMs: 5000 });
    await held[0].release();
    const permit = await waiting;
    expect(permit.fencingToken).toBeGreaterThan(held[1].fencingToken);
    await Promise.all([permit.release(), held[1].release()]);
  });

  it('limits a @WithPermit provider method to its permits across concurrent calls', async () => {
    const renders = apps[0].get(Renders);
    const results = await Promise.all(Array.from({ length: 20 }, () => renders.render()));
    expect(results.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(renders.maxActive).toBe(2);
  });

  it('answers 409 with Retry-After on a @WithPermit HTTP handler when no permit is free, 200 otherwise', async () => {
    const controller = apps[0].get(ExportsController);
    const before = controller.handled;
    const holder = (await semaphores.tryAcquire('export:7', 1, { ttlMs: 3000 }))!;
    const busy = await request(apps[0].getHttpServer()).get('/exports/7');
    expect(busy.status).toBe(409);
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(busy.headers['retry-after'])).toBeLessThanOrEqual(3);
    expect(controller.handled).toBe(before);
    await holder.release();
    const ok = await request(apps[0].getHttpServer()).get('/exports/7');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ tenant: '7' });
  });

  it('answers false to the release of a permit whose TTL passed while another holder keeps the set alive', async () => {
    // The expired member stays in the set until an acquisition prunes it: the release removes it all the same,
    // and tells the caller the permit was no longer theirs.
    const short = (await semaphores.tryAcquire('expiring', 2, { ttlMs: 150 }))!;
    const long = (await semaphores.tryAcquire('expiring', 2, { ttlMs: 5000 }))!;
    await waitFor(() => short.remainingMs === 0, 3000);
    expect(await short.release()).toBe(false);
    expect(await long.release()).toBe(true);
    // The last member removed, the set is gone (the fencing counter stays, with its own TTL).
    expect(await admin.pttl(short.keys.lease)).toBe(-2);
  });

  it('rejects bad arguments naming them, and writes nothing', async () => {
    await expect(semaphores.tryAcquire('', 1)).rejects.toMatchObject({ argument: 'resource' });
    await expect(semaphores.tryAcquire('bad-permits', 0)).rejects.toMatchObject({ argument: 'permits' });
    await expect(semaphores.acquire('bad-ttl', 1, { ttlMs: 0 })).rejects.toMatchObject({ argument: 'ttlMs' });
    await expect(semaphores.using('bad-work', 1, 'work' as never)).rejects.toMatchObject({ argument: 'work' });
    expect(await admin.keys(`${prefix}:semaphore:{bad`)).toEqual([]);
  });

  it('keeps a semaphore in one slot, escapes its resource, and leaves no key without a TTL', async () => {
    const permit = (await semaphores.tryAcquire('tenant:9 {x}', 4, { ttlMs: 5000 }))!;
    expect(permit.keys.lease).toBe(`${prefix}:semaphore:{tenant%3A9%20%7Bx%7D}`);
    if (backend === 'cluster') {
      const raw = rawClient('cluster') as Cluster;
      try {
        expect(await raw.cluster('KEYSLOT', permit.keys.fence)).toBe(await raw.cluster('KEYSLOT', permit.keys.lease));
      } finally {
        raw.disconnect();
      }
    }
    const pttl = await admin.pttl(permit.keys.lease);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(5000);
    expect(await admin.keysWithoutTtl(`${prefix}:`)).toEqual([]);
    expect(await admin.pttl(permit.keys.fence)).toBeGreaterThan(24 * 3600 * 1000);
    expect(await permit.release()).toBe(true);
    expect(await permit.release()).toBe(false);
  });

  it('gives back the permits an instance holds when its application closes', async () => {
    const other = await start();
    // In memory the keys are the application's own: look at them through it (its keyspace outlives close()).
    const keys = inspectKeys(backend, other);
    try {
      const permit = (await other.get(SemaphoreService).tryAcquire('held-at-close', 1, { ttlMs: 60_000 }))!;
      expect(await keys.exists(permit.keys.lease)).toBe(1);
      await other.close();
      expect(await keys.exists(permit.keys.lease)).toBe(0);
    } finally {
      keys.close();
    }
  });
});

describe('@WithPermit startup checks', () => {
  it.each([
    [{ resource: 'x', permits: 0 }, 'permits'],
    [{ resource: 'x', permits: 1.5 }, 'permits'],
    [{ resource: 'x' }, 'permits'],
    [{ resource: '', permits: 2 }, 'resource'],
    [{ resource: 'x', permits: 2, ttlMs: 0 }, 'ttlMs'],
    [{ resource: 'x', permits: 2, waitMs: -1 }, 'waitMs'],
    [{ resource: 'x', permits: 2, ttl: 5 }, 'ttl'],
  ])('fails startup on %j naming @WithPermit(Bad.run).%s', async (options, option) => {
    @Injectable()
    class Bad {
      @WithPermit(options as never)
      async run(): Promise<void> {}
    }
    const error = await startLockApp({ connection: connectionFor('standalone') }, { providers: [Bad] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe(`@WithPermit(Bad.run).${option}`);
  });

  it('fails startup on the 0.x option name, naming `resource`', async () => {
    @Injectable()
    class Renamed {
      @WithPermit({ name: 'x', permits: 2 } as never)
      async run(): Promise<void> {}
    }
    const error = await startLockApp({ connection: connectionFor('standalone') }, { providers: [Renamed] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe('@WithPermit(Renamed.run).name');
    expect((error as InvalidOptionsError).message).toContain('`resource` (`name` was renamed in 1.0)');
  });
});

describe('semaphore metrics', () => {
  class CollectingReader extends MetricReader {
    protected onShutdown(): Promise<void> {
      return Promise.resolve();
    }

    protected onForceFlush(): Promise<void> {
      return Promise.resolve();
    }
  }

  it('counts acquisitions by outcome and a permit lost while its work ran', async () => {
    const reader = new CollectingReader();
    const provider = new MeterProvider({ readers: [reader] });
    // Registered before the application is created, as OpenTelemetry's Node setup does.
    metrics.setGlobalMeterProvider(provider);
    const app = await startLockApp({ connection: 'memory://', keyPrefix: uniquePrefix('semaphore-otel') });
    const sum = async (name: string, outcome?: string) => {
      const { resourceMetrics } = await reader.collect();
      const scope = resourceMetrics.scopeMetrics.find((s) => s.scope.name === 'nestjs-redis-patterns');
      const points = scope?.metrics.find((m) => m.descriptor.name === name)?.dataPoints ?? [];
      return points.filter((p) => !outcome || p.attributes.outcome === outcome).reduce((total, p) => total + Number(p.value), 0);
    };
    const keys = inspectKeys('memory', app);
    try {
      const semaphores = app.get(SemaphoreService);
      const held = (await semaphores.tryAcquire('otel', 1, { ttlMs: 5000 }))!;
      expect(await semaphores.tryAcquire('otel', 1)).toBeNull();
      await held.release();
      await semaphores.using(
        'otel',
        1,
        async (signal, permit) => {
          await keys.del(permit.keys.lease);
          await aborted(signal);
        },
        { ttlMs: 300 },
      );
      expect(await sum('redis_patterns.semaphore.acquisitions', 'acquired')).toBe(2);
      expect(await sum('redis_patterns.semaphore.acquisitions', 'contention')).toBe(1);
      expect(await sum('redis_patterns.semaphore.losses')).toBe(1);
      expect(await sum('redis_patterns.lock.losses')).toBe(0);
    } finally {
      keys.close();
      await app.close();
      metrics.disable();
      await provider.shutdown();
    }
  });
});
