import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { RedisConnections } from '@app/redis-patterns';

@Controller('health')
export class HealthController {
  constructor(private readonly connections: RedisConnections) {}

  /** Redis answers PING through the module's default connection: 200, else 503. */
  @Get()
  async health(): Promise<{ status: 'up'; redis: { latencyMs: number } }> {
    const started = performance.now();
    try {
      await this.connections.get().ping();
    } catch (error) {
      throw new ServiceUnavailableException({ status: 'down', redis: { error: (error as Error).message } });
    }
    return { status: 'up', redis: { latencyMs: Math.round((performance.now() - started) * 100) / 100 } };
  }
}
