import type { RedisExecutor } from '../core/scripts/redis-executor';
import { type AttemptResult, toAttemptResult } from './attempt-result';
import type { LeaseKeys } from './lease-keys';
import { refusalIn } from './refusal-in';
import type { ExclusiveLeaseStore } from './lease.store';
import { ACQUIRE_LEASE_SCRIPT } from './scripts/acquire-lease.script';
import { EXTEND_LEASE_SCRIPT } from './scripts/extend-lease.script';
import { RELEASE_LEASE_SCRIPT } from './scripts/release-lease.script';
import { withDeadline } from '../core/time/with-deadline';
import { RedisPatternsError } from '../errors/redis-patterns.error';

/** Raised when too many nodes failed (errors or timeouts) for a quorum to be possible: the caller fails closed. */
export class QuorumUnreachableError extends RedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'QUORUM_UNREACHABLE';

  constructor(failed: number, total: number, options?: { cause?: unknown }) {
    super(`${failed} of ${total} Redlock nodes did not answer: no quorum is possible.`, options);
  }
}

/**
 * Redlock: a lock is held when a majority (⌊N/2⌋+1) of independent masters granted it. Commands go to every node
 * at once, each bounded by `nodeTimeoutMs` so a frozen node costs one vote, not the caller's whole deadline.
 * A failed attempt gives back the votes it got, on every node. Validity (TTL minus elapsed time and drift) is
 * computed by the caller from the start of the attempt.
 *
 * The fencing token is the largest token of the granting nodes. Any two quorums share a node, whose counter
 * increased; but the largest token may come from another node, so across holders tokens increase only as far as
 * the nodes' clocks agree (the acquire script floors tokens at server time). Strict fencing: use one deployment.
 */
export class QuorumLeaseStore implements ExclusiveLeaseStore {
  private readonly quorum: number;

  constructor(
    private readonly clients: readonly RedisExecutor[],
    private readonly fenceTtlMs: number,
    private readonly nodeTimeoutMs: number,
  ) {
    this.quorum = Math.floor(clients.length / 2) + 1;
  }

  async attempt(keys: LeaseKeys, token: string, ttlMs: number): Promise<AttemptResult> {
    const outcomes = await this.onEveryNode((node) =>
      node.run(ACQUIRE_LEASE_SCRIPT, [keys.lease, keys.fence], [token, ttlMs, this.fenceTtlMs]),
    );
    let votes = 0;
    let fencingToken = 0;
    let retryAfterMs = 0;
    for (const outcome of outcomes) {
      if (outcome.status !== 'fulfilled') continue;
      const result = toAttemptResult(outcome.value);
      if (result.acquired) {
        votes++;
        fencingToken = Math.max(fencingToken, result.fencingToken);
      } else {
        retryAfterMs = Math.max(retryAfterMs, result.retryAfterMs);
      }
    }
    if (votes >= this.quorum) return { acquired: true, fencingToken };
    // No majority: free the minority we got at once instead of letting it block others until it expires.
    await this.release(keys, token).catch(() => false);
    this.assertQuorumPossible(outcomes);
    return { acquired: false, reason: 'contention', retryAfterMs };
  }

  async extend(keys: LeaseKeys, token: string, ttlMs: number): Promise<boolean> {
    const outcomes = await this.onEveryNode((node) => node.run(EXTEND_LEASE_SCRIPT, [keys.lease], [token, ttlMs]));
    const votes = outcomes.filter((o) => o.status === 'fulfilled' && o.value === 1).length;
    if (votes >= this.quorum) return true;
    this.assertQuorumPossible(outcomes);
    return false;
  }

  /** Sent to every node, including those that did not grant the lock: a vote may have landed after a timeout. */
  async release(keys: LeaseKeys, token: string): Promise<boolean> {
    const outcomes = await this.onEveryNode((node) => node.run(RELEASE_LEASE_SCRIPT, [keys.lease], [token]));
    if (outcomes.every((o) => o.status === 'rejected'))
      throw new QuorumUnreachableError(outcomes.length, outcomes.length, { cause: (outcomes[0] as PromiseRejectedResult).reason });
    return outcomes.some((o) => o.status === 'fulfilled' && o.value === 1);
  }

  private assertQuorumPossible(outcomes: PromiseSettledResult<unknown>[]): void {
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (outcomes.length - failed.length < this.quorum) {
      // A node's refusal (NOPERM …) is the cause to report: unlike a timeout, it names what to fix.
      const cause = failed.find((f) => refusalIn(f.reason) !== undefined) ?? failed[0];
      throw new QuorumUnreachableError(failed.length, outcomes.length, { cause: cause?.reason });
    }
  }

  private onEveryNode<T>(command: (node: RedisExecutor) => Promise<T>): Promise<PromiseSettledResult<T>[]> {
    const ms = this.nodeTimeoutMs;
    return Promise.allSettled(
      this.clients.map((client) =>
        withDeadline(command(client), ms, () => {
          throw new Error(`Redlock node did not answer within ${ms} ms.`);
        }),
      ),
    );
  }
}
