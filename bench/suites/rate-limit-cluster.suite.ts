import { cpus } from 'node:os';
import Redis, { Cluster } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { BenchGroup, Contender, RatioSpec } from '../lib/contender';
import { libraryContender, unavailableContender } from '../lib/contenders';
import { createOurContext, missingExports, resolveService } from '../lib/our-library';
import { apSuffix } from '../lib/peer-clients';
import { SharedLease } from '../lib/shared-lease';
import { HEADLINE_CONCURRENCY, peerTargetAt } from '../lib/sweep';
import { BenchCluster, serversCpuUs } from '../scaling/bench-cluster';
import type { ClusterConnection } from '../scaling/worker-protocol';
import { clientKeys, expectAllowed, FIXED_WINDOW_LUA, POLICIES, type RateLimiterLike } from './rate-limit.suite';
import type { SuiteContext } from './suite-context';

// The one-server group's fixed window (limit 100 per 60 s), so the rows of both groups decide the same policy.
const POLICY = POLICIES['fixed-window'] as { algorithm: 'fixed-window'; limit: number; windowMs: number };

/** The throughput target against rate-limiter-flexible, at the levels where callers have others to share a command with. */
const PEER_TARGET = 1.2;
const PEER_TARGET_LEVELS: readonly number[] = [8, HEADLINE_CONCURRENCY];

/** Every peer row the throughput target is taken against (the better of them: the peer at its best). */
const RLF = ['rlf', 'rlf-ap'] as const;

/** A key generator over the one-server group's client ids, each id its own hash tag (so its own slot). */
function taggedClientKeys(prefix: string): () => string {
  const next = clientKeys(prefix);
  return () => `{${next()}}`;
}

/**
 * The group's 3-master cluster (one replica each), shared by its contenders: started by the first setup, stopped by
 * the last teardown, with a plain connection to each of its six nodes to read their CPU counters.
 */
class SharedCluster {
  private readonly lease = new SharedLease<{ cluster: BenchCluster; admins: Redis[] }>(
    'the cluster',
    SharedCluster.start,
    async ({ cluster, admins }) => {
      for (const admin of admins) admin.disconnect();
      await cluster.stop();
    },
  );

  acquire(): Promise<void> {
    return this.lease.acquire();
  }

  release(): Promise<void> {
    return this.lease.release();
  }

  /** The seed nodes, in the shape `RedisPatternsModule.forRoot({ connection })` takes; only while acquired. */
  async connection(): Promise<ClusterConnection> {
    return (await this.lease.current()).cluster.connection;
  }

  /**
   * CPU (user + system, µs) the cluster's six nodes have used so far: the masters' and, unlike
   * BenchCluster.mastersCpuUs, their replicas' too (every row here runs on the same cluster, so what replication
   * costs per decision belongs to the limiter's cost).
   */
  async cpuUs(): Promise<number> {
    return serversCpuUs((await this.lease.current()).admins);
  }

  private static async start(): Promise<{ cluster: BenchCluster; admins: Redis[] }> {
    const cluster = await BenchCluster.start();
    const admins: Redis[] = [];
    try {
      for (const { host, port } of cluster.connection.cluster.nodes) {
        const admin = new Redis({ port, host, lazyConnect: true, enableAutoPipelining: false });
        admins.push(admin);
        await admin.connect();
      }
      return { cluster, admins };
    } catch (error) {
      for (const admin of admins) admin.disconnect();
      await cluster.stop();
      throw error;
    }
  }
}

/**
 * A closed-loop contender on the shared cluster: `open` runs once the cluster is up, `close` before it is released
 * (also when `open` failed, so it must tolerate a half-open state), and every run reports the Redis CPU of the
 * cluster's nodes itself (the runner reads only the benchmark's standalone server).
 */
function clusterContender(
  shared: SharedCluster,
  spec: {
    id: string;
    label: string;
    concurrency: number;
    open: (connection: ClusterConnection) => Promise<void>;
    close: () => Promise<void>;
    op: () => Promise<unknown>;
  },
): Contender {
  const contender = libraryContender({
    id: spec.id,
    label: spec.label,
    concurrency: spec.concurrency,
    setup: async () => {
      await shared.acquire();
      try {
        await spec.open(await shared.connection());
      } catch (error) {
        await spec.close().catch(() => undefined);
        await shared.release();
        throw error;
      }
    },
    teardown: async () => {
      try {
        await spec.close();
      } finally {
        await shared.release();
      }
    },
    op: spec.op,
  });
  const run = contender.run;
  return {
    ...contender,
    run: async (durationMs) => {
      const before = await shared.cpuUs();
      const result = await run(durationMs);
      result.redisCpuUs = (await shared.cpuUs()) - before;
      return result;
    },
  };
}

/** An ioredis Cluster client of a peer, as an application would create one, connected before the first run. */
async function openPeerCluster(connection: ClusterConnection, autoPipelining: boolean): Promise<Cluster> {
  const client = new Cluster(connection.cluster.nodes, { enableAutoPipelining: autoPipelining, lazyConnect: true });
  await client.connect();
  return client;
}

