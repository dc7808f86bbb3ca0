import type { CompiledPolicies } from '../compile-policies';
import { MEMORY_ADJUSTS, MEMORY_CHECKS, type MemoryCheck, type MemoryEntry } from './memory-algorithms';

/** Where the in-memory limiter keeps one entry per policy key. */
export interface RateLimitEntries {
  /** The entry of `key` (an expired one may be returned: the limiter checks `expiresAt` itself). */
  get(key: string): MemoryEntry | undefined;
  set(key: string, entry: MemoryEntry, now: number): void;
  delete(keys: readonly string[]): void;
}

/**
 * The rate-limit algorithms on this process's memory: same policies, same all-or-nothing rule, same reply shape as
 * the Redis scripts, counted per process. It serves two purposes: the fallback of limiters configured with
 * `inMemoryFallback` while Redis is unavailable (with N instances, up to N× the limit is admitted cluster-wide
 * during an outage; nothing is replayed to Redis when it comes back), and the store of the module's memory mode.
 */
export class MemoryRateLimiter {
  constructor(private readonly entries: RateLimitEntries = new BoundedEntries()) {}

  /** Same contract as the consume script: `[allowed, then per policy remaining, resetMs, retryAfterMs]`. */
  consume(keys: readonly string[], compiled: CompiledPolicies, cost: number, now = Date.now()): number[] {
    const checks: MemoryCheck[] = [];
    let allowed = true;
    let blockKey = compiled.policies.length;
    compiled.policies.forEach((policy, i) => {
      const entry = this.entries.get(keys[i]);
      let check = MEMORY_CHECKS[policy.code](entry && entry.expiresAt > now ? entry : undefined, policy, cost, now);
      if (policy.blockMs > 0) check = this.applyBlock(check, keys[blockKey++], policy.blockMs, cost, now);
      if (!check.ok) allowed = false;
      checks.push(check);
    });
    if (allowed && cost > 0) checks.forEach((check, i) => this.entries.set(keys[i], check.commit(), now));
    const out = [allowed ? 1 : 0];
    for (const check of checks) {
      if (allowed) out.push(Math.max(Math.floor(check.available - cost), 0), Math.ceil(cost > 0 ? check.resetAfter : check.resetNow), 0);
      else out.push(Math.max(Math.floor(check.available), 0), Math.ceil(check.resetNow), Math.ceil(check.retry));
    }
    return out;
  }

  /** Same contract as the adjust script: `[per policy remaining, resetMs]`, each policy kept within 0 and its limit. */
  adjust(keys: readonly string[], compiled: CompiledPolicies, delta: number, now = Date.now()): number[] {
    const out: number[] = [];
    compiled.policies.forEach((policy, i) => {
      const entry = this.entries.get(keys[i]);
      const {
        entry: next,
        remaining,
        reset,
      } = MEMORY_ADJUSTS[policy.code](entry && entry.expiresAt > now ? entry : undefined, policy, delta, now);
      if (next) this.entries.set(keys[i], next, now);
      else this.entries.delete([keys[i]]);
      out.push(Math.max(Math.floor(remaining + 1e-9), 0), Math.ceil(reset));
    });
    return out;
  }

  // As the consume script: a live block denies; a denial by the policy itself (not a peek) starts one.
  private applyBlock(check: MemoryCheck, key: string, blockMs: number, cost: number, now: number): MemoryCheck {
    const block = this.entries.get(key);
    let left = block && block.expiresAt > now ? block.expiresAt - now : 0;
    if (left > 0) check = { ...check, ok: false, available: 0 };
    else if (!check.ok && cost > 0) {
      this.entries.set(key, { count: 1, expiresAt: now + blockMs }, now);
      left = blockMs;
    }
    return left > 0 ? { ...check, retry: Math.max(check.retry, left), resetNow: Math.max(check.resetNow, left) } : check;
  }

  /** Forgets the state of `keys`. */
  delete(keys: readonly string[]): void {
    this.entries.delete(keys);
  }
}

/**
 * The outage fallback's entries: bounded, expired entries swept as it goes and the oldest dropped beyond
 * `maxEntries`.
 */
export class BoundedEntries implements RateLimitEntries {
  private readonly entries = new Map<string, MemoryEntry>();

  constructor(private readonly maxEntries = 100_000) {}

  get(key: string): MemoryEntry | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: MemoryEntry, now: number): void {
    this.sweep(now);
    // Re-inserting moves the key to the end of the Map's order, which is what eviction goes by.
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

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
      if (this.entries.size < this.maxEntries && (budget-- <= 0 || entry.expiresAt > now)) break;
      this.entries.delete(key);
    }
  }
}
