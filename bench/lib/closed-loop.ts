import type { RunResult } from './contender';
import { quantile } from './stats';

/**
 * Runs `op` from `concurrency` workers, each starting its next call as soon as the previous one settles (a closed
 * loop), until `durationMs` has passed. Latency is measured per call with the monotonic clock.
 */
export async function closedLoop(
  op: (worker: number, i: number) => Promise<unknown>,
  concurrency: number,
  durationMs: number,
): Promise<RunResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async (w: number) => {
    for (let i = 0; performance.now() < deadline; i++) {
      const t0 = performance.now();
      try {
        await op(w, i);
        latencies.push(performance.now() - t0);
      } catch (error) {
        // A failed call is not a completed operation: it counts as an error only (a round with any is left out of
        // ratios), so a contender failing fast never looks fast.
        errors++;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  const elapsedMs = performance.now() - started;
  if (firstError) process.stderr.write(`  first error: ${(firstError as Error).message ?? String(firstError)}\n`);
  return {
    ops: latencies.length,
    elapsedMs,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    p999Ms: quantile(latencies, 0.999),
    errors,
  };
}
