import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { describeValue } from '../core/options/option-checks';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { CACHE_LOG_CONTEXT, CACHE_SETTINGS, type CacheSettings } from './cache.options';
import { CacheEngine } from './engine/cache-engine';
import { CacheHealth } from './engine/cache-health';
import { CacheKeys } from './engine/cache-keys';
import { CACHE_STORE, type CacheStore } from './cache.store';
import type { EntryPolicy, PolicyDefaults } from './engine/entry-policy';
import { NearCache } from './near/near-cache';
import type { StartupWait } from '../core/connections/startup-wait';

/**
 * The cache's settings (resolved once, at startup) and machinery — keys, engine, store, near cache — shared by
 * `CacheService` and the cache decorators' advisors, which inject it rather than reach through the public service.
 * It owns the near cache's listener and drains running loads before connections close.
 */
@Injectable()
export class CacheRuntime implements OnModuleInit, BeforeApplicationShutdown {
  readonly keys: CacheKeys;
  readonly engine: CacheEngine;
  /** The in-process L1 (`cache.nearCache`); started when enabled for the module or by a decorator. */
  readonly near: NearCache;
  /** The entry policy defaults of a call that gives no options. */
  readonly defaults: PolicyDefaults & { readonly near: boolean };
  /**
   * Minimum lifetime of a tag's epoch after an invalidation: a fill that read the old epoch before loading must
   * still see the bump when it registers (so longer than a lock wait plus a lock TTL, twice over).
   */
  readonly tagEpochTtlMs: number;
  private readonly startupWait: StartupWait;
  private readonly shutdownTimeoutMs: number;

  constructor(
    @Inject(RESOLVED_OPTIONS) options: ResolvedRedisPatternsOptions,
    @Inject(CACHE_SETTINGS) readonly settings: CacheSettings,
    @Inject(CACHE_STORE) store: CacheStore,
    keyBuilder: KeyBuilder,
  ) {
    this.keys = new CacheKeys(keyBuilder);
    const logger = options.logger ?? new Logger(CACHE_LOG_CONTEXT);
    this.engine = new CacheEngine(store, new CacheHealth(this.settings, logger, store), this.settings);
    const { defaultTtlMs, jitter, nearCache, graceMs, softTimeoutMs, hardTimeoutMs } = this.settings;
    this.defaults = { ttlMs: defaultTtlMs, jitter, near: nearCache.enabled, graceMs, softTimeoutMs, hardTimeoutMs };
    this.near = new NearCache(this.settings.nearCache, store);
    this.startupWait = options.startupWait;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs;
    this.tagEpochTtlMs = Math.max(60_000, 2 * (this.settings.lockTtlMs + this.settings.lockWaitMs));
  }

  /** Starts the near cache's invalidation listener when `cache.nearCache.enabled` (L1 stays bypassed until it is up). */
  async onModuleInit(): Promise<void> {
    if (this.defaults.near) await this.startNear();
  }

  /**
   * A decorator's policy with its `nearCache` choice applied (default `cache.nearCache.enabled`); called at
   * bootstrap, so a bad value fails startup naming the option, and a method that opts in starts the listener.
   */
  nearPolicy(policy: EntryPolicy, choice: unknown, path: string): EntryPolicy {
    if (choice !== undefined && typeof choice !== 'boolean') throw new InvalidOptionsError(path, 'true or false', describeValue(choice));
    const near = choice ?? this.defaults.near;
    if (near) void this.startNear();
    return near === policy.near ? policy : { ...policy, near };
  }

  /** Routes reads through the L1 and starts its invalidation listener (idempotent). */
  startNear(): Promise<void> {
    this.engine.near = this.near;
    this.engine.store.onChange = (entry) => this.near.invalidateLocal(entry);
    return this.near.start(this.startupWait.ms());
  }

  /** Lets running loads and background refreshes finish (bounded by `shutdownTimeoutMs`) before connections close. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.engine.drain(this.shutdownTimeoutMs);
    await this.near.stop();
    this.engine.health.close();
  }
}