/** Our fixed-window decision through the module configured with the cluster's seed nodes (its defaults otherwise). */
function ourContender(ctx: SuiteContext, shared: SharedCluster): Contender {
  const missing = missingExports('RateLimiterService');
  if (missing) return unavailableContender('ours-fixed-window', 'consume() fixed-window', missing);
  let close: (() => Promise<void>) | undefined;
  let limiter: RateLimiterLike;
  // Plain ids: the library puts each identity in its own hash tag.
  const nextKey = clientKeys('fixed-window:');
  return clusterContender(shared, {
    id: 'ours-fixed-window',
    label: 'RateLimiterService.consume() fixed-window (cluster connection)',
    concurrency: ctx.concurrency,
    open: async (connection) => {
      // As the scaling worker does: a `connection` section replaces the URL (a seed node's, never used).
      const [seed] = connection.cluster.nodes;
      const app = await createOurContext(`redis://${seed.host}:${seed.port}`, 'bench-rl-cluster', { connection });
      close = () => app.close();
      limiter = resolveService<RateLimiterLike>(app, 'RateLimiterService');
    },
    close: async () => close?.(),
    op: async () => expectAllowed(await limiter.consume(nextKey(), POLICY)),
  });
}

function rlfContender(ctx: SuiteContext, shared: SharedCluster, autoPipelining: boolean): Contender {
  const id = autoPipelining ? 'rlf-ap' : 'rlf';
  const nextKey = taggedClientKeys(`${id}:`);
  let client: Cluster | undefined;
  let rlf: RateLimiterRedis;
  return clusterContender(shared, {
    id,
    label: `rate-limiter-flexible RateLimiterRedis.consume() (ioredis Cluster)${apSuffix(autoPipelining)}`,
    concurrency: ctx.concurrency,
    open: async (connection) => {
      client = await openPeerCluster(connection, autoPipelining);
      rlf = new RateLimiterRedis({ storeClient: client, points: POLICY.limit, duration: POLICY.windowMs / 1000, keyPrefix: 'rlf' });
    },
    close: async () => client?.disconnect(),
    op: () => rlf.consume(nextKey()),
  });
}

function handWrittenContender(ctx: SuiteContext, shared: SharedCluster): Contender {
  type Scripted = Cluster & { benchFixedWindow?: (key: string, windowMs: number) => Promise<[number, number]> };
  const nextKey = taggedClientKeys('raw:');
  let client: Scripted | undefined;
  return clusterContender(shared, {
    id: 'raw',
    label: 'hand-written one-EVALSHA fixed window (ioredis Cluster, auto-pipelining)',
    concurrency: ctx.concurrency,
    open: async (connection) => {
      client = await openPeerCluster(connection, true);
      client.defineCommand('benchFixedWindow', { numberOfKeys: 1, lua: FIXED_WINDOW_LUA });
    },
    close: async () => client?.disconnect(),
    op: async () => {
      const [count] = await client!.benchFixedWindow!(nextKey(), POLICY.windowMs);
      if (count > POLICY.limit) throw new Error('denied during the allowed-path benchmark');
    },
  });
}

/**
 * Rate limiting on a 3-master Redis Cluster (one replica each, started for the group and stopped after it): one
 * fixed-window consume() through our module configured with a cluster connection, against rate-limiter-flexible's
 * RateLimiterRedis on an ioredis Cluster client without and with auto-pipelining, and a hand-written one-EVALSHA
 * fixed window on an auto-pipelined ioredis Cluster client, all on the allowed path, with Redis CPU per decision
 * summed over the cluster's six nodes.
 *
 * Why distinct identities: every decision is for another client id, each its own hash tag, so consecutive decisions
 * land on different slots. A library that batched the decisions of one turn per slot would send groups of one here
 * (one EVALSHA per decision, nothing gained over a peer); ours coalesces the waiting calls of a script per master,
 * whatever their slot, so several decisions share one EVALSHA even here. The peers send one script call per decision
 * (with auto-pipelining, several calls per node in one write). What the group measures is whether coalescing per
 * master still pays, in throughput and in Redis CPU per decision, on the deployment where one-server batching (one
 * command for a turn's decisions, whatever their keys) cannot apply.
 */
export function rateLimitClusterGroup(ctx: SuiteContext): BenchGroup {
  const c = ctx.concurrency;
  const shared = new SharedCluster();
  // peerTargetAt gives the headline target at 64, 1.0 for a lone caller and 1.2 at 8; here 8 callers already have
  // others on the same master to share a command with, so the cluster's own target holds at 8 as well.
  const peerTarget = PEER_TARGET_LEVELS.includes(c) ? PEER_TARGET : peerTargetAt(c, PEER_TARGET);
  const ratios: RatioSpec[] = [
    { label: 'fixed-window / rate-limiter-flexible (better row)', numerator: 'ours-fixed-window', denominator: RLF, target: peerTarget },
    { label: 'fixed-window / hand-written EVALSHA', numerator: 'ours-fixed-window', denominator: 'raw' },
    // Redis CPU per decision: what the cluster pays for each limiter, whatever the client does.
    ...RLF.map((peer): RatioSpec => ({
      label: `Redis CPU per decision, fixed-window / ${peer}`,
      numerator: 'ours-fixed-window',
      denominator: peer,
      metric: 'redisCpuUsPerOp',
    })),
  ];
  return {
    id: 'rate-limit-cluster',
    title: 'Rate limit: one policy on a 3-master cluster',
    unit: 'one allowed decision',
    load:
      `${c} concurrent caller${c === 1 ? '' : 's'} over 100,000 client keys, each its own hash tag (slots spread over ` +
      `the three masters), limit ${POLICY.limit} per ${POLICY.windowMs / 1000} s, closed loop, on a 3-master cluster ` +
      `with one replica each, started for the group; Redis CPU is the sum over the six nodes; Redis cmds/op and socket ` +
      `reads/op are the standalone server's (near zero here); ${cpus().length} CPU cores shared by the client and every Redis process`,
    contenders: [
      ourContender(ctx, shared),
      rlfContender(ctx, shared, false),
      rlfContender(ctx, shared, true),
      handWrittenContender(ctx, shared),
    ],
    ratios,
  };
}
