import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { KeyBuilder } from '../core/keys/key-builder';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { checkName, checkTtlMs } from './structure-args';
import { UNIQUE_COUNTER_SETTINGS, type UniqueCounterSettings } from './unique-counter.options';
import { UNIQUE_COUNTER_STORE, type UniqueCounterStore } from './unique-counter.store';

const MAX_ITEMS_PER_CALL = 10_000;

/**
 * Approximate distinct counts with HyperLogLog: about 12 KB per counter at most, standard error 0.81 %.
 * Every counter carries a TTL, renewed by each `add` and `merge`.
 *
 * Multi-key `count` and `merge` read each source (one GET each, in parallel) and fold them into one key inside
 * a script, so they work unchanged on a cluster where the counters live in different slots. The sources are read
 * one by one: concurrent adds may or may not be included, which an approximate count tolerates.
 *
 * In memory mode (`connection: 'memory://'`) each counter is an exact set instead: counts are exact, and memory grows
 * with the number of distinct items.
 *
 * An outage rejects with `RedisUnavailableError` (503 with `Retry-After` over HTTP).
 *
 * @example
 * await counter.add('visitors:2026-01-05', userId);
 * const weekly = await counter.count('visitors:2026-01-05', 'visitors:2026-01-06');
 */
@Injectable()
export class UniqueCounter {
  private readonly defaultTtlMs: number;

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    private readonly keys: KeyBuilder,
    @Inject(UNIQUE_COUNTER_SETTINGS) settings: UniqueCounterSettings,
    @Inject(UNIQUE_COUNTER_STORE) private readonly store: UniqueCounterStore,
  ) {
    this.defaultTtlMs = settings.defaultTtlMs;
  }

  /** Adds items (default TTL); returns whether the estimate changed. */
  async add(key: string, ...items: string[]): Promise<boolean> {
    return this.addMany(key, items);
  }

  /** Adds items with an explicit TTL in seconds; returns whether the estimate changed. */
  async addMany(key: string, items: readonly string[], options: { ttlMs?: number } = {}): Promise<boolean> {
    const counter = this.counterKey(key, 'key');
    if (items.length === 0 || items.length > MAX_ITEMS_PER_CALL || items.some((item) => typeof item !== 'string')) {
      throw new InvalidArgumentError('items', `expected 1 to ${MAX_ITEMS_PER_CALL} strings`);
    }
    const ttl = checkTtlMs(options.ttlMs, 'options.ttlMs', this.defaultTtlMs);
    return this.store.add(counter, ttl, items);
  }

  /** The estimated number of distinct items in the union of the counters. */
  async count(...keys: string[]): Promise<number> {
    if (keys.length === 0) throw new InvalidArgumentError('keys', 'expected at least one counter name');
    const counters = keys.map((key, i) => this.counterKey(key, `keys[${i}]`));
    if (counters.length === 1) return this.store.count(counters[0]);
    const values = await this.read(counters);
    const accumulator = this.keys.member(counters[0], `tmp:${randomBytes(8).toString('hex')}`);
    return this.store.countUnion(accumulator, `${accumulator}:s`, values);
  }

  /** Merges the sources into `dest` (keeping what `dest` already counts); returns the new estimate of `dest`. */
  async merge(dest: string, ...sources: string[]): Promise<number> {
    return this.mergeWith(dest, sources);
  }

  /** `merge` with an explicit TTL in seconds for `dest`. */
  async mergeWith(dest: string, sources: readonly string[], options: { ttlMs?: number } = {}): Promise<number> {
    const target = this.counterKey(dest, 'dest');
    if (sources.length === 0) throw new InvalidArgumentError('sources', 'expected at least one counter name');
    const counters = sources.map((key, i) => this.counterKey(key, `sources[${i}]`));
    const ttl = checkTtlMs(options.ttlMs, 'options.ttlMs', this.defaultTtlMs);
    const values = await this.read(counters);
    const scratch = this.keys.member(target, `tmp:${randomBytes(8).toString('hex')}`);
    return this.store.mergeInto(target, scratch, ttl, values);
  }

  /** The contents of the existing counters, opaque here: only the store that read them folds them. */
  private async read(counters: string[]): Promise<unknown[]> {
    const values = await this.store.readRaw(counters);
    return values.filter((value) => value !== null);
  }

  /** `rp:hll:{name}`: the hash tag lets scratch keys share the counter's slot. */
  private counterKey(name: string, argument: string): string {
    return this.keys.slotGroup('hll', checkName(name, argument));
  }
}
