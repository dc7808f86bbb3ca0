/** Injection token of the validated options with defaults applied ({@link ResolvedRedisPatternsOptions}). */
export const RESOLVED_OPTIONS = Symbol('RedisPatternsResolvedOptions');

/** Injection token of the ioredis client of a named connection, as used by `@InjectRedis(name)`. */
export function getRedisConnectionToken(name = 'default'): string {
  return `RedisPatternsConnection:${name}`;
}
