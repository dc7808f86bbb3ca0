import { InvalidOptionsError } from '../../errors/invalid-options.error';
import { resolveWriteBehindSettings, validateWriteBehindOptions } from './write-behind.options';

const context = { connectionNames: new Set(['default', 'queue']), sections: {} };
const optionOf = (value: unknown, sections: Record<string, unknown> = {}): string | undefined => {
  try {
    validateWriteBehindOptions(value, 'writeBehind', { ...context, sections });
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionsError);
    return (error as InvalidOptionsError).option;
  }
};

describe('writeBehind options', () => {
  it('accepts a complete valid section', () => {
    expect(
      optionOf({
        connection: 'default',
        partitions: 4,
        batchSize: 10,
        delayMs: 50,
        retryDelayMs: 100,
        maxRetryDelayMs: 100,
        maxAttempts: 3,
        leaseTtlMs: 1000,
        deadLetterMaxLength: 10,
      }),
    ).toBeUndefined();
  });

  it.each([
    [{ partitions: 0 }, 'writeBehind.partitions'],
    [{ retryDelayMs: 100, maxRetryDelayMs: 50 }, 'writeBehind.maxRetryDelayMs'],
    // Against the default retryDelayMs (2000).
    [{ maxRetryDelayMs: 1000 }, 'writeBehind.maxRetryDelayMs'],
    [{ maxRetryDelayMs: 1.5 }, 'writeBehind.maxRetryDelayMs'],
    [{ connection: 'queue' }, 'writeBehind.connection'],
  ])('rejects %j naming %s', (section, option) => {
    expect(optionOf(section)).toBe(option);
  });

  it('caps the retry wait at 60 s by default, or at retryDelayMs when that is longer', () => {
    expect(resolveWriteBehindSettings({}).maxRetryDelayMs).toBe(60_000);
    expect(resolveWriteBehindSettings({ retryDelayMs: 90_000 }).maxRetryDelayMs).toBe(90_000);
    expect(resolveWriteBehindSettings({ retryDelayMs: 10, maxRetryDelayMs: 40 }).maxRetryDelayMs).toBe(40);
    expect(Object.isFrozen(resolveWriteBehindSettings({}))).toBe(true);
  });
});
