import { cpus } from 'node:os';
import type { BenchGroup, Contender, RatioSpec } from '../lib/contender';
import { unavailableContender } from '../lib/contenders';
import { missingExports } from '../lib/our-library';
import { ClusterWorkerPool } from '../scaling/cluster-worker-pool';
import { SharedWorkerPool, type WorkerPoolLease } from '../scaling/shared-worker-pool';
import type { ClusterConnection, ScalingOperation, WorkerSpec } from '../scaling/worker-protocol';
import type { SuiteContext } from './suite-context';

/** Concurrent callers of the closed loop in every worker process. */
const CALLERS_PER_PROCESS = 64;
const PROCESS_COUNTS = [1, 2, 4] as const;
/** Worker processes on each side of the cluster comparison. */
const CLUSTER_CLIENT_PROCESSES = 4;

const OPERATIONS: { operation: ScalingOperation; id: string; label: string }[] = [
  { operation: 'rate-limit', id: 'rl', label: 'rate-limit decision' },
  { operation: 'cache-hit', id: 'cache', label: 'cache hit' },
];

function workerSpecs(
  count: number,
  connection: string | ClusterConnection,
  keyPrefix: string,
  operations: ScalingOperation[],
): WorkerSpec[] {
  return Array.from({ length: count }, (_, index) => ({ index, connection, keyPrefix, concurrency: CALLERS_PER_PROCESS, operations }));
}

/**
 * A row run by the first `processes` workers of a pool, all started at once; `measureRedisCpu`, when given, reads
 * the Redis CPU (µs) used so far by the servers the row runs on.
 */
function pooledContender(
  id: string,
  label: string,
  pool: WorkerPoolLease,
  processes: number,
  operation: ScalingOperation,
  measureRedisCpu?: () => Promise<number>,
): Contender {
  return {
    id,
    label,
    setup: () => pool.acquire(),
    teardown: () => pool.release(),
    run: async (durationMs) => {
      const workers = await pool.current();
      const before = await measureRedisCpu?.();
      const result = await workers.run(processes, operation, durationMs);
      if (measureRedisCpu) result.redisCpuUs = (await measureRedisCpu()) - before!;
      return result;
    },
  };
}

const processes = (n: number) => `${n} process${n === 1 ? '' : 'es'}`;

/**
 * Scaling out the application: 1, 2 and 4 Node processes, each with its own application context and 64 callers,
 * against the benchmark's one Redis server, for an allowed rate-limit decision and a cache hit.
 *
 * Where it is expected to bend on a 2-core machine: one process keeps most of one core busy with client work while
 * Redis uses part of the other (the library sends the rate-limit decisions of one event-loop turn in one EVALSHA and
 * the reads in one MGET, so one process with 64 callers already drives Redis hard); a second process takes what is
 * left of the two cores, so 2 processes gain well under 2x, and 4 processes only share the same two cores with
 * Redis: context switches and latency, not throughput. The client's CPU per operation (more than Redis's) runs
 * out first, not Redis's event loop.
 */
