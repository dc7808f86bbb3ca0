/**
 * The three windows of the rate-limit-multi group (a burst limit, a per-minute and a per-hour limit), as the HTTP
 * apps configure them. Every request of a run comes from 127.0.0.1, so all of them count against one client's
 * budget: the limits are set far above anything a run sends, so every request takes the allowed path, which is the
 * one that costs work (the library group's limits, 1,000/s and 10,000/min, hold there only because it spreads its
 * calls over 100,000 client keys).
 */
export const RATE_LIMIT_WINDOWS = [
  { name: 'short', windowMs: 1_000 },
  { name: 'medium', windowMs: 60_000 },
  { name: 'long', windowMs: 3_600_000 },
] as const;

/** A limit no benchmark run reaches from one client address. */
export const UNREACHED_LIMIT = 1_000_000_000;

/** The window of the one-policy rows: the per-minute one. */
export const SINGLE_WINDOW = RATE_LIMIT_WINDOWS[1];
