import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';

/**
 * The next fencing token of the counter at `key`, as the scripts' next_fence: at least the clock in µs, and always
 * above the last token issued on that counter; the counter keeps `fenceTtlMs` (0: no TTL).
 */
export function nextMemoryFence(keyspace: MemoryKeyspace, key: string, fenceTtlMs: number): number {
  const last = keyspace.get<number>(key) ?? 0;
  const fencingToken = Math.max(last + 1, keyspace.now() * 1000);
  keyspace.set(key, fencingToken, fenceTtlMs > 0 ? fenceTtlMs : Infinity);
  return fencingToken;
}
