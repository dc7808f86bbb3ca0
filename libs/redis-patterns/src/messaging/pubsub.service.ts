import { PubSubMetrics } from './messaging.metrics';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type LoggerService } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import { ChannelNames, checkChannelName, isDeclaredPattern } from './channel-names';
import { HandlerQueue, type MessageHandler } from './handler-queue';
import { PUBSUB_SETTINGS, type PubSubSettings } from './pubsub.options';
import { PUBSUB_STORE, type PubSubStore } from './pubsub.store';
import { parseJsonSafely } from '../core/serialization/parse-json-safely';
import type { TraceCarrier } from '../core/telemetry/trace-context';
import { PubSubTracing } from './messaging.tracing';
import { mayCarryTraceContext, unwrapTraceContext, wrapWithTraceContext } from './trace-envelope';
import { isPatternRequested, type SubscribeOptions } from './subscribe-options';

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

/** The handlers of one raw channel, or of one raw pattern: a channel and a pattern of the same text are two. */
interface Registration {
  /** The raw name, tagged with its kind: what `registrations` and `pendingOps` are keyed by. */
  readonly key: string;
  readonly raw: string;
  readonly isPattern: boolean;
  readonly handlers: Set<HandlerQueue>;
}

function registrationKey(isPattern: boolean, raw: string): string {
  return (isPattern ? 'p:' : 'c:') + raw;
}

/**
 * Pub/sub on Redis channels: fire-and-forget, at-most-once. Messages are JSON. Every subscription of the
 * application shares one dedicated subscriber connection, created on first use and re-subscribed by ioredis after
 * a reconnect; messages published while it is disconnected are lost (use Streams for delivery guarantees).
 * Each handler runs in its own ordered queue: a throwing or slow handler is logged and never delays the others.
 */
