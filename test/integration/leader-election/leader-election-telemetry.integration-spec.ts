import { Injectable } from '@nestjs/common';
import { context, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { LeaderElection, RunOnLeader } from 'nestjs-redis-patterns';
import { type BackendName, connectionOf } from '../../support/backends';
import { uniquePrefix } from '../../support/redis-env';
import { startLockApp } from '../lock/lock-test-app';
import { LEASE } from './leader-election-app';

/** A reader the test collects from when it wants (the SDK's pull path, no exporter or timer). */
class CollectingReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

describe.each<BackendName>(['standalone', 'memory'])('leader election metrics on %s', (backend) => {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });

  beforeAll(() => metrics.setGlobalMeterProvider(provider));
  afterAll(async () => {
    metrics.disable();
    await provider.shutdown();
  });

  async function points(name: string): Promise<Array<DataPoint<number | Histogram>>> {
    const { resourceMetrics } = await reader.collect();
    const scope = resourceMetrics.scopeMetrics.find((s) => s.scope.name === 'nestjs-redis-patterns');
    return (scope?.metrics.find((m) => m.descriptor.name === name)?.dataPoints ?? []) as Array<DataPoint<number | Histogram>>;
  }

  async function value(name: string, attributes: Record<string, string>): Promise<number | undefined> {
    const found = (await points(name)).find((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
    if (!found) return undefined;
    return typeof found.value === 'number' ? found.value : found.value.count;
  }

  it('counts terms gained and ended by resource, times terms, and reports who leads on a gauge', async () => {
    const app = await startLockApp({ connection: connectionOf(backend), keyPrefix: uniquePrefix(`le-otel-${backend}`) });
    try {
      const election = app.get(LeaderElection);
      expect(await election.campaign('jobs', LEASE)).toBe(true);
      expect(await value('redis_patterns.leader_election.term_changes', { resource: 'jobs', change: 'gained' })).toBe(1);
      expect(await value('redis_patterns.leader_election.leader', { resource: 'jobs' })).toBe(1);

      await election.resign('jobs');
      expect(await value('redis_patterns.leader_election.term_changes', { resource: 'jobs', change: 'resigned' })).toBe(1);
      expect(await value('redis_patterns.leader_election.term.duration', { resource: 'jobs' })).toBe(1);
      expect(await value('redis_patterns.leader_election.leader', { resource: 'jobs' })).toBe(0);

      await election.campaign('jobs', LEASE);
      for (const point of await points('redis_patterns.leader_election.term_changes')) {
        expect(Object.keys(point.attributes).sort()).toEqual(['change', 'resource']);
      }
    } finally {
      await app.close();
    }
    expect(await value('redis_patterns.leader_election.term_changes', { resource: 'jobs', change: 'shutdown' })).toBe(1);
  });
});

/** A job whose second run resigns the resource while it runs: its term ends mid-run. */
@Injectable()
class Nightly {
  constructor(private readonly election: LeaderElection) {}

  @RunOnLeader('nightly', LEASE)
  async run(resignMidway = false): Promise<string> {
    if (resignMidway) await this.election.resign('nightly');
    return 'done';
  }
}

describe('leader election spans (memory)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    trace.disable();
    context.disable();
    await provider.shutdown();
  });

  it('traces a @RunOnLeader run inside a trace only, and marks a run whose term ended', async () => {
    const app = await startLockApp({ connection: connectionOf('memory'), keyPrefix: uniquePrefix('le-trace') }, { providers: [Nightly] });
    try {
      const nightly = app.get(Nightly);
      const runs = () => exporter.getFinishedSpans().filter((span) => span.name === 'redis_patterns.leader_election.run');
      expect(await nightly.run()).toBe('done');
      expect(runs()).toHaveLength(0); // a scheduler tick outside any trace adds no root span

      const tracer = trace.getTracer('test');
      await tracer.startActiveSpan('tick', async (parent) => {
        await nightly.run();
        await nightly.run(true);
        parent.end();
      });
      const [completed, ended] = runs();
      expect(completed.attributes).toMatchObject({
        'code.function.name': 'Nightly.run',
        'redis_patterns.leader_election.resource': 'nightly',
        'redis_patterns.leader_election.outcome': 'completed',
      });
      expect(completed.status.code).toBe(SpanStatusCode.UNSET);
      expect(ended.attributes['redis_patterns.leader_election.outcome']).toBe('term_ended');
      expect(ended.status.code).toBe(SpanStatusCode.ERROR);
      expect(ended.events.map((event) => [event.name, event.attributes])).toEqual([
        ['redis_patterns.leader_election.term_ended', { 'redis_patterns.leader_election.end_reason': 'resigned' }],
      ]);
      // After resigning, calls are skipped.
      expect(await nightly.run()).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
