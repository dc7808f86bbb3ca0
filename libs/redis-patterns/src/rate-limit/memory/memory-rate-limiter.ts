import type { CompiledPolicies } from '../compile-policies';
import { MEMORY_CHECKS, type MemoryCheck, type MemoryEntry } from './memory-algorithms';

/**
 * The per-instance fallback used while Redis is unavailable, for limiters configured with `inMemoryFallback`.
 * Same policies, same all-or-nothing rule, same reply shape as the Redis script, but counted per process: with N
 * instances, up to N× the limit is admitted cluster-wide during an outage. Its counts are never copied to Redis
 * (nothing is replayed when Redis comes back). Bounded: expired entries are swept as it goes and the oldest entries
 * are dropped beyond `maxEntries`.
 */
export class MemoryRateLimiter {
  private readonly entries = new Map<string, MemoryEntry>();

  constructor(private readonly maxEntries = 100_000) {}

  /** Same contract as the consume script: `[allowed, then per policy remaining, resetMs, retryAfterMs]`. */
  consume(keys: readonly string[], compiled: CompiledPolicies, cost: number, now = Date.now()): number[] {
    this.sweep(now);
    const checks: MemoryCheck[] = [];
    let allowed = true;
    compiled.policies.forEach((policy, i) => {
      const entry = this.entries.get(keys[i]);
      const check = MEMORY_CHECKS[policy.code](entry && entry.expiresAt > now ? entry : undefined, policy, cost, now);
      if (!check.ok) allowed = false;
      checks.push(check);
    });
    if (allowed && cost > 0) {
      checks.forEach((check, i) => {
        // Re-inserting moves the key to the end of the Map's order, which is what eviction goes by.
        this.entries.delete(keys[i]);
        this.entries.set(keys[i], check.commit());
      });
    }
    const out = [allowed ? 1 : 0];
    for (const check of checks) {
      if (allowed) out.push(Math.max(Math.floor(check.available - cost), 0), Math.ceil(cost > 0 ? check.resetAfter : check.resetNow), 0);
      else out.push(Math.max(Math.floor(check.available), 0), Math.ceil(check.resetNow), Math.ceil(check.retry));
    }
    return out;
  }

  /** Forgets the state of `keys`. */
  delete(keys: readonly string[]): void {
    for (const key of keys) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(now: number): void {
    // Amortised: look at a few of the oldest entries per call rather than scanning everything.
    let budget = 8;
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && (budget-- <= 0 || entry.expiresAt > now)) break;
      this.entries.delete(key);
    }
  }
}
