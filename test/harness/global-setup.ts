import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, startSentinel, startStandalone, type Topology } from './topologies';

declare global {
  // Shared between globalSetup and globalTeardown (same process), not with test workers.
  var __REDIS_TOPOLOGIES__: { root: string; topologies: Topology[] } | undefined;
}

/**
 * Starts the Redis deployments the suite runs against, on free loopback ports, and publishes them to the test
 * workers through environment variables. `REDIS_TOPOLOGIES` (comma-separated: standalone, cluster, sentinel;
 * default all) narrows what starts when running a subset of specs.
 */
export default async function globalSetup(): Promise<void> {
  const wanted = new Set((process.env.REDIS_TOPOLOGIES ?? 'standalone,cluster,sentinel').split(',').map((s) => s.trim()));
  const root = mkdtempSync(join(tmpdir(), 'redis-patterns-test-'));
  process.env.REDIS_TEST_ROOT = root;
  const topologies: Topology[] = [];
  globalThis.__REDIS_TOPOLOGIES__ = { root, topologies };
  const track = <T extends Topology>(topology: T): T => {
    topologies.push(topology);
    return topology;
  };
  const started = await Promise.allSettled([
    wanted.has('standalone')
      ? startStandalone(root)
          .then(track)
          .then((t) => (process.env.REDIS_URL_STANDALONE = t.url))
      : undefined,
    wanted.has('cluster')
      ? startCluster(root)
          .then(track)
          .then((t) => (process.env.REDIS_CLUSTER_PORTS = t.ports.join(',')))
      : undefined,
    wanted.has('sentinel')
      ? startSentinel(root)
          .then(track)
          .then((t) => {
            process.env.REDIS_SENTINEL_PORTS = t.sentinels.map((s) => s.port).join(',');
            process.env.REDIS_SENTINEL_MASTER = t.masterName;
            process.env.REDIS_SENTINEL_DATA_PORTS = `${t.master.port},${t.replica.port}`;
          })
      : undefined,
  ]);
  const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    // Jest skips globalTeardown when globalSetup throws: stop what did start before failing.
    await Promise.all(topologies.map((t) => t.stop()));
    rmSync(root, { recursive: true, force: true });
    throw failure.reason;
  }
}
