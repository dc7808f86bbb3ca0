// Plain JavaScript has no decorator syntax: Nest's decorators are applied as functions, the way a compiler would.
import 'reflect-metadata';
import { Controller, Get, Inject, Module, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import { Cacheable, LockService, RateLimit, RedisPatternsModule, WithLock } from 'nestjs-redis-patterns';
import { RedisPatternsHealthIndicator } from 'nestjs-redis-patterns/health';
import { startTestRedis } from 'nestjs-redis-patterns/testing';
import { RedisPatternsKeyvStore, RedisPatternsThrottlerStorage } from 'nestjs-redis-patterns/adapters';
import { formatReport, runDoctor } from 'nestjs-redis-patterns/doctor';
import scenario from './scenario.cjs';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';

// One copy of the module for both module systems: a require() from ESM gets the very same classes and tokens.
const required = createRequire(import.meta.url)('nestjs-redis-patterns');
assert.equal(required.RedisPatternsModule, RedisPatternsModule);
assert.equal(required.REDIS_PATTERNS_OPTIONS, (await import('nestjs-redis-patterns')).REDIS_PATTERNS_OPTIONS);
console.log('ok plain JavaScript ES module: import and require share one copy of the package');

// The /adapters entry: its own subpath, one copy of its classes for both module systems too.
const requiredAdapters = createRequire(import.meta.url)('nestjs-redis-patterns/adapters');
assert.equal(requiredAdapters.RedisPatternsKeyvStore, RedisPatternsKeyvStore);
assert.equal(requiredAdapters.RedisPatternsThrottlerStorage, RedisPatternsThrottlerStorage);
assert.equal(typeof RedisPatternsKeyvStore, 'function');
console.log('ok /adapters entry: RedisPatternsKeyvStore and RedisPatternsThrottlerStorage, one copy for import and require');
assert.equal(createRequire(import.meta.url)('nestjs-redis-patterns/doctor').runDoctor, runDoctor);
assert.equal(typeof formatReport, 'function');
console.log('ok /doctor entry: runDoctor and formatReport, one copy for import and require');

function decorateMethod(target, name, ...decorators) {
  let descriptor = Object.getOwnPropertyDescriptor(target.prototype, name);
  for (const decorator of decorators.reverse()) descriptor = decorator(target.prototype, name, descriptor) ?? descriptor;
  Object.defineProperty(target.prototype, name, descriptor);
}

class ShopController {
  constructor(health) {
    this.health = health;
  }

  async product(id) {
    return { id, at: Date.now() };
  }

  search() {
    return { results: [] };
  }

  async pay(id) {
    return { paid: id };
  }

  async check() {
    return this.health.check('redis');
  }
}
Inject(RedisPatternsHealthIndicator)(ShopController, undefined, 0);
decorateMethod(ShopController, 'product', Get('products/:id'), Cacheable({ key: (request) => `product:${request.params.id}`, ttl: 60 }));
Param('id')(ShopController.prototype, 'product', 0);
decorateMethod(ShopController, 'search', Get('search'), RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: 60_000 }));
decorateMethod(
  ShopController,
  'pay',
  Post('orders/:id/pay'),
  WithLock({ resource: (request) => `order:${request.params.id}`, ttlMs: 5000 }),
);
Param('id')(ShopController.prototype, 'pay', 0);
decorateMethod(ShopController, 'check', Get('health'));
Controller()(ShopController);

async function startApp(url) {
  class AppModule {}
  Module({ imports: [RedisPatternsModule.forRoot({ connection: url, keyPrefix: 'consumer-c' })], controllers: [ShopController] })(
    AppModule,
  );
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  return app;
}

await scenario
  .runScenario({ label: 'plain JavaScript ES module, Nest 12 + ioredis 6 + Express', startApp, LockService, startTestRedis, Redis })
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
