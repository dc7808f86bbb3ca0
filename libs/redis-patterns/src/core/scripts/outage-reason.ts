import type { RedisUnavailableReason } from '../../errors/redis-unavailable.error';

// ioredis' own wordings of a connection that cannot take a command now: no offline queue while (re)connecting, a
// closed connection, a cluster without a reachable node (or redirected until it gave up on a closed one).
const DISCONNECTED =
  /^(Stream isn't writeable|Cluster isn't ready|Connection is closed\.|Cluster is disconnect(ed|ing)\.|None of startup nodes is available|Failed to refresh slots cache|Node is disconnected|Too many Cluster redirections\. Last error: (Error: Connection is closed|ReplyError: CLUSTERDOWN))/;

// A socket that failed under a command that was written: it may have reached the server.
const SOCKET_FAILURES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether `error` is ioredis failing a command for want of a server (and how), rather than the server answering:
 * undefined for replies (errors Redis sent, scripts' errors, refusals) and for anything else.
 */
export function outageReason(error: unknown): RedisUnavailableReason | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.message === 'Command timed out') return 'timeout';
  // ioredis' name for "the connection closed with this command awaiting its answer" under maxRetriesPerRequest.
  if (error.name === 'MaxRetriesPerRequestError') return 'connection-lost';
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && SOCKET_FAILURES.has(code)) return 'connection-lost';
  if (code === 'ECONNREFUSED' || error.name === 'ClusterAllFailedError' || DISCONNECTED.test(error.message)) return 'disconnected';
  return undefined;
}
