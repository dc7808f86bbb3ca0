import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { EncodedOutcome } from '../idempotency-record';
import type { ClaimResult, IdempotencyStore } from '../idempotency.store';

type MemoryRecord =
  | { readonly state: 'running'; readonly owner: string; readonly fp: string }
  | { readonly state: 'done'; readonly fp: string; readonly outcome: EncodedOutcome };

/**
 * Idempotency records of the module's memory mode (`connection: 'memory://'`): the same keys, owner tokens,
 * fingerprints and TTLs as on Redis, so `@Idempotent` claims, waits, replays, refuses and expires as it does there.
 * Within this process only. Each operation runs to completion before any other (one thread), which is what the
 * scripts' atomicity gives on Redis.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  constructor(private readonly keyspace: MemoryKeyspace) {}

  claim(key: string, token: string, fingerprint: string, lockTtlMs: number): Promise<ClaimResult> {
    const record = this.keyspace.get<MemoryRecord>(key);
    if (!record) {
      this.keyspace.set(key, { state: 'running', owner: token, fp: fingerprint }, lockTtlMs);
      return Promise.resolve({ state: 'claimed' });
    }
    if (fingerprint !== '' && record.fp !== '' && record.fp !== fingerprint) return Promise.resolve({ state: 'mismatch' });
    if (record.state === 'running') return Promise.resolve({ state: 'running', remainingMs: Math.max(0, this.keyspace.pttl(key)) });
    return Promise.resolve({ state: 'done', outcome: record.outcome });
  }

  complete(key: string, token: string, outcome: EncodedOutcome, ttlMs: number): Promise<boolean> {
    const record = this.keyspace.get<MemoryRecord>(key);
    if (record?.state !== 'running' || record.owner !== token) return Promise.resolve(false);
    this.keyspace.set(key, { state: 'done', fp: record.fp, outcome }, ttlMs);
    return Promise.resolve(true);
  }

  extend(key: string, token: string, lockTtlMs: number): Promise<boolean> {
    return Promise.resolve(this.owns(key, token) && this.keyspace.expire(key, lockTtlMs));
  }

  release(key: string, token: string): Promise<boolean> {
    return Promise.resolve(this.owns(key, token) && this.keyspace.delete(key) === 1);
  }

  private owns(key: string, token: string): boolean {
    const record = this.keyspace.get<MemoryRecord>(key);
    return record?.state === 'running' && record.owner === token;
  }
}
