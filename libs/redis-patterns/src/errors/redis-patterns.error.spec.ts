import { UncacheableArgumentError } from '../cache/advisors/uncacheable-argument.error';
import { ConnectionNotFoundError } from './connection-not-found.error';
import { NoRedisInMemoryModeError } from './no-redis-in-memory-mode.error';
import { RedisPatternsNotBoundError } from './redis-patterns-not-bound.error';
import { UnsupportedHandlerError } from './unsupported-handler.error';
import * as root from '../index';
import * as health from '../health/index';
import { QuorumUnreachableError } from '../lease/quorum-lease.store';
import { type AnsweredRedisPatternsError, RedisPatternsError } from './redis-patterns.error';

// The package's entries that export error classes: the root and the health indicator's subpath.
const api = { ...root, ...health };

const decision = { allowed: false, limit: 1, remaining: 0, resetMs: 1000, retryAfterMs: 250 } as never;

/** One instance of every error class the library throws, built as the library builds it. */
const SAMPLES: Record<string, () => Error> = {
  InvalidOptionsError: () => new api.InvalidOptionsError('cache.defaultTtl', 'a positive number', '-1'),
  InvalidArgumentError: () => new api.InvalidArgumentError('ttl', 'must be positive'),
  ConnectionNotFoundError: () => new ConnectionNotFoundError('cache', ['default']),
  ConnectionStartupError: () => new api.ConnectionStartupError('default', '127.0.0.1:6379', 'refused', 'refused'),
  RedisPatternsNotBoundError: () => new RedisPatternsNotBoundError('Reports', 'list'),
  UnsupportedHandlerError: () => new UnsupportedHandlerError('Reports', 'list', 'it is a getter'),
  NoRedisInMemoryModeError: () => new NoRedisInMemoryModeError('StreamsService'),
  RedisUnavailableError: () =>
    new api.RedisUnavailableError('default', 'get', 'timeout', { timeoutMs: 500, reconnecting: true, cause: new Error('x') }),
  RedisRefusedError: () => new api.RedisRefusedError('evalsha', 'NOPERM', 'NOPERM no permission'),
  RedisHealthCheckError: () => new api.RedisHealthCheckError('Redis is down', {}),
  CacheValueTooLargeError: () => new api.CacheValueTooLargeError(2048, 1024),
  CacheLoadTimeoutError: () => new api.CacheLoadTimeoutError(2000),
  CacheSerializationError: () => new api.CacheSerializationError('value.when', 'a function'),
  UncacheableArgumentError: () => new UncacheableArgumentError('argument 0', 'function'),
  RateLimitDeniedError: () => new api.RateLimitDeniedError('Reports.list', 'exceeded', { decision }),
  RateLimitIdentityError: () => new api.RateLimitIdentityError('Reports.list', 'no client address'),
  LockNotAcquiredError: () => new api.LockNotAcquiredError('invoice:1', 'contention', 100),
  LockLostError: () => new api.LockLostError('invoice:1', 'it expired'),
  QuorumUnreachableError: () => new QuorumUnreachableError(2, 3),
  PermitNotAcquiredError: () => new api.PermitNotAcquiredError('exports', 2, 'contention', 100),
  PermitLostError: () => new api.PermitLostError('exports', 'it expired'),
  LeaderTermEndedError: () => new api.LeaderTermEndedError('scheduler', 'lost'),
  IdempotencyNotClaimedError: () => new api.IdempotencyNotClaimedError('Orders.create', 'in-progress', { retryAfterMs: 100 }),
  IdempotencyKeyReusedError: () => new api.IdempotencyKeyReusedError('Orders.create'),
  InvalidIdempotencyKeyError: () => new api.InvalidIdempotencyKeyError('the Idempotency-Key header', 'missing'),
  MissingIdempotencyIdentityError: () => new api.MissingIdempotencyIdentityError('Orders.create'),
};

// Classes exported for an application's own use or as a transport's wrapper, not errors the library raises itself.
const NOT_LIBRARY_ERRORS = new Set(['RedisPatternsError', 'AnsweredRedisPatternsError', 'HttpMappableDomainError']);
// Thrown by the library but not exported (matched by their code): sampled here all the same.
const UNEXPORTED = [
  'UncacheableArgumentError',
  'QuorumUnreachableError',
  'ConnectionNotFoundError',
  'RedisPatternsNotBoundError',
  'UnsupportedHandlerError',
  'NoRedisInMemoryModeError',
];

const exportedErrorClasses = Object.entries(api).filter(
  ([name, value]) => typeof value === 'function' && value.prototype instanceof Error && !NOT_LIBRARY_ERRORS.has(name),
);

describe('the error model: one base, one stable code per error class', () => {
  it('has a sample of every error class the package exports (a new error class must be added here)', () => {
    expect([...exportedErrorClasses.map(([name]) => name), ...UNEXPORTED].sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it.each(Object.entries(SAMPLES))('%s is a RedisPatternsError with a code of its own, named by its class', (name, make) => {
    const error = make() as RedisPatternsError;
    expect(error).toBeInstanceOf(RedisPatternsError);
    expect(error).toBeInstanceOf(api.RedisPatternsError);
    expect(error.name).toBe(name);
    expect(error.code).toMatch(/^[A-Z]+(_[A-Z]+)+$/);
    expect(String(error)).toBe(`${name}: ${error.message}`);
  });

  it('gives every class its own code', () => {
    const codes = Object.values(SAMPLES).map((make) => (make() as RedisPatternsError).code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('carries retryAfterMs on the errors that tell the caller when to retry, and in their answer', () => {
    const retrying = [
      'RedisUnavailableError',
      'RateLimitDeniedError',
      'LockNotAcquiredError',
      'PermitNotAcquiredError',
      'IdempotencyNotClaimedError',
    ];
    for (const name of retrying) {
      const error = SAMPLES[name]() as AnsweredRedisPatternsError;
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(error.toHttpResponse().retryAfterMs).toBe(error.retryAfterMs);
    }
    expect((SAMPLES.RateLimitDeniedError() as RedisPatternsError).retryAfterMs).toBe(250);
    expect((SAMPLES.LockNotAcquiredError() as RedisPatternsError).retryAfterMs).toBe(100);
    expect((SAMPLES.InvalidOptionsError() as RedisPatternsError).retryAfterMs).toBeUndefined();
    expect(Object.keys(SAMPLES.InvalidOptionsError())).not.toContain('retryAfterMs');
  });

  it('keeps the cause it was given', () => {
    const cause = new Error('ECONNRESET');
    expect(new api.LockLostError('invoice:1', 'the connection dropped', { cause }).cause).toBe(cause);
  });
});
