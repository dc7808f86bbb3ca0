import { openLoop } from '../../bench/lib/open-loop';
import { pairedRounds } from '../../bench/lib/paired-rounds';
import { brokenContenders, type GroupResult, type RoundSample } from '../../bench/lib/runner';

const round = (n: number, extra: Partial<RoundSample> = {}): RoundSample => ({
  round: n,
  opsPerSec: 1000,
  p50Ms: 1,
  p99Ms: 2,
  p999Ms: 3,
  clientCpuUsPerOp: 10,
  redisCpuUsPerOp: 5,
  commandsPerOp: 1,
  readsPerOp: 1,
  errors: 0,
  ...extra,
});

// An open-loop contender that cannot keep up with the offered rate has measured something (it fell behind), not
// broken: the shortfall is reported apart from failed calls, its rounds leave the ratios, and the run still passes.
describe('open-loop shortfall', () => {
  it('counts arrivals dropped at the in-flight bound and unfinished at the drain deadline as shortfall, not errors', async () => {
    const never = () => new Promise<never>(() => undefined);
    const result = await openLoop(never, 1000, 20, { maxInFlight: 5, drainDeadlineMs: 30 });
    expect(result.errors).toBe(0);
    expect(result.ops).toBe(0);
    expect(result.shortfall).toBe(20);
  }, 5_000);

  it('counts a thrown call as an error and a served one as neither', async () => {
    let i = 0;
    const result = await openLoop(() => (i++ % 2 ? Promise.reject(new Error('boom')) : Promise.resolve()), 1000, 10);
    expect(result.errors).toBe(5);
    expect(result.ops).toBe(5);
    expect(result.shortfall).toBe(0);
  }, 5_000);

  it('leaves a round in which either side fell behind out of the ratios', () => {
    const ours = [round(0), round(1), round(2)];
    const peer = [round(0), round(1, { shortfall: 300 }), round(2)];
    const { values, excluded } = pairedRounds(ours, peer, (n, d) => n.opsPerSec / d.opsPerSec);
    expect(values).toEqual([1, 1]);
    expect(excluded).toBe(1);
  });

  it('does not call a contender that fell behind in every round broken, but does one that failed in every round', () => {
    const group = (rounds: RoundSample[]): GroupResult => ({
      id: 'latency',
      title: 't',
      unit: 'u',
      load: 'l',
      contenders: [{ id: 'peer', label: 'peer', rounds }],
      ratios: [],
      differences: [],
      minimums: [],
    });
    expect(brokenContenders([group([round(0, { shortfall: 10 }), round(1, { shortfall: 7 })])])).toEqual([]);
    expect(brokenContenders([group([round(0, { errors: 1 }), round(1, { errors: 2 })])])).toHaveLength(1);
  });
});
