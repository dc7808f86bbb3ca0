import type { LoggerService } from '@nestjs/common';
import { isIP } from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';

/**
 * The longest a connection stays paused waiting for +switch-master before it reconnects anyway; also how long an
 * announced master is insisted on (see `target`).
 */
const MAX_PAUSE_MS = 5_000;

const ignore = (): undefined => undefined;

/**
 * Follows a Sentinel failover as soon as the sentinels announce it. Without this, a client stays on the old master
 * until that server starts answering READONLY — Sentinel demotes it about ten seconds later — and every write
 * acknowledged meanwhile is lost when it becomes a replica. ioredis' own `failoverDetector` does the same but leaks
 * its sentinel sockets at quit (ioredis#1362), so these are subscribers the module owns and closes.
 *
 * It also closes the window between the promotion and the announcement: once a sentinel sends `REPLICAOF NO ONE`
 * to the chosen replica (`+failover-state-send-slaveof-noone`), every write the old master still acknowledges is
 * lost when it is demoted. So the connection is paused there — commands fail at once, callers know — and resumes
 * on `+switch-master` (on the new master), on `-failover-abort-*`, or after {@link MAX_PAUSE_MS}, whichever is
 * first. A write that fails can be retried; an acknowledged write that vanishes cannot.
 *
 * Every sentinel is watched: the failover's steps are published only by the sentinel leading it, which need not be
 * the first configured. After the switch, a connection that still lands on another server (a sentinel asked before
 * it heard of the switch names the old master, which may be alive and still a master) is closed and opened again,
 * and one that fails to connect there (the old master is dead) is retried at once, not after the reconnect backoff.
 *
 * ioredis' connection state machine constrains how: `disconnect()` is safe only on a connection with a live socket
 * (`connect`, `ready`). Called while it waits to reconnect, it marks the connection as closed by hand with no socket
 * close to clear the mark, and ioredis never reconnects it by itself again; called while a connection is being set
 * up, it ends it for good. So a live connection is closed at once, and one being set up is closed once its socket is
 * up; the watcher then opens it again itself.
 */
export class SentinelSwitchWatcher {
  private readonly subscribers: Redis[] = [];
  private resumeTimer?: NodeJS.Timeout;
  private paused = false;
  /** The watcher closed the connection and owes it a new one (when not paused). */
  private owed = false;
  /** The master the sentinels announced last, as this client reaches it, until `targetUntil`. */
  private target?: { host: string; port: number };
  private targetUntil = 0;
  private lastAnnounced = '';
  /**
   * Failed connection attempts still to be retried without the reconnect backoff. After +switch-master, one per
   * sentinel: ioredis asks the sentinels in turn, and one that has not heard of the switch yet (the others learn it
   * up to a second after the leader) names the old master, dead or demoted; the next attempt asks the next one.
   */
  private retriesAtOnce = 0;
  private stopped = false;
  private sentinelCount = 1;
  private readonly onLive = (): void => this.connectionLive();
  private readonly onReconnecting = (): void => this.connectionFailed();
  private readonly onEnd = (): void => this.connectionEnded();

  constructor(
    private readonly client: Redis,
    private readonly name: string,
    private readonly logger: LoggerService,
  ) {}

  start(): void {
    const { sentinels, name: masterName, sentinelPassword, sentinelUsername, sentinelTLS } = this.client.options as RedisOptions;
    if (!sentinels?.length || !masterName) return;
    this.sentinelCount = sentinels.length;
    this.client.on('connect', this.onLive);
    this.client.on('ready', this.onLive);
    this.client.on('reconnecting', this.onReconnecting);
    this.client.on('end', this.onEnd);
    for (const sentinel of sentinels) {
      const subscriber = new Redis({
        host: sentinel.host ?? '127.0.0.1',
        port: sentinel.port ?? 26379,
        password: sentinelPassword,
        username: sentinelUsername,
        tls: sentinelTLS,
        lazyConnect: true,
        maxRetriesPerRequest: null,
        connectionName: 'redis-patterns:sentinel-watch',
      });
      subscriber.on('error', ignore);
      subscriber.on('message', (channel: string, message: string) => this.event(masterName, channel, message));
      subscriber
        .connect()
        .then(
          () =>
            subscriber.subscribe(
              '+switch-master',
              '+failover-state-send-slaveof-noone',
              '-failover-abort-not-elected',
              '-failover-abort-no-good-slave',
              '-failover-abort-slave-timeout',
            ),
          ignore,
        );
      this.subscribers.push(subscriber);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.resumeTimer);
    this.client.off('connect', this.onLive);
    this.client.off('ready', this.onLive);
    this.client.off('reconnecting', this.onReconnecting);
    this.client.off('end', this.onEnd);
    for (const subscriber of this.subscribers) subscriber.disconnect();
  }

