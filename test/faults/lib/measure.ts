import { performance } from 'node:perf_hooks';

/** The p-th percentile (0–100) of a list of numbers, 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[index] * 10) / 10;
}

/** Milliseconds on the monotonic clock. */
export const now = (): number => performance.now();

/** Pacing delay for load generators (never used to wait for a condition: use waitFor for that). */
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 10 ms until it is true; throws after `timeoutMs` with `what`. Returns the ms waited. */
export async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<number> {
  const start = now();
  for (;;) {
    try {
      if (await check()) return now() - start;
    } catch {
      // not yet
    }
    if (now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await pause(10);
  }
}

/** Counts occurrences by key. */
export function tally<K extends string | number>(values: readonly K[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1;
  return counts;
}

export const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
