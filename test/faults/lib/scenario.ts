/**
 * One line of a scenario's outcome.
 * - `promise`: a bound from ../shared/RELIABILITY.md (or a stricter one) and whether the run met it; a failed promise
 *   fails the suite, and with it CI.
 * - `figure`: a measurement reported without a bound (a hazard documented, a latency); never counted as passed.
 * - `unavailable`: the scenario could not run on this machine (the reason says why); never counted as passed, and
 *   not a failure of the library either.
 */
export type CheckKind = 'promise' | 'figure' | 'unavailable';

export interface Check {
  readonly kind: CheckKind;
  /** Catalogue ids this line answers, e.g. `G1 CONN-2 CACHE-4`. */
  readonly ref: string;
  readonly promise: string;
  readonly figure: string;
  /** True for a met promise; false for a broken one; false for figures and unavailable lines (never counted). */
  readonly pass: boolean;
}

/** What a scenario gets from the runner. */
export interface ScenarioContext {
  /** A directory of its own for redis-server data, sentinel configs and logs. */
  readonly dir: string;
  /** Aborted when the scenario's deadline passes; long loops should stop when it is. */
  readonly signal: AbortSignal;
  /**
   * True under `--quick` (what CI runs): fewer repetitions and shorter outages where the catalogue's full recipe
   * would not fit CI's budget; every bound stays the same. The committed report is a full run.
   */
  readonly quick: boolean;
  /** Registers cleanup (stop servers, kill children) that the runner runs even after a deadline. */
  defer(cleanup: () => Promise<void> | void): void;
  /** Progress line on stderr (the report goes to stdout and REPORT.md). */
  log(message: string): void;
  /** Raw figures for the scenario's JSON line. */
  readonly figures: Record<string, unknown>;
}

/** A fault scenario: one file each, its own deadline, one or more checks. */
export interface Scenario {
  readonly id: string;
  readonly title: string;
  /** Deadline of a full run; `quickDeadlineMs` (default: the same) under `--quick`. */
  readonly deadlineMs: number;
  readonly quickDeadlineMs?: number;
  run(context: ScenarioContext): Promise<Check[]>;
}

/** A promise with its bound: `pass` tells whether the measured `figure` met it. */
export function check(ref: string, promise: string, figure: string, pass: boolean): Check {
  return { kind: 'promise', ref, promise, figure, pass };
}

/** A figure reported without a bound (never counted as a passed promise). */
export function figure(ref: string, what: string, value: string): Check {
  return { kind: 'figure', ref, promise: what, figure: value, pass: false };
}

/** A scenario this machine cannot run, and why (never counted as passed). */
export function unavailable(ref: string, promise: string, reason: string): Check {
  return { kind: 'unavailable', ref, promise, figure: reason, pass: false };
}

/** True when the check is a promise that failed. */
export const broken = (c: Check): boolean => c.kind === 'promise' && !c.pass;
