import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { CompiledPolicies } from '../compile-policies';
import type { RateLimitStore } from '../rate-limit.store';
import type { MemoryEntry } from './memory-algorithms';
import { MemoryRateLimiter, type RateLimitEntries } from './memory-rate-limiter';

/**
 * Rate limits of the module's memory mode (`connection: 'memory://'`): the same algorithms, decisions and headers as
 * on Redis, on this process's clock, under the same keys with the same TTLs. Exact within one process; nothing is
 * shared with another process or application.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly source = 'memory';
  private readonly limiter: MemoryRateLimiter;

  constructor(private readonly keyspace: MemoryKeyspace) {
    this.limiter = new MemoryRateLimiter(new KeyspaceEntries(keyspace));
  }

  consume(keys: readonly string[], compiled: CompiledPolicies, cost: number): Promise<number[]> {
    return Promise.resolve(this.limiter.consume(keys, compiled, cost, this.keyspace.now()));
  }

  adjust(keys: readonly string[], compiled: CompiledPolicies, delta: number): Promise<number[]> {
    return Promise.resolve(this.limiter.adjust(keys, compiled, delta, this.keyspace.now()));
  }

  reset(keys: readonly string[]): Promise<void> {
    this.limiter.delete(keys);
    return Promise.resolve();
  }

  outageFor(): undefined {
    return undefined;
  }

  /** Memory is never unreachable. */
  isOutage(): boolean {
    return false;
  }
}

/** Entries in the module's keyspace, each living as long as its window (the TTL the scripts set). */
class KeyspaceEntries implements RateLimitEntries {
  constructor(private readonly keyspace: MemoryKeyspace) {}

  get(key: string): MemoryEntry | undefined {
    return this.keyspace.get<MemoryEntry>(key);
  }

  set(key: string, entry: MemoryEntry, now: number): void {
    this.keyspace.set(key, entry, Math.max(1, entry.expiresAt - now));
  }

  delete(keys: readonly string[]): void {
    this.keyspace.delete(...keys);
  }
}
