import { PubSubMetrics } from './messaging.metrics';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type LoggerService } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import { ChannelNames, checkChannelName, isChannelPattern } from './channel-names';
import { HandlerQueue, type MessageHandler } from './handler-queue';
import { PUBSUB_SETTINGS, type PubSubSettings } from './pubsub.options';
import { PUBSUB_STORE, type PubSubStore } from './pubsub.store';
import { parseJsonSafely } from '../core/serialization/parse-json-safely';
import type { TraceCarrier } from '../core/telemetry/trace-context';
import { PubSubTracing } from './messaging.tracing';
import { mayCarryTraceContext, unwrapTraceContext, wrapWithTraceContext } from './trace-envelope';

/** A live subscription; `unsubscribe()` removes this handler only (other handlers of the channel keep theirs). */
export interface Subscription {
  /** The channel or pattern as given to `subscribe`. */
  readonly channel: string;
  unsubscribe(): Promise<void>;
}

interface Registration {
  readonly raw: string;
  readonly isPattern: boolean;
  readonly handlers: Set<HandlerQueue>;
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
  /** Per raw name, the tail of the SUBSCRIBE/UNSUBSCRIBE chain: commands for one name never overtake each other. */
  private readonly pendingOps = new Map<string, Promise<void>>();
  private closed = false;

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
      message: (subscription, channel, message) => this.dispatch(subscription, channel, message),
      resubscribed: () =>
        this.logger.warn('Pub/sub subscriber reconnected and re-subscribed; messages published while it was disconnected were lost'),
    });
  }

  /**
   * Publishes `message` (JSON-encoded) on `channel`; resolves to the number of subscribed connections that
   * received it (in a cluster: those connected to the node that took the PUBLISH). Messages published by one
   * application instance arrive in the order they were published, on a cluster too. Inside a traced span (an
   * OpenTelemetry SDK registered), the message carries its trace context unless `pubsub.propagateTraceContext` is
   * false; subscribers of this library receive the message alone.
   */
  async publish(channel: string, message: unknown): Promise<number> {
    checkChannelName(channel, 'channel');
    if (isChannelPattern(channel))
      throw new InvalidArgumentError('channel', `"${channel}" contains glob characters (*, ?, [): publish to a channel, not a pattern`);
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
   * Calls `handler(message, channel)` for every message on `channelOrPattern` (a name with `*`, `?` or `[` is a
   * pattern). Resolves once Redis has confirmed the subscription, so a message published afterwards is delivered.
   */
  subscribe<T = unknown>(channelOrPattern: string, handler: MessageHandler<T>): Promise<Subscription> {
    return this.register(channelOrPattern, handler as MessageHandler, false);
  }

  /** @internal `subscribe` for a channel or pattern fixed in code (`@OnRedisMessage`): its spans are named after it. */
  subscribeDeclared(channelOrPattern: string, handler: MessageHandler): Promise<Subscription> {
    return this.register(channelOrPattern, handler, true);
  }

  private async register(channelOrPattern: string, handler: MessageHandler, declared: boolean): Promise<Subscription> {
    checkChannelName(channelOrPattern, 'channelOrPattern');
    if (typeof handler !== 'function') throw new InvalidArgumentError('handler', 'expected a function');
    if (this.closed) throw new InvalidArgumentError('channelOrPattern', 'the application is shutting down: no new subscription');
    const isPattern = isChannelPattern(channelOrPattern);
    const raw = isPattern ? this.names.pattern(channelOrPattern) : this.names.channel(channelOrPattern);
    const queue = new HandlerQueue(
      this.tracing.handlerFor(handler, declared ? { name: channelOrPattern, isPattern } : undefined),
      this.settings.maxQueuedMessages,
      (error, channel) => {
        this.metrics.handlerFailed();
        this.logger.error(`Handler of "${channelOrPattern}" failed on a message from "${channel}": ${describe(error)}`);
      },
      (channel, dropped) => {
        if (dropped === 1 || dropped % 1000 === 0) {
          this.logger.warn(`Handler of "${channelOrPattern}" is too slow: ${dropped} message(s) from "${channel}" dropped so far`);
        }
      },
    );
    let registration = this.registrations.get(raw);
    if (!registration) {
      registration = { raw, isPattern, handlers: new Set() };
      this.registrations.set(raw, registration);
    }
    registration.handlers.add(queue);
    const current = registration;
    try {
      await this.chain(raw, () => this.ensureSubscribed(current));
    } catch (error) {
      current.handlers.delete(queue);
      throw error;
    }
    let active = true;
    return {
      channel: channelOrPattern,
      unsubscribe: async () => {
        if (!active) return;
        active = false;
        current.handlers.delete(queue);
        queue.clear();
        await this.chain(raw, () => this.releaseIfUnused(current));
      },
    };
  }

  /** Stops delivering (the subscriber connection is closed by the module right after). */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.registrations.clear();
    await this.store.close();
  }

  private chain(raw: string, op: () => Promise<void>): Promise<void> {
    const next = (this.pendingOps.get(raw) ?? Promise.resolve()).then(op);
    const tail = next.catch(() => undefined);
    this.pendingOps.set(raw, tail);
    void tail.then(() => {
      if (this.pendingOps.get(raw) === tail) this.pendingOps.delete(raw);
    });
    return next;
  }

  private async ensureSubscribed(registration: Registration): Promise<void> {
    if (this.registrations.get(registration.raw) !== registration || registration.handlers.size === 0) return;
    if (registration.isPattern) await this.store.psubscribe(registration.raw);
    else await this.store.subscribe(registration.raw);
  }

  private async releaseIfUnused(registration: Registration): Promise<void> {
    if (registration.handlers.size > 0 || this.registrations.get(registration.raw) !== registration) return;
    this.registrations.delete(registration.raw);
    if (this.closed) return;
    if (registration.isPattern) await this.store.punsubscribe(registration.raw);
    else await this.store.unsubscribe(registration.raw);
  }

  private dispatch(raw: string, channel: string, message: string): void {
    const registration = this.registrations.get(raw);
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
