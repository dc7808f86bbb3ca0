import { Inject, Injectable } from '@nestjs/common';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { checkChannelName } from './channel-names';
import type { MessageHandler } from './handler-queue';
import { PUBSUB_SETTINGS, type PubSubSettings } from './pubsub.options';
import { PubSubRuntime } from './pubsub.runtime';
import { PUBSUB_STORE, type PubSubStore } from './pubsub.store';
import { isPatternRequested, type SubscribeOptions } from './subscribe-options';
import { wrapWithTraceContext } from './trace-envelope';

/** A live subscription; `unsubscribe()` removes this handler only (other handlers of the channel keep theirs). */
export interface Subscription {
  /** The channel or pattern as given to `subscribe` / `psubscribe`. */
  readonly channel: string;
  /** Whether it is a pattern subscription (`psubscribe`, `{ pattern: true }`, or a glob declared with `@OnRedisMessage`). */
  readonly pattern: boolean;
  /**
   * Stops this handler at once (its messages not yet handled are dropped); when it was the last handler of the
   * channel or pattern, resolves once Redis has unsubscribed. Calling it again does nothing.
   */
  unsubscribe(): Promise<void>;
}

/**
 * Pub/sub on Redis channels: fire-and-forget, at-most-once. Messages are JSON. Every subscription of the
 * application shares one dedicated subscriber connection, created on first use and re-subscribed by ioredis after
 * a reconnect; messages published while it is disconnected are lost (use Streams for delivery guarantees).
 * Each handler runs in its own ordered queue: a throwing or slow handler is logged and never delays the others.
 */
@Injectable()
export class PubSubService {
  /** Whether `publish` carries trace context: `pubsub.propagateTraceContext` with tracing live. */
  private readonly propagate: boolean;

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    @Inject(PUBSUB_SETTINGS) settings: PubSubSettings,
    @Inject(PUBSUB_STORE) private readonly store: PubSubStore,
    private readonly runtime: PubSubRuntime,
  ) {
    this.propagate = settings.propagateTraceContext && runtime.tracing.live;
  }

  /**
   * Publishes `message` (JSON-encoded) on `channel`; resolves to the number of subscribed connections that
   * received it (in a cluster: those connected to the node that took the PUBLISH). `channel` is one channel whatever
   * characters it holds: `room:*` is the channel of that name, reaching its own subscribers and the patterns that
   * match it, never `room:1`. Messages published by one application instance arrive in the order they were
   * published, on a cluster too. Inside a traced span (an OpenTelemetry SDK registered), the message carries its
   * trace context unless `pubsub.propagateTraceContext` is false; subscribers of this library receive the message
   * alone.
   */
  async publish(channel: string, message: unknown): Promise<number> {
    checkChannelName(channel, 'channel');
    const payload = JSON.stringify(message);
    if (payload === undefined)
      throw new InvalidArgumentError('message', 'expected a JSON-serialisable value (got undefined or a function)');
    const carrier = this.propagate ? this.runtime.tracing.inject() : undefined;
    const wire = carrier === undefined ? payload : wrapWithTraceContext(payload, carrier);
    const receivers = await this.store.publish(this.runtime.names.channel(channel), wire);
    this.runtime.metrics.published();
    return receivers;
  }

  /**
   * Calls `handler(message, channel)` for every message published on `channel`. The name is literal whatever
   * characters it holds (it is escaped like a key part): a name built from input, `'room:' + room` with `room` set
   * to `*`, receives what is published on the channel `room:*` only, never `room:1`. Pass `{ pattern: true }` (or
   * call {@link PubSubService.psubscribe}) to subscribe to a glob pattern on purpose. Resolves once Redis has
   * confirmed the subscription, so a message published afterwards is delivered.
   *
   * @example
   * const sub = await pubsub.subscribe(`room:${roomId}`, (message, channel) => render(channel, message));
   * await sub.unsubscribe();
   *
   * @throws InvalidArgumentError naming `channel`, `handler` or `options.<name>` when one is unusable.
   */
  subscribe<T = unknown>(channel: string, handler: MessageHandler<T>, options?: SubscribeOptions): Promise<Subscription> {
    return this.runtime.register(channel, 'channel', handler as MessageHandler, () => isPatternRequested(options), false);
  }

  /**
   * Calls `handler(message, channel)` for every message on a channel matching the glob `pattern`, as PSUBSCRIBE
   * matches: `*` any run of characters, `?` one character, `[abc]` / `[^a]` / `[a-z]` a class. The literal text
   * between glob characters is escaped as channel names are, so `orders:*` matches every channel whose name starts
   * with `orders:`; `channel` is the name the message was published on. Build patterns in code: a pattern made of
   * user input lets that user choose what it receives. A pattern and a channel of the same text are separate
   * subscriptions, each receiving each message once. Resolves once Redis has confirmed the subscription.
   *
   * @example
   * await pubsub.psubscribe('orders:*', (event, channel) => console.log(channel, event)); // "orders:42", …
   *
   * @throws InvalidArgumentError naming `pattern` or `handler` when one is unusable.
   */
  psubscribe<T = unknown>(pattern: string, handler: MessageHandler<T>): Promise<Subscription> {
    return this.runtime.register(pattern, 'pattern', handler as MessageHandler, () => true, false);
  }
}
