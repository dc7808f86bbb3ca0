import { Cluster, type Redis } from 'ioredis';
import { redactSecrets } from '../../core/connections/redact';
import { KeyBuilder } from '../../core/keys/key-builder';
import { parseInfo } from '../parse-info';
import { BIG_KEY_BYTES, BIG_KEY_ELEMENTS, judgeBigKeys, measureKeys } from './big-keys';
import { commandCalls, judgeBlockingCommands } from './blocking-commands';
import { judgeClusterBalance, measureMasters } from './cluster-balance';
import { describeFailure, doctorConnection } from './doctor-connect';
import { couldNotRun, endpointOf, mastersOf, refusalOf, sampleKeyspace, type KeyspaceSample } from './doctor-support';
import { ALL_WORKLOADS, type DoctorCheck, type DoctorOptions, type DoctorReport } from './doctor.types';
import { judgeEvictionPolicy } from './eviction-policy';
import { isLfuPolicy, judgeHotKeys, measureFrequencies } from './hot-keys';
import { checkKeysWithoutTtl } from './keys-without-ttl';
import { lockSelfTest, type LockJudge } from './lock-self-test';
import { judgeEvictions, judgeFragmentation, judgeRejectedConnections, serverStats } from './memory-and-clients';
import { checkPermissions } from './permissions';
import { judgePersistence, persistenceSettings } from './persistence';
import { judgeReplicaLag, replicationView } from './replica-lag';
import { judgeSlowCommands, readSlowlogs } from './slow-commands';

/** Every check in the order it runs; `cluster-balance` only on a cluster. */
const CHECK_NAMES = [
  'connectivity',
  'dbsize-memory',
  'eviction-policy',
  'keys-without-ttl',
  'big-keys',
  'hot-keys',
  'blocking-commands',
  'slow-commands',
  'cluster-balance',
  'fragmentation',
  'evictions',
  'rejected-connections',
  'replica-lag',
  'persistence',
  'permissions',
  'lock-contention',
  'lock-negative-control',
];

/** Runs `load` once, on first use, and shares its promise (a rejection included) with every later caller. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => (promise ??= load());
}

/**
 * Runs the verification procedure of the pattern reference against one Redis deployment and returns one finding
 * per check, each pass / warn / fail with its reason and, where it has them, its evidence and fix: connectivity and
 * auth, dbsize and memory, eviction policy against the workload, keys without a TTL (SCAN, scoped to the key
 * prefix), big and hot keys (a SCAN sample of the whole keyspace), blocking and slow commands, the balance of a
 * cluster's masters, fragmentation, evictions, rejected connections, replica lag, persistence, the ACL permissions
 * the workloads need, and the lock self-test with its negative control. A check the server refuses to let run
 * (a managed service blocking CONFIG, SLOWLOG, MEMORY, ACL…) warns and the others go on.
 * Never writes outside `<keyPrefix>:doctor:*` (two short-lived keys, deleted at the end). Nothing it returns
 * carries a password or a command's arguments.
 *
 * @example
 * const report = await runDoctor({ url: process.env.REDIS_URL, keyPrefix: 'shop' });
 * if (!report.ok) console.error(report.checks.filter((c) => c.status === 'fail'));
 */
export function runDoctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  return diagnose(options);
}

/** What the package's own callers tell {@link diagnose} beyond the public options. */
export interface DoctorInternals {
  /** Judges the lock self-test's probe: a blind one proves that the negative control catches it. */
  judgeLock?: LockJudge;
  /** The end of the line that warns about an empty prefix: how this caller takes a prefix (a CLI flag, an option). */
  prefixHint?: string;
}

