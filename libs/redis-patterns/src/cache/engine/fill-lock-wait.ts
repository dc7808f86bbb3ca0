import { setTimeout as sleep } from 'node:timers/promises';
import { attemptUntil, type Refusal } from '../../lease/backoff';
import type { CacheStore, FillLockMode, FillLockReply } from '../cache.store';
import type { CacheHealth } from './cache-health';

/** What ends the wait for a fill lock: the lock, the entry, or Redis failing (load without the lock). */
type FillGrant = Exclude<FillLockReply, { kind: 'busy' }> | { kind: 'unavailable' };
/** Another instance holds the fill lock, for `retryAfterMs` at most. */
type FillBusy = Refusal<'busy'> & { kind: 'busy' };
type FillAttempt = FillGrant | FillBusy;

const FILL_UNAVAILABLE: FillGrant = { kind: 'unavailable' };

/** Polls of a busy fill lock: from 5 ms up to 200 ms, short beside a loader and below a lock's lifetime. */
const FILL_LOCK_POLL = { retryDelayMs: 5, maxRetryDelayMs: 200 } as const;

/**
 * Takes the fill lock of `entry` for `token`, or waits while another instance loads it: polled with the lease
 * kernel's backoff (never longer than the holder's lock lives) until its value appears, its lock goes (then this
 * call may take it), or `waitMs` ends. Resolves with the lock, the entry, `busy` past the wait, or `unavailable` when
 * Redis fails (reported through `health`, never thrown): the caller then loads without the lock.
 *
 * `force` (a forced refresh) does not take the entry there is: it takes the lock, or, while another instance holds
 * it, waits for that load's result (the entry once the lock is gone), so a forced refresh joins a running load rather
 * than starting a second one.
 */
export function waitForFillLock(
  store: CacheStore,
  health: CacheHealth,
  entry: string,
  token: string,
  lock: { readonly lockTtlMs: number; readonly lockWaitMs: number },
  force = false,
): Promise<FillAttempt> {
  let mode: FillLockMode = force ? 'lock' : 'entry';
  const attempt = async (): Promise<FillAttempt> => {
    if (!health.available(entry)) return FILL_UNAVAILABLE;
    try {
      const reply = await store.fillLock(entry, token, lock.lockTtlMs, mode);
      if (force) mode = 'after-holder';
      return reply.kind === 'busy' ? { kind: 'busy', reason: 'busy', retryAfterMs: reply.lockPttl } : reply;
    } catch (error) {
      health.failed('fill lock', error);
      return FILL_UNAVAILABLE;
    }
  };
  return attemptUntil<FillGrant, FillBusy>(attempt, isFillGrant, performance.now() + lock.lockWaitMs, FILL_LOCK_POLL, sleep);
}

function isFillGrant(attempt: FillAttempt): attempt is FillGrant {
  return attempt.kind !== 'busy';
}
