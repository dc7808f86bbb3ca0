import {
  checkConnectionName,
  checkKnownKeys,
  checkObject,
  checkOptionalNumber,
  invalid,
  type SectionValidator,
} from '../core/options/option-checks';

/** Redlock quorum mode: every lock is taken on a majority of independent Redis masters. */
export interface RedlockOptions {
  /** Names of at least three configured connections to independent masters (not replicas of each other). */
  connections: string[];
  /**
   * How long one node may take to answer one lock command, in ms (default 100). A node slower than that counts
   * as a failed vote, so one frozen node cannot stall acquisition; keep it far below the lock TTL.
   */
  nodeTimeoutMs?: number;
}

/** Options of the `lock` section of RedisPatternsModuleOptions. */
export interface LockOptions {
  /** Name of the connection this pattern uses (default: the default connection). Ignored with `redlock`. */
  connection?: string;
  /** TTL of a lock when a call or `@WithLock` gives none, in ms (default 30000). */
  defaultTtlMs?: number;
  /** `using()` and `@WithLock` extend the lock every `ttlMs × autoExtendRatio` (default 1/3). */
  autoExtendRatio?: number;
  /** Clock drift allowance: a lock is trusted for `ttl − elapsed − ttl × driftFactor − 2 ms` (default 0.01). */
  driftFactor?: number;
  /** First wait between acquisition attempts, in ms (default 25); doubles per attempt, with jitter. */
  retryDelayMs?: number;
  /** Longest wait between acquisition attempts, in ms (default 500). */
  maxRetryDelayMs?: number;
  /**
   * TTL of a resource's fencing counter, in ms, refreshed on every acquisition (default 30 days). `0` keeps the
   * counter forever (the documented exception to "every key has a TTL"). Tokens stay increasing after the
   * counter expires because the acquire script never issues a token below the server's clock in microseconds.
   */
  fenceTtlMs?: number;
  /**
   * Single-master mode with replicas: after acquiring, WAIT for this many replicas to acknowledge the lock and
   * give it back (failing with reason `replication`) if fewer do. Default 0 (no WAIT).
   */
  waitReplicas?: number;
  /** Deadline of that WAIT, in ms (default 200); must stay below `commandTimeoutMs`. */
  waitReplicasTimeoutMs?: number;
  /** Redlock quorum mode over independent masters (see the docs for its caveats). */
  redlock?: RedlockOptions;
}

/** The `lock` section with every default applied, resolved once at startup. */
export interface LeaseSettings {
  readonly connection?: string;
  readonly defaultTtlMs: number;
  readonly autoExtendRatio: number;
  readonly driftFactor: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
  readonly fenceTtlMs: number;
  readonly waitReplicas: number;
  readonly waitReplicasTimeoutMs: number;
  readonly redlock?: { readonly connections: readonly string[]; readonly nodeTimeoutMs: number };
}

export const DEFAULT_FENCE_TTL_MS = 30 * 24 * 3600 * 1000;

const KNOWN_KEYS = [
  'connection',
  'defaultTtlMs',
  'autoExtendRatio',
  'driftFactor',
  'retryDelayMs',
  'maxRetryDelayMs',
  'fenceTtlMs',
  'waitReplicas',
  'waitReplicasTimeoutMs',
  'redlock',
] as const;

const MS = { integer: true, unit: 'ms' } as const;

/** Validates the `lock` section at startup; every error names the offending option. */
export const validateLockOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  checkOptionalNumber(section.defaultTtlMs, `${path}.defaultTtlMs`, { ...MS, min: 1 });
  checkOptionalNumber(section.autoExtendRatio, `${path}.autoExtendRatio`, { exclusiveMin: 0, max: 0.9 });
  checkOptionalNumber(section.driftFactor, `${path}.driftFactor`, { min: 0, max: 0.5 });
  checkOptionalNumber(section.retryDelayMs, `${path}.retryDelayMs`, { ...MS, min: 1 });
  const maxDelay = checkOptionalNumber(section.maxRetryDelayMs, `${path}.maxRetryDelayMs`, { ...MS, min: 1 });
  const baseDelay = (section.retryDelayMs as number | undefined) ?? 25;
  if (maxDelay !== undefined && maxDelay < baseDelay)
    invalid(`${path}.maxRetryDelayMs`, `an integer of at least retryDelayMs (${baseDelay}) (ms)`, maxDelay);
  checkOptionalNumber(section.fenceTtlMs, `${path}.fenceTtlMs`, { ...MS, min: 0 });
  const replicas = checkOptionalNumber(section.waitReplicas, `${path}.waitReplicas`, { integer: true, min: 0, max: 16 });
  checkOptionalNumber(section.waitReplicasTimeoutMs, `${path}.waitReplicasTimeoutMs`, { ...MS, min: 1 });
  if (section.redlock !== undefined) {
    if (replicas)
      invalid(`${path}.waitReplicas`, '0 or nothing when lock.redlock is set (Redlock uses independent masters, not replicas)', replicas);
    validateRedlock(section.redlock, `${path}.redlock`, context);
  }
};

function validateRedlock(value: unknown, path: string, context: Parameters<SectionValidator>[2]): void {
  const redlock = checkObject(value, path);
  checkKnownKeys(redlock, path, ['connections', 'nodeTimeoutMs']);
  const names = redlock.connections;
  if (!Array.isArray(names) || names.length < 3) invalid(`${path}.connections`, 'an array of at least 3 connection names', names);
  names.forEach((name, i) => checkConnectionName(name, `${path}.connections[${i}]`, context));
  if (new Set(names).size !== names.length) invalid(`${path}.connections`, 'distinct connection names', names);
  checkOptionalNumber(redlock.nodeTimeoutMs, `${path}.nodeTimeoutMs`, { ...MS, min: 1 });
}

/** Injection token of the resolved {@link LeaseSettings}. */
export const LEASE_SETTINGS = Symbol('LeaseSettings');

/** Applies the defaults to a validated `lock` section. */
export function resolveLeaseSettings(section: LockOptions | undefined): LeaseSettings {
  const s = section ?? {};
  return {
    connection: s.connection,
    defaultTtlMs: s.defaultTtlMs ?? 30_000,
    autoExtendRatio: s.autoExtendRatio ?? 1 / 3,
    driftFactor: s.driftFactor ?? 0.01,
    retryDelayMs: s.retryDelayMs ?? 25,
    maxRetryDelayMs: s.maxRetryDelayMs ?? Math.max(500, s.retryDelayMs ?? 25),
    fenceTtlMs: s.fenceTtlMs ?? DEFAULT_FENCE_TTL_MS,
    waitReplicas: s.waitReplicas ?? 0,
    waitReplicasTimeoutMs: s.waitReplicasTimeoutMs ?? 200,
    redlock: s.redlock ? { connections: [...s.redlock.connections], nodeTimeoutMs: s.redlock.nodeTimeoutMs ?? 100 } : undefined,
  };
}
