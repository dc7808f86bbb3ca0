import { Inject, Injectable } from '@nestjs/common';
import { RedisConnections } from '../core/connections/redis-connections';
import { redactSecrets } from '../core/connections/redact';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RedisHealthCheckError } from './redis-health-check.error';
import type { ConnectionHealth, RedisHealthCheckOptions, RedisHealthResult } from './health.types';
import { HEALTH_STORE, type HealthStore } from './health.store';
import { withDeadline } from '../core/time/with-deadline';

/**
 * Health of the module's Redis connections: PING latency, role, and memory used against maxmemory, per connection
 * (per master on a cluster). Works on its own (`check`) and with `@nestjs/terminus`, which is not a dependency:
 * the result has terminus' `HealthIndicatorResult` shape and `isHealthy` throws a terminus-compatible error.
 *
 * @example
 * // with @nestjs/terminus
 * @Get('health') @HealthCheck()
 * health() { return this.health.check([() => this.redis.isHealthy('redis')]); }
 */
@Injectable()
export class RedisPatternsHealthIndicator {
  constructor(
    private readonly connections: RedisConnections,
    @Inject(HEALTH_STORE) private readonly store: HealthStore,
  ) {}

  /** Probes the connections; never throws for a down connection (the result says `down`). */
  async check(key = 'redis', options: RedisHealthCheckOptions = {}): Promise<RedisHealthResult> {
    const names = options.connections ?? this.connections.names();
    const timeoutMs = options.timeoutMs ?? 1000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new InvalidArgumentError('options.timeoutMs', 'expected a positive number of ms');
    const entries = await Promise.all(
      names.map(async (name) => [name, await this.checkConnection(name, timeoutMs, options.maxMemoryRatio)] as const),
    );
    const connections = Object.fromEntries(entries);
    const status = entries.every(([, health]) => health.status === 'up') ? 'up' : 'down';
    return { [key]: { status, connections } };
  }

  /** Terminus style: resolves with the result when every connection is up, else throws {@link RedisHealthCheckError}. */
  async isHealthy(key = 'redis', options: RedisHealthCheckOptions = {}): Promise<RedisHealthResult> {
    const result = await this.check(key, options);
    if (result[key].status === 'down') throw new RedisHealthCheckError('Redis is unhealthy', result);
    return result;
  }

  private async checkConnection(name: string, timeoutMs: number, maxMemoryRatio?: number): Promise<ConnectionHealth> {
    const { kind, endpoint } = this.connections.describe(name);
    const base: ConnectionHealth = { status: 'down', kind, endpoint };
    try {
      const health = await withDeadline(this.store.probe(name), timeoutMs, () => {
        throw new Error(`no reply within ${timeoutMs} ms`);
      });
      const overMemory = maxMemoryRatio !== undefined && (health.memoryRatio ?? 0) > maxMemoryRatio;
      return {
        ...base,
        ...health,
        status: overMemory ? 'down' : 'up',
        ...(overMemory ? { error: `used memory is above ${maxMemoryRatio} of maxmemory` } : {}),
      };
    } catch (error) {
      return { ...base, error: redactSecrets(error instanceof Error ? error.message : String(error)) };
    }
  }
}
