import type { BenchGroup, Contender, DifferenceSpec, RatioSpec, RoundMetric, RunResult } from './contender';
import { judgeGroup } from './judge';
import { measuredCleanly, pairedRounds } from './paired-rounds';
import { PrivateRedis } from './private-redis';
import { median, summarize, type Summary } from './stats';
import type { Verdict } from './verdict';

/** One contender's numbers in one round. */
export interface RoundSample {
  round: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  clientCpuUsPerOp: number;
  redisCpuUsPerOp: number;
  commandsPerOp: number;
  readsPerOp: number;
  errors: number;
  /** Open-loop arrivals not served on schedule (see RunResult.shortfall); absent in closed loops. */
  shortfall?: number;
}

/** Commands and socket reads per operation at concurrency 1 (no batching across operations). */
export interface ProbeResult {
  commandsPerOp: number;
  roundTripsPerOp: number;
  byCommand: Record<string, number>;
}

export interface ContenderResult {
  id: string;
  label: string;
  unavailable?: string;
  rounds: RoundSample[];
  probe?: ProbeResult;
  summary?: Record<Exclude<keyof RoundSample, 'round'>, Summary>;
}

export interface RatioResult {
  label: string;
  numerator: string;
  /** The denominator used: the peer row with the higher median ops/s when the spec listed several. */
  denominator: string;
  /** The rows the denominator was chosen from, when the spec listed several. */
  candidates?: string[];
  metric: RoundMetric;
  target?: number;
  atMost?: number;
  perRound: number[];
  /** Rounds left out because either side had errors in them. */
  excludedRounds: number;
  summary: Summary;
  /** By the rule: three quarters of `perRound` meet the target (see verdict.ts); undefined without a target. */
  verdict?: Verdict;
  /** `verdict === 'met'`, false when missed, undefined otherwise. */
  met?: boolean;
}

export interface DifferenceResult extends Omit<DifferenceSpec, 'peer'> {
  perRound: number[];
  excludedRounds: number;
  summary: Summary;
  /** `peer - baseline` inside each round, when the spec names a peer; `versus` is ours minus the peer per round. */
  peer?: { id: string; summary: Summary; versus?: number[] };
  /** By the rule, on `perRound` against `atMost` and on `peer.versus` below zero. */
  verdict?: Verdict;
  met?: boolean;
}

export interface MinimumResult {
  label: string;
  contender: string;
  opsPerSec: number;
  measured?: Summary;
  /** The contender's ops/s in each error-free round. */
  perRound?: number[];
  verdict?: Verdict;
  met?: boolean;
}

export interface GroupResult {
  id: string;
  title: string;
  unit: string;
  load: string;
  /** Concurrent callers of the closed loop, for groups measured at several (the concurrency sweep). */
  concurrency?: number;
  contenders: ContenderResult[];
  ratios: RatioResult[];
  differences: DifferenceResult[];
  minimums: MinimumResult[];
}

export interface RunPlan {
  rounds: number;
  durationMs: number;
  warmupMs: number;
  probeOps: number;
}

const METRICS = [
  'opsPerSec',
  'p50Ms',
  'p99Ms',
  'p999Ms',
  'clientCpuUsPerOp',
  'redisCpuUsPerOp',
  'commandsPerOp',
  'readsPerOp',
  'errors',
] as const;

/**
 * Measures a group: setup, a warm-up of every contender, then `rounds` rounds in which every contender runs once
 * for `durationMs`, in an order rotated each round so that no contender always runs first (or last, after the
 * others' garbage). Ratios are computed inside each round, then summarised by their median and range, so a slow
 * stretch of a noisy machine shifts both sides of a ratio instead of one; a target is judged on those rounds by
 * the rule of verdict.ts (three quarters of them), never on the median.
 */
export async function runGroup(group: BenchGroup, redis: PrivateRedis, plan: RunPlan, log: (line: string) => void): Promise<GroupResult> {
  const results = new Map<string, ContenderResult>();
  const live: Contender[] = [];
  for (const contender of group.contenders) {
    const result: ContenderResult = { id: contender.id, label: contender.label, unavailable: contender.unavailable, rounds: [] };
    results.set(contender.id, result);
    if (contender.unavailable) continue;
    try {
      await contender.setup?.();
      // A label may name what setup measured (e.g. an arrival rate derived from a peer's capacity).
      result.label = contender.label;
      live.push(contender);
    } catch (error) {
      result.unavailable = `setup failed: ${(error as Error).message}`;
    }
  }
  try {
    for (const contender of live) {
      await contender.prepare?.(plan.warmupMs);
      await contender.run(plan.warmupMs);
    }
    if (group.probe) for (const contender of live) results.get(contender.id)!.probe = await probe(contender, redis, plan.probeOps);
    for (let round = 0; round < plan.rounds; round++) {
      const order = live.map((_, i) => live[(i + round) % live.length]);
      for (const contender of order) {
        const sample = await measure(contender, redis, plan.durationMs, round);
        results.get(contender.id)!.rounds.push(sample);
        log(
          `  ${group.id} r${round + 1} ${contender.label}: ${Math.round(sample.opsPerSec)} ops/s${sample.errors ? ` (${sample.errors} errors)` : ''}${sample.shortfall ? ` (fell behind: ${sample.shortfall} arrivals not served)` : ''}`,
        );
      }
    }
  } finally {
    for (const contender of live) await contender.teardown?.().catch(() => undefined);
  }
  for (const result of results.values()) {
    if (result.rounds.length === 0) continue;
    result.summary = Object.fromEntries(METRICS.map((m) => [m, summarize(result.rounds.map((r) => r[m]))])) as ContenderResult['summary'];
  }
  const ratios = group.ratios.map((spec) => ratioOf(spec, results));
  const differences = (group.differences ?? []).map((spec) => differenceOf(spec, results));
  const minimums = (group.minimums ?? []).map((spec): MinimumResult => {
    return { ...spec, measured: results.get(spec.contender)?.summary?.opsPerSec };
  });
  return judgeGroup({
    id: group.id,
    title: group.title,
    unit: group.unit,
    load: group.load,
    concurrency: group.concurrency,
    contenders: [...results.values()],
    ratios,
    differences,
    minimums,
  });
}

