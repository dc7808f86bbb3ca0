import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { ThrottledLog } from '../core/logging/throttled-log';
import { backoffDelayMs } from '../lease/backoff';
import { KeepAlive } from '../lease/keep-alive';
import { LocalWaiters } from '../lease/local-waiters';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { IdempotencyNotClaimedError } from './idempotency-not-claimed.error';
import { IdempotencyKeyReusedError } from './idempotency-key-reused.error';
import { idempotencyRecordKey } from './idempotency-keys';
import { IDEMPOTENCY_SETTINGS, type IdempotencySettings } from './idempotency.options';
import { decodeOutcome, type EncodedOutcome, encodeOutcome, recordBytes, type StoredOutcome } from './idempotency-record';
import { type ClaimResult, IDEMPOTENCY_STORE, type IdempotencyStore } from './idempotency.store';
import { IdempotencyMetrics } from './idempotency.metrics';
import type { FirstCall, IdempotentCall, IdempotentRun } from './idempotent-call';

/**
 * Polls of a duplicate waiting on a running first call: 10 ms doubling to 200 ms, with equal jitter, so duplicates of
 * several processes do not poll in lockstep.
 */
const POLL_DELAY_MS = 10;
const MAX_POLL_DELAY_MS = 200;

/**
 * The idempotency protocol — claim, wait and poll, replay or refuse — with what its calls share: the local waiters
 * of each record, the heartbeats of running first calls, metrics and logs. Used by `IdempotencyService.execute` and
 * `@Idempotent`'s advisor, which inject it rather than reach through the public service, so a duplicate waiting in
 * one is woken by a first call completing in the other, and shutdown stops every heartbeat.
 */
@Injectable()
export class IdempotencyRuntime implements BeforeApplicationShutdown {
  /**
   * Duplicates of this process waiting on a running first call, per record key. When this process completes or gives
   * up a claim it wakes them all at once, instead of letting them sleep out their backoff; duplicates in other
   * processes rely on polling (bounded by the waiting time and the claim's remaining TTL).
   */
  private readonly waiters = new LocalWaiters();
  /** The keep-alives of the claims of the first calls running in this process. */
  private readonly heartbeats = new Set<KeepAlive<'expired'>>();
  private readonly metrics = new IdempotencyMetrics();
  /** Outages met by fail-open calls. */
  private readonly outages: ThrottledLog;
  /** Outcomes that could not be recorded (claims lost, results not storable, Redis lost mid-call). */
  private readonly log: ThrottledLog;

  constructor(
    @Inject(RESOLVED_OPTIONS) moduleOptions: ResolvedRedisPatternsOptions,
    @Inject(IDEMPOTENCY_SETTINGS) private readonly settings: IdempotencySettings,
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
    private readonly keys: KeyBuilder,
  ) {
    const logger = moduleOptions.logger ?? new Logger('RedisPatterns:Idempotency');
    this.outages = new ThrottledLog(logger);
    this.log = new ThrottledLog(logger);
  }

  /** The record key of `key` in `scope`, scoped by `identity` (see idempotencyRecordKey). */
  recordKey(scope: string, identity: string | undefined, key: string): string {
    return idempotencyRecordKey(this.keys, scope, identity, key);
  }

  /** The protocol behind `execute` and `@Idempotent`: claim, or wait and poll, or replay, or refuse. */
  async run<T>(call: IdempotentCall, work: () => Promise<FirstCall<T>>): Promise<IdempotentRun<T>> {
    const token = randomBytes(16).toString('base64url');
    const lockTtlMs = this.settings.lockTtlMs;
    let deadline: number | undefined;
    for (let attempt = 0; ; attempt++) {
      let claim: ClaimResult;
      try {
        claim = await this.store.claim(call.recordKey, token, call.fingerprint, lockTtlMs);
      } catch (error) {
        // The claim may have reached Redis (a timeout): give it back, or it blocks retries for a whole lock TTL.
        this.store.release(call.recordKey, token).catch(() => undefined);
        // Only a first attempt may fail open: a duplicate that saw the first call running must not run beside it.
        if (attempt > 0 || !call.failOpen) {
          this.metrics.record('unavailable');
          throw new IdempotencyNotClaimedError(call.scope, 'unavailable', { cause: error });
        }
        this.metrics.record('failed_open');
        this.outages.warn(`Idempotency for ${call.scope} is unavailable (${(error as Error).message}); running without it (failOpen).`);
        return { replayed: false, value: (await work()).value };
      }
      switch (claim.state) {
        case 'claimed':
          this.metrics.record('ran');
          return this.runFirst(call, token, work);
        case 'done':
          this.metrics.record('replayed');
          return { replayed: true, outcome: decodeOutcome(claim.outcome) };
        case 'mismatch':
          this.metrics.record('key_reused');
          throw new IdempotencyKeyReusedError(call.scope);
        case 'running': {
          const retryAfterMs = Math.max(1, Math.min(claim.remainingMs, 1000));
          deadline ??= performance.now() + call.waitMs;
          const left = deadline - performance.now();
          if (call.onConcurrent === 'reject' || left <= 0) {
            this.metrics.record('conflict');
            throw new IdempotencyNotClaimedError(call.scope, 'in-progress', { retryAfterMs });
          }
          // Never past the claim's expiry: a first call whose process died frees the key then, and this one may run.
          const pollMs = backoffDelayMs(attempt, POLL_DELAY_MS, MAX_POLL_DELAY_MS);
          await this.waiters.sleep(call.recordKey, Math.min(left, pollMs, claim.remainingMs + 1));
        }
      }
    }
  }

