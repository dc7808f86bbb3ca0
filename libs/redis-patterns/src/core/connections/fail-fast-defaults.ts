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
 * How long a connection may stay silent while replies are owed before its socket is dropped: just under the
 * command deadline. Auto-pipelining sends one batch per connection at a time and starts the next batch (and its
 * commands' deadlines) only when the previous one has settled; against a frozen server the previous batch settles
 * by timing out, so without this a call made meanwhile waits one deadline in the queue and a second one on the
 * socket. Dropping the socket strictly before the oldest deadline fires (the same timer tick would let the next
 * batch be written first) makes that next batch fail at once, so a call costs at most one deadline.
 */
export function silentSocketDeadlineMs(commandTimeoutMs: number): number {
  return Math.max(1, commandTimeoutMs - 1);
}

/**
 * The defaults of every owned request-path connection. ioredis on its own queues commands while disconnected and
 * has no command deadline, so a frozen or absent server makes callers hang; these (with the command deadline of
 * `ReplyDeadlines`) make a call fail within `commandTimeoutMs` instead, and let each pattern apply its outage policy.
 */
export function failFastOptions(connectTimeoutMs: number): RedisOptions {
  return {
    enableOfflineQueue: false,
    // A command whose socket closed can never be answered: nothing is resent (below) and nothing waits offline, so
    // keeping it across a reconnect only makes its caller wait out the whole command deadline. 0 fails it when the
    // socket closes — against a frozen server, when the silent-socket deadline drops the socket — so a call made
    // just before a freeze costs the time left until then, not a full deadline of its own.
    maxRetriesPerRequest: 0,
    connectTimeout: connectTimeoutMs,
    retryStrategy: reconnectDelayMs,
    reconnectOnError: reconnectOnReadonly,
    // A write whose reply was lost may have been applied: re-sending it after a reconnect could double-count.
    autoResendUnfulfilledCommands: false,
    // Off on a single node: measured here, ioredis auto-pipelining keeps one batch in flight per connection (app and
    // server take turns) and builds a Pipeline copying every defined script per batch; sent directly, a cache hit
    // cost 17-19 µs of client CPU instead of 25 and ran 1.25-1.5x faster with 32 concurrent callers. Commands
    // written in the same tick still leave in few socket writes. (A cluster keeps it: see createClient.)
    enableAutoPipelining: false,
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
  // A blocking read is silent for as long as it blocks.
  socketTimeout: undefined,
  maxRetriesPerRequest: null,
  enableAutoPipelining: false,
  autoResendUnfulfilledCommands: true,
  autoResubscribe: true,
  lazyConnect: false,
};
