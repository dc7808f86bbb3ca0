/**
 * The concurrency sweep of the library groups. A closed loop of many callers is the best case for per-turn
 * batching (one reply releases several callers, who resubmit in the same event-loop turn), so every library group is
 * measured at 1 caller (no batching possible), 8 and 64, and each ratio is read at the concurrency it holds at.
 */
export const SWEEP_LEVELS = [1, 8, 64] as const;

/** The concurrency the issues' throughput targets are set at. */
export const HEADLINE_CONCURRENCY = 64;

/** The target every peer ratio holds at 8 callers, where most services live (issue 32). */
export const MODERATE_TARGET = 1.2;

/**
 * The target of an "ours / peer" throughput ratio at `concurrency`: the issue's own target at the headline
 * concurrency; 1.0 for a lone caller (batching must never cost a caller who has nothing to batch with); at 8 callers
 * {@link MODERATE_TARGET}, or the headline target where that is lower (a ≥ 1.0× parity target holds at every level).
 */
export function peerTargetAt(concurrency: number, headlineTarget: number | undefined): number | undefined {
  if (concurrency === HEADLINE_CONCURRENCY) return headlineTarget;
  if (concurrency === 1) return 1.0;
  if (concurrency === 8) return Math.min(MODERATE_TARGET, headlineTarget ?? MODERATE_TARGET);
  return undefined;
}
