import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import { CacheService, InvalidArgumentError, RedisPatternsModule } from 'nestjs-redis-patterns';
import { type DoctorReport, RedisPatternsDoctor } from 'nestjs-redis-patterns/doctor';
import { connectionFor, rawClient, uniquePrefix } from '../../support/redis-env';

const run = promisify(execFile);
const root = join(__dirname, '../../..');
const cli = ['-r', './scripts/register-ts.js', 'libs/redis-patterns/src/cli.ts'];
const byName = (report: DoctorReport, name: string) => report.checks.find((check) => check.name === name)!;
const FLAGS = [
  '--url',
  '--cluster',
  '--prefix',
  '--workload',
  '--sample-limit',
  '--top',
  '--big-key-bytes',
  '--big-key-elements',
  '--acl-user',
  '--lock-ttl-ms',
  '--timeout-ms',
  '--json',
  '--help',
];

describe('doctor CLI: help and an empty prefix', () => {
  const url = connectionFor('standalone') as string;

  it.each([
    ['doctor', '--help'],
    ['doctor', '-h'],
    ['doctor', '--url', 'redis://127.0.0.1:1', '--help'],
  ])(
    '%s %s … prints every flag and the exit codes, and exits 0 without connecting',
    async (...args) => {
      const { stdout, stderr } = await run('node', [...cli, ...args], { cwd: root, timeout: 30_000 });
      expect(stderr).toBe('');
      for (const flag of FLAGS) expect(stdout).toContain(flag);
      expect(stdout).toMatch(/exit codes:\n\s+0\s.*\n\s+1\s.*\n\s+2\s+bad arguments/);
      expect(stdout).not.toMatch(/^(PASS|WARN|FAIL) /m);
    },
    30_000,
  );

  it('nestjs-redis-patterns --help prints the usage and exits 0', async () => {
    const { stdout } = await run('node', [...cli, '--help'], { cwd: root, timeout: 30_000 });
    expect(stdout).toMatch(/^usage: nestjs-redis-patterns doctor/);
  }, 30_000);

  it('finding no key under the prefix is a warning naming the prefix and --prefix, not a pass', async () => {
    const prefix = uniquePrefix('doctor-empty');
    const { stdout } = await run('node', [...cli, 'doctor', '--url', url, '--prefix', prefix], { cwd: root, timeout: 30_000 });
    const line = stdout.split('\n').find((l) => l.includes('keys-without-ttl'));
    expect(line).toMatch(/^WARN {2}keys-without-ttl +no keys found under /);
    expect(line).toContain(`${prefix}:*`);
    expect(line).toContain('--prefix <keyPrefix>');
    expect(stdout).not.toMatch(/^PASS {2}keys-without-ttl/m);
    // A warning leaves the exit code alone (run() rejects on a non-zero one).
    expect(stdout).toMatch(/^OK: \d+ pass, [1-9]\d* warn, 0 fail$/m);
  }, 30_000);
});

describe('RedisPatternsDoctor: the doctor on the application’s connection and keyPrefix', () => {
  const prefix = uniquePrefix('doctor-app');
  let app: INestApplication;
  let admin: Redis;

  beforeAll(async () => {
    admin = rawClient('standalone') as Redis;
    const moduleRef = await Test.createTestingModule({
      imports: [RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: prefix })],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    admin?.disconnect();
  });

  it('on a prefix with nothing stored yet, warns without suggesting another prefix', async () => {
    const report = await app.get(RedisPatternsDoctor).run({ workloads: ['cache'] });
    expect(byName(report, 'connectivity').status).toBe('pass');
    expect(byName(report, 'keys-without-ttl')).toEqual({
      name: 'keys-without-ttl',
      status: 'warn',
      reason: `no keys found under ${prefix}:*, so nothing was checked: it is this application's keyPrefix: nothing the doctor can check is stored yet`,
    });
    expect(report.exitCode).toBe(0);
  });

  it("scans the application's keyPrefix and finds its keys without a TTL, leaving the connection open", async () => {
    const cache = app.get(CacheService);
    await cache.set('fine', 1, { ttl: 60 });
    await admin.set(`${prefix}:cache:leaked`, 'v');
    await admin.set(`${uniquePrefix('doctor-other')}:cache:not-ours`, 'v', 'EX', 60);
    try {
      const report = await app.get(RedisPatternsDoctor).run();
      const check = byName(report, 'keys-without-ttl');
      expect(check.status).toBe('fail');
      expect(check.reason).toMatch(new RegExp(`^1 of 2 keys matching ${prefix}:\\* have no TTL`));
      expect(check.reason).toContain(`${prefix}:cache:leaked`);
      expect(byName(report, 'lock-contention').status).toBe('pass');
      expect(report.exitCode).toBe(1);
      // The module's client is still the application's.
      expect(await cache.get('fine')).toBe(1);
    } finally {
      await admin.del(`${prefix}:cache:leaked`);
    }
  });

  it('refuses an unknown option and an unconfigured connection', async () => {
    const doctor = app.get(RedisPatternsDoctor);
    await expect(doctor.run({ keyPrefix: 'rp' } as never)).rejects.toMatchObject({
      constructor: InvalidArgumentError,
      argument: 'options.keyPrefix',
    });
    await expect(doctor.run({ connection: 'nope' })).rejects.toThrow(/nope/);
  });
});