/** {@link runDoctor} with the internals of the CLI, `RedisPatternsDoctor` and the specs. */
export async function diagnose(options: DoctorOptions = {}, internals: DoctorInternals = {}): Promise<DoctorReport> {
  const connection = doctorConnection(options);
  const { client, secrets, endpoint } = connection;
  const checks: DoctorCheck[] = [];
  const keyPrefix = options.keyPrefix ?? 'rp';
  const workloads = options.workloads ?? ALL_WORKLOADS;
  const sampleLimit = options.scanSampleLimit ?? 10_000;
  const top = options.topKeys ?? 5;
  const isCluster = client instanceof Cluster;
  try {
    const connectivity = await checkConnectivity(client, endpoint, connection.lastError);
    checks.push(connectivity);
    if (connectivity.status === 'fail') {
      for (const name of CHECK_NAMES.slice(1)) {
        if (name !== 'cluster-balance' || options.cluster)
          checks.push({ name, status: 'fail', reason: 'not run: no authenticated connection' });
      }
    } else {
      const masters = mastersOf(client);
      const run = async (name: string, check: () => Promise<DoctorCheck | DoctorCheck[]>) => {
        try {
          const result = await check();
          checks.push(...(Array.isArray(result) ? result : [result]));
        } catch (error) {
          const refusal = refusalOf(error);
          checks.push(refusal ? couldNotRun(name, refusal) : { name, status: 'fail', reason: describeFailure(error, endpoint) });
        }
      };
      const infos = once(() => Promise.all(masters.map(async (node) => parseInfo(await node.info('everything')))));
      const sample = once<KeyspaceSample>(() => sampleKeyspace(client, sampleLimit));
      const keys = new KeyBuilder(keyPrefix);
      await run('dbsize-memory', async () => checkDbsizeAndMemory(masters, await infos()));
      await run('eviction-policy', async () => {
        const policies = [...new Set((await infos()).map((info) => info.maxmemory_policy ?? 'unknown'))];
        if (policies.length > 1)
          return { name: 'eviction-policy', status: 'warn', reason: `masters disagree on maxmemory-policy: ${policies.join(', ')}` };
        return judgeEvictionPolicy(policies[0], Math.min(...(await infos()).map((info) => Number(info.maxmemory ?? 0))), workloads);
      });
      await run('keys-without-ttl', () => checkKeysWithoutTtl(client, keyPrefix, sampleLimit, internals.prefixHint));
      await run('big-keys', async () =>
        judgeBigKeys(await measureKeys(await sample()), await sample(), {
          bytes: options.bigKeyBytes ?? BIG_KEY_BYTES,
          elements: options.bigKeyElements ?? BIG_KEY_ELEMENTS,
          top,
        }),
      );
      await run('hot-keys', async () => {
        const policy = (await infos())[0].maxmemory_policy ?? 'unknown';
        const frequencies = isLfuPolicy(policy) ? await measureFrequencies(await sample()) : [];
        return judgeHotKeys(policy, frequencies, await sample(), top);
      });
      await run('blocking-commands', async () => {
        const all = await infos();
        return judgeBlockingCommands(commandCalls(all), Math.min(...all.map((info) => Number(info.uptime_in_seconds ?? 0))));
      });
      await run('slow-commands', async () => judgeSlowCommands(await readSlowlogs(masters)));
      if (isCluster) await run('cluster-balance', async () => judgeClusterBalance(await measureMasters(masters, await infos())));
      const stats = async () => (await infos()).map((info, i) => serverStats(info, isCluster ? endpointOf(masters[i]) : undefined));
      await run('fragmentation', async () => judgeFragmentation(await stats()));
      await run('evictions', async () => judgeEvictions(await stats(), workloads));
      await run('rejected-connections', async () => judgeRejectedConnections(await stats()));
      await run('replica-lag', async () =>
        judgeReplicaLag((await infos()).map((info, i) => replicationView(info, endpointOf(masters[i])))),
      );
      await run('persistence', async () => {
        const settings = await Promise.all(
          masters.map(async (node) => {
            const replies = await Promise.all(
              ['appendonly', 'appendfsync', 'save'].map((name) => node.config('GET', name) as Promise<string[]>),
            );
            return persistenceSettings(replies.flat(), isCluster ? endpointOf(node) : undefined);
          }),
        );
        return judgePersistence(settings, workloads);
      });
      await run('permissions', () =>
        checkPermissions(client, {
          aclUser: options.aclUser,
          workloads,
          keyPrefix,
          timeoutMs: options.timeoutMs ?? 2000,
          cluster: isCluster,
          key: keys.key('doctor', 'acl'),
        }),
      );
      await run('lock-contention', () =>
        lockSelfTest(client, (suffix) => keys.key('doctor', 'lock', suffix), options.lockTtlMs ?? 5000, internals.judgeLock),
      );
    }
  } finally {
    if (connection.owned) client.disconnect();
  }
  const redact = (text: string) => redactSecrets(text, secrets);
  const safe = checks.map((check) => ({
    ...check,
    reason: redact(check.reason),
    ...(check.evidence ? { evidence: check.evidence.map(redact) } : {}),
    ...(check.fix ? { fix: redact(check.fix) } : {}),
  }));
  const ok = safe.every((check) => check.status !== 'fail');
  return { checks: safe, ok, exitCode: ok ? 0 : 1 };
}

async function checkConnectivity(client: Redis | Cluster, endpoint: string, lastError: () => Error | undefined): Promise<DoctorCheck> {
  try {
    if (client.status === 'wait') await client.connect();
    const started = performance.now();
    const pong = await client.ping();
    const ms = (performance.now() - started).toFixed(1);
    const masters = mastersOf(client);
    await Promise.all(masters.map((node) => node.ping())); // every master must answer, authenticated
    const server = parseInfo(await masters[0].info('server'));
    const mode = client instanceof Cluster ? `cluster of ${masters.length} masters` : (server.redis_mode ?? 'standalone');
    return { name: 'connectivity', status: 'pass', reason: `${pong} in ${ms} ms from Redis ${server.redis_version ?? '?'} (${mode})` };
  } catch (error) {
    // "Connection is closed" (or, a moment later, "Stream isn't writeable": the offline queue is off) is ioredis
    // giving up, e.g. after the server rejected AUTH; the error it gave up on says why. Which of the two a command
    // meets depends on how far the close has got, so both are read the same way.
    const closed = error instanceof Error && /Connection is closed|Stream isn't writeable/.test(error.message);
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
