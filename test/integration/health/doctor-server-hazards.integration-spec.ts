import { Redis } from 'ioredis';
import { runDoctor, type DoctorCheck, type DoctorReport } from 'nestjs-redis-patterns/doctor';
import { privateReplication, privateServer, waitFor, type PrivateReplication, type RedisServerProcess } from '../../support/redis-env';

/**
 * The doctor's fragmentation and replica-lag checks on servers that really have the problem (the unit specs judge
 * parsed INFO): memory fragmented by deleting every other key, and a replica frozen until its last acknowledgement
 * is more than 10 s old. Each check passes on the same server first, so a check that never warns fails here.
 */
const byName = (report: DoctorReport, name: string): DoctorCheck => {
  const check = report.checks.find((c) => c.name === name);
  if (!check) throw new Error(`no ${name} check in ${report.checks.map((c) => c.name).join(', ')}`);
  return check;
};
const field = (info: string, name: string) => Number(new RegExp(`^${name}:(\\S+)`, 'm').exec(info)?.[1] ?? NaN);
const MB = 1024 * 1024;

describe('doctor on a server with fragmented memory', () => {
  // 1.5 million keys with 100-byte values: about 270 MB, half of it still in use after every other key is deleted.
  const KEYS = 1_500_000;
  // Deletes key:<from>, key:<from + 2> … key:<to> (DEBUG POPULATE names its keys key:0, key:1 …).
  const DELETE_EVERY_OTHER = "for i = tonumber(ARGV[1]), tonumber(ARGV[2]), 2 do redis.call('DEL', 'key:' .. i) end";
  let server: RedisServerProcess;
  let admin: Redis;
  // The key prefix matches the populated keys and the sample is small: the key-TTL and big-key checks stop early.
  const fragmentation = async () => byName(await runDoctor({ url: server.url, keyPrefix: 'key', scanSampleLimit: 100 }), 'fragmentation');
  const memory = async () => {
    const info = await admin.info('memory');
    return { ratio: field(info, 'mem_fragmentation_ratio'), used: field(info, 'used_memory') };
  };

  beforeAll(async () => {
    // No active defragmentation (the default, stated here): it would move the survivors together and free the pages.
    server = await privateServer(['--activedefrag', 'no']);
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  it('passes a small or densely packed dataset, and warns once deleted keys leave every page half empty', async () => {
    expect(await fragmentation()).toMatchObject({ status: 'pass', reason: expect.stringMatching(/: under 100 MB in use/) });

    await admin.call('DEBUG', 'POPULATE', String(KEYS), 'key', '100');
    // INFO computes the ratio from figures its cron refreshes every 100 ms: wait for them to include the new keys.
    let seen = await memory();
    await waitFor(
      async () => {
        seen = await memory();
        return seen.used >= 100 * MB && seen.ratio <= 1.5;
      },
      5000,
      () => `used_memory of 100 MB or more at a ratio of 1.5 or less (last seen ${JSON.stringify(seen)})`,
    );
    expect(await fragmentation()).toMatchObject({ status: 'pass', reason: expect.stringMatching(/: between 1 and 1\.5$/) });

    // The keys were allocated one after another, so every allocator page holds some of the deleted and some of the
    // kept ones: jemalloc cannot give a half-used page back, and the resident memory stays while used_memory halves.
    for (let from = 1; from < KEYS; from += 300_000) await admin.eval(DELETE_EVERY_OTHER, 0, from, Math.min(from + 300_000, KEYS) - 1);
    expect(await admin.dbsize()).toBe(KEYS / 2);
    await waitFor(
      async () => {
        seen = await memory();
        return seen.used >= 100 * MB && seen.ratio > 1.5;
      },
      5000,
      () => `used_memory of 100 MB or more at a ratio above 1.5 (last seen ${JSON.stringify(seen)})`,
    );
    const check = await fragmentation();
    expect(check.status).toBe('warn');
    const warning = /^mem_fragmentation_ratio above 1\.5 \(ratio (\d+(?:\.\d+)?) with used_memory (\d+(?:\.\d)?) MB\): /;
    expect(check.reason).toMatch(warning);
    const [, ratio, used] = warning.exec(check.reason)!;
    expect(Number(ratio)).toBeGreaterThan(1.5);
    expect(Number(ratio)).toBeCloseTo(seen.ratio, 0);
    expect(Number(used)).toBeGreaterThanOrEqual(100);
    expect(check.evidence).toEqual([`ratio ${ratio} with used_memory ${used} MB`]);
    expect(check.fix).toContain('activedefrag yes');
  }, 30_000);
});

describe('doctor on a master whose replica stopped acknowledging', () => {
  let servers: PrivateReplication;
  const replicaLag = async () => byName(await runDoctor({ url: servers.master.url }), 'replica-lag');

  beforeAll(async () => {
    servers = await privateReplication();
  }, 30_000);
  afterAll(() => servers?.stop());

  it('warns once its last acknowledgement is more than 10 s old, though it is only bytes behind', async () => {
    expect(await replicaLag()).toMatchObject({
      status: 'pass',
      evidence: [expect.stringMatching(/: online, lag \d s, \d+(\.\d)? K?B behind$/)],
    });
    // A frozen replica sends no REPLCONF ACK, so the master's lag (seconds since the last one) grows by one a second;
    // no writes but the doctor's own few, so it stays bytes behind, far from the 10 MB rule.
    servers.replica.freeze();
    try {
      let lag = 0;
      await waitFor(
        async () => {
          lag = Number(/^slave0:.*\blag=(\d+)/m.exec(await servers.admin.info('replication'))?.[1] ?? NaN);
          return lag > 10;
        },
        20_000,
        () => `the replica's lag above 10 s (last seen ${lag} s)`,
      );
      const check = await replicaLag();
      expect(check.status).toBe('warn');
      // online, and under 1 MB behind (B or KB): neither the state rule nor the 10 MB rule fired.
      const warning = /^1 of 1 replica lagging \(127\.0\.0\.1:\d+: online, lag (\d+) s, \d+(\.\d)? K?B behind\): /;
      expect(check.reason).toMatch(warning);
      const [, seconds] = warning.exec(check.reason)!;
      expect(Number(seconds)).toBeGreaterThan(10);
      expect(check.fix).toContain('waitReplicas');
    } finally {
      servers.replica.resume();
    }
    // Acknowledging again, it passes again.
    await waitFor(
      async () => (await replicaLag()).status === 'pass',
      5000,
      () => 'replica-lag to pass once the replica acknowledges again',
    );
  }, 40_000);
});
