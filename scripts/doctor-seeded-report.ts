/**
 * `node -r ./scripts/register-ts.js scripts/doctor-seeded-report.ts`: the doctor report printed in
 * docs/health-and-doctor.md ("A report of a seeded server"). Starts a redis-server of its own (the test harness's
 * throwaway node: no persistence, loopback only), seeds it with the hazards the doctor looks for, runs the doctor on
 * it as an administrator judging the application's ACL user, prints the report, and stops the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { formatReport, runDoctor } from 'nestjs-redis-patterns/doctor';
import { startStandalone } from '../test/harness/topologies';

const DAY_MS = 86_400_000;

async function seed(admin: Redis): Promise<void> {
  await admin.config('SET', 'maxmemory', '512mb');
  await admin.config('SET', 'maxmemory-policy', 'volatile-lfu');
  // An application's keys, every one with a TTL: cache entries and sessions.
  const entries = admin.pipeline();
  for (let i = 0; i < 500; i++) entries.set(`shop:cache:{product%3A${i}}`, JSON.stringify({ id: i, name: `item ${i}` }), 'PX', DAY_MS);
  for (let i = 0; i < 50; i++) entries.hset(`shop:session:s${i}`, 'user', `u${i}`).pexpire(`shop:session:s${i}`, DAY_MS);
  await entries.exec();
  // A cached export of 12 MB, and an activity feed nobody caps.
  await admin.set('shop:cache:{export%3Aorders-2026}', 'x'.repeat(12 * 1024 * 1024), 'PX', DAY_MS);
  for (let start = 0; start < 1_050_000; start += 10_000) {
    await admin.rpush('shop:feed:all', ...Array.from({ length: 10_000 }, (_, i) => `event-${start + i}`));
  }
  await admin.pexpire('shop:feed:all', DAY_MS);
  // One product every page reads.
  for (let round = 0; round < 10; round++) {
    const reads = admin.pipeline();
    for (let i = 0; i < 10_000; i++) reads.get('shop:cache:{product%3A1}');
    await reads.exec();
  }
  // An operator's KEYS, and a slow command.
  await admin.keys('shop:session:*');
  await admin.keys('shop:cache:*');
  await admin.call('DEBUG', 'SLEEP', '0.06');
  // The application's user, granted the core and cache blocks of docs/security.md, but not the lock block.
  await admin.call(
    'ACL',
    'SETUSER',
    'shop',
    'on',
    '>shop-password',
    '~shop:*',
    ...'-@all +ping +info +time +eval +evalsha +select +client|setname +get +mget +set +del +exists +hget +hset +incr +pexpire +pttl +zadd +zcount +zrange +zremrangebyrank +scan'.split(
      ' ',
    ),
  );
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'doctor-seeded-'));
  const server = await startStandalone(root, 'seeded');
  const admin = new Redis(server.url);
  try {
    await seed(admin);
    const report = await runDoctor({ url: server.url, keyPrefix: 'shop', workloads: ['cache', 'locks', 'sessions'], aclUser: 'shop' });
    process.stdout.write(
      `$ npx nestjs-redis-patterns doctor --url ${server.url} --prefix shop --workload cache,locks,sessions --acl-user shop\n`,
    );
    process.stdout.write(`${formatReport(report)}\n`);
    process.stdout.write(`(exit code ${report.exitCode})\n`);
  } finally {
    admin.disconnect();
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
