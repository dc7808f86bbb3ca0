import type { DoctorCheck, DoctorWorkload } from './doctor.types';

/**
 * Judges `maxmemory-policy` and `maxmemory` against what the instance serves. Library keys carry TTLs except
 * lock fencing counters and streams, so `volatile-*` evicts only what may go; `allkeys-*` can evict those two;
 * `noeviction` turns a full instance into write errors, and without `maxmemory` only TTLs bound memory.
 */
export function judgeEvictionPolicy(policy: string, maxmemory: number, workloads: readonly DoctorWorkload[]): DoctorCheck {
  const name = 'eviction-policy';
  const caching = workloads.includes('cache');
  const durable = workloads.filter((w) => w === 'locks' || w === 'streams' || w === 'sessions');
  const cap = maxmemory > 0 ? `maxmemory ${maxmemory} bytes` : 'no maxmemory';
  const seen = `${policy} with ${cap}`;
  if (policy === 'noeviction') {
    if (maxmemory === 0) {
      return caching
        ? {
            name,
            status: 'warn',
            reason: `${seen}: nothing evicts and nothing caps memory, so TTLs alone bound it; caching here grows until the host runs out of memory. Set maxmemory with volatile-lru (or allkeys-lru on a cache-only instance).`,
          }
        : { name, status: 'pass', reason: `${seen}: memory is bounded by TTLs only; fine when every key has one (see the key-TTL check).` };
    }
    return caching
      ? {
          name,
          status: 'warn',
          reason: `${seen}: at the cap every write fails with OOM (locks and rate limits included) instead of evicting cache entries. Prefer volatile-lru.`,
        }
      : { name, status: 'pass', reason: `${seen}: writes fail with OOM at the cap and nothing is evicted, as queues and locks need.` };
  }
  if (policy.startsWith('allkeys-')) {
    return durable.length > 0
      ? {
          name,
          status: 'warn',
          reason: `${seen}: may evict keys without a TTL that ${durable.join(', ')} rely on (lock fencing counters, streams, live sessions). Prefer volatile-lru/volatile-lfu, or a separate cache instance.`,
        }
      : { name, status: 'pass', reason: `${seen}: suits a cache-only instance.` };
  }
  if (policy.startsWith('volatile-')) {
    if (maxmemory === 0 && caching) {
      return {
        name,
        status: 'warn',
        reason: `${seen}: the policy never applies without maxmemory, so a growing cache is bounded by TTLs only. Set maxmemory.`,
      };
    }
    return { name, status: 'pass', reason: `${seen}: only keys with a TTL are evicted; fencing counters and streams stay.` };
  }
  return { name, status: 'warn', reason: `unknown maxmemory-policy "${policy}" (${cap}).` };
}
