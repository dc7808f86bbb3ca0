import { InvalidOptionsError } from '../errors/invalid-options.error';
import { resolveOptions } from '../redis-patterns.options';
import { DEFAULT_FENCE_TTL_MS, resolveLeaseSettings, validateLockOptions } from './lease.options';

const context = { connectionNames: new Set(['default', 'a', 'b', 'c']) };
const optionOf = (value: unknown): string | undefined => {
  try {
    validateLockOptions(value, 'lock', context);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionsError);
    return (error as InvalidOptionsError).option;
  }
};

describe('lock options', () => {
  it('accepts a complete valid section', () => {
    expect(
      optionOf({
        connection: 'a',
        defaultTtlMs: 1000,
        autoExtendRatio: 0.5,
        driftFactor: 0.02,
        retryDelayMs: 10,
        maxRetryDelayMs: 100,
        fenceTtlMs: 0,
        waitReplicas: 1,
        waitReplicasTimeoutMs: 100,
      }),
    ).toBeUndefined();
    expect(optionOf({ redlock: { connections: ['a', 'b', 'c'], nodeTimeoutMs: 50 } })).toBeUndefined();
  });

  it.each([
    [[], 'lock'],
    [{ defaultTTL: 5 }, 'lock.defaultTTL'],
    [{ connection: 'nope' }, 'lock.connection'],
    [{ defaultTtlMs: 0 }, 'lock.defaultTtlMs'],
    [{ defaultTtlMs: 1.5 }, 'lock.defaultTtlMs'],
    [{ autoExtendRatio: 0 }, 'lock.autoExtendRatio'],
    [{ driftFactor: -1 }, 'lock.driftFactor'],
    [{ retryDelayMs: 100, maxRetryDelayMs: 50 }, 'lock.maxRetryDelayMs'],
    [{ fenceTtlMs: -1 }, 'lock.fenceTtlMs'],
    [{ waitReplicas: -1 }, 'lock.waitReplicas'],
    [{ redlock: { connections: ['a', 'b'] } }, 'lock.redlock.connections'],
    [{ redlock: { connections: ['a', 'b', 'x'] } }, 'lock.redlock.connections[2]'],
    [{ redlock: { connections: ['a', 'a', 'b'] } }, 'lock.redlock.connections'],
    [{ redlock: { connections: ['a', 'b', 'c'], timeout: 1 } }, 'lock.redlock.timeout'],
    [{ redlock: { connections: ['a', 'b', 'c'] }, waitReplicas: 1 }, 'lock.waitReplicas'],
  ])('rejects %j naming %s', (section, option) => {
    expect(optionOf(section)).toBe(option);
  });

  it('refuses the 0.x name waitTimeoutMs at startup, naming waitReplicasTimeoutMs', () => {
    const attempt = (): unknown => resolveOptions({ connection: 'redis://127.0.0.1:1', lock: { waitTimeoutMs: 100 } });
    expect(attempt).toThrow(InvalidOptionsError);
    expect(attempt).toThrow('"lock.waitTimeoutMs"');
    expect(attempt).toThrow('`waitReplicasTimeoutMs` (`waitTimeoutMs` was renamed in 1.0)');
  });

  it('applies defaults', () => {
    expect(resolveLeaseSettings(undefined)).toMatchObject({
      defaultTtlMs: 30_000,
      driftFactor: 0.01,
      fenceTtlMs: DEFAULT_FENCE_TTL_MS,
      waitReplicas: 0,
      waitReplicasTimeoutMs: 200,
      redlock: undefined,
    });
    expect(resolveLeaseSettings({ redlock: { connections: ['a', 'b', 'c'] } }).redlock).toEqual({
      connections: ['a', 'b', 'c'],
      nodeTimeoutMs: 100,
    });
  });
});
