import { InvalidArgumentError } from '../errors/invalid-argument.error';

/** A day of a time-windowed board: a `Date` (its UTC day) or `'YYYY-MM-DD'`. */
export type DayInput = Date | string;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** `'YYYY-MM-DD'` of a UTC day. */
export function dayOf(input: DayInput, argument: string): string {
  let date: Date;
  if (input instanceof Date) {
    date = input;
  } else {
    const match = typeof input === 'string' ? DAY.exec(input) : null;
    date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : new Date(NaN);
    if (match && date.toISOString().slice(0, 10) !== input) date = new Date(NaN);
  }
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError(argument, "expected a valid Date or a 'YYYY-MM-DD' day");
  return date.toISOString().slice(0, 10);
}

/** The seven days (UTC, Monday first, ISO weeks) of the week that contains `day`. */
export function weekDays(day: string): string[] {
  const time = Date.parse(`${day}T00:00:00Z`);
  const weekday = (new Date(time).getUTCDay() + 6) % 7; // Monday = 0
  const monday = time - weekday * DAY_MS;
  return Array.from({ length: 7 }, (_, i) => new Date(monday + i * DAY_MS).toISOString().slice(0, 10));
}
