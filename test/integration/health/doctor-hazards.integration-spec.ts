import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Cluster, Redis } from 'ioredis';
import { runDoctor, type DoctorCheck, type DoctorOptions, type DoctorReport } from 'nestjs-redis-patterns/doctor';
import {
  clusterPorts,
  privateReplication,
  privateServer,
  rawClient,
  uniquePrefix,
  waitFor,
  type PrivateReplication,
  type RedisServerProcess,
} from '../../support/redis-env';

/**
 * The production hazards the doctor looks for, each seeded on a server of the test's own (the cluster's on the
 * shared cluster, cleaned up after), and a healthy server on which every one of those checks stays quiet.
 */
const byName = (report: DoctorReport, name: string): DoctorCheck => {
  const check = report.checks.find((c) => c.name === name);
  if (!check) throw new Error(`no ${name} check in ${report.checks.map((c) => c.name).join(', ')}`);
  return check;
};
const HAZARD_CHECKS = [
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
];
const info = async (client: Redis, field: string) => Number(new RegExp(`^${field}:(\\S+)`, 'm').exec(await client.info())?.[1] ?? NaN);
const run = promisify(execFile);
const root = join(__dirname, '../../..');
const page = readFileSync(join(__dirname, '../../../docs/security.md'), 'utf8');
const aclBlock = (name: string) => new RegExp('```acl ' + name + '\\n([^`]+)```').exec(page)![1].trim();

