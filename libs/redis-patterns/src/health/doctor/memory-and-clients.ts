import { formatBytes, plural } from './doctor-support';
import type { DoctorCheck, DoctorWorkload } from './doctor.types';

/** `mem_fragmentation_ratio` above which memory is wasted (with at least `FRAGMENTATION_MIN_BYTES` in use). */
export const FRAGMENTATION_RATIO = 1.5;
/** Below this `used_memory` (100 MB) the fragmentation ratio is noise: the allocator's own overhead dominates it. */
export const FRAGMENTATION_MIN_BYTES = 100 * 1024 * 1024;

/** The INFO fields of one master these checks read (`INFO memory`, `INFO stats`, `INFO clients`). */
export interface ServerStats {
  /** `host:port`, on a cluster. */
  endpoint?: string;
  /** `mem_fragmentation_ratio`: resident memory over `used_memory`. */
  fragmentationRatio: number;
  /** `used_memory` in bytes. */
  usedMemory: number;
  /** `evicted_keys`. */
  evictedKeys: number;
  /** `rejected_connections`. */
  rejectedConnections: number;
  /** `maxclients` (INFO clients, Redis 7.0 and later). */
  maxclients?: number;
}

/** Reads the fields of {@link ServerStats} from one master's parsed INFO. */
export function serverStats(info: Readonly<Record<string, string>>, endpoint?: string): ServerStats {
  return {
    endpoint,
    fragmentationRatio: Number(info.mem_fragmentation_ratio ?? 1),
    usedMemory: Number(info.used_memory ?? 0),
    evictedKeys: Number(info.evicted_keys ?? 0),
    rejectedConnections: Number(info.rejected_connections ?? 0),
    maxclients: info.maxclients === undefined ? undefined : Number(info.maxclients),
  };
}

const at = (stats: ServerStats) => (stats.endpoint ? ` on ${stats.endpoint}` : '');

/**
 * Warns when a master with enough memory in use has a fragmentation ratio above `FRAGMENTATION_RATIO` (memory held
 * by the allocator, not by data), or below 1 (part of Redis is swapped out).
 */
export function judgeFragmentation(masters: readonly ServerStats[]): DoctorCheck {
  const name = 'fragmentation';
  const figures = masters.map((m) => `ratio ${m.fragmentationRatio} with used_memory ${formatBytes(m.usedMemory)}${at(m)}`);
  const sized = masters.filter((m) => m.usedMemory >= FRAGMENTATION_MIN_BYTES);
  const fragmented = sized.filter((m) => m.fragmentationRatio > FRAGMENTATION_RATIO);
  const swapped = sized.filter((m) => m.fragmentationRatio < 1);
  if (fragmented.length > 0) {
    return {
      name,
      status: 'warn',
      reason: `mem_fragmentation_ratio above ${FRAGMENTATION_RATIO} (${figures.join('; ')}): the host gives Redis that much more memory than its data uses`,
      evidence: figures,
      fix: 'Turn on active defragmentation (CONFIG SET activedefrag yes, jemalloc builds), or restart a replica and fail over to it; deleting many keys at once, then writing values of other sizes, fragments memory.',
    };
  }
  if (swapped.length > 0) {
    return {
      name,
      status: 'warn',
      reason: `mem_fragmentation_ratio below 1 (${figures.join('; ')}): part of Redis is swapped out, and every access to it waits on the disk`,
      evidence: figures,
      fix: 'Give the host more memory or lower maxmemory below the host memory, and keep Redis out of swap.',
    };
  }
  const verdict =
    sized.length === 0
      ? `under ${formatBytes(FRAGMENTATION_MIN_BYTES)} in use, where the ratio is mostly the allocator's fixed overhead`
      : `between 1 and ${FRAGMENTATION_RATIO}`;
  return { name, status: 'pass', reason: `mem_fragmentation_${figures.join('; ')}: ${verdict}` };
}

/** Workloads whose keys must not be evicted: a lock, a session, a rate-limit counter or a queued message would go. */
const MUST_KEEP: readonly DoctorWorkload[] = ['locks', 'sessions', 'rate-limit', 'streams'];

/** Warns when keys were evicted and the instance serves a workload whose keys must not go. */
export function judgeEvictions(masters: readonly ServerStats[], workloads: readonly DoctorWorkload[]): DoctorCheck {
  const name = 'evictions';
  const evicted = masters.reduce((sum, m) => sum + m.evictedKeys, 0);
  const since = 'since the statistics began (a restart or CONFIG RESETSTAT)';
  if (evicted === 0) return { name, status: 'pass', reason: `evicted_keys 0 ${since}` };
  const keep = workloads.filter((w) => MUST_KEEP.includes(w));
  if (keep.length === 0) return { name, status: 'pass', reason: `evicted_keys ${evicted} ${since}: a cache making room, as it should` };
  return {
    name,
    status: 'warn',
    reason: `evicted_keys ${evicted} ${since}, on an instance that serves ${keep.join(', ')}: an evicted lock lets a second holder in, an evicted session logs a user out, an evicted rate-limit counter resets a limit`,
    evidence: masters.filter((m) => m.evictedKeys > 0).map((m) => `${plural(m.evictedKeys, 'key')} evicted${at(m)}`),
    fix: 'Raise maxmemory (or shrink the data: see big-keys and keys-without-ttl), or move the cache to an instance of its own so that memory pressure never chooses among locks, sessions and counters; then CONFIG RESETSTAT to watch for new evictions.',
  };
}

/** Warns when connections were refused at `maxclients`. */
export function judgeRejectedConnections(masters: readonly ServerStats[]): DoctorCheck {
  const name = 'rejected-connections';
  const rejected = masters.reduce((sum, m) => sum + m.rejectedConnections, 0);
  const limits = [...new Set(masters.map((m) => m.maxclients).filter((n) => n !== undefined))];
  const cap = limits.length > 0 ? ` (maxclients ${limits.join(', ')})` : '';
  if (rejected === 0) return { name, status: 'pass', reason: `rejected_connections 0${cap}` };
  return {
    name,
    status: 'warn',
    reason: `rejected_connections ${rejected}${cap}: clients were turned away at maxclients, and whatever they were doing failed`,
    evidence: masters
      .filter((m) => m.rejectedConnections > 0)
      .map((m) => `${plural(m.rejectedConnections, 'connection')} rejected${at(m)}`),
    fix: 'Find the client that opens too many connections (CLIENT LIST, connected_clients in INFO clients): one ioredis client per process and connection name is enough, pools should be bounded; raise maxclients (and the open-file limit) only when the count is expected.',
  };
}
