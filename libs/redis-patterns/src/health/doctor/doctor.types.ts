import type { Cluster, ClusterNode, Redis } from 'ioredis';

/** The outcome of one doctor check. */
export interface DoctorCheck {
  /** Which check: `connectivity`, `dbsize-memory`, `eviction-policy`, `keys-without-ttl`, `lock-contention` or `lock-negative-control`. */
  name: string;
  /** `fail` sets the report's exit code to 1; `warn` reports a hazard without failing. */
  status: 'pass' | 'warn' | 'fail';
  /** One line, secret-free: what was observed and what it means. */
  reason: string;
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
  /** At most this many keys are examined by the key-TTL check (default 10000). */
  scanSampleLimit?: number;
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