  /** Stops refreshing claims: records of calls still running expire after `lockTtlMs` unless they complete first. */
  beforeApplicationShutdown(): void {
    for (const heartbeat of this.heartbeats) heartbeat.stop();
    this.heartbeats.clear();
  }

  private async runFirst<T>(call: IdempotentCall, token: string, work: () => Promise<FirstCall<T>>): Promise<IdempotentRun<T>> {
    const heartbeat = this.keepClaimAlive(call, token).start();
    this.heartbeats.add(heartbeat);
    let first: FirstCall<T>;
    try {
      first = await work();
    } catch (error) {
      this.stopHeartbeat(heartbeat);
      await this.settle(call, token, call.failureOutcome?.(error));
      throw error;
    }
    this.stopHeartbeat(heartbeat);
    await this.settle(call, token, first.outcome);
    return { replayed: false, value: first.value };
  }

  private stopHeartbeat(heartbeat: KeepAlive<'expired'>): void {
    heartbeat.stop();
    this.heartbeats.delete(heartbeat);
  }

  /**
   * Keeps a running first call's claim alive: refreshes its in-progress TTL every third of it, so the record expires
   * only when this process stops refreshing it — it died, froze, or lost Redis — and a retry may then run. A claim
   * found gone (this process stalled past the TTL) is reported once and no longer refreshed: the call's outcome will
   * not be stored, since another call may own the key by then. A claim has no validity tracked here (nothing is
   * aborted when it lapses), and its heartbeat never keeps the process alive on its own.
   */
  private keepClaimAlive(call: IdempotentCall, token: string): KeepAlive<'expired'> {
    const lockTtlMs = this.settings.lockTtlMs;
    return new KeepAlive<'expired'>({
      intervalMs: Math.max(1, Math.floor(lockTtlMs / 3)),
      extend: async () => ((await this.store.extend(call.recordKey, token, lockTtlMs)) ? undefined : 'expired'),
      onLost: () =>
        this.log.warn(
          `The idempotency claim of a running ${call.scope} call expired before it completed (a stall longer than lockTtlMs); its outcome will not be stored.`,
        ),
      // A transient failure: the claim lives until its TTL; the next beat tries again.
      onFailure: (error) => this.log.warn(`Could not refresh an idempotency claim of ${call.scope}: ${(error as Error).message}`),
      unref: true,
    });
  }

  /**
   * Stores the outcome, or gives the claim back (`undefined`: a failure, not stored, so a retry runs again), before
   * the caller answers: a client retrying right after its answer must find the record. Never throws: the work has
   * run, and its caller gets its result whatever happens to the record.
   */
  private async settle(call: IdempotentCall, token: string, outcome: StoredOutcome | undefined): Promise<void> {
    try {
      let encoded: EncodedOutcome | undefined;
      try {
        encoded = outcome && encodeOutcome(outcome);
      } catch (error) {
        this.log.warn(`The result of ${call.scope} cannot be stored for replay (${(error as Error).message}); a retry will run again.`);
      }
      const bytes = encoded ? recordBytes(encoded) : 0;
      if (bytes > this.settings.maxRecordBytes) {
        encoded = undefined;
        this.log.warn(
          `The result of ${call.scope} is ${bytes} bytes, over idempotency.maxRecordBytes (${this.settings.maxRecordBytes}); ` +
            'it was not stored for replay, and a retry will run again.',
        );
      }
      if (!encoded) await this.store.release(call.recordKey, token);
      else if (!(await this.store.complete(call.recordKey, token, encoded, call.ttlMs)))
        this.log.warn(`The idempotency claim of ${call.scope} expired before the call completed; its result was not stored.`);
    } catch (error) {
      // The record stays in progress until its TTL: duplicates get 409 until then, and may run after.
      this.log.warn(`Could not record the outcome of ${call.scope} (${(error as Error).message}); a retry may run again after lockTtlMs.`);
    } finally {
      this.waiters.wakeAll(call.recordKey);
    }
  }
}
