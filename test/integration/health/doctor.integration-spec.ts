import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Cluster, Redis } from 'ioredis';
import { SessionStore } from 'nestjs-redis-patterns/structures';
import { formatReport, runDoctor, type DoctorReport } from 'nestjs-redis-patterns/doctor';
import { lockSelfTest } from '../../../libs/redis-patterns/src/health/doctor/lock-self-test';
import { diagnose } from '../../../libs/redis-patterns/src/health/doctor/run-doctor';
import { startApp } from '../structures/structures-app';
import {
  clusterPorts,
  connectionFor,
  privateServer,
  rawClient,
  type RedisServerProcess,
  scanKeys,
  uniquePrefix,
} from '../../support/redis-env';

const run = promisify(execFile);
const root = join(__dirname, '../../..');
const byName = (report: DoctorReport, name: string) => report.checks.find((check) => check.name === name)!;

describe('doctor on the shared standalone server', () => {
  const prefix = uniquePrefix('doctor');
  const url = connectionFor('standalone') as string;
  let admin: Redis;

  beforeAll(() => {
    admin = rawClient('standalone') as Redis;
  });
  afterAll(() => admin.disconnect());

  it('passes a library workload, and runs every check of the procedure', async () => {
    const app = await startApp('standalone', prefix);
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => app.get(SessionStore).create({ i })));
    } finally {
      await app.close();
    }
    const report = await runDoctor({ url, keyPrefix: prefix });
    expect(report.checks.map((c) => c.name)).toEqual([
      'connectivity',
      'dbsize-memory',
      'eviction-policy',
      'keys-without-ttl',
      'big-keys',
      'hot-keys',
      'blocking-commands',
      'slow-commands',
      'fragmentation',
      'evictions',
      'rejected-connections',
      'replica-lag',
      'persistence',
      'permissions',
      'lock-contention',
      'lock-negative-control',
    ]);
    expect(byName(report, 'connectivity')).toMatchObject({ status: 'pass', reason: expect.stringMatching(/^PONG in .* from Redis \d/) });
    expect(byName(report, 'dbsize-memory').reason).toMatch(/dbsize \d+, used_memory .*, maxmemory/);
    expect(byName(report, 'keys-without-ttl')).toMatchObject({ status: 'pass', reason: expect.stringContaining('20 keys') });
    expect(byName(report, 'lock-contention')).toMatchObject({
      status: 'pass',
      reason: expect.stringMatching(/second refused, PTTL \d+ ≤ 5000/),
    });
    expect(byName(report, 'lock-negative-control').status).toBe('pass');
    expect(report.exitCode).toBe(0);
    // The self-test cleaned up after itself.
    expect(await scanKeys(admin, `${prefix}:doctor:*`)).toEqual([]);
  });

  it('fails on keys without a TTL under the prefix, naming them, but not on the documented exceptions', async () => {
    const own = uniquePrefix('doctor-ttl');
    await admin.set(`${own}:cache:leaked`, 'v');
    await admin.set(`${own}:lock:{order-1}:fence`, '7');
    await admin.xadd(`${own}:stream:orders`, 'MAXLEN', '100', '*', 'f', 'v');
    await admin.set(`${own}-other:cache:not-ours`, 'v'); // another prefix: out of scope
    try {
      const report = await runDoctor({ url, keyPrefix: own });
      const check = byName(report, 'keys-without-ttl');
      expect(check.status).toBe('fail');
      expect(check.reason).toContain(`${own}:cache:leaked`);
      expect(check.reason).toContain('2 documented exceptions');
      expect(check.reason).not.toContain('not-ours');
      expect(report.exitCode).toBe(1);
    } finally {
      await admin.del(`${own}:cache:leaked`, `${own}:lock:{order-1}:fence`, `${own}:stream:orders`, `${own}-other:cache:not-ours`);
    }
  });

  it('stops at the sample limit and says so', async () => {
    const own = uniquePrefix('doctor-sample');
    const keys = Array.from({ length: 40 }, (_, i) => `${own}:k${i}`);
    await Promise.all(keys.map((key) => admin.set(key, 'v', 'PX', 60_000)));
    const check = byName(await runDoctor({ url, keyPrefix: own, scanSampleLimit: 10 }), 'keys-without-ttl');
    expect(check.reason).toMatch(/^10 keys .*sample limit 10 reached/);
    await admin.del(...keys);
  });

  it('catches a lock check that cannot fail (negative control)', async () => {
    const keyOf = (suffix: string) => `${prefix}:doctor:lock:${suffix}`;
    const honest = await lockSelfTest(admin, keyOf, 5000);
    expect(honest.map((c) => c.status)).toEqual(['pass', 'pass']);
    const blind = await lockSelfTest(admin, keyOf, 5000, () => null); // a judge that passes everything
    expect(blind[0].status).toBe('pass');
    expect(blind[1]).toMatchObject({ name: 'lock-negative-control', status: 'fail', reason: expect.stringContaining('cannot tell') });
    const report = await diagnose({ url, keyPrefix: prefix }, { judgeLock: () => null });
    expect(report.exitCode).toBe(1);
  });
});

