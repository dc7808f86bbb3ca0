import type { RunPlan } from './runner';

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
  http: { rounds: number; durationS: number; connections: number };
}

/** Parses `--quick`, `--only a,b`, `--contenders x,y`, `--out dir`, `--rounds n` and `--http-seconds s`. */
export function parseArgs(argv: string[]): BenchArgs {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  const quick = argv.includes('--quick');
  const given = value('--rounds');
  const rounds = positive('--rounds', Number(given ?? (quick ? 2 : 9)));
  return {
    quick,
    only: (value('--only') ?? '').split(',').filter(Boolean),
    contenders: (value('--contenders') ?? '').split(',').filter(Boolean),
    out: value('--out'),
    // Full run: 9 rounds of 1 s per contender (on a noisy 2-core machine the median of 5 rounds still moved by
    // ±0.3 between runs; more, shorter rounds steady it at the same total time); HTTP: 7 rounds of 3 s.
    // Quick: 2 rounds of 0.4 s (a smoke test, not a measurement).
    plan: quick ? { rounds, durationMs: 400, warmupMs: 150, probeOps: 50 } : { rounds, durationMs: 1000, warmupMs: 700, probeOps: 200 },
    http: quick
      ? { rounds, durationS: 1, connections: 32 }
      : { rounds: Number(given ?? 7), durationS: positive('--http-seconds', Number(value('--http-seconds') ?? 3)), connections: 32 },
  };
}

function positive(option: string, n: number): number {
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${option} expects a positive number`);
  return n;
}
