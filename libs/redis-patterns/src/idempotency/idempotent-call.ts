import { HttpException } from '@nestjs/common';
import type { StoredOutcome } from './idempotency-record';

/** One call under an idempotency key, as the service runs it (prepared by `execute` or by `@Idempotent`). */
export interface IdempotentCall {
  /** The record's Redis key (scope, identity and key, escaped; see idempotencyRecordKey). */
  readonly recordKey: string;
  /** What errors and logs name: the decorated method or the `execute` scope (never the key: it is the client's). */
  readonly scope: string;
  /** The payload's fingerprint (`''`: none, any payload matches). */
  readonly fingerprint: string;
  /** How long a completed outcome is kept, in ms. */
  readonly ttlMs: number;
  readonly onConcurrent: 'wait' | 'reject';
  readonly waitMs: number;
  readonly failOpen: boolean;
  /** The outcome to store when the first call throws (`storeFailures`); undefined: nothing is stored. */
  readonly failureOutcome?: (error: unknown) => StoredOutcome | undefined;
}

/** What a first call returned, and what of it to store (`undefined`: a failure, not stored; a retry runs again). */
export interface FirstCall<T> {
  readonly value: T;
  readonly outcome: StoredOutcome | undefined;
}

/** A call's result: its own run, or the replay of the first call's stored outcome. */
export type IdempotentRun<T> =
  { readonly replayed: false; readonly value: T } | { readonly replayed: true; readonly outcome: StoredOutcome };

/** What a duplicate gets: the stored value, or the stored HttpException thrown again. */
export function replayOutcome(outcome: StoredOutcome): unknown {
  if (outcome.kind === 'error') throw new HttpException(outcome.body as string | Record<string, unknown>, outcome.status ?? 500);
  return outcome.body;
}

/** `storeFailures`: an HttpException is an answer worth replaying; any other error is treated as transient. */
export function httpExceptionOutcome(error: unknown): StoredOutcome | undefined {
  if (!(error instanceof HttpException)) return undefined;
  return { kind: 'error', status: error.getStatus(), body: error.getResponse() };
}