/** The candidate with the higher median ops/s over its error-free rounds: a peer at its best configuration. */
function bestOf(candidates: readonly string[], results: Map<string, ContenderResult>): string {
  let best = candidates[0];
  let bestOps = -1;
  for (const id of candidates) {
    const ops = median((results.get(id)?.rounds ?? []).filter(measuredCleanly).map((r) => r.opsPerSec));
    if (Number.isFinite(ops) && ops > bestOps) [best, bestOps] = [id, ops];
  }
  return best;
}

function ratioOf(spec: RatioSpec, results: Map<string, ContenderResult>): RatioResult {
  const metric = spec.metric ?? 'opsPerSec';
  const candidates = typeof spec.denominator === 'string' ? undefined : [...spec.denominator];
  const denominator = candidates ? bestOf(candidates, results) : (spec.denominator as string);
  const { values, excluded } = pairedRounds(results.get(spec.numerator)?.rounds ?? [], results.get(denominator)?.rounds ?? [], (n, d) =>
    d[metric] > 0 ? n[metric] / d[metric] : Number.NaN,
  );
  return { ...spec, denominator, candidates, metric, perRound: values, excludedRounds: excluded, summary: summarize(values) };
}

function differenceOf(spec: DifferenceSpec, results: Map<string, ContenderResult>): DifferenceResult {
  const rounds = (id: string) => results.get(id)?.rounds ?? [];
  const minus = (n: RoundSample, d: RoundSample) => n[spec.metric] - d[spec.metric];
  const own = pairedRounds(rounds(spec.numerator), rounds(spec.baseline), minus);
  const summary = summarize(own.values);
  const peer = spec.peer
    ? { id: spec.peer, summary: summarize(pairedRounds(rounds(spec.peer), rounds(spec.baseline), minus).values) }
    : undefined;
  const { peer: _peer, ...rest } = spec;
  return { ...rest, perRound: own.values, excludedRounds: own.excluded, summary, peer };
}

async function measure(contender: Contender, redis: PrivateRedis, durationMs: number, round: number): Promise<RoundSample> {
  await contender.prepare?.(durationMs);
  const before = await redis.sample();
  const cpu = process.cpuUsage();
  const result: RunResult = await contender.run(durationMs);
  const cpuUsed = process.cpuUsage(cpu);
  const server = PrivateRedis.delta(before, await redis.sample());
  const ops = Math.max(1, result.ops);
  return {
    round,
    opsPerSec: (result.ops * 1000) / result.elapsedMs,
    p50Ms: result.p50Ms ?? Number.NaN,
    p99Ms: result.p99Ms ?? Number.NaN,
    p999Ms: result.p999Ms ?? Number.NaN,
    clientCpuUsPerOp: (result.clientCpuUs ?? cpuUsed.user + cpuUsed.system) / ops,
    redisCpuUsPerOp: (result.redisCpuUs ?? server.cpuUs) / ops,
    commandsPerOp: server.commands / ops,
    readsPerOp: server.reads / ops,
    errors: result.errors,
    ...(result.shortfall === undefined ? {} : { shortfall: result.shortfall }),
  };
}

/** Runs `ops` single operations one after another and divides the server's command and read counters by them. */
async function probe(contender: Contender, redis: PrivateRedis, ops: number): Promise<ProbeResult | undefined> {
  if (!contender.probe) return undefined;
  const before = await redis.sample();
  for (let i = 0; i < ops; i++) await contender.probe();
  const server = PrivateRedis.delta(before, await redis.sample());
  const byCommand: Record<string, number> = {};
  for (const [name, count] of server.byCommand) byCommand[name] = Math.round((count / ops) * 100) / 100;
  return { commandsPerOp: server.commands / ops, roundTripsPerOp: server.reads / ops, byCommand };
}

/**
 * Contenders that did not measure what they say: set-up failed, or every round had errors (a transient error in
 * one round is reported in its row and that round is left out of the ratios, but does not fail the run). Falling
 * behind an open loop's rate is a result, not a breakage: the row reports it and its rounds leave the ratios.
 */
export function brokenContenders(groups: readonly GroupResult[]): string[] {
  return groups.flatMap((g) =>
    g.contenders
      .filter((c) =>
        c.unavailable ? c.unavailable.startsWith('setup failed') : c.rounds.length > 0 && c.rounds.every((r) => r.errors > 0),
      )
      .map((c) => `${g.id}: ${c.label} (${c.unavailable ?? `errors in every round, ${c.rounds.map((r) => r.errors).join('/')}`})`),
  );
}
