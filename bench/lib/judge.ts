import { measuredCleanly, pairedRounds } from './paired-rounds';
import type { DifferenceResult, GroupResult, MinimumResult, RatioResult } from './runner';
import { allOf, judgeRounds, metOf, type Verdict } from './verdict';

/** A ratio's verdict from its within-round ratios. */
export function judgeRatio(r: Pick<RatioResult, 'perRound' | 'target' | 'atMost'>): Verdict | undefined {
  return judgeRounds(r.perRound, { atLeast: r.target, atMost: r.atMost });
}

/**
 * An added cost's verdict: its within-round difference against `atMost`, and, when a peer is named, ours minus the
 * peer inside each round below zero (ours cheaper than the peer in at least three quarters of the rounds).
 */
export function judgeDifference(d: Pick<DifferenceResult, 'perRound' | 'atMost' | 'peer'>): Verdict | undefined {
  return allOf([judgeRounds(d.perRound, { atMost: d.atMost }), d.peer ? judgeRounds(d.peer.versus, { below: 0 }) : undefined]);
}

/** A floor on a contender's ops/s, judged on its error-free rounds. */
export function judgeMinimum(m: Pick<MinimumResult, 'perRound' | 'opsPerSec'>): Verdict | undefined {
  return judgeRounds(m.perRound, { atLeast: m.opsPerSec });
}

/**
 * Sets the verdict (and the `met` kept beside it) of every target of `group` by the rule, from the per-round values
 * the group holds: the ratios' and differences' own, and the contenders' rounds for a comparison with a peer or a
 * floor. Also reads groups written before those per-round values were kept (no differences, no peer rounds).
 */
export function judgeGroup(group: GroupResult): GroupResult {
  group.differences ??= [];
  group.minimums ??= [];
  const rounds = (id: string) => group.contenders.find((c) => c.id === id)?.rounds ?? [];
  for (const r of group.ratios) {
    r.verdict = judgeRatio(r);
    r.met = metOf(r.verdict);
  }
  for (const d of group.differences) {
    if (d.peer) {
      const metric = d.metric;
      d.peer.versus = pairedRounds(rounds(d.numerator), rounds(d.peer.id), (n, p) => n[metric] - p[metric]).values;
    }
    d.verdict = judgeDifference(d);
    d.met = metOf(d.verdict);
  }
  for (const m of group.minimums) {
    m.perRound = rounds(m.contender)
      .filter(measuredCleanly)
      .map((r) => r.opsPerSec);
    m.verdict = judgeMinimum(m);
    m.met = metOf(m.verdict);
  }
  return group;
}
