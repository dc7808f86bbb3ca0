import { InvalidOptionsError } from '../errors/invalid-options.error';
import { resolveOptions } from '../redis-patterns.options';

describe('structures option sections', () => {
  it.each([
    [{ sessions: { defaultTtl: 0 } }, 'sessions.defaultTtl'],
    [{ sessions: { maxLifetime: 1.5 } }, 'sessions.maxLifetime'],
    [{ sessions: { ttl: 5 } }, 'sessions.ttl'],
    [{ leaderboard: { maxSize: 0 } }, 'leaderboard.maxSize'],
    [{ leaderboard: { integerScores: 'yes' } }, 'leaderboard.integerScores'],
    [{ leaderboard: { dailyTtl: -1 } }, 'leaderboard.dailyTtl'],
    [{ uniqueCounter: { defaultTtl: '60' } }, 'uniqueCounter.defaultTtl'],
    [{ cappedList: { defaultMaxLength: 0 } }, 'cappedList.defaultMaxLength'],
    [{ cappedList: { connection: 'nope' } }, 'cappedList.connection'],
  ])('rejects %j naming %s', (section, option) => {
    expect(() => resolveOptions({ connection: 'redis://127.0.0.1:1', ...section })).toThrow(InvalidOptionsError);
    expect(() => resolveOptions({ connection: 'redis://127.0.0.1:1', ...section })).toThrow(`"${option}"`);
  });

  it('accepts valid sections', () => {
    const resolved = resolveOptions({
      sessions: { defaultTtl: 1800, maxLifetime: 43_200 },
      leaderboard: { defaultTtl: 3600, dailyTtl: 86_400, weekTtl: 30, maxSize: 100, integerScores: false },
      uniqueCounter: { defaultTtl: 60 },
      cappedList: { defaultTtl: 60, defaultMaxLength: 20 },
    });
    expect(resolved.leaderboard?.maxSize).toBe(100);
  });
});
