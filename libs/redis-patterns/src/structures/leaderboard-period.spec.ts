import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { dayOf, weekDays } from './leaderboard-period';

describe('leaderboard periods', () => {
  it('takes the UTC day of a Date and validates day strings', () => {
    expect(dayOf(new Date('2026-01-07T23:59:59.999Z'), 'at')).toBe('2026-01-07');
    expect(dayOf('2024-02-29', 'at')).toBe('2024-02-29');
    expect(() => dayOf('2025-02-29', 'at')).toThrow(InvalidArgumentError);
    expect(() => dayOf('2025-1-2', 'at')).toThrow(/"at"/);
    expect(() => dayOf(new Date('nope'), 'at')).toThrow(/"at"/);
  });

  it('returns the ISO week, Monday to Sunday, across month and year ends', () => {
    expect(weekDays('2026-01-07')).toEqual([
      '2026-01-05',
      '2026-01-06',
      '2026-01-07',
      '2026-01-08',
      '2026-01-09',
      '2026-01-10',
      '2026-01-11',
    ]);
    expect(weekDays('2026-01-05')[0]).toBe('2026-01-05');
    expect(weekDays('2026-01-11')[0]).toBe('2026-01-05');
    expect(weekDays('2026-01-01')).toEqual([
      '2025-12-29',
      '2025-12-30',
      '2025-12-31',
      '2026-01-01',
      '2026-01-02',
      '2026-01-03',
      '2026-01-04',
    ]);
  });
});