@Injectable()
export class PubSubService implements BeforeApplicationShutdown {
  private readonly names: ChannelNames;
  private readonly logger: LoggerService;
  private readonly metrics: PubSubMetrics;
  private readonly tracing = new PubSubTracing();
  /** Whether `publish` carries trace context: `pubsub.propagateTraceContext` with tracing live. */
  private readonly propagate: boolean;
  private readonly registrations = new Map<string, Registration>();
  /** Per registration key, the tail of the SUBSCRIBE/UNSUBSCRIBE chain: commands for one name never overtake each other. */
  private readonly pendingOps = new Map<string, Promise<void>>();
  private closed = false;

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    keys: KeyBuilder,
    @Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions,
    @Inject(PUBSUB_SETTINGS) private readonly settings: PubSubSettings,
    @Inject(PUBSUB_STORE) private readonly store: PubSubStore,
  ) {
    this.names = new ChannelNames(keys);
    this.metrics = new PubSubMetrics();
    this.propagate = settings.propagateTraceContext && this.tracing.live;
    this.logger = options.logger ?? new Logger('PubSubService');
    store.listen({
      message: (subscription, channel, message, fromPattern) => this.dispatch(subscription, channel, message, fromPattern),
      resubscribed: (error) =>
        this.logger.warn(
          error === undefined
            ? 'Pub/sub subscriber reconnected and re-subscribed; messages published while it was disconnected were lost'
            : `Pub/sub subscriber reconnected but could not re-subscribe (${(error as Error).message}); those subscriptions are retried at its next reconnect`,
        ),
    });
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
    const carrier = this.propagate ? this.tracing.inject() : undefined;
    const wire = carrier === undefined ? payload : wrapWithTraceContext(payload, carrier);
    const receivers = await this.store.publish(this.names.channel(channel), wire);
    this.metrics.published();
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
    return this.register(channel, 'channel', handler as MessageHandler, () => isPatternRequested(options), false);
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
    return this.register(pattern, 'pattern', handler as MessageHandler, () => true, false);
  }

  /**
   * @internal Subscribes a channel or pattern fixed in code (`@OnRedisMessage`): a name with `*`, `?` or `[` is a
   * pattern, and its spans are named after it.
   */
  subscribeDeclared(channelOrPattern: string, handler: MessageHandler): Promise<Subscription> {
    return this.register(channelOrPattern, 'channelOrPattern', handler, () => isDeclaredPattern(channelOrPattern), true);
  }

  private async register(
    name: string,
    argument: string,
    handler: MessageHandler,
    patternRequested: () => boolean,
    declared: boolean,
  ): Promise<Subscription> {
    checkChannelName(name, argument);
    if (typeof handler !== 'function') throw new InvalidArgumentError('handler', 'expected a function');
    const isPattern = patternRequested();
    if (this.closed) throw new InvalidArgumentError(argument, 'the application is shutting down: no new subscription');
    const raw = isPattern ? this.names.pattern(name) : this.names.channel(name);
    const label = `${isPattern ? 'pattern' : 'channel'} ${JSON.stringify(name)}`;
    const queue = new HandlerQueue(
      this.tracing.handlerFor(handler, declared ? { name, isPattern } : undefined),
      this.settings.maxQueuedMessages,
      (error, channel) => {
        this.metrics.handlerFailed();
        this.logger.error(`Handler of ${label} failed on a message from ${JSON.stringify(channel)}: ${describe(error)}`);
      },
      (channel, dropped) => {
        if (dropped === 1 || dropped % 1000 === 0) {
          this.logger.warn(`Handler of ${label} is too slow: ${dropped} message(s) from ${JSON.stringify(channel)} dropped so far`);
        }
      },
    );
    const key = registrationKey(isPattern, raw);
    let registration = this.registrations.get(key);
    if (!registration) {
      registration = { key, raw, isPattern, handlers: new Set() };
      this.registrations.set(key, registration);
    }
    registration.handlers.add(queue);
    const current = registration;
    try {
      await this.chain(key, () => this.ensureSubscribed(current));
    } catch (error) {
      current.handlers.delete(queue);
      throw error;
    }
    let active = true;
    return {
      channel: name,
      pattern: isPattern,
      unsubscribe: async () => {
        if (!active) return;
        active = false;
        current.handlers.delete(queue);
        queue.clear();
        await this.chain(key, () => this.releaseIfUnused(current));
      },
    };
  }

  /** Stops delivering (the subscriber connection is closed by the module right after). */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.registrations.clear();
    await this.store.close();
  }

  private chain(key: string, op: () => Promise<void>): Promise<void> {
    const next = (this.pendingOps.get(key) ?? Promise.resolve()).then(op);
    const tail = next.catch(() => undefined);
    this.pendingOps.set(key, tail);
    void tail.then(() => {
      if (this.pendingOps.get(key) === tail) this.pendingOps.delete(key);
    });
    return next;
  }

  private async ensureSubscribed(registration: Registration): Promise<void> {
    if (this.registrations.get(registration.key) !== registration || registration.handlers.size === 0) return;
    if (registration.isPattern) await this.store.psubscribe(registration.raw);
    else await this.store.subscribe(registration.raw);
  }

  private async releaseIfUnused(registration: Registration): Promise<void> {
    if (registration.handlers.size > 0 || this.registrations.get(registration.key) !== registration) return;
    this.registrations.delete(registration.key);
    if (this.closed) return;
    if (registration.isPattern) await this.store.punsubscribe(registration.raw);
    else await this.store.unsubscribe(registration.raw);
  }

  private dispatch(raw: string, channel: string, message: string, fromPattern: boolean): void {
    const registration = this.registrations.get(registrationKey(fromPattern, raw));
    if (!registration || registration.handlers.size === 0) return;
    this.metrics.received();
    let text = message;
    let carrier: TraceCarrier | undefined;
    // Stripped whatever the tracing setup: a handler receives the same message with or without an SDK.
    if (mayCarryTraceContext(message)) ({ payload: text, carrier } = unwrapTraceContext(message));
    const payload = decode(text);
    const name = this.names.display(channel);
    for (const queue of registration.handlers) queue.push(payload, name, carrier);
  }
}

/** JSON payloads are decoded; a message published by another tool as plain text is passed on as the string. */
function decode(message: string): unknown {
  try {
    return parseJsonSafely(message);
  } catch {
    return message;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
