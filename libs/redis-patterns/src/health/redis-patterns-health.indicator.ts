import { Inject, Injectable } from '@nestjs/common';
import { RedisConnections } from '../core/connections/redis-connections';
import { redactSecrets } from '../core/connections/redact';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RedisHealthCheckError } from './redis-health-check.error';
import type { ConnectionHealth, RedisHealthCheckOptions, RedisHealthResult, RedisHealthSummary } from './health.types';
import { HEALTH_STORE, type HealthStore } from './health.store';
import { withDeadline } from '../core/time/with-deadline';

/**
 * Health of the module's Redis connections: PING latency, role, and memory used against maxmemory, per connection
 * (per master on a cluster). Works on its own (`check`) and with `@nestjs/terminus`, which is not a dependency:
 * the result has terminus' `HealthIndicatorResult` shape and `isHealthy` throws a terminus-compatible error.
 *
 * A connection on which Redis refused a command of the library for a configuration reason (an ACL permission
 * missing, a command renamed away, a key of another type: see `RedisRefusedError`) is `down` with that refusal as
 * its `error`, even though it answers PING: the patterns cannot work on it until the configuration is fixed.
 *
 * @example
 * // with @nestjs/terminus
 * @Get('health') @HealthCheck()
 * health() { return this.health.check([() => this.redis.isHealthy('redis')]); }
 */
@Injectable()
export class RedisPatternsHealthIndicator {
  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    private readonly connections: RedisConnections,
    @Inject(HEALTH_STORE) private readonly store: HealthStore,
  ) {}

  /**
   * Probes the connections; never throws for a down connection (the result says `down`). With `details: false`
   * the result holds statuses only.
   */
  async check(key?: string, options?: RedisHealthCheckOptions & { details?: true }): Promise<RedisHealthResult>;
  /** The same check with `details: false`: resolves with statuses only ({@link RedisHealthSummary}), for a public endpoint. */
  async check(key: string | undefined, options: RedisHealthCheckOptions & { details: false }): Promise<RedisHealthSummary>;
  /** The same check when `details` is only known at run time: resolves with either shape. */
  async check(key?: string, options?: RedisHealthCheckOptions): Promise<RedisHealthResult | RedisHealthSummary>;
  async check(key = 'redis', options: RedisHealthCheckOptions = {}): Promise<RedisHealthResult | RedisHealthSummary> {
    const names = options.connections ?? this.connections.names();
    const timeoutMs = options.timeoutMs ?? 1000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new InvalidArgumentError('options.timeoutMs', 'expected a positive number of ms');
    if (options.details !== undefined && typeof options.details !== 'boolean')
      throw new InvalidArgumentError('options.details', 'expected a boolean');
    const entries = await Promise.all(
      names.map(async (name) => [name, await this.checkConnection(name, timeoutMs, options.maxMemoryRatio)] as const),
    );
    const status = entries.every(([, health]) => health.status === 'up') ? 'up' : 'down';
    if (options.details === false) {
      return { [key]: { status, connections: Object.fromEntries(entries.map(([name, health]) => [name, { status: health.status }])) } };
    }
    return { [key]: { status, connections: Object.fromEntries(entries) } };
  }

  /** Terminus style: resolves with the result when every connection is up, else throws {@link RedisHealthCheckError}. */
  async isHealthy(key?: string, options?: RedisHealthCheckOptions & { details?: true }): Promise<RedisHealthResult>;
  /** The same with `details: false`: resolves with statuses only ({@link RedisHealthSummary}) when every connection is up. */
  async isHealthy(key: string | undefined, options: RedisHealthCheckOptions & { details: false }): Promise<RedisHealthSummary>;
  /** The same when `details` is only known at run time: resolves with either shape. */
  async isHealthy(key?: string, options?: RedisHealthCheckOptions): Promise<RedisHealthResult | RedisHealthSummary>;
  async isHealthy(key = 'redis', options: RedisHealthCheckOptions = {}): Promise<RedisHealthResult | RedisHealthSummary> {
    const result = await this.check(key, options);
    if (result[key].status === 'down') throw new RedisHealthCheckError('Redis is unhealthy', result);
    return result;
  }

  private async checkConnection(name: string, timeoutMs: number, maxMemoryRatio?: number): Promise<ConnectionHealth> {
    const { kind, endpoint } = this.connections.describe(name);
    const base: ConnectionHealth = { status: 'down', kind, endpoint };
    const refusal = this.connections.memory ? undefined : this.connections.executor(name).failures.lastRefusal;
    try {
      const health = await withDeadline(this.store.probe(name), timeoutMs, () => {
        throw new Error(`no reply within ${timeoutMs} ms`);
      });
      // Without INFO the memory is unknown: a threshold cannot be judged, and the note says so.
      const overMemory = maxMemoryRatio !== undefined && (health.memoryRatio ?? 0) > maxMemoryRatio;
      const error = refusal ? refusal.message : overMemory ? `used memory is above ${maxMemoryRatio} of maxmemory` : undefined;
      return {
        ...base,
        ...health,
        status: error === undefined ? 'up' : 'down',
        ...(error === undefined ? {} : { error: redactSecrets(error) }),
      };
    } catch (error) {
      // A refusal says more than the outage that may come with it: it will not go away when the server is back.
      const message = refusal ? refusal.message : error instanceof Error ? error.message : String(error);
      return { ...base, error: redactSecrets(message) };
    }
  }
}
