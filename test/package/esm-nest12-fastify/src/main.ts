import 'reflect-metadata';
import { Controller, Get, Module, Param, Post, ServiceUnavailableException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { Cacheable, LockService, RateLimit, RedisPatternsModule, WithLock } from 'nestjs-redis-patterns';
import { RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';
import { startTestRedis } from 'nestjs-redis-patterns/testing';
import scenario from '../scenario.cjs';

const { runScenario } = scenario;

@Controller()
class ShopController {
  constructor(private readonly health: RedisPatternsHealthIndicator) {}

  @Get('products/:id')
  @Cacheable({ key: (request: { params: { id: string } }) => `product:${request.params.id}`, ttl: 60 })
  async product(@Param('id') id: string): Promise<{ id: string; at: number }> {
    return { id, at: Date.now() };
  }

  @Get('search')
  @RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: 60_000 })
  search(): { results: string[] } {
    return { results: [] };
  }

  @Post('orders/:id/pay')
  @WithLock({ resource: (request: { params: { id: string } }) => `order:${request.params.id}`, ttlMs: 5000 })
  async pay(@Param('id') id: string): Promise<{ paid: string }> {
    return { paid: id };
  }

  @Get('health')
  async check(): Promise<unknown> {
    const result = await this.health.check('redis');
    if (JSON.stringify(result).includes('"down"')) throw new ServiceUnavailableException(result);
    return result;
  }
}

async function startApp(url: string) {
  @Module({ imports: [RedisPatternsModule.forRoot({ connection: url, keyPrefix: 'consumer-b' })], controllers: [ShopController] })
  class AppModule {}
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  return app;
}

runScenario({ label: 'ES module TypeScript, Nest 12 + ioredis 6 + Fastify', startApp, LockService, startTestRedis, Redis }).catch(
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
