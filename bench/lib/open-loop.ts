import type { RunResult } from './contender';
import { quantile } from './stats';

/** Limits of an open-loop run. */
export interface OpenLoopLimits {
  /** Arrivals beyond this many operations in flight are dropped and counted in the shortfall (default 10,000). */
  maxInFlight?: number;
  /** How long to wait after the last arrival for the operations still in flight; unfinished ones are shortfall (default 2 s). */
  drainDeadlineMs?: number;
}

/** The limits used when a run gives none. */
export const OPEN_LOOP_DEFAULTS = { maxInFlight: 10_000, drainDeadlineMs: 2_000 } as const;

/**
 * Starts `op` at a fixed rate of `ratePerSec` for `durationMs`, whether or not earlier calls have finished (an
 * open loop), and measures each call's latency from its **intended** start time: a stall of the process or of
 * Redis delays the calls behind it and shows in their latency instead of silently lowering the offered load
 * (no coordinated omission). `ops` counts successful calls, `errors` failed ones, `shortfall` the arrivals dropped
 * (more than `maxInFlight` in flight) or unfinished (still running at the drain deadline): the contender fell behind
 * the rate; p50/p99/p99.9 are nearest-rank quantiles over
 * the successful calls; `elapsedMs` runs from the first intended start to the last completion.
 */
export function openLoop(
  op: (i: number) => Promise<unknown>,
  ratePerSec: number,
  durationMs: number,
  limits: OpenLoopLimits = {},
): Promise<RunResult> {
  if (!(ratePerSec > 0) || !Number.isFinite(ratePerSec)) return Promise.reject(new Error(`openLoop: invalid rate ${ratePerSec}/s`));
  const maxInFlight = limits.maxInFlight ?? OPEN_LOOP_DEFAULTS.maxInFlight;
  const drainDeadlineMs = limits.drainDeadlineMs ?? OPEN_LOOP_DEFAULTS.drainDeadlineMs;
  const intervalMs = 1000 / ratePerSec;
  const arrivals = Math.max(1, Math.ceil((durationMs * ratePerSec) / 1000));
  const latencies = new Float64Array(arrivals);

  return new Promise<RunResult>((resolve) => {
    let succeeded = 0;
    let errors = 0;
    let shortfall = 0;
    let firstError: unknown;
    let inFlight = 0;
    let next = 0;
    let finished = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const started = performance.now();
    let lastCompletion = started;

    const finish = () => {
      if (finished) return;
      finished = true;
      if (drainTimer) clearTimeout(drainTimer);
      // Calls still running at the deadline were not served on schedule; their later completion is ignored.
      shortfall += inFlight;
      const end = inFlight > 0 ? performance.now() : lastCompletion;
      if (firstError) process.stderr.write(`  first error: ${(firstError as Error).message ?? String(firstError)}\n`);
      if (shortfall > 0) process.stderr.write(`  fell behind: ${shortfall} of ${arrivals} arrivals not served on schedule\n`);
      const measured = latencies.subarray(0, succeeded);
      resolve({
        ops: succeeded,
        elapsedMs: end - started,
        p50Ms: quantile(measured, 0.5),
        p99Ms: quantile(measured, 0.99),
        p999Ms: quantile(measured, 0.999),
        errors,
        shortfall,
      });
    };
    const settled = () => {
      inFlight--;
      lastCompletion = performance.now();
      if (next === arrivals && inFlight === 0) finish();
    };
    const failed = (error: unknown) => {
      if (finished) return;
      errors++;
      firstError ??= error;
      settled();
    };
    const start = (i: number, intended: number) => {
      let call: Promise<unknown>;
      try {
        call = op(i);
      } catch (error) {
        call = Promise.reject(error);
      }
      call.then(() => {
        if (finished) return;
        latencies[succeeded++] = performance.now() - intended;
        settled();
      }, failed);
    };

    // Node timers fire no more often than every ~1 ms and late under load, so each tick starts every arrival whose
    // intended time has passed, in one batch. Measuring from the intended time charges the timer's lateness to the
    // calls (the same for every contender at a rate), which is what a caller arriving on schedule would see.
    const tick = () => {
      const now = performance.now();
      for (; next < arrivals; next++) {
        const intended = started + next * intervalMs;
        if (intended > now) break;
        if (inFlight >= maxInFlight) {
          shortfall++;
          continue;
        }
        inFlight++;
        start(next, intended);
      }
      if (next < arrivals) {
        setTimeout(tick, Math.max(0, started + next * intervalMs - performance.now()));
      } else if (inFlight === 0) {
        finish();
      } else {
        drainTimer = setTimeout(finish, drainDeadlineMs);
      }
    };
    tick();
  });
}