  private event(masterName: string, channel: string, message: string): void {
    const words = message.split(' ');
    if (channel === '+switch-master') {
      // "<master name> <old ip> <old port> <new ip> <new port>"; every sentinel announces it, the leader first.
      if (words[0] !== masterName) return;
      const announced = `${words[3]}:${words[4]}`;
      // The other sentinels repeating the announcement add nothing.
      if (announced === this.lastAnnounced && performance.now() < this.targetUntil) return;
      this.lastAnnounced = announced;
      this.logger.warn(`Redis connection "${this.name}": sentinel switched master to ${announced}; reconnecting`);
      this.target = this.reachedAs(words[3], Number(words[4]));
      this.targetUntil = performance.now() + MAX_PAUSE_MS;
      this.retriesAtOnce = this.sentinelCount;
      this.resume(true);
    } else if (channel === '+failover-state-send-slaveof-noone') {
      // "slave <ip:port> <ip> <port> @ <master name> <master ip> <master port>"
      if (words[5] !== masterName) return;
      this.logger.warn(`Redis connection "${this.name}": sentinel is promoting ${words[1]}; pausing writes until the switch`);
      this.pause();
    } else if (channel.startsWith('-failover-abort')) {
      // "master <master name> <ip> <port>"
      if (words[1] === masterName && this.paused) this.resume(false);
    }
  }

  private pause(): void {
    if (this.paused || this.stopped) return;
    this.paused = true;
    // No reconnect while paused: the sentinels still name the old master. A connection being set up meanwhile is
    // closed when it is ready.
    this.closeLive();
    this.resumeTimer = setTimeout(() => this.resume(false), MAX_PAUSE_MS);
    this.resumeTimer.unref();
  }

  /** Ends a pause (if any); `switched`: on +switch-master, which also moves a connection that is up elsewhere. */
  private resume(switched: boolean): void {
    clearTimeout(this.resumeTimer);
    this.resumeTimer = undefined;
    this.paused = false;
    if (this.stopped) return;
    const status = this.client.status;
    if (status === 'ready' || status === 'connect') {
      // Up on another server, or on one that cannot be told apart from the announced master: opened again.
      if (switched && this.reachesTarget() !== true) this.closeLive();
    } else if (status === 'reconnecting' || (status === 'end' && this.owed)) {
      // Now, not after the reconnect backoff (up to a second after a dead master) or never (closed by the pause).
      this.connectNow();
    } else if (status === 'connecting') {
      // The sentinels are being asked, or a socket is opening: checked once it is up, retried at once if it fails.
      this.retriesAtOnce = Math.max(this.retriesAtOnce, 1);
    }
  }

  /** A socket is up (`connect`) or the connection is usable (`ready`). */
  private connectionLive(): void {
    if (this.stopped) return;
    this.retriesAtOnce = 0;
    if (this.paused || this.reachesTarget() === false) this.closeLive();
  }

  private connectionFailed(): void {
    if (this.stopped || this.paused || this.retriesAtOnce === 0) return;
    this.retriesAtOnce -= 1;
    this.connectNow();
  }

  private connectionEnded(): void {
    if (this.stopped || this.paused || !this.owed) return;
    this.connectNow();
  }

  /** Closes a connection that has a live socket, owing it a new one (at once unless paused: `connectionEnded`). */
  private closeLive(): void {
    const status = this.client.status;
    if (status !== 'ready' && status !== 'connect') return;
    this.owed = true;
    this.client.disconnect(false);
    // disconnect() ends the socket gracefully, which a frozen old master never completes; destroying it closes now.
    (this.client as unknown as { stream?: { destroy(): void } }).stream?.destroy();
  }

  private connectNow(): void {
    this.owed = false;
    // ioredis has no public "reconnect now": connect() opens a connection but leaves a pending reconnect timer
    // armed, and that timer would open the connection again even after the application closed it.
    const internals = this.client as unknown as { reconnectTimeout?: NodeJS.Timeout | null };
    if (internals.reconnectTimeout) {
      clearTimeout(internals.reconnectTimeout);
      internals.reconnectTimeout = null;
    }
    this.client.connect().catch(ignore);
  }

  /**
   * Whether the connection's socket reaches the master announced last: undefined when that cannot be told (no
   * recent announcement, a host name, no socket).
   */
  private reachesTarget(): boolean | undefined {
    const target = this.target;
    if (!target || performance.now() > this.targetUntil) return undefined;
    const stream = (this.client as unknown as { stream?: { remoteAddress?: string; remotePort?: number } }).stream;
    const address = stream?.remoteAddress?.replace(/^::ffff:/, '');
    if (!address || stream?.remotePort === undefined) return undefined;
    return address === target.host && stream.remotePort === target.port;
  }

  /**
   * The announced master as this client connects to it (through `natMap`, as ioredis does), when it can be compared
   * with a socket's peer: an IP address, not a host name.
   */
  private reachedAs(host: string, port: number): { host: string; port: number } | undefined {
    const natMap = (this.client.options as RedisOptions & { natMap?: unknown }).natMap;
    const key = `${host}:${port}`;
    let reached: { host?: string; port?: number } = { host, port };
    if (typeof natMap === 'function') reached = (natMap as (k: string) => typeof reached | undefined)(key) ?? reached;
    else if (natMap && typeof natMap === 'object') reached = (natMap as Record<string, typeof reached>)[key] ?? reached;
    if (!reached.host || !reached.port || isIP(reached.host) === 0) return undefined;
    return { host: reached.host, port: reached.port };
  }
}
