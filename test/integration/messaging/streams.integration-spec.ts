import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Cluster, Redis } from 'ioredis';
import { InvalidArgumentError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { type StreamMessage, StreamsService } from 'nestjs-redis-patterns/messaging';
import { connectionFor, keysWithoutTtl, rawClient, type TopologyName, uniquePrefix, waitFor } from '../../support/redis-env';
import { pendingCount, readAll } from './streams-helpers';

describe.each<TopologyName>(['standalone', 'cluster'])('StreamsService on %s', (topology) => {
  let app: INestApplication;
  let streams: StreamsService;
  let raw: Redis | Cluster;
  const prefix = uniquePrefix(`st-${topology}`);

  beforeAll(async () => {
    raw = rawClient(topology);
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor(topology), keyPrefix: prefix, streams: { blockMs: 100 } })],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    streams = app.get(StreamsService);
  });

  afterAll(async () => {
    await app?.close();
    raw?.disconnect();
  });

  it('adds to <prefix>:stream:<name>, capped by approximate MAXLEN instead of a TTL', async () => {
    const id = await streams.add('capped', { n: 1, text: 'a b' });
    expect(id).toMatch(/^\d+-\d+$/);
    expect(streams.keyOf('capped')).toBe(`${prefix}:stream:capped`);
    expect(await readAll(raw, `${prefix}:stream:capped`)).toEqual([{ id, fields: { n: '1', text: 'a b' } }]);
    for (let i = 0; i < 30; i++)
      await Promise.all(Array.from({ length: 100 }, (_, j) => streams.add('capped', { n: i * 100 + j }, { maxLength: 100 })));
    const length = await raw.xlen(`${prefix}:stream:capped`);
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThan(500);
    // User input is escaped into the key like every other key part.
    await streams.add('tenant:7 orders', { n: 1 });
    expect(await raw.xlen(`${prefix}:stream:tenant%3A7%20orders`)).toBe(1);
  });

  it('several consumers of one group process every entry exactly once and acknowledge it', async () => {
    const seen = new Map<string, number>();
    const handler = (message: StreamMessage): void => {
      seen.set(message.fields.seq, (seen.get(message.fields.seq) ?? 0) + 1);
    };
    const consumers = [1, 2, 3].map((i) =>
      streams.consume({ stream: 'work', group: 'g', consumer: `c${i}`, handler, batchSize: 20, concurrency: 4 }),
    );
    await Promise.all(consumers.map((c) => c.ready));
    await Promise.all(Array.from({ length: 1000 }, (_, seq) => streams.add('work', { seq })));
    await waitFor(
      () => seen.size === 1000,
      10_000,
      () => `1000 distinct entries, got ${seen.size}`,
    );
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    await waitFor(
      async () => (await pendingCount(raw, `${prefix}:stream:work`, 'g')) === 0,
      5000,
      () => 'an empty pending list',
    );
    // Work was shared: every consumer handled some of it.
    expect(consumers.every((c) => c.stats.processed > 0)).toBe(true);
    await Promise.all(consumers.map((c) => c.stop()));
  });

  it('runs at most `concurrency` handlers at once, and accepts names with spaces', async () => {
    let active = 0;
    let maxActive = 0;
    let done = 0;
    const consumer = streams.consume({
      stream: 'bounded work',
      group: 'the group',
      consumer: 'worker one',
      concurrency: 3,
      batchSize: 10,
      handler: async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active--;
        done++;
      },
    });
    await consumer.ready;
    await Promise.all(Array.from({ length: 60 }, (_, i) => streams.add('bounded work', { i })));
    await waitFor(
      () => done === 60,
      10_000,
      () => `60 handled, got ${done}`,
    );
    expect(maxActive).toBe(3);
    await consumer.stop();
  });

  it('reads entries added before the group existed (the group starts at the beginning)', async () => {
    await streams.add('early', { seq: 'before' });
    const got: string[] = [];
    const consumer = streams.consume({ stream: 'early', group: 'late-group', handler: (m) => void got.push(m.fields.seq) });
    await waitFor(() => got.length === 1, 5000);
    expect(got).toEqual(['before']);
    await consumer.stop();
  });

  it('dead-letters an always-failing entry after exactly maxDeliveries handler calls, with its id, error and count', async () => {
    const calls = new Map<string, number[]>();
    const consumer = streams.consume({
      stream: 'poison',
      group: 'g',
      claimIdleMs: 100,
      maxDeliveries: 3,
      handler: (message) => {
        calls.set(message.fields.kind, [...(calls.get(message.fields.kind) ?? []), message.deliveries]);
        if (message.fields.kind === 'bad') throw new Error('cannot parse order');
      },
    });
    await consumer.ready;
    const badId = await streams.add('poison', { kind: 'bad' });
    await streams.add('poison', { kind: 'good' });
    await waitFor(
      async () => (await raw.xlen(`${prefix}:stream:poison.dlq`)) === 1,
      10_000,
      () => 'one dead-letter entry',
    );
    await waitFor(async () => (await pendingCount(raw, `${prefix}:stream:poison`, 'g')) === 0, 5000);
    expect(calls.get('bad')).toEqual([1, 2, 3]);
    expect(calls.get('good')).toEqual([1]);
    const [letter] = await readAll(raw, `${prefix}:stream:poison.dlq`);
    expect(letter.fields).toMatchObject({
      sourceId: badId,
      sourceStream: 'poison',
      group: 'g',
      deliveries: '3',
      error: 'Error: cannot parse order',
    });
    expect(JSON.parse(letter.fields.fields)).toEqual({ kind: 'bad' });
    expect(consumer.stats).toMatchObject({ deadLettered: 1, failed: 3, processed: 1 });
    // Acknowledged once dead-lettered: a later consumer of the group (reclaiming everything idle) never sees it.
    const late: string[] = [];
    const other = streams.consume({ stream: 'poison', group: 'g', claimIdleMs: 1, handler: (m) => void late.push(m.fields.kind) });
    await streams.add('poison', { kind: 'good' });
    await waitFor(() => late.length + consumer.stats.processed >= 2, 5000);
    expect(late).not.toContain('bad');
    expect(calls.get('bad')).toHaveLength(3);
    await other.stop();
    await consumer.stop();
  });

  it('counts deliveries whose consumer crashed mid-handler: such an entry is dead-lettered without a further call', async () => {
    const key = `${prefix}:stream:crashy`;
    await raw.call('XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM');
    const id = await streams.add('crashy', { kind: 'kills-its-consumer' });
    // Three consumers took it and died before acknowledging (the delivery counter lives in Redis).
    await raw.call('XREADGROUP', 'GROUP', 'g', 'dead-1', 'COUNT', 1, 'STREAMS', key, '>');
    await raw.call('XCLAIM', key, 'g', 'dead-2', 0, id);
    await raw.call('XCLAIM', key, 'g', 'dead-3', 0, id);
    let calls = 0;
    const consumer = streams.consume({ stream: 'crashy', group: 'g', claimIdleMs: 50, maxDeliveries: 3, handler: () => void calls++ });
    await waitFor(async () => (await raw.xlen(`${prefix}:stream:crashy.dlq`)) === 1, 5000);
    const [letter] = await readAll(raw, `${prefix}:stream:crashy.dlq`);
    expect(letter.fields).toMatchObject({ sourceId: id, deliveries: '4' });
    expect(letter.fields.error).toMatch(/crashed or stalled/);
    expect(calls).toBe(0);
    await waitFor(async () => (await pendingCount(raw, key, 'g')) === 0, 5000);
    await consumer.stop();
  });

  it('replays dead letters into their stream', async () => {
    const got: string[] = [];
    let fail = true;
    const consumer = streams.consume({
      stream: 'replay',
      group: 'g',
      claimIdleMs: 50,
      maxDeliveries: 1,
      handler: (m) => {
        if (fail) throw new Error('downstream unavailable');
        got.push(m.fields.order);
      },
    });
    await consumer.ready;
    await Promise.all(['o1', 'o2', 'o3'].map((order) => streams.add('replay', { order })));
    await waitFor(async () => (await raw.xlen(`${prefix}:stream:replay.dlq`)) === 3, 10_000);
    fail = false;
    expect(await streams.replayDeadLetters('replay')).toEqual({ replayed: 3, skipped: [] });
    await waitFor(() => got.length === 3, 5000);
    expect(got.sort()).toEqual(['o1', 'o2', 'o3']);
    expect(await raw.xlen(`${prefix}:stream:replay.dlq`)).toBe(0);
    await consumer.stop();
  });

  it('stop() waits for in-flight handlers and acknowledges their entries', async () => {
    let started = 0;
    let finished = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const consumer = streams.consume({
      stream: 'drain',
      group: 'g',
      concurrency: 5,
      handler: async () => {
        started++;
        await gate;
        finished++;
      },
    });
    await consumer.ready;
    await Promise.all(Array.from({ length: 5 }, (_, i) => streams.add('drain', { i })));
    await waitFor(() => started === 5, 5000);
    const stopping = consumer.stop();
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(5);
    expect(await pendingCount(raw, `${prefix}:stream:drain`, 'g')).toBe(0);
    // Stopped: nothing added later is read.
    await streams.add('drain', { i: 'late' });
    expect(started).toBe(5);
  });

  it('stop() gives up on a hung handler at stopTimeoutMs; another consumer then reclaims the entry', async () => {
    const consumer = streams.consume({
      stream: 'hung',
      group: 'g',
      consumer: 'stuck',
      stopTimeoutMs: 200,
      handler: () => new Promise(() => undefined),
    });
    await consumer.ready;
    await streams.add('hung', { job: 'x' });
    await waitFor(async () => (await pendingCount(raw, `${prefix}:stream:hung`, 'g')) === 1, 5000);
    const started = Date.now();
    await consumer.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    const got: StreamMessage[] = [];
    const rescuer = streams.consume({
      stream: 'hung',
      group: 'g',
      consumer: 'rescuer',
      claimIdleMs: 200,
      handler: (m) => void got.push(m),
    });
    await waitFor(() => got.length === 1, 5000);
    expect(got[0]).toMatchObject({ fields: { job: 'x' }, deliveries: 2 });
    await waitFor(async () => (await pendingCount(raw, `${prefix}:stream:hung`, 'g')) === 0, 5000);
    await rescuer.stop();
  });

  it('a consumer restarting under its name re-reads its own pending entries at once, before claimIdleMs', async () => {
    const key = `${prefix}:stream:own`;
    await raw.call('XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM');
    await Promise.all(Array.from({ length: 20 }, (_, i) => streams.add('own', { i })));
    // A previous life of "worker-1" read 20 entries and died before acknowledging them.
    await raw.call('XREADGROUP', 'GROUP', 'g', 'worker-1', 'COUNT', 20, 'STREAMS', key, '>');
    const got: StreamMessage[] = [];
    const consumer = streams.consume({
      stream: 'own',
      group: 'g',
      consumer: 'worker-1',
      claimIdleMs: 60_000,
      handler: (m) => void got.push(m),
    });
    await waitFor(
      () => got.length === 20,
      5000,
      () => `20 own pending entries, got ${got.length}`,
    );
    expect(got.every((m) => m.deliveries === 2)).toBe(true);
    await waitFor(async () => (await pendingCount(raw, key, 'g')) === 0, 5000);
    await consumer.stop();
  });

  it('entries trimmed away while pending are cleared from the pending list without errors', async () => {
    const key = `${prefix}:stream:trimmed`;
    await raw.call('XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM');
    await Promise.all(Array.from({ length: 50 }, (_, i) => streams.add('trimmed', { i })));
    await raw.call('XREADGROUP', 'GROUP', 'g', 'ghost', 'COUNT', 50, 'STREAMS', key, '>');
    await raw.xtrim(key, 'MAXLEN', 0);
    const got: StreamMessage[] = [];
    const consumer = streams.consume({ stream: 'trimmed', group: 'g', claimIdleMs: 50, handler: (m) => void got.push(m) });
    await waitFor(async () => (await pendingCount(raw, key, 'g')) === 0, 5000);
    expect(got).toEqual([]);
    expect(consumer.stats.failed).toBe(0);
    await consumer.stop();
  });

  it('rejects bad consume() arguments naming the argument, and starts nothing', async () => {
    expect(() => streams.consume({ stream: 'x', group: 'g', handler: () => undefined, batchSize: 0 })).toThrow(InvalidArgumentError);
    expect(() => streams.consume({ stream: 'x', group: 'g', handler: () => undefined, batchSize: 0 })).toThrow(/options\.batchSize/);
    expect(() => streams.consume({ stream: '', group: 'g', handler: () => undefined })).toThrow(/options\.stream/);
    expect(() => streams.consume({ stream: 'x', group: 'g', handler: () => undefined, bogus: 1 } as never)).toThrow(/options\.bogus/);
    expect(() => streams.consume({ stream: 'x', group: 'g' } as never)).toThrow(/options\.handler/);
    await expect(streams.add('x', {})).rejects.toThrow(/fields/);
    await expect(streams.add('x', { a: { nested: 1 } as never })).rejects.toThrow(/fields\.a/);
    await expect(streams.add('x', { a: 1 }, { maxLength: -1 })).rejects.toThrow(/options\.maxLength/);
    expect(await raw.exists(`${prefix}:stream:x`)).toBe(0);
  });

  it('writes no key without a TTL other than the streams themselves (the documented exception)', async () => {
    const leaked = await keysWithoutTtl(raw, `${prefix}:*`, (key) => key.startsWith(`${prefix}:stream:`));
    expect(leaked).toEqual([]);
  });
});
