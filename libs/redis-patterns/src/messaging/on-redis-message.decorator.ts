import { InvalidOptionsError } from '../errors/invalid-options.error';

/** Metadata key holding the channels (or patterns) a method listens to. */
export const ON_REDIS_MESSAGE = Symbol('redis-patterns:on-redis-message');

/**
 * Subscribes a provider method to a channel or pattern through {@link PubSubService}. The name is fixed in code, so
 * its glob characters are meant: a name with `*`, `?` or `[` is a pattern (as `psubscribe`), any other a channel
 * (names built at run time go through `subscribe`, which takes them literally). The method is discovered at bootstrap
 * and called as `(message, channel)`; it may be stacked to listen to several channels. Pub/sub is at-most-once: use
 * `@StreamConsumer` for guarantees.
 *
 * @example
 * @OnRedisMessage('orders:*')
 * onOrderEvent(event: OrderEvent, channel: string) { … }
 */
export function OnRedisMessage(channelOrPattern: string): MethodDecorator {
  if (typeof channelOrPattern !== 'string' || channelOrPattern.length === 0) {
    throw new InvalidOptionsError('@OnRedisMessage(channelOrPattern)', 'a non-empty channel name or pattern', typeof channelOrPattern);
  }
  return (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const channels = (Reflect.getOwnMetadata(ON_REDIS_MESSAGE, method) as string[] | undefined) ?? [];
    Reflect.defineMetadata(ON_REDIS_MESSAGE, [...channels, channelOrPattern], method);
    return descriptor;
  };
}
