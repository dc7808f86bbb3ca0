import { Inject } from '@nestjs/common';
import { getRedisConnectionToken } from '../../redis-patterns.constants';

const requestedNames = new Set<string>(['default']);

/** Connection names asked for by `@InjectRedis`, so the module can provide a token for each. */
export function requestedConnectionNames(): ReadonlySet<string> {
  return requestedNames;
}

/**
 * Injects the ioredis client (`Redis` or `Cluster`) of a connection of the module: the default one, or a named
 * one from `connections`. A name that is not configured fails application startup.
 *
 * @example constructor(@InjectRedis() private readonly redis: Redis) {}
 */
export function InjectRedis(name = 'default'): PropertyDecorator & ParameterDecorator {
  requestedNames.add(name);
  return Inject(getRedisConnectionToken(name));
}
