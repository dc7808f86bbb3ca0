import type { RedisConnections } from '../core/connections/redis-connections';
import type { LeaseSettings } from './lease.options';
import type { ExclusiveLeaseStore } from './lease.store';
import { MemoryLeaseStore } from './memory/memory-lease.store';
import { QuorumLeaseStore } from './quorum-lease.store';
import { SingleLeaseStore } from './single-lease.store';

/** The store of exclusive leases (locks, leader leases) the `lock` section calls for: a Redlock quorum over several connections, one deployment, or memory. */
export function createExclusiveLeaseStore(settings: LeaseSettings, connections: RedisConnections): ExclusiveLeaseStore {
  const { redlock, fenceTtlMs, waitReplicas, waitReplicasTimeoutMs } = settings;
  // One process has one copy of every key: a quorum or replica acknowledgement adds nothing in memory.
  if (connections.memory) return new MemoryLeaseStore(connections.memory, fenceTtlMs);
  if (redlock) {
    return new QuorumLeaseStore(
      redlock.connections.map((name) => connections.executor(name)),
      fenceTtlMs,
      redlock.nodeTimeoutMs,
    );
  }
  return new SingleLeaseStore(connections.executor(settings.connection), fenceTtlMs, {
    replicas: waitReplicas,
    timeoutMs: waitReplicasTimeoutMs,
  });
}
