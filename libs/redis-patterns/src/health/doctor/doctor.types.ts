import type { Cluster, ClusterNode, Redis } from 'ioredis';

/**
 * The outcome of one doctor check: a finding with its status, a one-line reason and, where the check has them, the
 * observations behind it (`evidence`) and what to change (`fix`). All of it is secret-free: passwords are redacted,
 * and command arguments (which may hold secrets or user data) are never reported.
 */
export interface DoctorCheck {
  /**
   * Which check: `connectivity`, `dbsize-memory`, `eviction-policy`, `keys-without-ttl`, `big-keys`, `hot-keys`,
   * `blocking-commands`, `slow-commands`, `cluster-balance` (clusters only), `fragmentation`, `evictions`,
   * `rejected-connections`, `replica-lag`, `persistence`, `permissions`, `lock-contention` or `lock-negative-control`.
   */
  name: string;
  /** `fail` sets the report's exit code to 1; `warn` reports a hazard (or a check that could not run) without failing. */
  status: 'pass' | 'warn' | 'fail';
  /** One line, secret-free: what was observed and what it means. */
  reason: string;
  /**
   * The observations behind the verdict, one short line each (e.g. the largest keys with their type, size and
   * element count; the slowest commands by name and duration). Absent when the reason says it all.
   */
  evidence?: string[];
  /** What to change to clear a `warn` or `fail`, in one or two sentences. Absent on a `pass`. */
  fix?: string;
}

/** What the instance is used for; drives the eviction-policy check. */
export type DoctorWorkload = 'cache' | 'rate-limit' | 'locks' | 'sessions' | 'streams' | 'structures';

/** Every workload the library has (the default). */
export const ALL_WORKLOADS: readonly DoctorWorkload[] = ['cache', 'rate-limit', 'locks', 'sessions', 'streams', 'structures'];

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  /** `redis://[user:password@]host:port[/db]`; default `redis://127.0.0.1:6379`. Ignored when `client` is given. */
  url?: string;
  /** Treat `url` as the seed of a Redis Cluster (or give the seed nodes). */
  cluster?: boolean | ClusterNode[];
  /** A password to use instead of the URL's (the CLI reads `REDISCLI_AUTH`, never argv). */
  password?: string;
  /** Use an existing client instead of connecting; it is not closed. */
  client?: Redis | Cluster;
  /**
   * The library's `keyPrefix` (default `rp`): the key-TTL check scans only `<keyPrefix>:*`, and warns when it finds no
   * key there (a warning does not change `exitCode`).
   */
  keyPrefix?: string;
  /** What the instance serves (default: every workload of the library). */
  workloads?: readonly DoctorWorkload[];
  /**
   * At most this many keys are examined by the key-TTL check, and at most this many keys of the whole keyspace by the
   * big-key and hot-key checks (default 10000).
   */
  scanSampleLimit?: number;
  /** How many of the largest (and the most frequently used) sampled keys to report (default 5). */
  topKeys?: number;
  /** The big-key check warns about a key using more memory than this, in bytes (default 10 MB: 10485760). */
  bigKeyBytes?: number;
  /** The big-key check warns about a key holding more elements than this (default 1000000). */
  bigKeyElements?: number;
  /**
   * The ACL user whose permissions the `permissions` check judges (with `ACL DRYRUN`, Redis 7.0 or later): the
   * application's user, when the doctor runs as an administrator. Default: the doctor's own user (`ACL WHOAMI`).
   */
  aclUser?: string;
  /** TTL of the lock self-test's key in ms (default 5000). */
  lockTtlMs?: number;
  /** Deadline of connecting and of each command in ms (default 2000). */
  timeoutMs?: number;
}

/** The doctor's report: every check, and the process exit code (1 when any check failed). */
export interface DoctorReport {
  /** Every check, in the order it ran. */
  checks: DoctorCheck[];
  /** True when no check failed (warnings allowed). */
  ok: boolean;
  /** The CLI's exit code: 1 when a check failed, else 0. */
  exitCode: 0 | 1;
}
