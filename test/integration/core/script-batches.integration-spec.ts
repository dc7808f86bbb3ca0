import { Cluster, Redis } from 'ioredis';
import { type BatchedScript, batchOfOne, defineBatchedScript } from '../../../libs/redis-patterns/src/core/scripts/batched-script';
import { RedisExecutor } from '../../../libs/redis-patterns/src/core/scripts/redis-executor';
import { MAX_BATCH_ITEMS } from '../../../libs/redis-patterns/src/core/scripts/script-batches';

function runBatched<T>(client: Redis | Cluster, script: BatchedScript<T>, keys: string[], args: Array<string | number>): Promise<T> {
  return RedisExecutor.of(client).runBatched(script, keys, args);
}

/** One item: INCRBY KEYS[1] by ARGV[1] with a TTL; replies {new value, #KEYS, #ARGV}; 'nil' and 'boom' test the edges. */
const counter = defineBatchedScript<[number, number, number] | null>(
  'test_batched_counter',
  `
if ARGV[1] == 'nil' then return nil end
if ARGV[1] == 'boom' then error('boom') end
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 60000)
return { value, #KEYS, #ARGV }`,
);

/** The same counter with a fixed shape (1 key, 1 arg per item): items travel without their counts. */
const shapedCounter = defineBatchedScript<[number, number, number]>(
  'test_batched_shaped_counter',
  `
if ARGV[1] == 'boom' then error('boom') end
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 60000)
return { value, #KEYS, #ARGV }`,
  '',
  { keys: 1, args: 1 },
);

/** Appends ARGV[1] to a list: shows the order items reach the server in. */
const append = defineBatchedScript<number>(
  'test_batched_append',
  `
local n = redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 60000)
return n`,
);

/**
 * Counts the script commands (EVALSHA, or EVAL after a NOSCRIPT) a client sends from now on. Counted at the client:
 * the server's command statistics also count the scripts of test files running in parallel on the same server.
 */
function countScriptCommands(client: Redis): { sent(): number } {
  const spy = jest.spyOn(client, 'sendCommand'); // calls through to the real client
  return { sent: () => spy.mock.calls.filter(([command]) => command.name === 'evalsha' || command.name === 'eval').length };
}

