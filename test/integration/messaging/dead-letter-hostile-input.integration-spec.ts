import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Cluster, Redis } from 'ioredis';
import { RedisPatternsModule } from 'nestjs-redis-patterns';
import { StreamsService } from 'nestjs-redis-patterns/messaging';
import { connectionFor, rawClient, type TopologyName, uniquePrefix } from '../../support/redis-env';
import { readAll } from './streams-helpers';

// A dead-letter stream is written by the library, but anything with access to the server may write to it too.

/** A dead-letter entry as the library writes it, around `fields` (the original entry's fields, as JSON). */
function letter(fields: string | undefined): string[] {
  const own = ['sourceStream', 'orders', 'sourceId', '1-1', 'group', 'g', 'consumer', 'c', 'deliveries', '5', 'error', 'boom'];
  return fields === undefined ? own : ['fields', fields, ...own];
}

describe.each<TopologyName>(['standalone', 'cluster'])('StreamsService.replayDeadLetters with malformed entries on %s', (topology) => {
  let app: INestApplication;
  let streams: StreamsService;
  let raw: Redis | Cluster;
  const prefix = uniquePrefix(`dlq-hostile-${topology}`);

  beforeAll(async () => {
    raw = rawClient(topology);
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor(topology), keyPrefix: prefix })],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    streams = app.get(StreamsService);
  });

  afterAll(async () => {
    await app?.close();
    raw?.disconnect();
  });

  async function deadLetters(stream: string, entries: Array<string | undefined>): Promise<string[]> {
    const ids: string[] = [];
    for (const fields of entries) ids.push((await raw.xadd(`${prefix}:stream:${stream}.dlq`, '*', ...letter(fields))) as string);
    return ids;
  }

  it('replays the good entries, skips and reports the malformed ones, and leaves those in the dead-letter stream', async () => {
    const ids = await deadLetters('orders', [
      '{"order":"o1"}',
      '{not json',
      '{"order":"o2","n":2}',
      undefined,
      '["a","b"]',
      '{"nested":{"a":1}}',
      '{}',
      'null',
      '{"order":"o3"}',
    ]);
    const result = await streams.replayDeadLetters('orders');
    expect(result.replayed).toBe(3);
    expect(result.skipped.map((s) => s.id)).toEqual([ids[1], ids[3], ids[4], ids[5], ids[6], ids[7]]);
    expect(result.skipped.map((s) => s.reason)).toEqual([
      expect.stringMatching(/not JSON/),
      expect.stringMatching(/no "fields" field/),
      expect.stringMatching(/not a JSON object/),
      expect.stringMatching(/nested/),
      expect.stringMatching(/no field/),
      expect.stringMatching(/not a JSON object/),
    ]);
    const replayed = await readAll(raw, `${prefix}:stream:orders`);
    expect(replayed.map((entry) => entry.fields)).toEqual([{ order: 'o1' }, { order: 'o2', n: '2' }, { order: 'o3' }]);
    // Nothing is lost: the malformed entries stay for a human to look at.
    expect((await readAll(raw, `${prefix}:stream:orders.dlq`)).map((entry) => entry.id)).toEqual(result.skipped.map((s) => s.id));
    // A second call neither throws nor replays them.
    const again = await streams.replayDeadLetters('orders');
    expect(again).toEqual({ replayed: 0, skipped: result.skipped });
  });

  it('malformed entries at the head of the stream do not use up count: the next good entries are replayed', async () => {
    const ids = await deadLetters('head', ['{', '{', '{', '{"order":"o1"}', '{"order":"o2"}', '{"order":"o3"}']);
    const first = await streams.replayDeadLetters('head', { count: 2 });
    expect(first.replayed).toBe(2);
    expect(first.skipped.map((s) => s.id)).toEqual(ids.slice(0, 3));
    const second = await streams.replayDeadLetters('head', { count: 2 });
    expect(second.replayed).toBe(1);
    expect((await readAll(raw, `${prefix}:stream:head`)).map((entry) => entry.fields.order)).toEqual(['o1', 'o2', 'o3']);
    expect((await readAll(raw, `${prefix}:stream:head.dlq`)).map((entry) => entry.id)).toEqual(ids.slice(0, 3));
  });

  it('reaches a good entry behind more malformed entries than one read returns', async () => {
    const ids = await deadLetters('long', [...Array.from({ length: 1234 }, () => '{'), '{"order":"o1"}', '{"order":"o2"}']);
    const result = await streams.replayDeadLetters('long', { count: 1 });
    expect(result.replayed).toBe(1);
    expect(result.skipped.map((s) => s.id)).toEqual(ids.slice(0, 1234));
    expect((await readAll(raw, `${prefix}:stream:long`)).map((entry) => entry.fields.order)).toEqual(['o1']);
    expect(await streams.replayDeadLetters('long', { count: 5 })).toMatchObject({ replayed: 1 });
    expect(await raw.xlen(`${prefix}:stream:long.dlq`)).toBe(1234);
  });

  it('drops prototype keys of a crafted entry instead of replaying them', async () => {
    await deadLetters('proto', ['{"order":"o1","__proto__":{"polluted":"yes"}}']);
    expect(await streams.replayDeadLetters('proto')).toEqual({ replayed: 1, skipped: [] });
    expect((await readAll(raw, `${prefix}:stream:proto`)).map((entry) => entry.fields)).toEqual([{ order: 'o1' }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
