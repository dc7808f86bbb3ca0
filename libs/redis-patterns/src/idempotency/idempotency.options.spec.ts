import { InvalidOptionsError } from '../errors/invalid-options.error';
import { DEFAULT_REPLAY_HEADERS, resolveIdempotencySettings, validateIdempotencyOptions } from './idempotency.options';

const context = { connectionNames: new Set(['default', 'other']) };
const optionOf = (value: unknown): string | undefined => {
  try {
    validateIdempotencyOptions(value, 'idempotency', context);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionsError);
    return (error as InvalidOptionsError).option;
  }
};

describe('idempotency options', () => {
  it('accepts a complete valid section', () => {
    expect(
      optionOf({
        connection: 'other',
        defaultTtlMs: 60_000,
        lockTtlMs: 5_000,
        defaultWaitMs: 0,
        headerName: 'X-Request-Id',
        replayedHeader: 'X-Replayed',
        replayHeaders: ['Content-Type', 'x-order-id'],
        failOpen: true,
        identity: () => 'me',
      }),
    ).toBeUndefined();
  });

  it.each([
    [[], 'idempotency'],
    [{ ttlMs: 5 }, 'idempotency.ttlMs'],
    [{ connection: 'nope' }, 'idempotency.connection'],
    [{ defaultTtlMs: 0 }, 'idempotency.defaultTtlMs'],
    [{ lockTtlMs: 1.5 }, 'idempotency.lockTtlMs'],
    [{ lockTtlMs: 10 }, 'idempotency.lockTtlMs'],
    [{ defaultTtlMs: 1000, lockTtlMs: 2000 }, 'idempotency.lockTtlMs'],
    [{ defaultWaitMs: -1 }, 'idempotency.defaultWaitMs'],
    [{ headerName: 'Idempotency Key' }, 'idempotency.headerName'],
    [{ headerName: '' }, 'idempotency.headerName'],
    [{ replayedHeader: 'Set-Cookie' }, 'idempotency.replayedHeader'],
    [{ replayHeaders: 'content-type' }, 'idempotency.replayHeaders'],
    [{ replayHeaders: ['content-type', 'Set-Cookie'] }, 'idempotency.replayHeaders[1]'],
    [{ replayHeaders: ['content-length'] }, 'idempotency.replayHeaders[0]'],
    [{ failOpen: 'yes' }, 'idempotency.failOpen'],
    [{ identity: 'user' }, 'idempotency.identity'],
  ])('refuses %j naming %s', (section, option) => {
    expect(optionOf(section)).toBe(option);
  });

  it('applies the defaults once, frozen, with header names in lower case', () => {
    const settings = resolveIdempotencySettings(undefined);
    expect(settings).toEqual({
      connection: undefined,
      defaultTtlMs: 86_400_000,
      lockTtlMs: 30_000,
      defaultWaitMs: 10_000,
      headerName: 'idempotency-key',
      replayedHeader: 'Idempotent-Replayed',
      replayHeaders: DEFAULT_REPLAY_HEADERS,
      failOpen: false,
      identity: undefined,
      maxRecordBytes: 512 * 1024,
    });
    expect(resolveIdempotencySettings({}, 2048).maxRecordBytes).toBe(2048);
    expect(resolveIdempotencySettings({ maxRecordBytes: 100 }, 2048).maxRecordBytes).toBe(100);
    expect(Object.isFrozen(settings)).toBe(true);
    expect(resolveIdempotencySettings({ defaultTtlMs: 5000, replayHeaders: ['X-Order'] })).toMatchObject({
      lockTtlMs: 5000,
      replayHeaders: ['x-order'],
    });
  });
});
