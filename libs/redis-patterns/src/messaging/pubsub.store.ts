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
  /** The subscriber connection is back and subscribed again; messages published while it was away are lost. */
  resubscribed(): void;
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

  private async toSubscriber(command: string, name: string): Promise<void> {
    // An unsubscribe needs no connection: with none open, nothing is subscribed.
    const subscriber = command.endsWith('unsubscribe') ? this.subscriber : this.subscriberConnection();
    if (subscriber) await RedisExecutor.of(subscriber).call(command, name);
  }

  private subscriberConnection(): RedisClient {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.connections.createDedicated('pubsub', this.connection);
    subscriber.on('message', (channel: string, message: string) => this.listener?.message(channel, channel, message, false));
    subscriber.on('pmessage', (pattern: string, channel: string, message: string) =>
      this.listener?.message(pattern, channel, message, true),
    );
    let readyBefore = false;
    subscriber.on('ready', () => {
      // ioredis re-subscribes every channel and pattern on reconnect; what was published in between is gone.
      if (readyBefore) this.listener?.resubscribed();
      readyBefore = true;
    });
    this.subscriber = subscriber;
    return subscriber;
  }
}
