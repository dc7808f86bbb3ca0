import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type LoggerService } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import type { Observation } from '../core/telemetry/metrics';
import { libraryTracer } from '../core/telemetry/tracing';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { type ObservedGroup, observeConsumerGroups } from './messaging.metrics';
import { type ConsumeOptions, type ResolvedConsumerSettings, resolveConsumerSettings } from './stream-consume-options';
import { StreamConsumerLoop, type StreamConsumerHandle } from './stream-consumer';
import { STREAMS_SETTINGS, type StreamsSettings } from './streams.options';
import { STREAMS_STORE, type StreamsStore } from './streams.store';

/** Where consumer options come from, for the errors that name them: a `consume()` argument or a decorator option. */
export interface ConsumerOptionsSource {
  readonly kind: 'argument' | 'option';
  readonly path: string;
}

/** The key-builder pattern under which streams live: `<keyPrefix>:stream:<stream>`. */
export const STREAM_NAMESPACE = 'stream';

/**
 * The stream consumers of this instance — started by `consume()` or by `@StreamConsumer` methods — with their
 * backlog gauges. Shared by `StreamsService` and the `@StreamConsumer` explorer, which inject it rather than reach
 * through the public service: every consumer is validated the same way, and all are stopped and drained at shutdown,
 * before the module closes connections.
 */
@Injectable()
export class StreamsRuntime implements BeforeApplicationShutdown {
  readonly logger: LoggerService;
  /** Running consumers, with the group each reads (for the backlog gauges). */
  private readonly consumers = new Map<StreamConsumerLoop, ObservedGroup>();
  private closed = false;
  private readonly tracer = libraryTracer();
  private readonly backlogGauges: Observation;

  constructor(
    private readonly keys: KeyBuilder,
    @Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions,
    @Inject(STREAMS_SETTINGS) private readonly settings: StreamsSettings,
    @Inject(STREAMS_STORE) private readonly store: StreamsStore,
  ) {
    this.logger = options.logger ?? new Logger('StreamsService');
    this.backlogGauges = observeConsumerGroups(
      () => this.consumers.values(),
      (key, group) => this.store.groupBacklog(key, group),
    );
  }

  /** Validates consumer options as `consume()` would; the explorer calls it at module init. */
  validateConsumer(options: ConsumeOptions, source: ConsumerOptionsSource): ResolvedConsumerSettings {
    if (typeof options?.handler !== 'function') {
      throw new InvalidArgumentError(`${source.path}.handler`, 'expected a function');
    }
    return resolveConsumerSettings(options, this.settings, defaultConsumerName, { ...source, extraKeys: ['handler'] });
  }

  /** `consume()` with the error kind chosen by the caller (the explorer reports options errors). */
  startConsumer(options: ConsumeOptions, source: ConsumerOptionsSource): StreamConsumerHandle {
    const settings = this.validateConsumer(options, source);
    if (this.closed) throw new InvalidArgumentError(source.path, 'the application is shutting down: no new consumer');
    const consumer = new StreamConsumerLoop({
      settings,
      handler: options.handler,
      store: this.store,
      reader: this.store.openReader(`stream:${settings.group}:${settings.consumer}`),
      keys: {
        source: this.keys.key(STREAM_NAMESPACE, settings.stream),
        deadLetter: this.keys.key(STREAM_NAMESPACE, settings.deadLetterStream),
      },
      deadLetterMaxLength: this.settings.deadLetterMaxLength,
      logger: this.logger,
    });
    this.consumers.set(consumer, { stream: settings.stream, group: settings.group, key: this.keys.key(STREAM_NAMESPACE, settings.stream) });
    void consumer.stopped.then(() => this.consumers.delete(consumer));
    // The loop outlives this call: it must not run (and make its commands' spans) inside the caller's trace.
    return this.tracer.detached(() => consumer.start());
  }

  /** Stops every consumer started here (decorated or not), draining in-flight handlers, before connections close. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.backlogGauges.remove();
    await Promise.all([...this.consumers.keys()].map((consumer) => consumer.stop()));
  }
}

function defaultConsumerName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
