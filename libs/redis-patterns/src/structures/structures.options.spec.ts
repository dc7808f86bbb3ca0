import { InvalidOptionsError } from '../errors/invalid-options.error';
import { resolveOptions } from '../redis-patterns.options';
import { resolveCappedListSettings } from './capped-list.options';
import { resolveLeaderboardSettings } from './leaderboard.options';
import { resolveSessionsSettings } from './sessions.options';
import { resolveUniqueCounterSettings } from './unique-counter.options';

describe('structures option sections', () => {
  it.each([
    [{ sessions: { defaultTtlMs: 0 } }, 'sessions.defaultTtlMs'],
    [{ sessions: { maxLifetimeMs: 1.5 } }, 'sessions.maxLifetimeMs'],
    // The names of seconds are refused: every structure duration is in ms.
    [{ sessions: { defaultTtl: 1800 } }, 'sessions.defaultTtl'],
    [{ sessions: { ttl: 5 } }, 'sessions.ttl'],
    [{ leaderboard: { maxLength: 0 } }, 'leaderboard.maxLength'],
    [{ leaderboard: { integerScores: 'yes' } }, 'leaderboard.integerScores'],
    [{ leaderboard: { dailyTtlMs: -1 } }, 'leaderboard.dailyTtlMs'],
    [{ uniqueCounter: { defaultTtlMs: '60' } }, 'uniqueCounter.defaultTtlMs'],
    [{ cappedList: { defaultMaxLength: 0 } }, 'cappedList.defaultMaxLength'],
    [{ cappedList: { connection: 'nope' } }, 'cappedList.connection'],
  ])('rejects %j naming %s', (section, option) => {
    expect(() => resolveOptions({ connection: 'redis://127.0.0.1:1', ...section })).toThrow(InvalidOptionsError);
    expect(() => resolveOptions({ connection: 'redis://127.0.0.1:1', ...section })).toThrow(`"${option}"`);
  });

  it.each([
    [{ leaderboard: { maxSize: 100 } }, 'leaderboard.maxSize', 'maxLength'],
    [{ streams: { maxLen: 1000 } }, 'streams.maxLen', 'maxLength'],
    [{ streams: { deadLetterMaxLen: 1000 } }, 'streams.deadLetterMaxLen', 'deadLetterMaxLength'],
  ])('refuses the 0.x name in %j naming %s and its 1.0 name', (section, option, renamed) => {
    const attempt = (): unknown => resolveOptions({ connection: 'redis://127.0.0.1:1', ...section });
    expect(attempt).toThrow(InvalidOptionsError);
    expect(attempt).toThrow(`"${option}"`);
    expect(attempt).toThrow(`\`${renamed}\``);
  });

  it('accepts valid sections', () => {
    const resolved = resolveOptions({
      sessions: { defaultTtlMs: 1_800_000, maxLifetimeMs: 43_200_000 },
      leaderboard: { defaultTtlMs: 3_600_000, dailyTtlMs: 86_400_000, weekTtlMs: 30_000, maxLength: 100, integerScores: false },
      uniqueCounter: { defaultTtlMs: 60_000 },
      cappedList: { defaultTtlMs: 60_000, defaultMaxLength: 20 },
    });
    expect(resolved.leaderboard?.maxLength).toBe(100);
  });
});

describe('structures settings', () => {
  it('apply each default once, and an option given as undefined (a config left unset) keeps the default', () => {
    expect(resolveLeaderboardSettings({ dailyTtlMs: undefined, maxLength: undefined })).toEqual({
      connection: undefined,
      defaultTtlMs: 86_400_000,
      dailyTtlMs: 8 * 86_400_000,
      weekTtlMs: 60_000,
      maxLength: 0,
      integerScores: true,
    });
    expect(resolveCappedListSettings({ defaultTtlMs: undefined }).defaultTtlMs).toBe(86_400_000);
    expect(resolveSessionsSettings({ defaultTtlMs: 5000 })).toEqual({
      connection: undefined,
      defaultTtlMs: 5000,
      maxLifetimeMs: undefined,
    });
    expect(resolveUniqueCounterSettings().defaultTtlMs).toBe(86_400_000);
    expect(Object.isFrozen(resolveUniqueCounterSettings())).toBe(true);
  });
});
