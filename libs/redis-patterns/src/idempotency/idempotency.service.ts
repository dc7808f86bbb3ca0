import { Inject, Injectable } from '@nestjs/common';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { checkFingerprint, checkMs, checkOnConcurrent, type IdempotencyExecuteOptions } from './execute-options';
import { IDEMPOTENCY_SETTINGS, type IdempotencySettings } from './idempotency.options';
import { IdempotencyRuntime } from './idempotency.runtime';
import { httpExceptionOutcome, replayOutcome } from './idempotent-call';

/**
 * Runs an operation at most once per idempotency key: the first call runs and its result is stored (for `ttlMs`),
 * a duplicate gets that result, a duplicate arriving while the first runs waits for it (or gets a conflict), and a
 * failed first call stores nothing so a retry runs again. Claiming and completing are one Lua script each, time and
 * TTLs are Redis'. `@Idempotent` uses it around methods; call it directly around any work (a message handler, a job).
 *
 * @example
 * const receipt = await idempotency.execute(`charge:${message.id}`, () => payments.charge(order), { ttlMs: 86_400_000 });
 */
@Injectable()
export class IdempotencyService {
  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    @Inject(IDEMPOTENCY_SETTINGS) private readonly settings: IdempotencySettings,
    private readonly runtime: IdempotencyRuntime,
  ) {}

  /**
   * Runs `work` once for `key` (within `ttlMs`), or returns (throws) what its first run stored.
   *
   * @throws IdempotencyNotClaimedError (reason `in-progress`) while a first call with this key runs (at once, or after `waitMs`)
   * @throws IdempotencyKeyReusedError when the key was used with another `fingerprint`
   * @throws IdempotencyNotClaimedError (reason `unavailable`) when Redis cannot answer and the call fails closed
   */
  async execute<T>(key: string, work: () => T | Promise<T>, options: IdempotencyExecuteOptions = {}): Promise<T> {
    if (typeof key !== 'string' || key.length === 0) throw new InvalidArgumentError('key', 'expected a non-empty string');
    const scope = options.scope ?? 'default';
    if (typeof scope !== 'string' || scope.length === 0) throw new InvalidArgumentError('options.scope', 'expected a non-empty string');
    const run = await this.runtime.run<T>(
      {
        recordKey: this.runtime.recordKey(scope, undefined, key),
        scope: `scope "${scope}"`,
        fingerprint: checkFingerprint(options.fingerprint),
        ttlMs: checkMs(options.ttlMs, 'options.ttlMs', 1) ?? this.settings.defaultTtlMs,
        onConcurrent: checkOnConcurrent(options.onConcurrent),
        waitMs: checkMs(options.waitMs, 'options.waitMs', 0) ?? this.settings.defaultWaitMs,
        failOpen: options.failOpen ?? this.settings.failOpen,
        failureOutcome: options.storeFailures ? httpExceptionOutcome : undefined,
      },
      async () => {
        const value = await work();
        return { value, outcome: { kind: 'value', body: value } };
      },
    );
    return run.replayed ? (replayOutcome(run.outcome) as T) : run.value;
  }
}
