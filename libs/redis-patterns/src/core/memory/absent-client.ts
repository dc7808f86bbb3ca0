import { NoRedisInMemoryModeError } from '../../errors/no-redis-in-memory-mode.error';

// What Nest and promise machinery look up on every provider (lifecycle hooks, thenables): answered with undefined
// so that an injected-but-unused client does not break startup.
const INSPECTED = new Set([
  'then',
  'constructor',
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
  'toJSON',
  'inspect',
]);

/**
 * What `@InjectRedis(name)` injects in memory mode: a stand-in that throws {@link NoRedisInMemoryModeError} as soon
 * as the code uses it, so a service that needs Redis itself fails at its first call with a message that names the
 * cure, and one that only injects the client still starts.
 */
export function absentClient(connection: string): object {
  return new Proxy(Object.create(null) as object, {
    get(_target, property) {
      if (typeof property === 'symbol' || INSPECTED.has(property)) return undefined;
      throw new NoRedisInMemoryModeError(`The Redis client of connection "${connection}" (its ${property})`);
    },
  });
}
