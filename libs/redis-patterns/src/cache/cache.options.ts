import {
  checkBoolean,
  checkConnectionName,
  checkKnownKeys,
  checkNumber,
  checkObject,
  checkOneOf,
  invalid,
  type SectionValidator,
} from '../core/options/option-checks';
import { type NearCacheOptions, type NearCacheSettings, resolveNearCacheSettings } from './near/near-cache.options';
import { type CacheCodec, codecProblem, JSON_CACHE_CODEC } from './serialization/cache-codec';
import type { CacheCompressionOptions, CompressionSettings } from './serialization/compression';
import { MAX_TTL_SECONDS, ttlUnitWarning } from './ttl-units';

/**
 * Options of the `cache` section of RedisPatternsModuleOptions. TTLs without a unit in their name are in seconds,
 * durations ending in `Ms` in ms.
 */
export interface CacheOptions {
  /** Name of the connection this pattern uses (default: the default connection). */
  connection?: string;
  /**
   * TTL of a write that names none, in **seconds** (default 60). A round thousand (1000, 60000…) reads like ms and
   * is logged at startup; prefer `defaultTtlMs`.
   */
  defaultTtl?: number;
  /** TTL of a write that names none, in ms (default 60000): the unambiguous spelling of `defaultTtl` (not both). */
  defaultTtlMs?: number;
  /**
   * Fraction of a TTL that may be cut off at random so keys written together do not expire together (default 0.1:
   * up to 10% shorter). Jitter only ever shortens a TTL; 0 disables it.
   */
  jitter?: number;
  /** Largest serialized value accepted, in bytes (default 524288 = 512 KB). Bigger values are refused. */
  maxValueBytes?: number;
  /**
   * Grace window of every cached call that names none, in ms (default 0: off). An entry is kept this long past its
   * fresh TTL and stale window; when its loader throws, the kept value answers (status `'stale'`, `X-Cache: STALE`)
   * instead of the error.
   */
  graceMs?: number;
  /**
   * After a failed load answered from grace, how long the key's calls are answered from grace before its loader runs
   * again, in ms (default 10000), so a failing data source is not called on every request. Per process.
   */
  graceRetryMs?: number;
  /**
   * Soft timeout of every cached call that names none, in ms (default 0: off): with a stale or grace value at hand,
   * a call answers with it once the loader has run this long, and the load refreshes the entry in the background.
   */
  softTimeoutMs?: number;
  /**
   * Hard timeout of every cached call that names none, in ms (default 0: off): a call stops waiting for the loader
   * after this long, answering with a stale or grace value when there is one, else rejecting with
   * `CacheLoadTimeoutError` (504 over HTTP). The load goes on and may still fill the entry.
   */
  hardTimeoutMs?: number;
  /** How long a cross-instance fill lock is held at most, in ms (default 5000). */
  lockTtlMs?: number;
  /** How long a caller waits for another instance's fill before loading by itself, in ms (default 5000). */
  lockWaitMs?: number;
  /** At most one failure log line per this interval, in ms (default 10000); the rest are counted. */
  failureLogIntervalMs?: number;
  /** HTTP methods whose responses `@Cacheable` caches on controllers (default `['GET']`). */
  httpMethods?: string[];
  /**
   * Whether `@Cacheable` controller responses carry `X-Cache: HIT|MISS|STALE` (default true). The header tells any
   * client whether someone else fetched the same resource recently; turn it off where that is sensitive.
   */
  statusHeader?: boolean;
  /** An in-process L1 in front of Redis, invalidated across instances by Redis (off by default; see NearCacheOptions). */
  nearCache?: NearCacheOptions;
  /**
   * How values are encoded (default {@link JSON_CACHE_CODEC}: JSON keeping Dates, BigInts, Buffers, Maps and Sets).
   * A decorator's or a call's `codec` overrides it for its entries.
   */
  codec?: CacheCodec;
  /** More codecs this cache can read (entries written with them by other instances or an earlier configuration). */
  codecs?: CacheCodec[];
  /**
   * Compress encoded values of at least `thresholdBytes` (default off). `maxValueBytes` then bounds what is stored,
   * compressed; a compressed entry may expand to at most 16 × `maxValueBytes` when read.
   */
  compression?: CacheCompressionOptions | false;
}