export function scalingGroup(ctx: SuiteContext): BenchGroup {
  const missing = missingExports('RateLimiterService', 'CacheService');
  const pool = new SharedWorkerPool(
    workerSpecs(
      Math.max(...PROCESS_COUNTS),
      ctx.redis.url,
      'bench-scaling',
      OPERATIONS.map((o) => o.operation),
    ),
  );
  const contenders = OPERATIONS.flatMap(({ operation, id, label }) =>
    PROCESS_COUNTS.map((n) =>
      missing
        ? unavailableContender(`${id}-${n}`, `${label}, ${processes(n)}`, missing)
        : pooledContender(`${id}-${n}`, `${label}, ${processes(n)}`, pool, n, operation),
    ),
  );
  const ratios: RatioSpec[] = OPERATIONS.flatMap(({ id, label }) =>
    PROCESS_COUNTS.filter((n) => n > 1).map((n) => ({
      label: `${label}: ${processes(n)} / 1`,
      numerator: `${id}-${n}`,
      denominator: `${id}-1`,
    })),
  );
  return {
    id: 'scaling',
    title: 'Scaling: application processes on one Redis',
    unit: 'one operation: an allowed fixed-window decision (rate-limit rows) or a read of a cached ~0.5 KB JSON value (cache rows)',
    load:
      `${CALLERS_PER_PROCESS} concurrent callers per Node process (closed loop), 1, 2 or 4 processes started together, each ` +
      `with its own application context, against one Redis server; each process decides for its own 100,000 client ` +
      `ids (fixed window, 1,000 per 10 min, every id decided once at start-up so no measured decision is a key's ` +
      `first hit) and reads its own keys (one per caller); client CPU is the processes' summed CPU; ` +
      `${cpus().length} CPU cores shared by the processes and Redis`,
    contenders,
    ratios,
  };
}

/**
 * Redis-bound throughput: rate-limit decisions from 4 processes × 64 callers on client ids spread over every slot,
 * against one standalone master and a 3-master cluster (one replica each).
 *
 * Where the bottleneck is expected on a 2-core machine: not in Redis. The four client processes need more CPU per
 * decision than Redis, and they, the three masters and their three replicas all share two cores, so the cluster
 * cannot show the throughput of three Redis event loops here. What the ratio shows is what a cluster costs per
 * decision when the cores are the limit: a single server takes the decisions of one event-loop turn in one
 * EVALSHA whatever their keys, while on a cluster a batch holds one slot only, so decisions for distinct clients go
 * as one EVALSHA each (more client and Redis CPU per decision), and every master also feeds its replica.
 */
export function clusterScalingGroup(ctx: SuiteContext): BenchGroup {
  const missing = missingExports('RateLimiterService');
  const single = new SharedWorkerPool(workerSpecs(CLUSTER_CLIENT_PROCESSES, ctx.redis.url, 'bench-scaling-single', ['rate-limit']));
  const cluster = new ClusterWorkerPool((connection) =>
    workerSpecs(CLUSTER_CLIENT_PROCESSES, connection, 'bench-scaling-cluster', ['rate-limit']),
  );
  const clusterRow = pooledContender(
    'cluster',
    'rate-limit decisions, 3-master cluster',
    cluster,
    CLUSTER_CLIENT_PROCESSES,
    'rate-limit',
    // The runner reads only the benchmark's standalone server: the cluster row sums its three masters itself.
    () => cluster.mastersCpuUs(),
  );
  const contenders: Contender[] = missing
    ? [
        unavailableContender('single', 'rate-limit decisions, 1 master', missing),
        unavailableContender('cluster', 'rate-limit decisions, 3-master cluster', missing),
      ]
    : [pooledContender('single', 'rate-limit decisions, 1 master', single, CLUSTER_CLIENT_PROCESSES, 'rate-limit'), clusterRow];
  return {
    id: 'scaling-cluster',
    title: 'Scaling: 3-master cluster against one master',
    unit: 'one allowed fixed-window decision',
    load:
      `${CLUSTER_CLIENT_PROCESSES} Node processes × ${CALLERS_PER_PROCESS} concurrent callers (closed loop), each process ` +
      `deciding for its own 100,000 client ids (decided once at start-up, as in the group above), each id its own hash ` +
      `tag (slots spread over the three masters); the library's ` +
      `defaults per deployment (auto-pipelining per node on the cluster, off on a single node); cluster Redis CPU is the ` +
      `sum over the three masters (replicas not counted); Redis cmds/op and socket reads/op are the standalone ` +
      `server's (near zero for the cluster row); ${cpus().length} CPU cores shared by the clients and every Redis process`,
    contenders,
    ratios: [{ label: 'rate-limit decisions: 3-master cluster / 1 master', numerator: 'cluster', denominator: 'single' }],
  };
}
