import type { LoggerService } from '@nestjs/common';
import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from '../../core/connections/redis-connections';
import { DEDICATED_CONNECTION_OVERRIDES, reconnectDelayMs } from '../../core/connections/fail-fast-defaults';
import { configurationReplyCode } from '../../errors/redis-refused.error';

/** The channel Redis publishes client-side-caching invalidations on for RESP2 connections (REDIRECT mode). */
export const INVALIDATE_CHANNEL = '__redis__:invalidate';

/**
 * How long a subscriber whose `CLIENT TRACKING` was refused (an ACL without `client|tracking`, a managed service that
 * blocks it) waits before it asks again: the refusal will not change by reconnecting at once, and an ACL fixed later
 * is picked up without a restart.
 */
export const REFUSED_RETRY_MS = 60_000;

/** What the listener tells the near cache. */
export interface InvalidationSink {
  /** Keys changed, deleted, expired or evicted in Redis. */
  invalidate(keys: readonly string[]): void;
  /** Anything may have changed unseen (connection lost, reconnected, topology changed, FLUSHALL): drop everything. */
  clear(): void;
  /** Whether every node's invalidations are arriving; L1 is read and filled only while true. */
  setLive(live: boolean): void;
}

/**
 * Server-assisted client-side caching (Redis 6+ `CLIENT TRACKING`) in broadcasting mode: one dedicated connection
 * per master runs `CLIENT TRACKING ON REDIRECT <its own id> BCAST PREFIX <keyPrefix>:cache:` and subscribes to
 * `__redis__:invalidate`, so Redis sends it the name of every key under the prefix that any client writes, deletes,
 * or that expires or is evicted on that master. BCAST needs no per-key tracking table on the server and no tracking
 * on the request-path connections.
 *
 * The connections speak RESP2: ioredis (RESP3 by default) drops RESP3 `invalidate` push frames, while on RESP2 a
 * redirected invalidation is an ordinary pub/sub message. Tracking lives and dies with a connection, so each
 * (re)connect re-enables it before subscribing, and the near cache is cleared and paused from the moment any
 * connection drops until it is subscribed again: an invalidation missed in between can never be served around.
 * On a cluster it follows the masters: a topology change re-reads them and clears L1.
 */
export class InvalidationListener {
  private readonly subscribers = new Map<string, Redis>();
  private readonly up = new Set<Redis>();
  /** Subscribers whose tracking Redis refused, each with the timer of its next attempt. */
  private readonly refused = new Map<Redis, NodeJS.Timeout>();
  private stopped = false;
  private readonly onTopology = () => this.syncMasters();

  constructor(
    private readonly data: RedisClient,
    private readonly prefix: string,
    private readonly connectionName: string,
    private readonly sink: InvalidationSink,
    private readonly logger: LoggerService,
  ) {}