/** The `cache` section with every default applied. */
export interface CacheSettings {
  readonly connection?: string;
  readonly defaultTtlMs: number;
  readonly jitter: number;
  readonly maxValueBytes: number;
  readonly graceMs: number;
  readonly graceRetryMs: number;
  readonly softTimeoutMs: number;
  readonly hardTimeoutMs: number;
  readonly lockTtlMs: number;
  readonly lockWaitMs: number;
  readonly failureLogIntervalMs: number;
  readonly httpMethods: ReadonlySet<string>;
  readonly statusHeader: boolean;
  readonly nearCache: NearCacheSettings;
  readonly codec: CacheCodec;
  readonly codecs: readonly CacheCodec[];
  readonly compression?: CompressionSettings;
}

const KNOWN_KEYS = [
  'connection',
  'defaultTtl',
  'defaultTtlMs',
  'jitter',
  'maxValueBytes',
  'graceMs',
  'graceRetryMs',
  'softTimeoutMs',
  'hardTimeoutMs',
  'lockTtlMs',
  'lockWaitMs',
  'failureLogIntervalMs',
  'httpMethods',
  'statusHeader',
  'nearCache',
  'codec',
  'codecs',
  'compression',
] as const;

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Validates the `cache` section at startup; every error names the offending option. */
export const validateCacheOptions: SectionValidator = (value, path, context) => {
  const section = checkObject(value, path);
  checkKnownKeys(section, path, KNOWN_KEYS);
  checkConnectionName(section.connection, `${path}.connection`, context);
  resolveCacheSettings(section as CacheOptions, path);
};

/** The logger context of the cache's messages. */
export const CACHE_LOG_CONTEXT = 'RedisPatterns:Cache';

/** Injection token of the cache's {@link CacheSettings}, resolved once at startup. */
export const CACHE_SETTINGS = Symbol('CacheSettings');

/**
 * Applies the defaults of the `cache` section (and validates it, so a direct call fails the same way). `warn`
 * receives what is valid but probably not meant (a `defaultTtl` that reads like ms).
 */
export function resolveCacheSettings(section: CacheOptions = {}, path = 'cache', warn?: (message: string) => void): CacheSettings {
  const num = (key: keyof CacheOptions, fallback: number, rule: Parameters<typeof checkNumber>[2]) =>
    section[key] === undefined ? fallback : checkNumber(section[key], `${path}.${key}`, rule);
  const methods = section.httpMethods ?? ['GET'];
  if (!Array.isArray(methods) || methods.length === 0) invalid(`${path}.httpMethods`, 'a non-empty array of HTTP methods', methods);
  methods.forEach((m, i) => checkOneOf(typeof m === 'string' ? m.toUpperCase() : m, `${path}.httpMethods[${i}]`, HTTP_METHODS));
  return {
    connection: section.connection,
    defaultTtlMs: resolveDefaultTtlMs(section, path, warn),
    jitter: num('jitter', 0.1, { min: 0, max: 0.5 }),
    maxValueBytes: num('maxValueBytes', 512 * 1024, { min: 1, max: 512 * 1024 * 1024, integer: true, unit: 'bytes' }),
    graceMs: num('graceMs', 0, { min: 0, max: MAX_TTL_SECONDS * 1000, integer: true, unit: 'ms' }),
    graceRetryMs: num('graceRetryMs', 10_000, { min: 0, max: 3_600_000, integer: true, unit: 'ms' }),
    ...loaderTimeouts(section, path, num),
    lockTtlMs: num('lockTtlMs', 5000, { min: 10, max: 600_000, integer: true, unit: 'ms' }),
    lockWaitMs: num('lockWaitMs', 5000, { min: 0, max: 600_000, integer: true, unit: 'ms' }),
    failureLogIntervalMs: num('failureLogIntervalMs', 10_000, { min: 0, integer: true, unit: 'ms' }),
    httpMethods: new Set(methods.map((m) => m.toUpperCase())),
    statusHeader: checkBoolean(section.statusHeader, `${path}.statusHeader`) ?? true,
    nearCache: resolveNearCacheSettings(section.nearCache, `${path}.nearCache`),
    codec: resolveCodec(section.codec, `${path}.codec`) ?? JSON_CACHE_CODEC,
    codecs: resolveCodecs(section.codecs, `${path}.codecs`),
    compression: resolveCompression(section.compression, `${path}.compression`),
  };
}

