import { redactSecrets } from './redact';

/** Why a connection is not usable, as the library explains it. */
export type ConnectionFailureKind =
  | 'wrong-credentials'
  | 'password-required'
  | 'unknown-host'
  | 'refused'
  | 'connect-timeout'
  | 'stopped-answering'
  | 'tls'
  | 'closed'
  | 'other';

/** A connection failure in the library's words: what failed and what to check. Never a password or a client option. */
export interface ConnectionFailure {
  readonly kind: ConnectionFailureKind;
  /** A configuration mistake (credentials, host name): retrying will not fix it, so startup fails on it by default. */
  readonly misconfiguration: boolean;
  /** What failed, e.g. `connection refused by 127.0.0.1:6379`. */
  readonly what: string;
  /** What to check, a sentence. */
  readonly check: string;
}

/** Where the connection points, for messages: `host:port`, `sentinel(name)`, `cluster(3 seed nodes)`; never credentials. */
export interface FailureContext {
  readonly endpoint: string;
  readonly commandTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly secrets: readonly string[];
}

/**
 * Explains a connection-level error the client reported (socket, DNS, TLS, authentication) in the library's terms,
 * the same terms as the doctor's. The client's own message is not repeated when it refers to client options the
 * user never set; only an unrecognised error keeps it (redacted), as the detail a search needs.
 */
export function explainConnectionError(error: unknown, context: FailureContext): ConnectionFailure {
  const cause = innermost(error);
  const message = cause instanceof Error ? cause.message : String(cause);
  const code = (cause as { code?: unknown } | undefined)?.code;
  const { endpoint } = context;
  if (/WRONGPASS|invalid password|invalid username-password/i.test(message)) {
    return {
      kind: 'wrong-credentials',
      misconfiguration: true,
      what: `authentication failed (WRONGPASS): ${endpoint} is up but rejected the credentials`,
      check: 'Check the user name and password of the connection (the URL, or its username and password options).',
    };
  }
  if (/NOAUTH|Authentication required/i.test(message)) {
    return {
      kind: 'password-required',
      misconfiguration: true,
      what: `authentication required (NOAUTH): ${endpoint} is up but needs a password`,
      check: 'Put the password in the connection URL (redis://:password@host:port) or its password option.',
    };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME' || /ENOTFOUND/.test(message)) {
    return {
      kind: 'unknown-host',
      misconfiguration: true,
      what: `unknown host: ${hostOf(endpoint)} does not resolve (DNS)`,
      check: 'Check the host name of the connection, and that this machine can resolve it.',
    };
  }
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) {
    return {
      kind: 'refused',
      misconfiguration: false,
      what: `connection refused by ${endpoint}`,
      check: `Check that Redis is running at ${endpoint} and listens on that port.`,
    };
  }
  if (code === 'ETIMEDOUT' || /connect ETIMEDOUT/.test(message)) {
    return {
      kind: 'connect-timeout',
      misconfiguration: false,
      what: `no connection to ${endpoint} within ${context.connectTimeoutMs} ms`,
      check: 'Check the host, the port and any firewall or security group between this machine and Redis.',
    };
  }
  if (/Socket timeout|max retries per request|Command timed out/i.test(message)) {
    return stoppedAnswering(context);
  }
  if ((typeof code === 'string' && /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) || /SSL|TLS/.test(message)) {
    return {
      kind: 'tls',
      misconfiguration: false,
      what: `TLS with ${endpoint} failed (${typeof code === 'string' ? code : redactSecrets(message, context.secrets)})`,
      check: 'Check that the server speaks TLS (rediss://) or not (redis://) as configured, and that its certificate is trusted here.',
    };
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || /Connection is closed|ECONNRESET|EPIPE/.test(message)) return closedByServer(endpoint);
  return {
    kind: 'other',
    misconfiguration: false,
    what: `cannot use ${endpoint}: ${redactSecrets(message, context.secrets)}`,
    check: `Check that ${endpoint} is a reachable Redis server ("npx nestjs-redis-patterns doctor --url …" checks it step by step).`,
  };
}

/** The server kept the socket open but answered nothing in time (frozen, busy, or a network that drops packets). */
export function stoppedAnswering(context: Pick<FailureContext, 'endpoint' | 'commandTimeoutMs'>): ConnectionFailure {
  return {
    kind: 'stopped-answering',
    misconfiguration: false,
    what: `${context.endpoint} stopped answering (no reply within commandTimeoutMs, ${context.commandTimeoutMs} ms)`,
    check:
      'Check whether the server is frozen or busy (a long command, a fork for persistence: SLOWLOG GET, INFO persistence) and the network to it.',
  };
}

/** The socket closed with no error of its own: a restart, a CLIENT KILL, an idle timeout of the server or a proxy. */
export function closedByServer(endpoint: string): ConnectionFailure {
  return {
    kind: 'closed',
    misconfiguration: false,
    what: `the connection to ${endpoint} was closed`,
    check: `Check whether ${endpoint} restarted, or a proxy or the server's timeout setting closes idle connections.`,
  };
}

/** The host of `host:port` or `redis://host:port` (IPv6 brackets kept). */
function hostOf(endpoint: string): string {
  const bare = endpoint.replace(/^\w+:\/\//, '');
  const match = /^(\[[^\]]+\]|[^:/\s]+)/.exec(bare);
  return match ? `"${match[1]}"` : endpoint;
}

// A cluster reports "Failed to refresh slots cache." with the node's own error underneath.
function innermost(error: unknown): unknown {
  const nested = (error as { lastNodeError?: unknown } | undefined)?.lastNodeError;
  return nested instanceof Error ? nested : error;
}
