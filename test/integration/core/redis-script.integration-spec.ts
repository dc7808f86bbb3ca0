import { Cluster, Redis } from 'ioredis';
import { defineScript, registerScripts, runScript } from '../../../libs/redis-patterns/src/core/scripts/redis-script';

/**
 * KEYS[1] counter; ARGV[1] increment, ARGV[2] ttl ms. Returns the new value. Sets value and TTL in one step.
 */
const incrWithTtl = defineScript<number>(
  'test_incr_ttl',
  1,
  `
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return v`,
);

describe('runScript against a real server', () => {
  let redis: Redis;
  let cluster: Cluster | undefined;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL_STANDALONE!);
    if (process.env.REDIS_CLUSTER_PORTS)
      cluster = new Cluster(process.env.REDIS_CLUSTER_PORTS.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })));
  });
  afterAll(() => {
    redis.disconnect();
    cluster?.disconnect();
  });

  it('names commands by content so versions never collide', () => {
    expect(incrWithTtl.commandName).toMatch(/^rp_test_incr_ttl_[0-9a-f]{10}$/);
    expect(defineScript('test_incr_ttl', 1, 'return 1').commandName).not.toBe(incrWithTtl.commandName);
  });

  it('runs, and survives SCRIPT FLUSH (the NOSCRIPT path)', async () => {
    const key = `script-spec:${Date.now()}`;
    expect(await runScript(redis, incrWithTtl, [key], [2, 10_000])).toBe(2);
    await redis.script('FLUSH');
    expect(await runScript(redis, incrWithTtl, [key], [3, 10_000])).toBe(5);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
  });

  it('rejects a call with the wrong number of keys', async () => {
    await expect(runScript(redis, incrWithTtl, [], [1, 1])).rejects.toThrow(/expects 1 keys/);
  });

  it('runs on every cluster node, surviving SCRIPT FLUSH on all of them', async () => {
    if (!cluster) throw new Error('this spec runs with the cluster topology (unset REDIS_TOPOLOGIES)');
    const keys = Array.from({ length: 30 }, (_, i) => `script-spec:{k${i}}:${Date.now()}`);
    await Promise.all(keys.map((k) => runScript(cluster!, incrWithTtl, [k], [1, 10_000])));
    await Promise.all(cluster.nodes('master').map((node) => node.script('FLUSH')));
    const values = await Promise.all(keys.map((k) => runScript(cluster!, incrWithTtl, [k], [1, 10_000])));
    expect(values).toEqual(keys.map(() => 2));
  });
});

describe('registerScripts', () => {
  it('defines declared scripts up front, so the first calls can share an auto-pipeline', async () => {
    const client = new Redis(process.env.REDIS_URL_STANDALONE!, { enableAutoPipelining: true });
    registerScripts(client);
    const key = `script-spec:pipelined:${Date.now()}`;
    // A plain command and the first script call issued in the same tick land in one auto-pipeline.
    const [, value] = await Promise.all([client.get('script-spec:other'), runScript(client, incrWithTtl, [key], [4, 10_000])]);
    expect(value).toBe(4);
    client.disconnect();
  });
});
