import { InvalidOptionsError } from '../errors/invalid-options.error';
import { resolveCacheSettings, validateCacheOptions } from './cache.options';

const context = { connectionNames: new Set(['default', 'cache']) };

describe('cache options', () => {
  it('applies defaults: 60 s TTL, 10% jitter, 512 KB cap, GET only', () => {
    const settings = resolveCacheSettings(undefined);
    expect(settings.defaultTtlMs).toBe(60_000);
    expect(settings.jitter).toBe(0.1);
    expect(settings.maxValueBytes).toBe(512 * 1024);
    expect([...settings.httpMethods]).toEqual(['GET']);
    expect(settings.statusHeader).toBe(true);
    expect(resolveCacheSettings({ statusHeader: false }).statusHeader).toBe(false);
  });

  it.each([
    [{ defaultTtl: 0 }, 'cache.defaultTtl'],
    [{ defaultTtl: '60' }, 'cache.defaultTtl'],
    [{ jitter: 2 }, 'cache.jitter'],
    [{ maxValueBytes: 1.5 }, 'cache.maxValueBytes'],
    [{ lockTtlMs: -1 }, 'cache.lockTtlMs'],
    [{ connection: 'nope' }, 'cache.connection'],
    [{ httpMethods: ['FETCH'] }, 'cache.httpMethods[0]'],
    [{ defaultTTL: 5 }, 'cache.defaultTTL'],
    [{ statusHeader: 'false' }, 'cache.statusHeader'],
  ])('rejects %j naming %s', (section, option) => {
    try {
      validateCacheOptions(section, 'cache', context);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidOptionsError);
      expect((error as InvalidOptionsError).option).toBe(option);
    }
  });

  it.each(['breakerThreshold', 'breakerCooldownMs'])('refuses the 0.x option %s at startup, saying what replaced it', (option) => {
    const attempt = (): unknown => validateCacheOptions({ [option]: 5 }, 'cache', context);
    expect(attempt).toThrow(InvalidOptionsError);
    expect(attempt).toThrow(`"cache.${option}"`);
    expect(attempt).toThrow("the connection's liveness");
    expect(attempt).toThrow('an option removed in 1.0');
  });

  it('accepts a full section', () => {
    expect(() =>
      validateCacheOptions(
        { connection: 'cache', defaultTtl: 5, jitter: 0, maxValueBytes: 1024, lockTtlMs: 100, lockWaitMs: 0, httpMethods: ['get', 'HEAD'] },
        'cache',
        context,
      ),
    ).not.toThrow();
  });
});
