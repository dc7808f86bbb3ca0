// Adapted from nestjs/throttler (MIT, see LICENSE in test/compliance/nestjs-throttler) src/throttler.guard.spec.ts: storage on Redis.
import { type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import type { ThrottlerStorageOptions } from '@nestjs/throttler/dist/throttler-storage-options.interface';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import { THROTTLER_OPTIONS } from '@nestjs/throttler/dist/throttler.constants';
import { ThrottlerException, ThrottlerGuard, ThrottlerStorage } from '@nestjs/throttler';
import { RateLimiterService, RedisPatternsModule } from 'nestjs-redis-patterns';
import { RedisPatternsThrottlerStorage } from 'nestjs-redis-patterns/adapters';
import { connectionFor, uniquePrefix } from '../../../support/redis-env';

// Adapted: Jest 30 names (toHaveBeenCalledTimes, toThrow); the storage of every guard below is RedisPatternsThrottlerStorage on real Redis (a key prefix per
// module, each module closed after its test). The upstream in-memory mock stays: the execution contexts name its class.
const redisPatterns = () =>
  RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('throttler-guard') });
const redisStorage = {
  provide: ThrottlerStorage,
  useFactory: (limiter: RateLimiterService) => new RedisPatternsThrottlerStorage(limiter),
  inject: [RateLimiterService],
};
const modules: TestingModule[] = [];
const closedAfterEach = (modRef: TestingModule) => (modules.push(modRef), modRef);
afterEach(async () => {
  for (const modRef of modules.splice(0)) await modRef.close();
});

class ThrottlerStorageServiceMock implements ThrottlerStorage {
  // Adapted (types only): upstream indexes its Map as an object, which this repository's strict compiler refuses.
  private _storage: Record<string, any> = {};
  get storage(): Record<string, ThrottlerStorageOptions | any> {
    return this._storage;
  }

  private getExpirationTime(key: string): number {
    return Math.floor((this.storage[key].expiresAt - Date.now()) / 1000);
  }

  private getBlockExpirationTime(key: string): number {
    return Math.floor((this.storage[key].blockExpiresAt - Date.now()) / 1000);
  }

  private fireHitCount(key: string, throttlerName: string) {
    this.storage[key].totalHits[throttlerName]++;
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const ttlMilliseconds = ttl;
    const blockDurationMilliseconds = blockDuration;
    if (!this.storage[key]) {
      this.storage[key] = {
        totalHits: {
          [throttlerName]: 0,
        },
        expiresAt: Date.now() + ttlMilliseconds,
        blockExpiresAt: 0,
        isBlocked: false,
      };
    }

    let timeToExpire = this.getExpirationTime(key);

    // Reset the `expiresAt` once it has been expired.
    if (timeToExpire <= 0) {
      this.storage[key].expiresAt = Date.now() + ttlMilliseconds;
      timeToExpire = this.getExpirationTime(key);
    }

    if (!this.storage[key].isBlocked) {
      this.fireHitCount(key, throttlerName);
    }

    // Reset the blockExpiresAt once it gets blocked
    if (this.storage[key].totalHits[throttlerName] > limit && !this.storage[key].isBlocked) {
      this.storage[key].isBlocked = true;
      this.storage[key].blockExpiresAt = Date.now() + blockDurationMilliseconds;
    }

    const timeToBlockExpire = this.getBlockExpirationTime(key);

    if (timeToBlockExpire <= 0 && this.storage[key].isBlocked) {
      this.fireHitCount(key, throttlerName);
    }

    return {
      totalHits: this.storage[key].totalHits[throttlerName],
      timeToExpire,
      isBlocked: this.storage[key].isBlocked,
      timeToBlockExpire: timeToBlockExpire,
    };
  }
}

function contextMockFactory(type: 'http' | 'ws' | 'graphql', handler: () => any, mockFunc: Record<string, any>): ExecutionContext {
  const executionPartial: Partial<ExecutionContext> = {
    getClass: () => ThrottlerStorageServiceMock as any,
    getHandler: () => handler,
    switchToRpc: () => ({
      getContext: () => ({}) as any,
      getData: () => ({}) as any,
    }),
    getArgs: () => [] as any,
    getArgByIndex: () => ({}) as any,
    getType: () => type as any,
  };
  switch (type) {
    case 'ws':
      executionPartial.switchToHttp = () => ({}) as any;
      executionPartial.switchToWs = () => mockFunc as any;
      break;
    case 'http':
      executionPartial.switchToWs = () => ({}) as any;
      executionPartial.switchToHttp = () => mockFunc as any;
      break;
    case 'graphql':
      executionPartial.switchToWs = () => ({}) as any;
      executionPartial.switchToHttp = () =>
        ({
          getNext: () => ({}) as any,
        }) as any;
      executionPartial.getArgByIndex = () => mockFunc as any;
      break;
  }
  return executionPartial as ExecutionContext;
}

