import { Cluster, type Redis } from 'ioredis';
import { redactSecrets } from '../../core/connections/redact';
import { KeyBuilder } from '../../core/keys/key-builder';
import { parseInfo } from '../parse-info';
import { describeFailure, doctorConnection } from './doctor-connect';
import { ALL_WORKLOADS, type DoctorCheck, type DoctorOptions, type DoctorReport } from './doctor.types';
import { judgeEvictionPolicy } from './eviction-policy';
import { checkKeysWithoutTtl } from './keys-without-ttl';
import { lockSelfTest, type LockJudge } from './lock-self-test';

const CHECK_NAMES = ['connectivity', 'dbsize-memory', 'eviction-policy', 'keys-without-ttl', 'lock-contention', 'lock-negative-control'];

/**
 * Runs the verification procedure of the pattern reference against one Redis deployment and returns one
 * pass / warn / fail line per check: connectivity and auth, dbsize and memory, eviction policy against the
 * workload, keys without a TTL (SCAN, scoped to the key prefix), and the lock self-test with its negative control.
 * Never writes outside `<keyPrefix>:doctor:*` (two short-lived keys, deleted at the end). Nothing it returns
 * carries a password. `internals` serve the package's own callers: a lock judge (to prove the negative control
 * catches a blind one) and the end of the line that warns about an empty prefix (how that caller takes a prefix).
 *
 * @example
 * const report = await runDoctor({ url: process.env.REDIS_URL, keyPrefix: 'shop' });
 * if (!report.ok) console.error(report.checks.filter((c) => c.status === 'fail'));
 */
export async function runDoctor(
  options: DoctorOptions = {},
  internals: { judgeLock?: LockJudge; prefixHint?: string } = {},
): Promise<DoctorReport> {
  const connection = doctorConnection(options);
  const { client, secrets, endpoint } = connection;
  const checks: DoctorCheck[] = [];
  const keyPrefix = options.keyPrefix ?? 'rp';
  try {
    const connectivity = await checkConnectivity(client, endpoint, connection.lastError);
    checks.push(connectivity);
    if (connectivity.status === 'fail') {
      for (const name of CHECK_NAMES.slice(1)) checks.push({ name, status: 'fail', reason: 'not run: no authenticated connection' });
    } else {
      const masters = client instanceof Cluster ? client.nodes('master') : [client];
      const run = async (name: string, check: () => Promise<DoctorCheck | DoctorCheck[]>) => {
        try {
          const result = await check();
          checks.push(...(Array.isArray(result) ? result : [result]));
        } catch (error) {
          checks.push({ name, status: 'fail', reason: describeFailure(error, endpoint) });
        }
      };
      const infos = await Promise.all(masters.map(async (node) => parseInfo(await node.info('memory'))));
      await run('dbsize-memory', () => checkDbsizeAndMemory(masters, infos));
      await run('eviction-policy', async () => {
        const policies = [...new Set(infos.map((info) => info.maxmemory_policy ?? 'unknown'))];
        if (policies.length > 1)
          return { name: 'eviction-policy', status: 'warn', reason: `masters disagree on maxmemory-policy: ${policies.join(', ')}` };
        return judgeEvictionPolicy(
          policies[0],
          Math.min(...infos.map((info) => Number(info.maxmemory ?? 0))),
          options.workloads ?? ALL_WORKLOADS,
        );
      });
      await run('keys-without-ttl', () => checkKeysWithoutTtl(client, keyPrefix, options.scanSampleLimit ?? 10_000, internals.prefixHint));
      const keys = new KeyBuilder(keyPrefix);
      await run('lock-contention', () =>
        lockSelfTest(client, (suffix) => keys.key('doctor', 'lock', suffix), options.lockTtlMs ?? 5000, internals.judgeLock),
      );
    }
  } finally {
    if (connection.owned) client.disconnect();
  }
  const safe = checks.map((check) => ({ ...check, reason: redactSecrets(check.reason, secrets) }));
  const ok = safe.every((check) => check.status !== 'fail');
  return { checks: safe, ok, exitCode: ok ? 0 : 1 };
}

async function checkConnectivity(client: Redis | Cluster, endpoint: string, lastError: () => Error | undefined): Promise<DoctorCheck> {
  try {
    if (client.status === 'wait') await client.connect();
    const started = performance.now();
    const pong = await client.ping();
    const ms = (performance.now() - started).toFixed(1);
    const masters = client instanceof Cluster ? client.nodes('master') : [client];
    await Promise.all(masters.map((node) => node.ping())); // every master must answer, authenticated
    const server = parseInfo(await masters[0].info('server'));
    const mode = client instanceof Cluster ? `cluster of ${masters.length} masters` : (server.redis_mode ?? 'standalone');
    return { name: 'connectivity', status: 'pass', reason: `${pong} in ${ms} ms from Redis ${server.redis_version ?? '?'} (${mode})` };
  } catch (error) {
    // "Connection is closed" is ioredis giving up; the socket error it gave up on says why.
    const closed = error instanceof Error && /Connection is closed/.test(error.message);
    return { name: 'connectivity', status: 'fail', reason: describeFailure((closed && lastError()) || error, endpoint) };
  }
}

async function checkDbsizeAndMemory(masters: Array<Redis>, infos: Array<Record<string, string>>): Promise<DoctorCheck> {
  const sizes = await Promise.all(masters.map((node) => node.dbsize()));
  const dbsize = sizes.reduce((a, b) => a + b, 0);
  const used = infos.map((info) => info.used_memory_human ?? '?').join(' + ');
  const max = infos.map((info) => info.maxmemory_human ?? '?').join(' + ');
  const uncapped = infos.some((info) => Number(info.maxmemory ?? 0) === 0);
  return {
    name: 'dbsize-memory',
    status: 'pass',
    reason: `dbsize ${dbsize}, used_memory ${used}, maxmemory ${max}${uncapped ? ' (0B: no cap, TTLs are the only bound)' : ''}`,
  };
}
