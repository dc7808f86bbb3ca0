import type { LoggerService } from '@nestjs/common';
import { Redis, type RedisOptions } from 'ioredis';

/** The longest a connection stays paused waiting for +switch-master before it reconnects anyway. */
const MAX_PAUSE_MS = 5_000;

/**
 * Follows a Sentinel failover as soon as the sentinels announce it. Without this, a client stays on the old master
 * until that server starts answering READONLY — Sentinel demotes it about ten seconds later — and every write
 * acknowledged meanwhile is lost when it becomes a replica. ioredis' own `failoverDetector` does the same but leaks
 * its sentinel sockets at quit (ioredis#1362), so this is a single subscriber the module owns and closes.
 *
 * It also closes the window between the promotion and the announcement: once a sentinel sends `REPLICAOF NO ONE`
 * to the chosen replica (`+failover-state-send-slaveof-noone`), every write the old master still acknowledges is
 * lost when it is demoted. So the connection is paused there — commands fail at once, callers know — and resumes
 * on `+switch-master` (on the new master), on `-failover-abort-*`, or after {@link MAX_PAUSE_MS}, whichever is
 * first. A write that fails can be retried; an acknowledged write that vanishes cannot.
 */
export class SentinelSwitchWatcher {
  private subscriber?: Redis;
  private resumeTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly client: Redis,
    private readonly name: string,
    private readonly logger: LoggerService,
  ) {}

  start(): void {
    const { sentinels, name: masterName, sentinelPassword, sentinelUsername, sentinelTLS } = this.client.options as RedisOptions;
    if (!sentinels?.length || !masterName) return;
    const [first] = sentinels;
    // One sentinel suffices: each publishes +switch-master; on its failure ioredis reconnects it to the same address.
    const subscriber = new Redis({
      host: first.host ?? '127.0.0.1',
      port: first.port ?? 26379,
      password: sentinelPassword,
      username: sentinelUsername,
      tls: sentinelTLS,
      lazyConnect: true,
      maxRetriesPerRequest: null,
      connectionName: 'redis-patterns:sentinel-watch',
    });
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, message: string) => {
      const words = message.split(' ');
      if (channel === '+switch-master') {
        // "<master name> <old ip> <old port> <new ip> <new port>"
        if (words[0] !== masterName) return;
        this.logger.warn(`Redis connection "${this.name}": sentinel switched master to ${words.slice(3).join(':')}; reconnecting`);
        this.resume(true);
      } else if (channel === '+failover-state-send-slaveof-noone') {
        // "slave <ip:port> <ip> <port> @ <master name> <master ip> <master port>"
        if (words[5] !== masterName) return;
        this.logger.warn(`Redis connection "${this.name}": sentinel is promoting ${words[1]}; pausing writes until the switch`);
        this.pause();
      } else if (channel.startsWith('-failover-abort')) {
        // "master <master name> <ip> <port>"
        if (words[1] !== masterName) return;
        this.resume(false);
      }
    });
    subscriber.connect().then(
      () =>
        subscriber.subscribe(
          '+switch-master',
          '+failover-state-send-slaveof-noone',
          '-failover-abort-not-elected',
          '-failover-abort-no-good-slave',
          '-failover-abort-slave-timeout',
        ),
      () => undefined,
    );
    this.subscriber = subscriber;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.resumeTimer);
    this.subscriber?.disconnect();
  }

  private pause(): void {
    if (this.resumeTimer || this.stopped) return;
    // No automatic reconnect while paused: ioredis would ask the sentinels, which still name the old master.
    this.client.disconnect(false);
    this.resumeTimer = setTimeout(() => this.resume(false), MAX_PAUSE_MS);
    this.resumeTimer.unref();
  }

  private resume(switched: boolean): void {
    const paused = this.resumeTimer !== undefined;
    clearTimeout(this.resumeTimer);
    this.resumeTimer = undefined;
    if (this.stopped) return;
    if (paused) {
      // connect() asks the sentinels for the master again: the new one after a switch.
      this.client.connect().catch(() => undefined);
    } else if (switched) {
      this.client.disconnect(true);
    }
  }
}