describe('doctor against servers of its own', () => {
  let server: RedisServerProcess;
  let admin: Redis;
  const password = 'doctor-pw-0451';

  beforeAll(async () => {
    server = await privateServer();
    admin = new Redis(server.url);
    await admin.config('SET', 'requirepass', password);
    await admin.auth(password);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  it('reports NOAUTH as "authentication required", never as down, and never prints the password', async () => {
    const noauth = await runDoctor({ url: server.url });
    expect(byName(noauth, 'connectivity')).toMatchObject({
      status: 'fail',
      reason: expect.stringMatching(/^authentication required \(NOAUTH\)/),
    });
    expect(noauth.exitCode).toBe(1);
    const wrong = await runDoctor({ url: server.url.replace('redis://', 'redis://:wrong-secret-pw@') });
    expect(byName(wrong, 'connectivity').reason).toMatch(/^authentication failed/);
    expect(JSON.stringify(wrong)).not.toContain('wrong-secret-pw');
    const ok = await runDoctor({ url: server.url, password });
    expect(byName(ok, 'connectivity').status).toBe('pass');
    expect(JSON.stringify(ok)).not.toContain(password);
  });

  it('reports a stopped server as down (connection refused)', async () => {
    const gone = await privateServer();
    await gone.stop();
    const report = await runDoctor({ url: gone.url, timeoutMs: 1000 });
    expect(byName(report, 'connectivity').reason).toMatch(/^down or unreachable: connection refused/);
    expect(report.checks.slice(1).every((c) => c.status === 'fail' && c.reason.startsWith('not run'))).toBe(true);
  });

  it('judges maxmemory-policy against the workload', async () => {
    await admin.config('SET', 'maxmemory', '0');
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    const caching = byName(await runDoctor({ url: server.url, password, workloads: ['cache'] }), 'eviction-policy');
    expect(caching).toMatchObject({ status: 'warn', reason: expect.stringContaining('noeviction with no maxmemory') });
    await admin.config('SET', 'maxmemory', '64mb');
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    expect(byName(await runDoctor({ url: server.url, password, workloads: ['cache'] }), 'eviction-policy').status).toBe('pass');
    const locks = byName(await runDoctor({ url: server.url, password, workloads: ['cache', 'locks'] }), 'eviction-policy');
    expect(locks).toMatchObject({ status: 'warn', reason: expect.stringContaining('locks') });
    await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
    expect(byName(await runDoctor({ url: server.url, password }), 'eviction-policy').status).toBe('pass');
  });

  it('runs as a CLI: one line per check, the password from REDISCLI_AUTH, exit code 1 on failure', async () => {
    const cli = ['-r', './scripts/register-ts.js', 'libs/redis-patterns/src/cli.ts', 'doctor', '--url', server.url];
    const failed = await run('node', cli, { cwd: root, env: { ...process.env, REDISCLI_AUTH: '' } }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^FAIL {2}connectivity +authentication required/m);
    const passed = await run('node', [...cli, '--workload', 'locks'], { cwd: root, env: { ...process.env, REDISCLI_AUTH: password } });
    expect(passed.stdout.match(/^(PASS|WARN|FAIL) {2}/gm)).toHaveLength(16);
    expect(passed.stdout).toMatch(/^PASS {2}lock-negative-control/m);
    expect(passed.stdout).toMatch(/^OK: /m);
    expect(passed.stdout).not.toContain(password);
    const bad = await run('node', [...cli, '--bogus'], { cwd: root }).catch((e) => e);
    expect(bad.code).toBe(2);
  }, 60_000);
});

describe('doctor on the cluster', () => {
  it('checks every master and finds TTL-less keys in any slot', async () => {
    const own = uniquePrefix('doctor-cluster');
    const admin = rawClient('cluster') as Cluster;
    const keys = Array.from({ length: 12 }, (_, i) => `${own}:leak${i}`);
    try {
      await Promise.all(keys.map((key) => admin.set(key, 'v')));
      const report = await runDoctor({ url: `redis://127.0.0.1:${clusterPorts()[0]}`, cluster: true, keyPrefix: own });
      expect(byName(report, 'connectivity').reason).toContain('cluster of 3 masters');
      const check = byName(report, 'keys-without-ttl');
      expect(check.reason).toMatch(/^12 of 12 keys/);
      expect(byName(report, 'lock-contention').status).toBe('pass');
      expect(formatReport(report)).toMatch(/FAILED: \d+ pass, \d+ warn, 1 fail$/);
      expect(byName(report, 'cluster-balance').evidence).toHaveLength(3);
    } finally {
      await Promise.all(keys.map((key) => admin.del(key)));
      admin.disconnect();
    }
  });
});