describe('doctor on a healthy server', () => {
  let server: RedisServerProcess;
  let admin: Redis;
  const prefix = uniquePrefix('doctor-healthy');

  beforeAll(async () => {
    server = await privateServer([
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--maxmemory',
      '64mb',
      '--maxmemory-policy',
      'volatile-lfu',
    ]);
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  it('passes every hazard check, with the LFU frequencies measured', async () => {
    const pipeline = admin.pipeline();
    for (let i = 0; i < 200; i++) pipeline.set(`${prefix}:cache:${i}`, `value-${i}`, 'PX', 60_000);
    pipeline.hset(`${prefix}:session:1`, 'user', 'ann').pexpire(`${prefix}:session:1`, 60_000);
    await pipeline.exec();
    const report = await runDoctor({ url: server.url, keyPrefix: prefix, topKeys: 3 });
    for (const name of HAZARD_CHECKS) expect([name, byName(report, name).status]).toEqual([name, 'pass']);
    expect(byName(report, 'big-keys')).toMatchObject({
      reason: expect.stringMatching(/^201 keys sampled with SCAN \(the whole keyspace\): none above 10 MB/),
    });
    expect(byName(report, 'big-keys').evidence).toEqual(
      Array.from({ length: 3 }, () =>
        expect.stringMatching(new RegExp(`^${prefix}:\\S+ \\((string, \\d+ bytes long|hash, 1 element), \\d+ B\\)$`)),
      ),
    );
    expect(byName(report, 'hot-keys').reason).toMatch(/^volatile-lfu: 201 keys sampled, the hottest at OBJECT FREQ \d+ \(hot from 100\)$/);
    expect(byName(report, 'hot-keys').evidence).toHaveLength(3);
    expect(byName(report, 'persistence').reason).toContain('appendonly yes, appendfsync everysec');
    expect(byName(report, 'permissions').reason).toMatch(
      /^user default may run the \d+ commands the workloads need .*and the startup check passed$/,
    );
    expect(byName(report, 'eviction-policy').status).toBe('pass');
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(report.exitCode).toBe(0);
  }, 30_000);
});

describe('doctor on a server seeded with hazards', () => {
  let server: RedisServerProcess;
  let admin: Redis;
  const doctor = (options: DoctorOptions = {}) => runDoctor({ url: server.url, keyPrefix: 'app', ...options });

  beforeAll(async () => {
    server = await privateServer();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  it('lists the hot key under allkeys-lfu, and says how to measure without LFU', async () => {
    expect(byName(await doctor(), 'hot-keys')).toMatchObject({
      status: 'pass',
      reason: expect.stringMatching(/^not measured: .*allkeys-lfu/),
    });
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lfu');
    await Promise.all(Array.from({ length: 20 }, (_, i) => admin.set(`app:cool:${i}`, 'v')));
    await admin.set('app:hot', 'v');
    for (let round = 0; round < 8; round++) {
      const pipeline = admin.pipeline();
      for (let i = 0; i < 10_000; i++) pipeline.get('app:hot');
      await pipeline.exec();
    }
    const check = byName(await doctor({ topKeys: 2 }), 'hot-keys');
    expect(check.status).toBe('warn');
    expect(check.reason).toMatch(/^allkeys-lfu: 1 of 21 keys sampled at OBJECT FREQ 100 or more/);
    expect(check.evidence).toEqual([
      expect.stringMatching(/^app:hot \(OBJECT FREQ (1\d\d|2\d\d)\)$/),
      expect.stringMatching(/^app:cool:\d+ /),
    ]);
    expect(check.fix).toContain('nearCache');
  }, 30_000);

  it('finds a large string and a list with many elements, with type, element count and size', async () => {
    await admin.set('app:blob', 'x'.repeat(11 * 1024 * 1024));
    const items = Array.from({ length: 20_000 }, (_, i) => `item-${i}`);
    for (let i = 0; i < items.length; i += 5000) await admin.rpush('app:feed', ...items.slice(i, i + 5000));
    const byDefault = byName(await doctor(), 'big-keys');
    expect(byDefault.status).toBe('warn');
    expect(byDefault.reason).toMatch(/^1 of \d+ keys sampled with SCAN \(the whole keyspace\) above 10 MB or 1000000 elements/);
    expect(byDefault.evidence?.[0]).toMatch(/^app:blob \(string, 11534336 bytes long, 1\d(\.\d)? MB\)$/);
    expect(byDefault.fix).toMatch(/CappedList/);
    const byElements = byName(await doctor({ bigKeyElements: 10_000 }), 'big-keys');
    expect(byElements.reason).toMatch(/^2 of \d+ keys .* above 10 MB or 10000 elements/);
    expect(byElements.evidence).toEqual(
      expect.arrayContaining([expect.stringMatching(/^app:feed \(list, 20000 elements, \d+(\.\d)? KB\)$/)]),
    );
    await admin.unlink('app:blob', 'app:feed');
  }, 30_000);

  it('counts KEYS calls, and shows the slowest commands by name and duration, never their arguments', async () => {
    await admin.call('SLOWLOG', 'RESET'); // the big keys written above may have taken 10 ms
    expect(byName(await doctor(), 'slow-commands')).toMatchObject({
      status: 'pass',
      reason: expect.stringMatching(/^the SLOWLOG is empty/),
    });
    for (let i = 0; i < 3; i++) await admin.keys('app:*');
    await admin.config('SET', 'slowlog-log-slower-than', '0');
    await admin.set('app:token', 'secret-token-8841');
    await admin.call('DEBUG', 'SLEEP', '0.05');
    // Back to the default before the doctor runs: at 0 its own commands would push these out of the 128 it reads.
    await admin.config('SET', 'slowlog-log-slower-than', '10000');
    const report = await doctor();
    const blocking = byName(report, 'blocking-commands');
    expect(blocking.status).toBe('warn');
    expect(blocking.reason).toMatch(/^KEYS 3 calls, DEBUG 1 call since the statistics began/);
    expect(blocking.evidence).toEqual([expect.stringMatching(/^KEYS: 3 calls — /), expect.stringMatching(/^DEBUG: 1 call — /)]);
    const slow = byName(report, 'slow-commands');
    expect(slow.status).toBe('warn');
    expect(slow.reason).toMatch(/^1 of \d+ SLOWLOG entries ran 10.0 ms or longer, the slowest DEBUG SLEEP for/);
    expect(slow.evidence?.[0]).toMatch(/^DEBUG SLEEP (5\d|[6-9]\d|\d{3,})\.\d ms$/);
    expect(slow.evidence).toContainEqual(expect.stringMatching(/^SET \d+\.\d ms$/));
    expect(JSON.stringify(report)).not.toContain('secret-token-8841');
    await admin.call('SLOWLOG', 'RESET');
  }, 30_000);

  it('warns about evictions where keys must stay, and about connections rejected at maxclients', async () => {
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    await admin.config('SET', 'maxmemory', '4mb');
    try {
      const value = 'v'.repeat(64 * 1024);
      let i = 0;
      await waitFor(
        async () => {
          await admin.set(`app:fill:${i++}`, value);
          return (await info(admin, 'evicted_keys')) > 0;
        },
        10_000,
        () => 'evicted_keys to grow past 0',
      );
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    const evictions = byName(await doctor({ workloads: ['cache', 'locks'] }), 'evictions');
    expect(evictions).toMatchObject({ status: 'warn', reason: expect.stringMatching(/^evicted_keys [1-9]\d* .*serves locks/) });
    expect(byName(await doctor({ workloads: ['cache'] }), 'evictions').status).toBe('pass');

    await admin.config('SET', 'maxclients', '1');
    const extra = new Redis(server.url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    extra.on('error', () => undefined);
    try {
      await extra.connect().catch(() => undefined);
      await waitFor(
        async () => (await info(admin, 'rejected_connections')) > 0,
        5000,
        () => 'a rejected connection',
      );
    } finally {
      extra.disconnect();
      await admin.config('SET', 'maxclients', '100');
    }
    const rejected = byName(await doctor(), 'rejected-connections');
    expect(rejected).toMatchObject({ status: 'warn', reason: expect.stringMatching(/^rejected_connections [1-9]\d* \(maxclients 100\)/) });
  }, 30_000);

  it('warns when a restart would forget held locks', async () => {
    await admin.config('SET', 'appendonly', 'no');
    await admin.config('SET', 'save', '');
    const check = byName(await doctor({ workloads: ['locks'] }), 'persistence');
    expect(check).toMatchObject({
      status: 'warn',
      reason: expect.stringMatching(/^no persistence \(appendonly no, save ""\).*held locks are forgotten/),
    });
    expect(check.fix).toContain('docs/locks.md');
    expect(byName(await doctor({ workloads: ['cache'] }), 'persistence').status).toBe('pass');
    await admin.config('SET', 'save', '3600 1');
    expect(byName(await doctor({ workloads: ['locks'] }), 'persistence').reason).toMatch(/only RDB snapshots/);
  }, 30_000);

  it("prints evidence and fix in the CLI's --json output, and keeps its exit code", async () => {
    const cli = ['-r', './scripts/register-ts.js', 'libs/redis-patterns/src/cli.ts', 'doctor', '--url', server.url, '--prefix', 'app'];
    // Keys without a TTL: keys-without-ttl fails, so the exit code is 1.
    await admin.mset('app:cli:1', 'v', 'app:cli:2', 'v');
    const failed = await run('node', [...cli, '--workload', 'locks', '--json', '--top', '2'], { cwd: root, timeout: 30_000 }).catch(
      (e) => e,
    );
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout) as DoctorReport;
    expect(report.exitCode).toBe(1);
    expect(byName(report, 'keys-without-ttl').status).toBe('fail');
    expect(byName(report, 'persistence')).toMatchObject({
      status: 'warn',
      evidence: [expect.any(String)],
      fix: expect.stringContaining('appendonly yes'),
    });
    expect(byName(report, 'big-keys').evidence).toHaveLength(2);
    const bad = await run('node', [...cli, '--top', '-1'], { cwd: root, timeout: 30_000 }).catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--top expects a positive integer');
  }, 60_000);

  it("judges the application user's ACL with ACL DRYRUN, and degrades when the doctor itself is refused", async () => {
    const grants = `${aclBlock('core')} ${aclBlock('cache')}`.replace(/~app:\* /, '');
    await admin.call('ACL', 'SETUSER', 'app', 'reset', 'on', '>app-pw-9013', '~app:*', ...grants.split(' '));
    expect(byName(await doctor({ aclUser: 'app', workloads: ['cache'] }), 'permissions').status).toBe('pass');
    await admin.call('ACL', 'SETUSER', 'app', '-hset', '-zadd');
    const refused = await doctor({ aclUser: 'app', workloads: ['cache'] });
    expect(byName(refused, 'permissions')).toMatchObject({
      status: 'fail',
      reason: expect.stringMatching(/^user app may not run 2 of the \d+ commands the workloads need: /),
      evidence: ['commands refused: hset, zadd'],
      fix: expect.stringMatching(/^ACL SETUSER app \+hset \+zadd/),
    });
    expect(refused.exitCode).toBe(1);
    expect(byName(await doctor({ aclUser: 'nobody' }), 'permissions')).toMatchObject({
      status: 'warn',
      reason: expect.stringContaining('no ACL user nobody'),
    });

    // The doctor run as that user: the admin commands are refused, each check says so, and the run goes on.
    const asApp = await runDoctor({
      url: server.url.replace('redis://', 'redis://app:app-pw-9013@'),
      keyPrefix: 'app',
      workloads: ['cache'],
    });
    for (const name of ['big-keys', 'slow-commands', 'persistence', 'dbsize-memory']) {
      expect([name, byName(asApp, name)]).toEqual([
        name,
        expect.objectContaining({ status: 'warn', reason: expect.stringMatching(/^could not run: .*NOPERM/) }),
      ]);
    }
    expect(byName(asApp, 'permissions')).toMatchObject({
      status: 'warn',
      reason: expect.stringMatching(/^ACL DRYRUN could not run \(ACL WHOAMI refused: NOPERM.*; the startup check passed/),
      fix: expect.stringContaining('--acl-user'),
    });
    expect(asApp.checks).toHaveLength(16);
    expect(JSON.stringify(asApp)).not.toContain('app-pw-9013');

    // The user in the URL and the password given apart (the CLI's REDISCLI_AUTH): it logs in as that user.
    const passwordApart = await runDoctor({
      url: server.url.replace('redis://', 'redis://app@'),
      password: 'app-pw-9013',
      keyPrefix: 'app',
      workloads: ['cache'],
    });
    expect(byName(passwordApart, 'connectivity').status).toBe('pass');
    expect(byName(passwordApart, 'permissions').reason).toMatch(/ACL WHOAMI refused: NOPERM/);
    const wrongApart = await runDoctor({ url: server.url.replace('redis://', 'redis://app@'), password: 'not-it' });
    expect(byName(wrongApart, 'connectivity').reason).toMatch(/^authentication failed/);
  }, 30_000);
});

describe('doctor on a master with a replica', () => {
  let servers: PrivateReplication;

  beforeAll(async () => {
    servers = await privateReplication();
  }, 30_000);
  afterAll(() => servers?.stop());

  it('passes a replica in step, warns on one far behind', async () => {
    const fine = byName(await runDoctor({ url: servers.master.url }), 'replica-lag');
    expect(fine).toMatchObject({ status: 'pass', reason: expect.stringMatching(/^1 replica online/) });
    expect(byName(await runDoctor({ url: servers.replica.url }), 'replica-lag').reason).toMatch(
      /is a replica: point the doctor at its master/,
    );
    servers.replica.freeze();
    try {
      const value = 'r'.repeat(1024 * 1024);
      for (let i = 0; i < 12; i++) await servers.admin.set(`lag:${i}`, value);
      const lagging = byName(await runDoctor({ url: servers.master.url }), 'replica-lag');
      expect(lagging.status).toBe('warn');
      expect(lagging.reason).toMatch(/^1 of 1 replica lagging \(127\.0\.0\.1:\d+: online, lag \d+ s, 1\d(\.\d)? MB behind\)/);
      expect(lagging.fix).toContain('waitReplicas');
    } finally {
      servers.replica.resume();
    }
  }, 30_000);
});

describe('doctor on the cluster', () => {
  let admin: Cluster;
  const own = uniquePrefix('doctor-balance');
  const keys = Array.from({ length: 12_000 }, (_, i) => `${own}:{tenant}:${i}`);
  const url = () => `redis://127.0.0.1:${clusterPorts()[0]}`;

  beforeAll(() => {
    admin = rawClient('cluster') as Cluster;
  });
  afterAll(async () => {
    for (let i = 0; i < keys.length; i += 1000) await admin.unlink(...keys.slice(i, i + 1000));
    admin.disconnect();
  });

  it('stays quiet on a balanced cluster, and warns when one hash tag piles keys on one master', async () => {
    const before = byName(await runDoctor({ url: url(), cluster: true, keyPrefix: own }), 'cluster-balance');
    expect(before.status).toBe('pass');
    expect(before.evidence).toEqual(
      Array.from({ length: 3 }, () => expect.stringMatching(/^127\.0\.0\.1:\d+: 546[0-2] slots, \d+ keys?, /)),
    );
    for (let i = 0; i < keys.length; i += 1000) await admin.mset(...keys.slice(i, i + 1000).flatMap((key) => [key, 'v']));
    const after = byName(await runDoctor({ url: url(), cluster: true, keyPrefix: own }), 'cluster-balance');
    expect(after.status).toBe('warn');
    expect(after.reason).toMatch(/^masters out of balance \(more than 2× apart\): keys \d+ to 1\d{4}/);
    expect(after.fix).toContain('hash tag');
  }, 60_000);
});
