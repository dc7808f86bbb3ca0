import type { RedisExecutor } from '../core/scripts/redis-executor';
import type { EncodedOutcome } from './idempotency-record';
import { CLAIM_IDEMPOTENCY_SCRIPT, type ClaimReply } from './scripts/claim-idempotency.script';
import { COMPLETE_IDEMPOTENCY_SCRIPT } from './scripts/complete-idempotency.script';
import { EXTEND_IDEMPOTENCY_SCRIPT } from './scripts/extend-idempotency.script';
import { RELEASE_IDEMPOTENCY_SCRIPT } from './scripts/release-idempotency.script';

/** What a claim found: the key is now the caller's, used with another payload, still running, or done. */
export type ClaimResult =
  | { readonly state: 'claimed' }
  | { readonly state: 'mismatch' }
  | { readonly state: 'running'; readonly remainingMs: number }
  | { readonly state: 'done'; readonly outcome: EncodedOutcome };

/**
 * Where idempotency records live. Every method is one round trip (one script) and rejects when the store cannot
 * answer (timeout, connection down); the service decides what that means (fail closed by default).
 */
export interface IdempotencyStore {
  /** Claims `key` for a first call (in-progress record with `token` and `fingerprint`, TTL `lockTtlMs`), or reports what it holds. */
  claim(key: string, token: string, fingerprint: string, lockTtlMs: number): Promise<ClaimResult>;
  /** Stores the outcome for `ttlMs` if `token` still owns the claim; false when it does not (nothing written). */
  complete(key: string, token: string, outcome: EncodedOutcome, ttlMs: number): Promise<boolean>;
  /** Refreshes the in-progress TTL if `token` still owns the claim. */
  extend(key: string, token: string, lockTtlMs: number): Promise<boolean>;
  /** Deletes the in-progress record if `token` still owns it, so a retry runs again. */
  release(key: string, token: string): Promise<boolean>;
}

/** Injection token of the pattern's {@link IdempotencyStore}. */
export const IDEMPOTENCY_STORE = Symbol('RedisPatterns:IdempotencyStore');

/** Idempotency records on one Redis deployment (standalone, sentinel-managed or cluster), through the core executor. */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: RedisExecutor) {}

  claim(key: string, token: string, fingerprint: string, lockTtlMs: number): Promise<ClaimResult> {
    return this.redis.run(CLAIM_IDEMPOTENCY_SCRIPT, [key], [token, fingerprint, lockTtlMs]).then(toClaimResult);
  }

  complete(key: string, token: string, outcome: EncodedOutcome, ttlMs: number): Promise<boolean> {
    const args = [token, ttlMs, outcome.meta, outcome.body, outcome.typed ? '1' : '0'];
    return this.redis.run(COMPLETE_IDEMPOTENCY_SCRIPT, [key], args).then(isOne);
  }

  extend(key: string, token: string, lockTtlMs: number): Promise<boolean> {
    return this.redis.run(EXTEND_IDEMPOTENCY_SCRIPT, [key], [token, lockTtlMs]).then(isOne);
  }

  release(key: string, token: string): Promise<boolean> {
    return this.redis.run(RELEASE_IDEMPOTENCY_SCRIPT, [key], [token]).then(isOne);
  }
}

function isOne(reply: number): boolean {
  return Number(reply) === 1;
}

/** Parses the claim script's reply. */
export function toClaimResult(reply: ClaimReply): ClaimResult {
  switch (reply[0]) {
    case 'claimed':
      return { state: 'claimed' };
    case 'mismatch':
      return { state: 'mismatch' };
    case 'running':
      return { state: 'running', remainingMs: Math.max(0, Number(reply[1])) };
    case 'done':
      return { state: 'done', outcome: { meta: reply[1] ?? '', body: reply[2] ?? '', typed: reply[3] === '1' } };
    default:
      throw new TypeError(`Unexpected reply of the idempotency claim script: ${String(reply[0])}`);
  }
}