// The module's loader timeouts; a soft timeout at or past the hard one would never fire.
function loaderTimeouts(
  section: CacheOptions,
  path: string,
  num: (key: keyof CacheOptions, fallback: number, rule: Parameters<typeof checkNumber>[2]) => number,
): { softTimeoutMs: number; hardTimeoutMs: number } {
  const rule = { min: 0, max: 600_000, integer: true, unit: 'ms' } as const;
  const softTimeoutMs = num('softTimeoutMs', 0, rule);
  const hardTimeoutMs = num('hardTimeoutMs', 0, rule);
  if (softTimeoutMs > 0 && hardTimeoutMs > 0 && softTimeoutMs >= hardTimeoutMs)
    invalid(`${path}.softTimeoutMs`, `a timeout below ${path}.hardTimeoutMs (${hardTimeoutMs} ms)`, softTimeoutMs);
  return { softTimeoutMs, hardTimeoutMs };
}

function resolveDefaultTtlMs(section: CacheOptions, path: string, warn?: (message: string) => void): number {
  if (section.defaultTtlMs !== undefined) {
    if (section.defaultTtl !== undefined)
      invalid(`${path}.defaultTtlMs`, `either ${path}.defaultTtl (seconds) or ${path}.defaultTtlMs, not both`, section.defaultTtlMs);
    return checkNumber(section.defaultTtlMs, `${path}.defaultTtlMs`, { min: 1, max: MAX_TTL_SECONDS * 1000, integer: true, unit: 'ms' });
  }
  if (section.defaultTtl === undefined) return 60_000;
  const seconds = checkNumber(section.defaultTtl, `${path}.defaultTtl`, { exclusiveMin: 0, max: MAX_TTL_SECONDS, unit: 'seconds' });
  const warning = ttlUnitWarning(`${path}.defaultTtl`, 'defaultTtl', seconds);
  if (warning && warn) warn(warning);
  return Math.max(1, Math.round(seconds * 1000));
}

function resolveCodec(codec: unknown, path: string): CacheCodec | undefined {
  if (codec === undefined) return undefined;
  const problem = codecProblem(codec);
  if (problem) invalid(path, problem, codec);
  return codec as CacheCodec;
}

function resolveCodecs(codecs: unknown, path: string): CacheCodec[] {
  if (codecs === undefined) return [];
  if (!Array.isArray(codecs)) invalid(path, 'an array of codecs', codecs);
  return (codecs as unknown[]).map((codec, i) => resolveCodec(codec, `${path}[${i}]`)!);
}

const COMPRESSION_KEYS = ['algorithm', 'thresholdBytes', 'level'] as const;

function resolveCompression(value: unknown, path: string): CompressionSettings | undefined {
  if (value === undefined || value === false) return undefined;
  const section = checkObject(value, path);
  checkKnownKeys(section, path, COMPRESSION_KEYS);
  const algorithm =
    section.algorithm === undefined ? 'brotli' : checkOneOf(section.algorithm, `${path}.algorithm`, ['brotli', 'gzip'] as const);
  const [minLevel, maxLevel, level] = algorithm === 'brotli' ? [0, 11, 4] : [1, 9, 6];
  return Object.freeze({
    algorithm,
    thresholdBytes:
      section.thresholdBytes === undefined
        ? 16_384
        : checkNumber(section.thresholdBytes, `${path}.thresholdBytes`, { min: 0, integer: true, unit: 'bytes' }),
    level:
      section.level === undefined ? level : checkNumber(section.level, `${path}.level`, { min: minLevel, max: maxLevel, integer: true }),
  });
}
