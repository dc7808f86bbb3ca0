import { describeValue } from '../core/options/option-checks';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RateLimitIdentityError } from './rate-limit-identity.error';

/**
 * The key of a budget: one string, or its parts. Each part is escaped on its own, so `['otp', 'sms:42']` and
 * `['otp:sms', '42']` are two budgets, and no list of parts shares a budget with another list. A `@RateLimit`
 * budget is `[limiter name, tracker]` (`[limiter name]` without a tracker, `[generateKey(…)]` with
 * `rateLimit.generateKey`): pass those parts to `refund`, `penalize` or `reset` to reach a decorated call's budget.
 */
export type RateLimitKey = string | readonly string[];

/** Validates a key given to the service: a non-empty string, or a non-empty list of non-empty strings. */
export function keyParts(key: unknown): readonly string[] {
  if (typeof key === 'string') {
    if (key.length > 0) return [key];
  } else if (Array.isArray(key) && key.length > 0) {
    key.forEach((part: unknown, i) => {
      if (typeof part !== 'string' || part.length === 0)
        throw new InvalidArgumentError(`key[${i}]`, `expected a non-empty string, received ${describeValue(part)}`);
    });
    return key as readonly string[];
  }
  throw new InvalidArgumentError('key', `expected a non-empty string or a non-empty array of them, received ${describeValue(key)}`);
}

/** How a key reads in errors and logs. */
export function keyLabel(parts: readonly string[]): string {
  return parts.length === 1 ? parts[0] : parts.join(':');
}

/**
 * The tracker a `key` function, `rateLimit.getTracker` or `rateLimit.generateKey` returned, as a key part. Only a
 * non-empty string or a finite number names a caller: `undefined`, `null`, `''`, `NaN` or an object would put every
 * caller it is returned for in one budget (`"undefined"`, `"[object Object]"`), so the call is refused instead.
 */
export function trackerPart(value: unknown, limiter: string, source: string): string {
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new RateLimitIdentityError(
    limiter,
    `${source} returned ${describeValue(value)}, which would count every such caller in one shared budget`,
    'Return a non-empty string or a finite number for every call, e.g. fall back to the client address: `(req) => req.user?.id ?? clientAddress(req, hops)`',
  );
}
