import type { StreamConsumerSettings } from './stream-consume-options';

/** Metadata key holding the consumer settings of a method. */
export const STREAM_CONSUMER = Symbol('redis-patterns:stream-consumer');

/**
 * Makes a provider method the handler of a stream consumer: started after bootstrap (the options are validated
 * at startup, naming the bad one), stopped and drained at shutdown before connections close. The method receives
 * a `StreamMessage`; resolving acknowledges the entry, throwing retries it up to `maxDeliveries` times, then
 * dead-letters it. Unset options come from the module's `streams` section.
 *
 * @example
 * @StreamConsumer({ stream: 'orders', group: 'billing', concurrency: 4 })
 * async bill(message: StreamMessage) { await this.billing.charge(message.fields.orderId, message.id); }
 */
export function StreamConsumer(settings: StreamConsumerSettings): MethodDecorator {
  return (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const all = (Reflect.getOwnMetadata(STREAM_CONSUMER, method) as StreamConsumerSettings[] | undefined) ?? [];
    Reflect.defineMetadata(STREAM_CONSUMER, [...all, settings], method);
    return descriptor;
  };
}
