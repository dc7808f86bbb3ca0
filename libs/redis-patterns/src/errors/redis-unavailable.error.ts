import { httpAnswer } from './http-answer';
import type { HttpResponseSpec } from './http-mappable';
import { AnsweredRedisPatternsError } from './redis-patterns.error';

/**
 * What went wrong with the connection:
 * - `timeout`: the server did not answer within the command deadline (`commandTimeoutMs`);
 * - `connection-lost`: the connection closed while the answer was awaited (the server went away, or stopped
 *   answering and its silent socket was dropped);
 * - `disconnected`: the connection was down when the command was to be sent, so it was never sent.
 */
export type RedisUnavailableReason = 'timeout' | 'connection-lost' | 'disconnected';

/** When a caller may retry after an outage: reconnection attempts are at most about a second apart. */
export const OUTAGE_RETRY_AFTER_MS = 1000;

/**
 * A command of the library got no answer from Redis: the server is down, unreachable or frozen. Every pattern sees
 * outages as this error (the original ioredis error is its `cause`); those with an outage policy apply it (caches and
 * rate limits fail open, locks, semaphores and idempotency fail closed with their own errors), and the others
 * (sessions, leaderboards, unique counters, capped lists, `StreamsService.add`) reject with it. Over HTTP it answers
 * 503 with `Retry-After`, in any handler: the module's global filter maps it.
 *
 * @example
 * try { await sessions.get(id) } catch (e) { if (e instanceof RedisUnavailableError) return serveWithoutSession(); throw e }
 */
export class RedisUnavailableError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'REDIS_UNAVAILABLE';

  /** A hint of when to retry, in ms. */
  override readonly retryAfterMs = OUTAGE_RETRY_AFTER_MS;

  constructor(
    /** The configured name of the connection (or, for a connection the module did not name, its address). */
    readonly connection: string,
    /** The command that got no answer, as Redis spells it. */
    readonly command: string,
    /** What went wrong: a `timeout`, the `connection-lost` while awaiting the answer, or `disconnected` before sending. */
    readonly reason: RedisUnavailableReason,
    details: {
      /** The command deadline, when known (it names how long the server was given). */
      readonly timeoutMs?: number;
      /** False once the connection was closed for good (no reconnection will follow). */
      readonly reconnecting: boolean;
      readonly cause: unknown;
    },
  ) {
    super(describe(connection, reason, details), { cause: details.cause });
  }

  /**
   * Whether the command may have reached the server and run (or still run when the server wakes up): true after a
   * timeout or a connection lost with the answer outstanding, false when it was never sent.
   */
  get mayHaveRun(): boolean {
    return this.reason !== 'disconnected';
  }

  /** 503 with `Retry-After`; the connection's name stays in the server's log. */
  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(503, 'The service cannot reach its Redis server; retry later.', { retryAfterMs: this.retryAfterMs });
  }
}

function describe(connection: string, reason: RedisUnavailableReason, details: { timeoutMs?: number; reconnecting: boolean }): string {
  const subject = `Redis connection "${connection}"`;
  switch (reason) {
    case 'timeout':
      return `${subject} did not answer ${details.timeoutMs === undefined ? 'in time' : `within ${details.timeoutMs} ms`}.`;
    case 'connection-lost': {
      const silent = details.timeoutMs === undefined ? 'stopped answering' : `stayed silent for ${details.timeoutMs} ms`;
      return `${subject} dropped before the server answered (the server went away, or ${silent}); ${details.reconnecting ? 'reconnecting' : 'it is closed'}.`;
    }
    case 'disconnected':
      return details.reconnecting
        ? `${subject} is disconnected and reconnecting; commands fail at once until it is back.`
        : `${subject} is closed.`;
  }
}

/**
 * What a pattern's own error adds after its first sentence when an outage caused it: the outage's message (naming the
 * connection and what happened), or nothing.
 */
export function outageDetail(cause: unknown): string {
  return cause instanceof RedisUnavailableError ? ` ${cause.message}` : '';
}
