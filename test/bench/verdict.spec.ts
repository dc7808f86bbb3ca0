import { judgeDifference, judgeGroup, judgeMinimum, judgeRatio } from '../../bench/lib/judge';
import type { GroupResult, RoundSample } from '../../bench/lib/runner';
import { lowerQuartile, summarize, upperQuartile } from '../../bench/lib/stats';
import { judgeRounds } from '../../bench/lib/verdict';

// The performance bar: a target is met only when at least three quarters of the rounds meet it (p25 for "≥ X", p75
// for "≤ X"), never by the median alone.
describe('benchmark verdicts by the rule of three quarters of the rounds', () => {
  // Median 1.6, but only 5 of 7 rounds reach 1.5 (6 are needed): p25, the 2nd smallest, is 1.2.
  const medianOnly = [1.1, 1.2, 1.55, 1.6, 1.7, 1.8, 1.9];
  // 6 of 7 rounds reach 1.5: p25 = 1.52.
  const byP25 = [1.1, 1.52, 1.55, 1.6, 1.7, 1.8, 1.9];

  it('a "≥ X" target met by the median but missed by the p25 is missed', () => {
    expect(summarize(medianOnly).median).toBeGreaterThanOrEqual(1.5);
    expect(lowerQuartile(medianOnly)).toBeLessThan(1.5);
    expect(judgeRounds(medianOnly, { atLeast: 1.5 })).toBe('missed');
    expect(judgeRatio({ perRound: medianOnly, target: 1.5 })).toBe('missed');
  });

  it('a "≥ X" target met by the p25 is met', () => {
    expect(lowerQuartile(byP25)).toBe(1.52);
    expect(judgeRatio({ perRound: byP25, target: 1.5 })).toBe('met');
  });

  it('a "≤ X" target is judged on the p75: met by the median but not by three quarters of the rounds is missed', () => {
    const cost = [0.3, 0.35, 0.4, 0.45, 0.52, 0.6, 0.7];
    expect(summarize(cost).median).toBeLessThanOrEqual(0.5);
    expect(upperQuartile(cost)).toBe(0.6);
    expect(judgeRatio({ perRound: cost, atMost: 0.5 })).toBe('missed');
    expect(judgeRatio({ perRound: [0.3, 0.35, 0.4, 0.45, 0.48, 0.5, 0.7], atMost: 0.5 })).toBe('met');
  });

  it('the quartiles are "at least three quarters of the rounds", by count, for every round count', () => {
    for (let n = 1; n <= 12; n++) {
      const values = Array.from({ length: n }, (_, i) => i + 1);
      const reaching = values.filter((v) => v >= lowerQuartile(values)).length;
      expect(reaching).toBe(Math.ceil((3 * n) / 4));
      expect(values.filter((v) => v <= upperQuartile(values)).length).toBe(reaching);
    }
  });

  it('says when a target cannot be judged: no target, no rounds recorded, no round measured', () => {
    expect(judgeRatio({ perRound: byP25 })).toBeUndefined();
    expect(judgeRounds(undefined, { atLeast: 1 })).toBe('not judged by rounds');
    expect(judgeRatio({ perRound: [], target: 1 })).toBe('not measured');
  });

  it('an added cost below a peer is judged round by round: cheaper than the peer in three quarters of them', () => {
    const cheap = { perRound: [1, 2, 3, 4], atMost: 10 };
    expect(judgeDifference({ ...cheap, peer: { id: 'p', summary: summarize([]), versus: [-5, -4, -3, 2] } })).toBe('met');
    expect(judgeDifference({ ...cheap, peer: { id: 'p', summary: summarize([]), versus: [-5, -4, 3, 2] } })).toBe('missed');
    expect(judgeMinimum({ perRound: [90, 100, 110, 120], opsPerSec: 100 })).toBe('met');
    expect(judgeMinimum({ perRound: [90, 95, 110, 120], opsPerSec: 100 })).toBe('missed');
  });

  it('re-judges a stored group from its rounds, whatever verdict it was stored with', () => {
    const round = (r: number, opsPerSec: number, clientCpuUsPerOp = 0): RoundSample => ({
      round: r,
      opsPerSec,
      clientCpuUsPerOp,
      p50Ms: 0,
      p99Ms: 0,
      p999Ms: 0,
      redisCpuUsPerOp: 0,
      commandsPerOp: 0,
      readsPerOp: 0,
      errors: 0,
    });
    const group = {
      id: 'g',
      title: 'g',
      unit: 'op',
      load: 'closed loop',
      contenders: [
        { id: 'ours', label: 'ours', rounds: [100, 200, 300, 400].map((v, r) => round(r, v, v)) },
        { id: 'peer', label: 'peer', rounds: [500, 500, 500, 100].map((v, r) => round(r, v, v)) },
      ],
      ratios: [
        {
          label: 'r',
          numerator: 'ours',
          denominator: 'peer',
          metric: 'opsPerSec',
          target: 1.5,
          perRound: medianOnly,
          excludedRounds: 0,
          summary: summarize(medianOnly),
          met: true,
        },
      ],
      differences: [
        {
          label: 'd',
          numerator: 'ours',
          baseline: 'peer',
          metric: 'clientCpuUsPerOp',
          perRound: [1],
          excludedRounds: 0,
          summary: summarize([1]),
          peer: { id: 'peer', summary: summarize([]) },
          met: true,
        },
      ],
      minimums: [{ label: 'm', contender: 'ours', opsPerSec: 150, met: true }],
    } as GroupResult;
    judgeGroup(group);
    expect(group.ratios[0]).toMatchObject({ verdict: 'missed', met: false });
    // ours − peer per round: -400, -300, -200, 300: below the peer in 3 of 4 rounds.
    expect(group.differences[0].peer?.versus).toEqual([-400, -300, -200, 300]);
    expect(group.differences[0]).toMatchObject({ verdict: 'met', met: true });
    // 3 of 4 rounds at or above 150/s.
    expect(group.minimums[0]).toMatchObject({ perRound: [100, 200, 300, 400], verdict: 'met', met: true });
  });
});
