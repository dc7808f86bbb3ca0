import { RedisRefusedError } from '../errors/redis-refused.error';

/**
 * The {@link RedisRefusedError} an error is, or was caused by (a quorum failure wraps the first node's error), if
 * any. A refusal is a configuration error: the caller rethrows it as is instead of reporting Redis unavailable.
 */
export function refusalIn(error: unknown): RedisRefusedError | undefined {
  for (let depth = 0; depth < 5 && error !== undefined && error !== null; depth++) {
    if (error instanceof RedisRefusedError) return error;
    error = (error as { cause?: unknown }).cause;
  }
  return undefined;
}
