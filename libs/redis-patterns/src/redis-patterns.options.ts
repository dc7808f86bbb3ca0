import { validateCacheOptions, type CacheOptions } from './cache/cache.options';
import { validateLockOptions, type LockOptions } from './lease/lease.options';
import { validateIdempotencyOptions, type IdempotencyOptions } from './idempotency/idempotency.options';
import { validatePubSubOptions, type PubSubOptions } from './messaging/pubsub.options';
import { validateStreamsOptions, type StreamsOptions } from './messaging/streams.options';
import { validateWriteBehindOptions, type WriteBehindOptions } from './cache/write-behind/write-behind.options';
import { validateRateLimitOptions, type RateLimitOptions } from './rate-limit/rate-limit.options';
import { validateCappedListOptions, type CappedListOptions } from './structures/capped-list.options';
import { validateLeaderboardOptions, type LeaderboardOptions } from './structures/leaderboard.options';
import { validateSessionsOptions, type SessionsOptions } from './structures/sessions.options';
import { validateUniqueCounterOptions, type UniqueCounterOptions } from './structures/unique-counter.options';
import type { RedisPatternsCoreOptions } from './core/options/core-module-options.interface';
import type { SectionValidator } from './core/options/option-checks';
import { resolveCoreOptions, type ResolvedCoreOptions } from './core/options/resolve-options';

/** The validator of every section, keyed by the section's option name. Each pattern owns its validator. */
export const PATTERN_SECTION_VALIDATORS: { readonly [K in keyof Required<PatternSections>]: SectionValidator } = {
  cache: validateCacheOptions,
  rateLimit: validateRateLimitOptions,
  lock: validateLockOptions,
  pubsub: validatePubSubOptions,
  streams: validateStreamsOptions,
  sessions: validateSessionsOptions,
  leaderboard: validateLeaderboardOptions,
  uniqueCounter: validateUniqueCounterOptions,
  cappedList: validateCappedListOptions,
  idempotency: validateIdempotencyOptions,
  writeBehind: validateWriteBehindOptions,
};

/**
 * Options of {@link RedisPatternsModule}: the core options and one optional section per pattern (each section may
 * name the connection it uses). Validated once at startup: any invalid value fails the application with an
 * `InvalidOptionsError` naming the option.
 */
export interface RedisPatternsModuleOptions extends RedisPatternsCoreOptions {
  /** `CacheService`, `@Cacheable`, `@CachePut`, `@CacheEvict` and the near cache. */
  cache?: CacheOptions;
  /** `RateLimiterService` and `@RateLimit`. */
  rateLimit?: RateLimitOptions;
  /** The leases: `LockService` and `@WithLock`, read-write locks, `SemaphoreService` and `@WithPermit`, leader election. */
  lock?: LockOptions;
  /** `PubSubService` and `@OnRedisMessage`. */
  pubsub?: PubSubOptions;
  /** `StreamsService` and `@StreamConsumer`. */
  streams?: StreamsOptions;
  /** `SessionStore`. */
  sessions?: SessionsOptions;
  /** `Leaderboard`. */
  leaderboard?: LeaderboardOptions;
  /** `UniqueCounter`. */
  uniqueCounter?: UniqueCounterOptions;
  /** `CappedList`. */
  cappedList?: CappedListOptions;
  /** `IdempotencyService` and `@Idempotent`. */
  idempotency?: IdempotencyOptions;
  /** `WriteBehindService` and `@CachePut({ writeBehind })`. */
  writeBehind?: WriteBehindOptions;
}

/** The pattern sections of the module options, one per pattern. */
type PatternSections = Omit<RedisPatternsModuleOptions, keyof RedisPatternsCoreOptions>;

/** Options after validation: the core options with every default applied, and each pattern's section. */
export type ResolvedRedisPatternsOptions = ResolvedCoreOptions & Readonly<PatternSections>;

/** Validates module options once, at startup: core's and every pattern section's. */
export function resolveOptions(raw: unknown): ResolvedRedisPatternsOptions {
  return resolveCoreOptions(raw, PATTERN_SECTION_VALIDATORS) as ResolvedRedisPatternsOptions;
}
