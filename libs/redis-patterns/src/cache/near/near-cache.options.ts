import { checkBoolean, checkKnownKeys, checkNumber, checkObject } from '../../core/options/option-checks';

/**
 * Options of `cache.nearCache`: an in-process L1 in front of Redis, invalidated by Redis (client-side caching).
 * Off by default; `enabled: true` turns it on for CacheService and every `@Cacheable`, and a decorator's
 * `nearCache: true | false` overrides it per method.
 */
export interface NearCacheOptions {
  /** Use the L1 for every CacheService read and `@Cacheable` method unless a decorator says otherwise (default false). */
  enabled?: boolean;
  /** Most entries held; the least recently used goes first (default 10000). */
  maxEntries?: number;
  /**
   * Most memory held, in bytes (default 67108864 = 64 MB), estimated per entry as the UTF-16 size of its key and of its
   * decoded value's text (decompressed: compression saves Redis memory, not this process's), plus an overhead.
   */
  maxBytes?: number;
  /** Longest an entry stays in L1, in ms (default: none beyond the entry's remaining Redis TTL, which always caps it). */
  ttlMs?: number;
}

/** `cache.nearCache` with every default applied. */
export interface NearCacheSettings {
  readonly enabled: boolean;
  readonly maxEntries: number;
  readonly maxBytes: number;
  /** 0 = no cap beyond the Redis TTL. */
  readonly ttlMs: number;
}

const KNOWN_KEYS = ['enabled', 'maxEntries', 'maxBytes', 'ttlMs'] as const;

/** Validates and resolves `cache.nearCache`; every error names the option (e.g. `cache.nearCache.maxBytes`). */
export function resolveNearCacheSettings(value: unknown, path: string): NearCacheSettings {
  if (value === undefined) return { enabled: false, maxEntries: 10_000, maxBytes: 64 * 1024 * 1024, ttlMs: 0 };
  const section = checkObject(value, path) as NearCacheOptions & Record<string, unknown>;
  checkKnownKeys(section, path, KNOWN_KEYS);
  const num = (key: keyof NearCacheOptions, fallback: number, rule: Parameters<typeof checkNumber>[2]) =>
    section[key] === undefined ? fallback : checkNumber(section[key], `${path}.${key}`, rule);
  return {
    enabled: checkBoolean(section.enabled, `${path}.enabled`) ?? false,
    maxEntries: num('maxEntries', 10_000, { min: 1, max: 10_000_000, integer: true }),
    maxBytes: num('maxBytes', 64 * 1024 * 1024, { min: 1024, max: 16 * 1024 * 1024 * 1024, integer: true, unit: 'bytes' }),
    ttlMs: num('ttlMs', 0, { min: 1, max: 365 * 24 * 3600 * 1000, integer: true, unit: 'ms' }),
  };
}
