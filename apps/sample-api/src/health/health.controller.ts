import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { RedisPatternsHealthIndicator, type RedisHealthResult } from 'nestjs-redis-patterns/health';

@Controller('health')
export class HealthController {
  constructor(private readonly health: RedisPatternsHealthIndicator) {}

  /**
   * Per connection: ping latency, role, memory against maxmemory. 200 when every connection is up, 503 otherwise.
   * (With @nestjs/terminus installed, pass `() => this.health.isHealthy('redis')` to HealthCheckService.check.)
   */
  @Get()
  async check(): Promise<RedisHealthResult> {
    const result = await this.health.check('redis');
    const down = Object.values(result).some((entry) => (entry as { status?: string }).status === 'down');
    if (down) throw new ServiceUnavailableException(result);
    return result;
  }
}