describe('RedisExecutor.runBatched against a real server', () => {
  let redis: Redis;
  let observer: Redis;
  let cluster: Cluster | undefined;
  const prefix = `batched-spec:${process.pid}:${Date.now()}`;

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL_STANDALONE!);
    observer = new Redis(process.env.REDIS_URL_STANDALONE!);
    if (process.env.REDIS_CLUSTER_PORTS) {
      cluster = new Cluster(process.env.REDIS_CLUSTER_PORTS.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })));
    }
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => {
    redis.disconnect();
    observer.disconnect();
    cluster?.disconnect();
  });

  it('answers every item with its own reply, sending concurrent items in batches of at most MAX_BATCH_ITEMS', async () => {
    const items = 3 * MAX_BATCH_ITEMS + 1;
    await runBatched(redis, counter, [`${prefix}:warm`], [1]); // loads the script (NOSCRIPT fallback) first
    const scripts = countScriptCommands(redis);
    const replies = await Promise.all(Array.from({ length: items }, (_, i) => runBatched(redis, counter, [`${prefix}:n${i}`], [i + 1])));
    expect(replies).toEqual(Array.from({ length: items }, (_, i) => [i + 1, 1, 1]));
    expect(scripts.sent()).toBe(Math.ceil(items / MAX_BATCH_ITEMS));
  });

  it('gathers the items of a whole event-loop turn, not only those of one tick', async () => {
    await runBatched(redis, counter, [`${prefix}:turn-warm`], [1]);
    const scripts = countScriptCommands(redis);
    // As with HTTP requests read in one turn: each item is submitted from a later tick of the same turn.
    const replies = await new Promise<unknown[]>((resolve) => {
      const first = runBatched(redis, counter, [`${prefix}:turn1`], [1]);
      process.nextTick(() => {
        const second = runBatched(redis, counter, [`${prefix}:turn2`], [2]);
        process.nextTick(() => resolve(Promise.all([first, second, runBatched(redis, counter, [`${prefix}:turn3`], [3])])));
      });
    });
    expect(replies).toEqual([
      [1, 1, 1],
      [2, 1, 1],
      [3, 1, 1],
    ]);
    expect(scripts.sent()).toBe(1);
  });

  it('gives each item its own keys and arguments, whatever the others carry', async () => {
    const [one, two] = await Promise.all([
      runBatched(redis, counter, [`${prefix}:a`], [5]),
      runBatched(redis, counter, [`${prefix}:b`, `${prefix}:unused`], [7, 'x', 'y']),
    ]);
    expect(one).toEqual([5, 1, 1]);
    expect(two).toEqual([7, 2, 3]);
  });

  it('fails only the item that failed; the others of the batch succeed', async () => {
    await observer.hset(`${prefix}:hash`, 'f', '1');
    await observer.pexpire(`${prefix}:hash`, 60_000);
    const outcomes = await Promise.allSettled([
      runBatched(redis, counter, [`${prefix}:ok1`], [1]),
      runBatched(redis, counter, [`${prefix}:hash`], [1]),
      runBatched(redis, counter, [`${prefix}:ok2`], ['boom']),
      runBatched(redis, counter, [`${prefix}:ok3`], ['nil']),
      runBatched(redis, counter, [`${prefix}:ok4`], [2]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/^RedisRefusedError: Redis refused EVALSHA: WRONGTYPE/);
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/^ReplyError: ERR .*boom/);
    expect((outcomes[3] as PromiseFulfilledResult<unknown>).value).toBeNull();
    expect((outcomes[4] as PromiseFulfilledResult<unknown>).value).toEqual([2, 1, 1]);
  });

  it('applies items in submission order, across batches', async () => {
    const key = `${prefix}:order`;
    const count = 2 * MAX_BATCH_ITEMS + 3;
    await Promise.all(Array.from({ length: count }, (_, i) => runBatched(redis, append, [key], [i])));
    expect(await observer.lrange(key, 0, -1)).toEqual(Array.from({ length: count }, (_, i) => String(i)));
  });

  it('survives SCRIPT FLUSH (the NOSCRIPT path)', async () => {
    await observer.script('FLUSH');
    expect(await runBatched(redis, counter, [`${prefix}:flushed`], [3])).toEqual([3, 1, 1]);
  });

  it('rejects every item of a batch the connection cannot send', async () => {
    const closed = new Redis(process.env.REDIS_URL_STANDALONE!, { enableOfflineQueue: false });
    await new Promise((ready) => closed.once('ready', ready));
    await closed.quit();
    const outcomes = await Promise.allSettled([runBatched(closed, counter, ['x'], [1]), runBatched(closed, counter, ['y'], [1])]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/^RedisUnavailableError: Redis connection ".+" is closed\.$/);
  });

  it('keeps its batches out of ioredis auto-pipelining without touching the client, other commands still auto-pipelined', async () => {
    const piped = new Redis(process.env.REDIS_URL_STANDALONE!, { enableAutoPipelining: true });
    try {
      const [reply, pong] = await Promise.all([runBatched(piped, counter, [`${prefix}:auto`], [1]), piped.ping()]);
      expect([reply, pong]).toEqual([[1, 1, 1], 'PONG']);
      // Nothing defined on the client, no option changed: an adopted client stays as it was handed over.
      expect(piped.options.autoPipeliningIgnoredCommands).toEqual([]);
      expect((piped as unknown as Record<string, unknown>)[counter.commandName]).toBeUndefined();
      expect(piped.autoPipelineQueueSize).toBe(0);
    } finally {
      piped.disconnect();
    }
  });

  it('with a fixed shape, sends items without their counts and still answers each with its own reply', async () => {
    const items = 2 * MAX_BATCH_ITEMS + 3;
    const replies = await Promise.allSettled(
      Array.from({ length: items }, (_, i) => runBatched(redis, shapedCounter, [`${prefix}:shaped${i}`], [i === 5 ? 'boom' : i + 1])),
    );
    replies.forEach((outcome, i) => {
      if (i === 5) expect(outcome.status).toBe('rejected');
      else expect(outcome).toEqual({ status: 'fulfilled', value: [i + 1, 1, 1] });
    });
    const [[error, piped]] = (await redis
      .pipeline()
      .call('EVAL', shapedCounter.lua, ...batchOfOne(shapedCounter, [`${prefix}:shaped-piped`], [4]))
      .exec())!;
    expect([error, piped]).toEqual([null, [[4, 1, 1]]]);
  });

  it('refuses an item that does not fit a fixed shape, before it can shift the others of its batch', async () => {
    const outcomes = await Promise.allSettled([
      runBatched(redis, shapedCounter, [`${prefix}:fit1`], [1]),
      runBatched(redis, shapedCounter, [`${prefix}:misfit`], [1, 2]),
      runBatched(redis, shapedCounter, [`${prefix}:fit2`], [2]),
    ]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: [1, 1, 1] });
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/takes 1 keys and 1 args per item, got 1 and 2/);
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: [2, 1, 1] });
    expect(() => batchOfOne(shapedCounter, [], [1])).toThrow(/takes 1 keys/);
    expect(() => defineBatchedScript('test_bad_shape', 'return 1', '', { keys: 0, args: 0 })).toThrow(/shape/);
  });

  it('can be sent by hand as a batch of one (inside a pipeline)', async () => {
    const [[error, replies]] = (await redis
      .pipeline()
      .call('EVAL', counter.lua, ...batchOfOne(counter, [`${prefix}:piped`], [4]))
      .exec())!;
    expect(error).toBeNull();
    expect(replies).toEqual([[4, 1, 1]]);
  });

  it('on a cluster, batches only items of one slot and answers items of every slot', async () => {
    if (!cluster) return expect(process.env.REDIS_TOPOLOGIES).not.toContain('cluster');
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        runBatched(cluster!, counter, [`${prefix}:{slot${i % 10}}:c${i}`, `${prefix}:{slot${i % 10}}:d`], [1]),
      ),
    );
    expect(replies).toEqual(Array.from({ length: 40 }, () => [1, 2, 1]));
  });
});
