import { Cluster, type Redis } from 'ioredis';
import type { RedisClient, RedisConnections } from '../core/connections/redis-connections';
import { RedisExecutor } from '../core/scripts/redis-executor';

/** Receives what the subscriber connection delivers. */
export interface PubSubListener {
  /**
   * A message on a subscribed channel (`subscription` is that channel, `fromPattern` false) or on a channel matching
   * a subscribed pattern (`subscription` is the pattern, `fromPattern` true); `channel` is the raw channel it was
   * published on. A channel and a pattern of the same text are two subscriptions: a message matching both is told
   * twice, once for each.
   */
  message(subscription: string, channel: string, message: string, fromPattern: boolean): void;
  /**
   * The subscriber connection is back and subscribed again (`error` unset), or back but refused a subscription
   * (`error`; they are retried at the next reconnect). Messages published while it was away are lost.
   */
  resubscribed(error?: unknown): void;
}

/**
 * Where messages are published and subscriptions live. Channels and patterns are raw names (see ChannelNames).
 * Every subscription of the store shares one subscriber connection, opened on the first subscribe.
 */
export interface PubSubStore {
  /** Publishes a message; resolves to the number of subscribers that received it. */
  publish(channel: string, message: string): Promise<number>;
  /** Resolves once the subscription is confirmed: a message published afterwards is delivered. */
  subscribe(channel: string): Promise<void>;
  /** {@link subscribe} for a glob pattern. */
  psubscribe(pattern: string): Promise<void>;
  /** Ends a channel subscription (nothing to do when nothing was ever subscribed). */
  unsubscribe(channel: string): Promise<void>;
  /** {@link unsubscribe} for a glob pattern. */
  punsubscribe(pattern: string): Promise<void>;
  /** Sets the one listener every delivered message goes to (a later call replaces it). */
  listen(listener: PubSubListener): void;
  /** Closes the subscriber connection: nothing is delivered afterwards. A later subscribe opens a new one. */
  close(): Promise<void>;
}

/** Injection token of the pattern's {@link PubSubStore}. */
export const PUBSUB_STORE = Symbol('RedisPatterns:PubSubStore');

/** Pub/sub on Redis: PUBLISH on the pattern's connection, subscriptions on one dedicated connection. */
export class RedisPubSubStore implements PubSubStore {
  private subscriber?: RedisClient;
  private listener?: PubSubListener;
  /** On a cluster, the node every PUBLISH of this instance goes through (see publisher()). */
  private publishNode?: Redis;
  /** What the subscriber connection must be subscribed to, restored on each reconnect (see subscriberConnection). */
  private readonly wanted = { subscribe: new Set<string>(), psubscribe: new Set<string>() };

  constructor(
    private readonly connections: RedisConnections,
    private readonly connection?: string,
  ) {}

  publish(channel: string, message: string): Promise<number> {
    return this.publisher().call('publish', channel, message);
  }

  subscribe(channel: string): Promise<void> {
    return this.toSubscriber('subscribe', channel);
  }

  psubscribe(pattern: string): Promise<void> {
    return this.toSubscriber('psubscribe', pattern);
  }

  unsubscribe(channel: string): Promise<void> {
    return this.toSubscriber('unsubscribe', channel);
  }

  punsubscribe(pattern: string): Promise<void> {
    return this.toSubscriber('punsubscribe', pattern);
  }

  listen(listener: PubSubListener): void {
    this.listener = listener;
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.wanted.subscribe.clear();
    this.wanted.psubscribe.clear();
    if (subscriber) await this.connections.closeDedicated(subscriber);
  }

  /**
   * The connection PUBLISH goes through. On a cluster PUBLISH has no key, so ioredis would send each one to a random
   * node, and the cluster bus forwards messages from different nodes over different links: two messages published
   * one after the other could arrive in either order. Every publish of this instance goes through one node while
   * that node's connection is ready, so its messages keep their order.
   */
  private publisher(): RedisExecutor {
    const client = this.connections.get(this.connection);
    if (!(client instanceof Cluster)) return RedisExecutor.of(client);
    if (this.publishNode?.status !== 'ready') this.publishNode = client.nodes('master').find((node) => node.status === 'ready');
    return RedisExecutor.of(this.publishNode ?? client);
  }

  private async toSubscriber(command: 'subscribe' | 'psubscribe' | 'unsubscribe' | 'punsubscribe', name: string): Promise<void> {
    // Recorded before it is sent, so a reconnect meanwhile restores what the caller asked for last.
    const adding = command === 'subscribe' || command === 'psubscribe';
    const wanted = command.endsWith('psubscribe') ? this.wanted.psubscribe : this.wanted.subscribe;
    if (adding) wanted.add(name);
    else wanted.delete(name);
    // An unsubscribe needs no connection: with none open, nothing is subscribed.
    const subscriber = adding ? this.subscriberConnection() : this.subscriber;
    try {
      if (subscriber) await RedisExecutor.of(subscriber).call(command, name);
    } catch (error) {
      if (adding) wanted.delete(name);
      throw error;
    }
  }

  /**
   * ioredis re-subscribes a single-server connection on its own, but sends those commands without handling their
   * replies: one refused, or cut by a close, is an unhandled rejection that ends a Node process. The store restores
   * them itself, handled and reported. (A cluster's subscriber restores its own through the cluster client.)
   */
  private async restore(subscriber: RedisClient): Promise<void> {
    // One command per name: a refused one (an ACL that no longer allows it) leaves the others restored.
    const sent = [
      ...[...this.wanted.subscribe].map((channel) => subscriber.subscribe(channel)),
      ...[...this.wanted.psubscribe].map((pattern) => subscriber.psubscribe(pattern)),
    ];
    const refused = (await Promise.allSettled(sent)).find((result) => result.status === 'rejected');
    this.listener?.resubscribed(refused?.reason);
  }

  private subscriberConnection(): RedisClient {
    if (this.subscriber) return this.subscriber;
    const clustered = this.connections.get(this.connection) instanceof Cluster;
    const subscriber = this.connections.createDedicated('pubsub', this.connection, clustered ? {} : { autoResubscribe: false });
    subscriber.on('message', (channel: string, message: string) => this.listener?.message(channel, channel, message, false));
    subscriber.on('pmessage', (pattern: string, channel: string, message: string) =>
      this.listener?.message(pattern, channel, message, true),
    );
    let readyBefore = false;
    subscriber.on('ready', () => {
      // What was published while the connection was away is gone either way.
      if (readyBefore && clustered) this.listener?.resubscribed();
      else if (readyBefore) void this.restore(subscriber);
      readyBefore = true;
    });
    this.subscriber = subscriber;
    return subscriber;
  }
}
