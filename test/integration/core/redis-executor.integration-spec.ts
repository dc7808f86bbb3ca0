import { Cluster, Redis } from 'ioredis';
import { IN_FLIGHT_WINDOW } from '../../../libs/redis-patterns/src/core/scripts/coalescing-queue';
import { RedisExecutor } from '../../../libs/redis-patterns/src/core/scripts/redis-executor';
import { defineScript } from '../../../libs/redis-patterns/src/core/scripts/redis-script';

/**
 * KEYS[1] counter; ARGV[1] increment, ARGV[2] ttl ms. Returns the new value. Sets value and TTL in one step.
 */
const incrWithTtl = defineScript<number>(
  'test_incr_ttl',
  `
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return v`,
  { keys: 1 },
);

/** One item: SET KEYS[1] ARGV[1] with a TTL. */
const setItem = defineScript<string>('test_executor_set', `return redis.call('SET', KEYS[1], ARGV[1], 'PX', 60000)`, { keys: 1, args: 1 });

/** Counts the commands of each name a client sends from now on (a spy that calls through). */
function countCommands(client: Redis): { sent(name: string): number } {
  const spy = jest.spyOn(client, 'sendCommand');
  return { sent: (name) => spy.mock.calls.filter(([command]) => command.name === name).length };
}

describe('RedisExecutor against a real server', () => {
  let redis: Redis;
  let cluster: Cluster | undefined;
  const prefix = `executor-spec:${process.pid}:${Date.now()}`;

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL_STANDALONE!);
    if (process.env.REDIS_CLUSTER_PORTS)
      cluster = new Cluster(process.env.REDIS_CLUSTER_PORTS.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })));
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => {
    redis.disconnect();
    cluster?.disconnect();
  });

  it('names scripts by content so versions never collide, and sends the SHA-1 of the text', () => {
    expect(incrWithTtl.commandName).toMatch(/^rp_test_incr_ttl_[0-9a-f]{10}$/);
    expect(incrWithTtl.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(incrWithTtl.commandName.endsWith(incrWithTtl.sha.slice(0, 10))).toBe(true);
    expect(defineScript('test_incr_ttl', 'return 1', { keys: 1 }).commandName).not.toBe(incrWithTtl.commandName);
  });

  it('is one per client', () => {
    expect(RedisExecutor.of(redis)).toBe(RedisExecutor.of(redis));
  });

  it('runs a script, and survives SCRIPT FLUSH (the NOSCRIPT path)', async () => {
    const key = `${prefix}:flush`;
    const executor = RedisExecutor.of(redis);
    expect(await executor.run(incrWithTtl, [key], [2, 10_000])).toBe(2);
    await redis.script('FLUSH');
    expect(await executor.run(incrWithTtl, [key], [3, 10_000])).toBe(5);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
  });

  it('rejects a call with the wrong number of keys', async () => {
    await expect(RedisExecutor.of(redis).run(incrWithTtl, [], [1, 1])).rejects.toThrow(/takes 1 keys, got 0 keys and 2 args/);
  });

  it('runs on every cluster node, surviving SCRIPT FLUSH on all of them', async () => {
    if (!cluster) throw new Error('this spec runs with the cluster topology (unset REDIS_TOPOLOGIES)');
    const executor = RedisExecutor.of(cluster);
    const keys = Array.from({ length: 30 }, (_, i) => `${prefix}:{k${i}}`);
    await Promise.all(keys.map((k) => executor.run(incrWithTtl, [k], [1, 10_000])));
    await Promise.all(cluster.nodes('master').map((node) => node.script('FLUSH')));
    const values = await Promise.all(keys.map((k) => executor.run(incrWithTtl, [k], [1, 10_000])));
    expect(values).toEqual(keys.map(() => 2));
  });

  it('leaves an adopted client as it was: nothing defined on it, no option changed, scripts never auto-pipelined', async () => {
    const piped = new Redis(process.env.REDIS_URL_STANDALONE!, { enableAutoPipelining: true });
    try {
      const executor = RedisExecutor.of(piped);
      const key = `${prefix}:adopted`;
      // A plain command and a script in the same tick: the GET is auto-pipelined, the script is not.
      const [, value] = await Promise.all([executor.call('get', `${prefix}:other`), executor.run(incrWithTtl, [key], [4, 10_000])]);
      expect(value).toBe(4);
      expect(piped.options.autoPipeliningIgnoredCommands).toEqual([]);
      expect((piped as unknown as Record<string, unknown>)[incrWithTtl.commandName]).toBeUndefined();
    } finally {
      piped.disconnect();
    }
  });

  it('reads alone while few replies are outstanding, and shares one MGET among the reads that wait, each answered with its own value', async () => {
    await redis.set(`${prefix}:r1`, 'one', 'PX', 60_000);
    await redis.set(`${prefix}:r3`, 'three', 'PX', 60_000);
    const executor = RedisExecutor.of(redis);
    const commands = countCommands(redis);
    expect(await executor.read(`${prefix}:r1`)).toBe('one'); // a lone read is a GET
    expect([commands.sent('get'), commands.sent('mget')]).toEqual([1, 0]);
    const filling = Array.from({ length: IN_FLIGHT_WINDOW }, () => executor.read(`${prefix}:r1`));
    const values = await Promise.all([1, 2, 3].map((i) => executor.read(`${prefix}:r${i}`)));
    expect(await Promise.all(filling)).toEqual(filling.map(() => 'one'));
    expect(values).toEqual(['one', null, 'three']);
    expect([commands.sent('get'), commands.sent('mget')]).toEqual([1 + IN_FLIGHT_WINDOW, 1]);
  });

  it('sends the waiting reads before a later command, so a read is never answered with a later write', async () => {
    const key = `${prefix}:ordered`;
    await redis.set(key, 'before', 'PX', 60_000);
    const executor = RedisExecutor.of(redis);
    const filling = Array.from({ length: IN_FLIGHT_WINDOW }, () => executor.read(`${prefix}:r1`));
    const [read] = await Promise.all([executor.read(key), executor.call('set', key, 'after', 'PX', 60_000), ...filling]);
    expect(read).toBe('before');
    expect(await executor.read(key)).toBe('after');
  });

  it('reads many keys on a cluster, each from its own slot', async () => {
    if (!cluster) throw new Error('this spec runs with the cluster topology (unset REDIS_TOPOLOGIES)');
    const keys = Array.from({ length: 12 }, (_, i) => `${prefix}:many${i}`);
    await Promise.all(keys.map((key, i) => cluster!.set(key, String(i), 'PX', 60_000)));
    expect(await RedisExecutor.of(cluster).readMany([...keys, `${prefix}:absent`])).toEqual([...keys.map((_, i) => String(i)), null]);
  });

  it('runs a script and WAIT on one connection, and reports the replicas that acknowledged', async () => {
    const executor = RedisExecutor.of(redis);
    const key = `${prefix}:waited`;
    await redis.script('FLUSH'); // the script goes as EVAL: no NOSCRIPT can come between it and WAIT
    const outcome = await executor.runThenWait(setItem, [key], ['v'], 1, 50);
    // The standalone test server has no replica: the script ran, WAIT timed out with 0 acknowledgements.
    expect(outcome).toEqual({ reply: 'OK', acks: 0 });
    expect(await redis.get(key)).toBe('v');
  });
});
