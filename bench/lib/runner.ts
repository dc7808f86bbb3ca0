import type { BenchGroup, Contender, RunResult } from './contender';
import { PrivateRedis } from './private-redis';
import { summarize, type Summary } from './stats';

/** One contender's numbers in one round. */
export interface RoundSample {
  round: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  clientCpuUsPerOp: number;
  redisCpuUsPerOp: number;
  commandsPerOp: number;
  readsPerOp: number;
  errors: number;
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
  denominator: string;
  target?: number;
  perRound: number[];
  summary: Summary;
  met?: boolean;
}

export interface MinimumResult {
  label: string;
  contender: string;
  opsPerSec: number;
  measured?: Summary;
  met?: boolean;
}

export interface GroupResult {
  id: string;
  title: string;
  unit: string;
  load: string;
  contenders: ContenderResult[];
  ratios: RatioResult[];
  minimums: MinimumResult[];
}

export interface RunPlan {
  rounds: number;
  durationMs: number;
  warmupMs: number;
  probeOps: number;
}

const METRICS = ['opsPerSec', 'p50Ms', 'p99Ms', 'clientCpuUsPerOp', 'redisCpuUsPerOp', 'commandsPerOp', 'readsPerOp', 'errors'] as const;

/**
 * Measures a group: setup, a warm-up of every contender, then `rounds` rounds in which every contender runs once
 * for `durationMs`, in an order rotated each round so that no contender always runs first (or last, after the
 * others' garbage). Ratios are computed inside each round, then summarised by their median and range, so a slow
 * stretch of a noisy machine shifts both sides of a ratio instead of one.
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
          `  ${group.id} r${round + 1} ${contender.label}: ${Math.round(sample.opsPerSec)} ops/s${sample.errors ? ` (${sample.errors} errors)` : ''}`,
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
  const ratios = group.ratios.map((spec): RatioResult => {
    const num = results.get(spec.numerator)?.rounds ?? [];
    const den = results.get(spec.denominator)?.rounds ?? [];
    const perRound = num.flatMap((n) => {
      const d = den.find((r) => r.round === n.round);
      return d && d.opsPerSec > 0 ? [n.opsPerSec / d.opsPerSec] : [];
    });
    const summary = summarize(perRound);
    const met = spec.target === undefined || summary.n === 0 ? undefined : summary.median >= spec.target;
    return { ...spec, perRound, summary, met };
  });
  const minimums = (group.minimums ?? []).map((spec): MinimumResult => {
    const measured = results.get(spec.contender)?.summary?.opsPerSec;
    return { ...spec, measured, met: measured && measured.n > 0 ? measured.median >= spec.opsPerSec : undefined };
  });
  return { id: group.id, title: group.title, unit: group.unit, load: group.load, contenders: [...results.values()], ratios, minimums };
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
    clientCpuUsPerOp: (result.clientCpuUs ?? cpuUsed.user + cpuUsed.system) / ops,
    redisCpuUsPerOp: server.cpuUs / ops,
    commandsPerOp: server.commands / ops,
    readsPerOp: server.reads / ops,
    errors: result.errors,
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
