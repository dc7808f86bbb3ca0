import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type LoggerService } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { parseJsonSafely } from '../core/serialization/parse-json-safely';
import type { TraceCarrier } from '../core/telemetry/trace-context';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { ChannelNames, checkChannelName, isDeclaredPattern } from './channel-names';
import { HandlerQueue, type MessageHandler } from './handler-queue';
import { PubSubMetrics } from './messaging.metrics';
import { PubSubTracing } from './messaging.tracing';
import { PUBSUB_SETTINGS, type PubSubSettings } from './pubsub.options';
import type { Subscription } from './pubsub.service';
import { PUBSUB_STORE, type PubSubStore } from './pubsub.store';
import { mayCarryTraceContext, unwrapTraceContext } from './trace-envelope';

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
 * The application's pub/sub subscriptions — the handlers of each channel and pattern, the SUBSCRIBE/UNSUBSCRIBE
 * chain per name, delivery from the shared subscriber connection — with the channel names, metrics and tracing that
 * publishing shares. Used by `PubSubService` and the `@OnRedisMessage` explorer, which inject it rather than reach
 * through the public service: a channel subscribed by both has one registration, and shutdown stops them all.
 */
@Injectable()
export class PubSubRuntime implements BeforeApplicationShutdown {
  readonly names: ChannelNames;
  readonly metrics = new PubSubMetrics();
  readonly tracing = new PubSubTracing();
  private readonly logger: LoggerService;
  private readonly registrations = new Map<string, Registration>();
  /** Per registration key, the tail of the SUBSCRIBE/UNSUBSCRIBE chain: commands for one name never overtake each other. */
  private readonly pendingOps = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    keys: KeyBuilder,
    @Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions,
    @Inject(PUBSUB_SETTINGS) private readonly settings: PubSubSettings,
    @Inject(PUBSUB_STORE) private readonly store: PubSubStore,
  ) {
    this.names = new ChannelNames(keys);
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
   * Subscribes a channel or pattern fixed in code (`@OnRedisMessage`): a name with `*`, `?` or `[` is a pattern, and
   * its spans are named after it.
   */
  subscribeDeclared(channelOrPattern: string, handler: MessageHandler): Promise<Subscription> {
    return this.register(channelOrPattern, 'channelOrPattern', handler, () => isDeclaredPattern(channelOrPattern), true);
  }

  /**
   * Adds `handler` to the subscriptions of `name` (`argument` names it in errors): a pattern when `patternRequested`
   * says so; `declared` names its spans after it.
   */
  async register(
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
