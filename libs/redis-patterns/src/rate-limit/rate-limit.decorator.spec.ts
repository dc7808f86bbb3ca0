import 'reflect-metadata';
import { Controller, Get, Injectable } from '@nestjs/common';
import { GUARDS_METADATA, INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import { Cacheable } from '../cache/decorators/cacheable.decorator';
import { isRedisPatternsInterceptor } from '../core/advice/redis-patterns.interceptor';
import { RATE_LIMIT_METADATA } from './rate-limit.constants';
import { RateLimit } from './rate-limit.decorator';
import type { RateLimitMetadata } from './resolve-limiter';

const POLICY = { algorithm: 'fixed-window', limit: 5, windowMs: 1000 } as const;

const interceptorsOf = (method: unknown): unknown[] =>
  ((Reflect.getMetadata(INTERCEPTORS_METADATA, method as object) as unknown[] | undefined) ?? []).filter(isRedisPatternsInterceptor);
const guardsOf = (target: object): unknown[] => (Reflect.getOwnMetadata(GUARDS_METADATA, target) as unknown[] | undefined) ?? [];

// What Nest will find on each method once the class is defined: the class decorators run after the methods', and the
// interceptor is taken off in a microtask after that (create-advised-decorator.ts).
describe('@RateLimit on handlers: a guard only', () => {
  it("puts no interceptor on a controller method whose only decorator is @RateLimit: the guard decides Nest's calls", async () => {
    @Controller()
    class Limited {
      @RateLimit(POLICY)
      @Get('a')
      a() {}

      @RateLimit(POLICY)
      @Cacheable({ key: 'b' })
      @Get('b')
      b() {}
    }
    // Before the microtask the interceptor is still there: the test would pass without the removal otherwise.
    expect(interceptorsOf(Limited.prototype.a)).toHaveLength(1);
    await Promise.resolve();
    expect(interceptorsOf(Limited.prototype.a)).toHaveLength(0);
    expect(guardsOf(Limited.prototype.a)).toHaveLength(1);
    // Another decorator of the method still needs it.
    expect(interceptorsOf(Limited.prototype.b)).toHaveLength(1);
  });

  it('keeps the interceptor on a provider method: on a gateway or resolver it tells the wrapper which call is Nest’s', async () => {
    @Injectable()
    class Gateway {
      @RateLimit(POLICY)
      handle() {}
    }
    await Promise.resolve();
    expect(interceptorsOf(Gateway.prototype.handle)).toHaveLength(1);
  });

  it('puts one guard per place, however many @RateLimit: the upper one’s limit is decided, once', async () => {
    const upper = { ...POLICY, limit: 2 };
    @RateLimit(upper)
    @RateLimit(POLICY)
    @Controller()
    class Twice {
      @RateLimit(upper)
      @RateLimit(POLICY)
      @Get()
      handle() {}
    }
    await Promise.resolve();
    expect(guardsOf(Twice)).toHaveLength(1);
    expect(guardsOf(Twice.prototype.handle)).toHaveLength(1);
    for (const target of [Twice, Twice.prototype.handle])
      expect((Reflect.getMetadata(RATE_LIMIT_METADATA, target) as RateLimitMetadata).policies).toMatchObject({ limit: 2 });
  });
});
