import { httpAnswer } from '../errors/http-answer';
import type { HttpResponseSpec } from '../errors/http-mappable';
import { AnsweredRedisPatternsError } from '../errors/redis-patterns.error';

/**
 * A cached call stopped waiting for its loader at `hardTimeoutMs` and had no value past its fresh TTL to answer with.
 * The load goes on in the background and may still fill the entry for later calls. Over HTTP it answers 504: the
 * data source, not Redis, was too slow.
 */
export class CacheLoadTimeoutError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'CACHE_LOAD_TIMEOUT';

  constructor(
    /** The hard timeout that passed, in ms. */
    readonly hardTimeoutMs: number,
  ) {
    super(`The cache's loader did not finish within its hard timeout of ${hardTimeoutMs} ms, and no earlier value could answer.`);
  }

  /** 504 Gateway Timeout. */
  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(504, 'The data source did not answer in time.');
  }
}
