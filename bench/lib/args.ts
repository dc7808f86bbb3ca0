import type { RunPlan } from './runner';
import { SWEEP_LEVELS } from './sweep';

/** Command-line options of `npm run bench`. */
export interface BenchArgs {
  quick: boolean;
  /** Only these group ids (e.g. `--only cache,lock`); all when empty. */
  only: string[];
  /** Only these contender ids inside the selected groups (e.g. to profile one: `--contenders ours`). */
  contenders: string[];
  /** Where the report goes (default: bench/ for a full run, a temp folder for --quick). */
  out?: string;
  plan: RunPlan;
  /** The plan of the sweep's levels below the headline concurrency (fewer rounds: those ratios carry no issue target but 1.0). */
  sweepPlan: RunPlan;
  /** Concurrency levels of the library groups (`--concurrency 1,64`; default 1, 8 and 64). */
  sweep: number[];
  http: { rounds: number; durationS: number; connections: number };
}

/** Parses `--quick`, `--only a,b`, `--contenders x,y`, `--out dir`, `--rounds n`, `--concurrency 1,8,64` and `--http-seconds s`. */
export function parseArgs(argv: string[]): BenchArgs {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  const quick = argv.includes('--quick');
  const given = value('--rounds');
  const rounds = positive('--rounds', Number(given ?? (quick ? 2 : 7)));
  const sweep = (value('--concurrency') ?? SWEEP_LEVELS.join(',')).split(',').map((c) => positive('--concurrency', Number(c)));
  return {
    quick,
    only: (value('--only') ?? '').split(',').filter(Boolean),
    contenders: (value('--contenders') ?? '').split(',').filter(Boolean),
    out: value('--out'),
    // Full run: 7 rounds of 1 s per contender at the headline concurrency, 5 at the other levels of the sweep (on
    // a noisy 2-core machine the median of 5 rounds still moved by ±0.3 between runs; the sweep triples the library
    // groups, so the rounds are what the run's time allows). Quick: 2 rounds of 0.3 s (a smoke test, not a measurement).
    plan: quick ? { rounds, durationMs: 300, warmupMs: 100, probeOps: 20 } : { rounds, durationMs: 1000, warmupMs: 700, probeOps: 200 },
    sweepPlan: quick
      ? { rounds, durationMs: 300, warmupMs: 100, probeOps: 20 }
      : { rounds: Number(given ?? 5), durationMs: 1000, warmupMs: 500, probeOps: 200 },
    sweep,
    // HTTP: 6 rounds of 2 s per route (four groups of nine routes); quick: 1 round of 1 s.
    http: quick
      ? { rounds: Number(given ?? 1), durationS: 1, connections: 32 }
      : { rounds: Number(given ?? 6), durationS: positive('--http-seconds', Number(value('--http-seconds') ?? 2)), connections: 32 },
  };
}

function positive(option: string, n: number): number {
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${option} expects a positive number`);
  return n;
}