describe('ThrottlerGuard', () => {
  let guard: ThrottlerGuard;
  let reflector: Reflector;
  let service: RedisPatternsThrottlerStorage;
  let handler: () => any;

  beforeEach(async () => {
    const modRef = await Test.createTestingModule({
      imports: [redisPatterns()],
      providers: [
        ThrottlerGuard,
        {
          provide: THROTTLER_OPTIONS,
          useValue: [
            {
              limit: 5,
              ttl: 60,
              ignoreUserAgents: [/userAgentIgnore/],
            },
          ],
        },
        redisStorage,
        {
          provide: Reflector,
          useValue: {
            getAllAndOverride: jest.fn(),
          },
        },
      ],
    })
      .compile()
      .then(closedAfterEach);
    guard = modRef.get(ThrottlerGuard);
    await guard.onModuleInit();
    reflector = modRef.get(Reflector);
    service = modRef.get<RedisPatternsThrottlerStorage>(ThrottlerStorage);
  });

  it('should have all of the providers defined', () => {
    expect(guard).toBeDefined();
    expect(reflector).toBeDefined();
    expect(service).toBeDefined();
  });
  describe('HTTP Context', () => {
    let reqMock: any;
    let resMock: any;
    let headerSettingMock: jest.Mock;

    beforeEach(() => {
      headerSettingMock = jest.fn();
      resMock = {
        header: headerSettingMock,
      };
      reqMock = {
        headers: {},
      };
    });
    afterEach(() => {
      headerSettingMock.mockClear();
    });
    it('should add headers to the res', async () => {
      handler = function addHeaders() {
        return 'string';
      };
      const ctxMock = contextMockFactory('http', handler, {
        getResponse: () => resMock,
        getRequest: () => reqMock,
      });
      const canActivate = await guard.canActivate(ctxMock);
      expect(canActivate).toBe(true);
      expect(headerSettingMock).toHaveBeenCalledTimes(3);
      expect(headerSettingMock).toHaveBeenNthCalledWith(1, 'X-RateLimit-Limit', 5);
      expect(headerSettingMock).toHaveBeenNthCalledWith(2, 'X-RateLimit-Remaining', 4);
      expect(headerSettingMock).toHaveBeenNthCalledWith(3, 'X-RateLimit-Reset', expect.any(Number));
    });
    it('should return an error after passing the limit', async () => {
      handler = function returnError() {
        return 'string';
      };
      const ctxMock = contextMockFactory('http', handler, {
        getResponse: () => resMock,
        getRequest: () => reqMock,
      });
      for (let i = 0; i < 5; i++) {
        await guard.canActivate(ctxMock);
      }
      await expect(guard.canActivate(ctxMock)).rejects.toThrow(ThrottlerException);
      expect(headerSettingMock).toHaveBeenCalledTimes(16);
      expect(headerSettingMock).toHaveBeenLastCalledWith('Retry-After', expect.any(Number));
    });
    it('should pull values from the reflector instead of options', async () => {
      handler = function useReflector() {
        return 'string';
      };
      reflector.getAllAndOverride = jest.fn().mockReturnValueOnce(false).mockReturnValueOnce(2);
      const ctxMock = contextMockFactory('http', handler, {
        getResponse: () => resMock,
        getRequest: () => reqMock,
      });
      const canActivate = await guard.canActivate(ctxMock);
      expect(canActivate).toBe(true);
      expect(headerSettingMock).toHaveBeenCalledTimes(3);
      expect(headerSettingMock).toHaveBeenNthCalledWith(1, 'X-RateLimit-Limit', 2);
      expect(headerSettingMock).toHaveBeenNthCalledWith(2, 'X-RateLimit-Remaining', 1);
      expect(headerSettingMock).toHaveBeenNthCalledWith(3, 'X-RateLimit-Reset', expect.any(Number));
    });
    it('should skip due to the user-agent header', async () => {
      handler = function userAgentSkip() {
        return 'string';
      };
      reqMock['headers'] = {
        'user-agent': 'userAgentIgnore',
      };
      const ctxMock = contextMockFactory('http', handler, {
        getResponse: () => resMock,
        getRequest: () => reqMock,
      });
      const canActivate = await guard.canActivate(ctxMock);
      expect(canActivate).toBe(true);
      expect(headerSettingMock).toHaveBeenCalledTimes(0);
    });
    it('should accept callback options for ttl and limit', async () => {
      const modRef = await Test.createTestingModule({
        imports: [redisPatterns()],
        providers: [
          ThrottlerGuard,
          {
            provide: THROTTLER_OPTIONS,
            useValue: [
              {
                limit: () => 5,
                ttl: () => 60,
                ignoreUserAgents: [/userAgentIgnore/],
              },
            ],
          },
          redisStorage,
          {
            provide: Reflector,
            useValue: {
              getAllAndOverride: jest.fn(),
            },
          },
        ],
      })
        .compile()
        .then(closedAfterEach);
      const guard = modRef.get(ThrottlerGuard);
      await guard.onModuleInit();
      handler = function addHeaders() {
        return 'string';
      };
      const ctxMock = contextMockFactory('http', handler, {
        getResponse: () => resMock,
        getRequest: () => reqMock,
      });
      const canActivate = await guard.canActivate(ctxMock);
      expect(canActivate).toBe(true);
      expect(headerSettingMock).toHaveBeenCalledTimes(3);
      expect(headerSettingMock).toHaveBeenNthCalledWith(1, 'X-RateLimit-Limit', 5);
      expect(headerSettingMock).toHaveBeenNthCalledWith(2, 'X-RateLimit-Remaining', 4);
      expect(headerSettingMock).toHaveBeenNthCalledWith(3, 'X-RateLimit-Reset', expect.any(Number));
    });
    it('should not add headers to the response when setHeaders is false', async () => {
      const modRef = await Test.createTestingModule({
        imports: [redisPatterns()],
        providers: [
          ThrottlerGuard,
          {
            provide: THROTTLER_OPTIONS,
            useValue: [
              {
                limit: 5,
                ttl: 60,
                setHeaders: false,
              },
            ],
          },
          redisStorage,
          {
            provide: Reflector,
            useValue: {
              getAllAndOverride: jest.fn(),
            },
          },
        ],
      })
        .compile()
        .then(closedAfterEach);

      const guard = modRef.get(ThrottlerGuard);
      await guard.onModuleInit();

      const headerSettingMock = jest.fn();
      const resMock = {
        header: headerSettingMock,
      };
      const reqMock = {
        headers: {},
      };

      handler = function noHeaders() {
        return 'string';
      };

      const ctxMock = contextMockFactory('http', handler, {
        getResponse: () => resMock,
        getRequest: () => reqMock,
      });

      for (let i = 0; i < 5; i++) {
        const canActivate = await guard.canActivate(ctxMock);
        expect(canActivate).toBe(true);
      }

      expect(headerSettingMock).not.toHaveBeenCalled();

      await expect(guard.canActivate(ctxMock)).rejects.toThrow(ThrottlerException);

      expect(headerSettingMock).not.toHaveBeenCalled();
    });
    it('should respect setHeaders option from commonOptions', async () => {
      const modRef = await Test.createTestingModule({
        imports: [redisPatterns()],
        providers: [
          ThrottlerGuard,
          {
            provide: THROTTLER_OPTIONS,
            useValue: {
              throttlers: [
                {
                  limit: 5,
                  ttl: 60,
                },
              ],
              setHeaders: false,
            },
          },
          redisStorage,
          {
            provide: Reflector,
            useValue: {
              getAllAndOverride: jest.fn(),
            },
          },
        ],
      })
        .compile()
        .then(closedAfterEach);

      const guard = modRef.get(ThrottlerGuard);
      await guard.onModuleInit();

      handler = function commonOptionsTest() {
        return 'string';
      };

      const ctxMock = contextMockFactory('http', handler, {
        getResponse: () => resMock,
        getRequest: () => reqMock,
      });

      const canActivate = await guard.canActivate(ctxMock);
      expect(canActivate).toBe(true);
      expect(headerSettingMock).not.toHaveBeenCalled();
    });
  });
});
