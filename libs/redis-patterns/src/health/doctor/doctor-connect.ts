import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterNode, type RedisOptions } from 'ioredis';
import type { DoctorOptions } from './doctor.types';

/** A client for the doctor, whether it is owned (and must be closed) and the secrets to redact from output. */
export interface DoctorConnection {
  client: Redis | Cluster;
  owned: boolean;
  secrets: string[];
  /** `host:port` (never credentials). */
  endpoint: string;
  /** The last connection-level error ioredis emitted (ECONNREFUSED hides behind "Connection is closed"). */
  lastError(): Error | undefined;
}

/**
 * Connects without retries or an offline queue: the doctor reports what happens on the first attempt instead of
 * waiting on a reconnect loop. A `rediss://` URL means TLS on every connection — the standalone one, the cluster
 * seeds and every node the cluster discovers — with the URL's host name as the TLS server name, so the password
 * never crosses the network in clear text.
 */
export function doctorConnection(options: DoctorOptions): DoctorConnection {
  if (options.client) return { client: options.client, owned: false, secrets: [], endpoint: 'adopted client', lastError: () => undefined };
  const timeout = options.timeoutMs ?? 2000;
  const url = new URL(options.url ?? 'redis://127.0.0.1:6379');
  const password = options.password ?? (url.password ? decodeURIComponent(url.password) : undefined);
  const secrets = password ? [password] : [];
  const endpoint = `${url.hostname}:${url.port || 6379}`;
  const tls = url.protocol === 'rediss:' ? tlsOptions(url) : undefined;
  const base: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeout,
    commandTimeout: timeout,
    enableReadyCheck: false,
    ...(tls ? { tls } : {}),
  };
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  let client: Redis | Cluster;
  if (options.cluster) {
    const seeds: ClusterNode[] = Array.isArray(options.cluster)
      ? options.cluster
      : [{ host: url.hostname, port: Number(url.port || 6379) }];
    client = new Cluster(seeds, {
      lazyConnect: true,
      enableOfflineQueue: false,
      clusterRetryStrategy: () => null,
      redisOptions: {
        connectTimeout: timeout,
        commandTimeout: timeout,
        maxRetriesPerRequest: 0,
        password,
        username,
        ...(tls ? { tls } : {}),
      },
    });
  } else {
    // The credentials are passed as options, not in the URL: ioredis reads `redis://user@host` as the password ""
    // and lets the URL's fields win over the options', so REDISCLI_AUTH would never reach a user with no password
    // in the URL.
    const bare = new URL(url.toString());
    bare.username = '';
    bare.password = '';
    client = new Redis(bare.toString(), { ...base, username, password });
  }
  // Failures are reported by the checks; without a listener ioredis would print them (with the URL) to stderr.
  let last: Error | undefined;
  client.on('error', (error: Error) => (last = error));
  return { client, owned: true, secrets, endpoint: options.cluster ? `cluster seed ${endpoint}` : endpoint, lastError: () => last };
}

/**
 * TLS options of a `rediss://` URL: the server name (SNI and certificate check) is the URL's host — also for the
 * cluster nodes, which are announced by address. An IP address is no server name (RFC 6066): the certificate is
 * then checked against the address.
 */
function tlsOptions(url: URL): ConnectionOptions {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? {} : { servername: host };
}

/** Explains a connection or command error in the reference's terms: NOAUTH is "authentication required", not "down". */
export function describeFailure(error: unknown, endpoint: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string } | undefined)?.code;
  if (/NOAUTH/i.test(message))
    return `authentication required (NOAUTH): ${endpoint} is up but needs a password — set REDISCLI_AUTH or put it in the URL`;
  if (/WRONGPASS|invalid password|invalid username-password/i.test(message))
    return `authentication failed (WRONGPASS): ${endpoint} is up but rejected the credentials`;
  if (/NOPERM/i.test(message)) return `permission denied (NOPERM): the ACL user may not run the doctor's commands`;
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) return `down or unreachable: connection refused by ${endpoint}`;
  if (/timed? ?out|ETIMEDOUT/i.test(message)) return `no reply from ${endpoint} in time (${message})`;
  return `cannot reach ${endpoint}: ${message}`;
}
