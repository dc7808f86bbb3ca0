import type { INestApplicationContext } from '@nestjs/common';
import Redis from 'ioredis';
import type { BenchGroup, Contender, RunResult } from '../lib/contender';
import { unavailableContender } from '../lib/contenders';
import { createOurContext, missingExports, resolveService } from '../lib/our-library';
import type { SuiteContext } from './suite-context';

interface StreamsServiceLike {
  add(stream: string, fields: Record<string, string>, options?: { maxLength?: number }): Promise<string>;
  consume(options: { stream: string; group: string; handler: (message: unknown) => unknown; batchSize?: number; blockMs?: number }): {
    stop(): Promise<void>;
  };
}

const BATCH = 100;
const FIELDS = { type: 'order.created', orderId: '123456', amount: '42.50', currency: 'EUR' };
const FLAT_FIELDS = Object.entries(FIELDS).flat();

/**
 * How many entries a run drains: sized from the last measured rate so a run lasts about `durationMs` (a stream
 * is drained completely, so the run length cannot be cut at a deadline like a closed loop).
 */
class RunSizer {
  private rate = 20_000;
  size(durationMs: number): number {
    return Math.max(2_000, Math.min(400_000, Math.round((this.rate * durationMs) / 1000)));
  }
  record(entries: number, elapsedMs: number): void {
    this.rate = (entries * 1000) / elapsedMs;
  }
}

/** Fills `key` with `count` entries through a pipeline, outside the measurement. */
async function fill(client: Redis, key: string, count: number): Promise<void> {
  for (let done = 0; done < count; done += 1000) {
    const pipeline = client.pipeline();
    for (let i = done; i < Math.min(count, done + 1000); i++) pipeline.xadd(key, '*', ...FLAT_FIELDS);
    await pipeline.exec();
  }
}

function ourContender(ctx: SuiteContext): Contender {
  const missing = missingExports('StreamsService');
  if (missing) return unavailableContender('ours', 'StreamsService.consume', missing);
  const sizer = new RunSizer();
  let app: INestApplicationContext;
  let streams: StreamsServiceLike;
  let filler: Redis;
  let round = 0;
  let pending = 0;
  return {
    id: 'ours',
    label: `StreamsService.consume (batchSize ${BATCH})`,
    setup: async () => {
      app = await createOurContext(ctx.redis.url, 'bench-streams');
      streams = resolveService<StreamsServiceLike>(app, 'StreamsService');
      filler = new Redis({ port: ctx.redis.port, host: '127.0.0.1' });
    },
    prepare: async (durationMs) => {
      if (round > 0) await filler.del(`bench-streams:stream:s${round - 1}`);
      pending = sizer.size(durationMs);
      // The service names the stream `<keyPrefix>:stream:<name>`; one add() through it checks that layout.
      await streams.add(`s${round}`, FIELDS);
      await fill(filler, `bench-streams:stream:s${round}`, pending - 1);
    },
    run: async (): Promise<RunResult> => {
      const entries = pending;
      let seen = 0;
      const started = performance.now();
      let done!: () => void;
      const drained = new Promise<void>((resolve) => (done = resolve));
      const consumer = streams.consume({
        stream: `s${round++}`,
        group: 'bench',
        batchSize: BATCH,
        blockMs: 100,
        handler: () => {
          if (++seen === entries) done();
        },
      });
      await drained;
      await consumer.stop(); // drains in-flight work and acknowledges it
      const elapsedMs = performance.now() - started;
      sizer.record(entries, elapsedMs);
      return { ops: entries, elapsedMs, errors: 0 };
    },
    teardown: async () => {
      filler.disconnect();
      await app.close();
    },
  };
}

function handWrittenContender(ctx: SuiteContext): Contender {
  const sizer = new RunSizer();
  let client: Redis;
  let round = 0;
  let pending = 0;
  return {
    id: 'raw',
    label: `hand-written XREADGROUP COUNT ${BATCH} / XACK loop`,
    setup: async () => {
      client = new Redis({ port: ctx.redis.port, host: '127.0.0.1' });
    },
    prepare: async (durationMs) => {
      if (round > 0) await client.del(`raw:s${round - 1}`);
      pending = sizer.size(durationMs);
      await fill(client, `raw:s${round}`, pending);
    },
    run: async (): Promise<RunResult> => {
      const key = `raw:s${round++}`;
      const entries = pending;
      const started = performance.now();
      await client.xgroup('CREATE', key, 'bench', '0', 'MKSTREAM');
      let seen = 0;
      while (seen < entries) {
        const reply = (await client.xreadgroup('GROUP', 'bench', 'c1', 'COUNT', BATCH, 'BLOCK', 100, 'STREAMS', key, '>')) as
          [string, [string, string[]][]][] | null;
        const batch = reply?.[0]?.[1] ?? [];
        if (batch.length === 0) continue;
        const ids: string[] = [];
        for (const [id, fields] of batch) {
          // The same work a handler gets: the fields as an object.
          const record: Record<string, string> = {};
          for (let i = 0; i < fields.length; i += 2) record[fields[i]] = fields[i + 1];
          ids.push(id);
        }
        seen += batch.length;
        await client.xack(key, 'bench', ...ids);
      }
      const elapsedMs = performance.now() - started;
      sizer.record(entries, elapsedMs);
      return { ops: entries, elapsedMs, errors: 0 };
    },
    teardown: async () => void client.disconnect(),
  };
}

/** Streams: one consumer draining a pre-filled stream through a consumer group, ours against a hand-written loop. */
export function streamsGroup(ctx: SuiteContext): BenchGroup {
  return {
    id: 'streams',
    title: 'Streams: consumer throughput',
    unit: 'one entry delivered to a handler and acknowledged',
    load: `one consumer, a pre-filled stream drained completely per run, ${BATCH} entries per read`,
    contenders: [ourContender(ctx), handWrittenContender(ctx)],
    ratios: [{ label: 'consume / hand-written loop', numerator: 'ours', denominator: 'raw', target: 0.8 }],
    minimums: [{ label: 'StreamsService.consume entries/s', contender: 'ours', opsPerSec: 20_000 }],
  };
}
