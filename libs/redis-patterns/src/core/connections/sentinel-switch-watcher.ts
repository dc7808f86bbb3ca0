import type { LoggerService } from '@nestjs/common';
import { Redis, type RedisOptions } from 'ioredis';

/**
 * Follows a Sentinel failover as soon as the sentinels announce it. Without this, a client stays on the old master
 * until that server starts answering READONLY — Sentinel demotes it about ten seconds later — and every write
 * acknowledged meanwhile is lost when it becomes a replica. ioredis' own `failoverDetector` does the same but leaks
 * its sentinel sockets at quit (ioredis#1362), so this is a single subscriber the module owns and closes.
 */
export class SentinelSwitchWatcher {
  private subscriber?: Redis;

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
    subscriber.on('message', (_channel: string, message: string) => {
      // "<master name> <old ip> <old port> <new ip> <new port>"
      if (message.split(' ')[0] !== masterName) return;
      this.logger.warn(`Redis connection "${this.name}": sentinel switched master to ${message.split(' ').slice(3).join(':')}; reconnecting`);
      this.client.disconnect(true);
    });
    subscriber.connect().then(
      () => subscriber.subscribe('+switch-master'),
      () => undefined,
    );
    this.subscriber = subscriber;
  }

  stop(): void {
    this.subscriber?.disconnect();
  }
}
