/** Options of `tryAcquire` (a lock, a permit, a read or write lease). */
export interface TryAcquireOptions {
  /** The lease's TTL in ms (default `lock.defaultTtlMs`). */
  ttlMs?: number;
}

/** Options of `acquire` and `using`. */
export interface AcquireOptions extends TryAcquireOptions {
  /** How long to wait while others hold the lease, in ms (default 0: one attempt). */
  waitMs?: number;
}
