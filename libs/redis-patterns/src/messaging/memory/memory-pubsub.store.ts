import type { MemoryKeyspace } from '../../core/memory/memory-keyspace';
import type { PubSubListener, PubSubStore } from '../pubsub.store';
import { RedisGlob } from './redis-glob';

/**
 * The subscribers of each module instance in memory mode, found by the instance's keyspace: what a Redis server is
 * to its subscriber connections. Every connection name of a module in memory mode shares one keyspace, so a message
 * published under one connection reaches subscriptions made under another, as on one Redis server.
 */
const BUSES = new WeakMap<MemoryKeyspace, Set<MemoryPubSubStore>>();

/** A subscription that receives a message: the channel or pattern, and which of the two, as the listener is told. */
type Receiver = readonly [store: MemoryPubSubStore, subscription: string, fromPattern: boolean, generation: number];

/**
 * Pub/sub in memory mode (`connection: 'memory://'`), for unit tests: an in-process bus per module instance. Same
 * raw channel names as `RedisPubSubStore`, same glob rules as PSUBSCRIBE (matched on UTF-8 bytes, see
 * {@link RedisGlob}), and PUBLISH's reply: the number of subscriptions that receive the message (a store subscribed
 * to the channel and to two matching patterns counts three, and is told three times). A subscription is active once
 * `subscribe` resolves; a message is delivered to the listener one microtask after `publish` is called, so before
 * the `publish` promise resolves, in publication order across channels. `close` drops what is not delivered yet.
 *
 * What differs from Redis: messages stay in this process (another application instance, or another
 * `RedisPatternsModule` in the same process, receives nothing); there is no connection to lose, so no message is
 * ever lost and `resubscribed` is never called; a message is handed over as the same string, never through a socket.
 */
export class MemoryPubSubStore implements PubSubStore {
  private readonly bus: Set<MemoryPubSubStore>;
  private readonly channels = new Set<string>();
  private readonly patterns = new Map<string, RedisGlob>();
  private listener?: PubSubListener;
  /** Bumped by `close`: deliveries queued before it are dropped, as the messages of a closed connection are. */
  private generation = 0;

  constructor(keyspace: MemoryKeyspace) {
    let bus = BUSES.get(keyspace);
    if (!bus) BUSES.set(keyspace, (bus = new Set()));
    this.bus = bus;
  }

  async publish(channel: string, message: string): Promise<number> {
    const bytes = Buffer.from(channel, 'utf8');
    const receivers: Receiver[] = [];
    for (const store of this.bus) store.collect(channel, bytes, receivers);
    if (receivers.length > 0) {
      queueMicrotask(() => {
        for (const [store, subscription, fromPattern, generation] of receivers) {
          store.deliver(generation, subscription, channel, message, fromPattern);
        }
      });
    }
    return receivers.length;
  }

  async subscribe(channel: string): Promise<void> {
    this.channels.add(channel);
    this.bus.add(this);
  }

  async psubscribe(pattern: string): Promise<void> {
    if (!this.patterns.has(pattern)) this.patterns.set(pattern, new RedisGlob(pattern));
    this.bus.add(this);
  }

  async unsubscribe(channel: string): Promise<void> {
    this.channels.delete(channel);
  }

  async punsubscribe(pattern: string): Promise<void> {
    this.patterns.delete(pattern);
  }

  listen(listener: PubSubListener): void {
    this.listener = listener;
  }

  async close(): Promise<void> {
    this.channels.clear();
    this.patterns.clear();
    this.generation++;
    this.bus.delete(this);
  }

  /**
   * Adds this store's subscriptions that receive a message on `channel`: the channel first, then the patterns (a
   * pattern with the channel's very text is a subscription of its own, as in Redis).
   */
  private collect(channel: string, bytes: Uint8Array, receivers: Receiver[]): void {
    if (this.channels.has(channel)) receivers.push([this, channel, false, this.generation]);
    for (const [pattern, glob] of this.patterns) if (glob.matches(bytes)) receivers.push([this, pattern, true, this.generation]);
  }

  private deliver(generation: number, subscription: string, channel: string, message: string, fromPattern: boolean): void {
    if (generation === this.generation) this.listener?.message(subscription, channel, message, fromPattern);
  }
}
