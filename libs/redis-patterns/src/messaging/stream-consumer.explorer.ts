import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { discoverMethods } from '../core/advice/discover-methods';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { StreamConsumerSettings, StreamMessage } from './stream-consume-options';
import { STREAM_CONSUMER } from './stream-consumer.decorator';
import { StreamsRuntime } from './streams.runtime';
import { withDeadline } from '../core/time/with-deadline';

interface Declared {
  readonly label: string;
  readonly settings: StreamConsumerSettings;
  readonly handler: (message: StreamMessage) => unknown;
}

/**
 * Finds every `@StreamConsumer` method at module init (so bad options fail startup before anything is read) and
 * starts the consumers at bootstrap. `StreamsRuntime` stops and drains them in `beforeApplicationShutdown`.
 */
@Injectable()
export class StreamConsumerExplorer implements OnModuleInit, OnApplicationBootstrap {
  private declared: Declared[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly streams: StreamsRuntime,
    @Inject(RESOLVED_OPTIONS) private readonly options: ResolvedRedisPatternsOptions,
  ) {}

  onModuleInit(): void {
    const found = discoverMethods(this.discovery, this.scanner, (method) => Reflect.hasOwnMetadata(STREAM_CONSUMER, method));
    this.declared = found.flatMap(({ instance, classRef, methodName, method }) =>
      (Reflect.getOwnMetadata(STREAM_CONSUMER, method) as StreamConsumerSettings[]).map((settings) => ({
        label: `@StreamConsumer() on ${classRef.name}.${methodName}`,
        settings,
        handler: (message: StreamMessage) => method.call(instance, message),
      })),
    );
    // Validate now: the same checks as at start, without starting anything.
    for (const { label, settings, handler } of this.declared) {
      this.streams.validateConsumer({ ...settings, handler }, { kind: 'option', path: label });
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    // Starting a consumer opens its reader synchronously: where that is refused (NoRedisInMemoryModeError in memory
    // mode) the throw rejects this hook, so `app.init()` fails with it instead of a consumer retrying in the background.
    const handles = this.declared.map(({ label, settings, handler }) =>
      this.streams.startConsumer({ ...settings, handler }, { kind: 'option', path: label }),
    );
    // Wait until every group exists, so entries added right after startup are not raced; but a Redis that is down
    // must not hold the application's startup hostage: consumers keep retrying in the background.
    await withDeadline(Promise.all(handles.map((handle) => handle.ready)), this.options.startupWait.ms(), () => undefined);
  }
}