  /**
   * Opens the subscriber(s); resolves once every one is tracking or was refused tracking, or after `timeoutMs` (L1
   * stays paused until every one is tracking).
   */
  async start(timeoutMs: number): Promise<void> {
    if (this.data instanceof Cluster) {
      this.data.on('+node', this.onTopology);
      this.data.on('-node', this.onTopology);
      this.data.on('refresh', this.onTopology);
    }
    this.syncMasters();
    const deadline = Date.now() + timeoutMs;
    // A refused subscriber will not come up by waiting: startup goes on without L1.
    const answered = (): boolean => [...this.subscribers.values()].every((client) => this.up.has(client) || this.refused.has(client));
    while (!this.stopped && !answered() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** The dedicated connections (for diagnostics and tests). */
  connections(): Redis[] {
    return [...this.subscribers.values()];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sink.setLive(false);
    if (this.data instanceof Cluster) {
      this.data.off('+node', this.onTopology);
      this.data.off('-node', this.onTopology);
      this.data.off('refresh', this.onTopology);
    }
    const all = [...this.subscribers.values()];
    this.subscribers.clear();
    this.up.clear();
    for (const timer of this.refused.values()) clearTimeout(timer);
    this.refused.clear();
    await Promise.all(all.map((client) => client.quit().catch(() => client.disconnect())));
  }

  private allUp(): boolean {
    return this.subscribers.size > 0 && this.up.size === this.subscribers.size;
  }

  /** One subscriber per current master (the server itself when not a cluster); a change clears L1. */
  private syncMasters(): void {
    if (this.stopped) return;
    const nodes: Redis[] = this.data instanceof Cluster ? this.data.nodes('master') : [this.data];
    const wanted = new Map(nodes.map((node) => [endpointOf(node), node]));
    let changed = false;
    for (const [endpoint, client] of this.subscribers) {
      if (wanted.has(endpoint)) continue;
      changed = true;
      this.subscribers.delete(endpoint);
      this.up.delete(client);
      clearTimeout(this.refused.get(client));
      this.refused.delete(client);
      client.disconnect();
    }
    for (const [endpoint, node] of wanted) {
      if (this.subscribers.has(endpoint)) continue;
      changed = true;
      this.subscribers.set(endpoint, this.open(node));
    }
    if (changed) this.changed();
  }

  private open(node: Redis): Redis {
    const client = node.duplicate({
      ...DEDICATED_CONNECTION_OVERRIDES,
      connectionName: this.connectionName,
      protocol: 2,
      // Tracking must be re-enabled before subscribing on every connect: ioredis must not resubscribe on its own.
      autoResubscribe: false,
      enableReadyCheck: true,
      keyPrefix: undefined,
      // A cluster's node connections leave reconnecting to the cluster (retryStrategy null): this one must retry.
      retryStrategy: reconnectDelayMs,
    });
    client.on('ready', () => void this.track(client));
    client.on('close', () => {
      if (this.up.delete(client) || !this.stopped) this.changed();
    });
    client.on('error', () => undefined); // reported by the close/reconnect cycle; never crash the app
    client.on('messageBuffer', (channel: Buffer, message: unknown) => {
      if (channel.toString() !== INVALIDATE_CHANNEL) return;
      if (message === null || !Array.isArray(message))
        this.sink.clear(); // FLUSHALL / FLUSHDB
      else this.sink.invalidate(message.map(String));
    });
    return client;
  }

  private async track(client: Redis): Promise<void> {
    try {
      const id = await client.client('ID');
      await client.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', String(id), 'BCAST', 'PREFIX', this.prefix);
      await client.subscribe(INVALIDATE_CHANNEL);
      if (this.stopped || ![...this.subscribers.values()].includes(client)) return;
      this.refused.delete(client);
      this.up.add(client);
      this.changed();
    } catch (error) {
      const message = (error as Error).message;
      if (configurationReplyCode(error) === undefined) {
        this.logger.warn(`Near cache: could not enable invalidation tracking (${message}); L1 stays off until it reconnects.`);
        client.disconnect(true);
        return;
      }
      this.refusedTracking(client, message);
    }
  }

  // A configuration reply: asking again at once would be refused again, in a reconnect loop that logs every time.
  // Said once at error level (it names what to grant), then asked again every REFUSED_RETRY_MS, quietly.
  private refusedTracking(client: Redis, message: string): void {
    if (!this.refused.has(client)) {
      this.logger.error(
        `Near cache: Redis refused invalidation tracking (${message.split('\n')[0]}): the near cache stays off and reads go to Redis. ` +
          'Grant the connection user +client|id, +client|tracking and the channel __redis__:invalidate (see docs/security.md), ' +
          'or disable cache.nearCache; it is asked again every minute.',
      );
    }
    client.disconnect(false);
    if (this.stopped) return;
    const retry = setTimeout(() => {
      if (this.stopped || !this.refused.has(client)) return;
      client.connect().catch(() => undefined);
    }, REFUSED_RETRY_MS);
    retry.unref();
    this.refused.set(client, retry);
  }

  /** Any change of who is listening: clear first, then go live only when every master is covered. */
  private changed(): void {
    this.sink.clear();
    this.sink.setLive(!this.stopped && this.allUp());
  }
}

function endpointOf(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}
