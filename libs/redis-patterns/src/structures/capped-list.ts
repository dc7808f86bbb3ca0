import { Inject, Injectable } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { CAPPED_LIST_SETTINGS, type CappedListSettings } from './capped-list.options';
import { CAPPED_LIST_STORE, type CappedListStore } from './capped-list.store';
import { checkCount, checkIndex, checkName, checkTtlMs } from './structure-args';
import { parseJsonSafely } from '../core/serialization/parse-json-safely';

/** Options of {@link CappedList.push}. */
export interface CappedPushOptions {
  /** How many newest items to keep; default `cappedList.defaultMaxLength` (100). */
  maxLength?: number;
  /** TTL in ms, renewed by this push; default `cappedList.defaultTtlMs` (one day). */
  ttlMs?: number;
}

/**
 * Capped lists, newest first: activity feeds, "recently viewed", the last N events. Items are stored as JSON. An
 * outage rejects with `RedisUnavailableError` (503 with `Retry-After` over HTTP).
 *
 * @example
 * await feed.push('user:42', { type: 'login', at: Date.now() }, { maxLength: 50, ttlMs: 7 * 86_400_000 });
 * const latest = await feed.range('user:42', 0, 9);
 */
@Injectable()
export class CappedList {
  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    private readonly keys: KeyBuilder,
    @Inject(CAPPED_LIST_SETTINGS) private readonly defaults: CappedListSettings,
    @Inject(CAPPED_LIST_STORE) private readonly store: CappedListStore,
  ) {}

  /** Pushes one item to the head; keeps the newest `maxLength`; returns the length after trimming. */
  async push<T>(key: string, item: T, options: CappedPushOptions = {}): Promise<number> {
    return this.pushMany(key, [item], options);
  }

  /** Pushes several items in order (the last given is the newest), in the same single atomic step. */
  async pushMany<T>(key: string, items: readonly T[], options: CappedPushOptions = {}): Promise<number> {
    const list = this.listKey(key);
    if (!Array.isArray(items) || items.length === 0 || items.length > 10_000) {
      throw new InvalidArgumentError('items', 'expected 1 to 10000 items');
    }
    const maxLength =
      options.maxLength === undefined ? this.defaults.defaultMaxLength : checkCount(options.maxLength, 'options.maxLength', 1, 1_000_000);
    const ttl = checkTtlMs(options.ttlMs, 'options.ttlMs', this.defaults.defaultTtlMs);
    const encoded = items.map((item, i) => {
      const json = JSON.stringify(item);
      if (json === undefined) throw new InvalidArgumentError(`items[${i}]`, 'expected a JSON-serialisable value');
      return json;
    });
    return this.store.push(list, maxLength, ttl, encoded);
  }

  /** Items from index `start` to `stop` inclusive, newest first (negative indexes count from the oldest end). */
  async range<T = unknown>(key: string, start = 0, stop = -1): Promise<T[]> {
    const items = await this.store.range(this.listKey(key), checkIndex(start, 'start'), checkIndex(stop, 'stop'));
    return items.map((item) => parseJsonSafely(item) as T);
  }

  /** The number of items in the list. */
  async length(key: string): Promise<number> {
    return this.store.length(this.listKey(key));
  }

  private listKey(name: string): string {
    return this.keys.key('list', checkName(name, 'key'));
  }
}
