import type { RedisOptions } from 'ioredis';

/**
 * Reconnect backoff: exponential from 50 ms, capped at 1 s so the application is back within about a second of
 * the server, with jitter so a fleet does not reconnect in step.
 */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(50 * 2 ** Math.max(0, attempt - 1), 1000) + Math.floor(Math.random() * 100);
}

/** A demoted master answers READONLY after a failover: reconnect (and resend) so writes reach the new master. */
export function reconnectOnReadonly(error: Error): 1 | 2 | false {
  return error.message.startsWith('READONLY') ? 2 : false;
}

/**
 * The defaults of every owned request-path connection. ioredis on its own queues commands while disconnected and
 * has no command deadline, so a frozen or absent server makes callers hang; these make a call fail within
 * `commandTimeoutMs` instead, and let each pattern apply its outage policy.
 */
export function failFastOptions(commandTimeoutMs: number, connectTimeoutMs: number): RedisOptions {
  return {
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 1,
    connectTimeout: connectTimeoutMs,
    retryStrategy: reconnectDelayMs,
    reconnectOnError: reconnectOnReadonly,
    // A write whose reply was lost may have been applied: re-sending it after a reconnect could double-count.
    autoResendUnfulfilledCommands: false,
    // Concurrent calls share one write to the socket: the single biggest throughput win for small commands.
    enableAutoPipelining: true,
    lazyConnect: true,
  };
}

/**
 * Overrides for dedicated connections (blocking reads, subscriptions): they wait as long as the server lets them,
 * queue while reconnecting and re-subscribe, and never carry request-path traffic.
 */
export const DEDICATED_CONNECTION_OVERRIDES: RedisOptions = {
  enableOfflineQueue: true,
  commandTimeout: undefined,
  maxRetriesPerRequest: null,
  enableAutoPipelining: false,
  autoResendUnfulfilledCommands: true,
  autoResubscribe: true,
  lazyConnect: false,
};
