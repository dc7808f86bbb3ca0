import type { BenchReport } from './report-markdown';
import type { ContenderResult, GroupResult, RatioResult, RoundSample } from './runner';
import { fmt } from './stats';
import { measuredCleanly } from './paired-rounds';
import { HEADLINE_CONCURRENCY } from './sweep';
import { fmtSpread, type RoundSpread, spreadOf, verdictText } from './verdict';

/**
 * The benchmark figures that topic documents quote (docs/caching.md, docs/observability.md, bench/results/PROFILES.md),
 * generated from the committed full run like docs/benchmarks.md's tables: median over rounds with the p25–p75 of the
 * rounds, and every target's verdict by the rule.
 */

type Metric = Exclude<keyof RoundSample, 'round' | 'errors' | 'shortfall'>;

const groupOf = (report: BenchReport, id: string): GroupResult | undefined => report.groups.find((g) => g.id === id);
const contenderOf = (group: GroupResult | undefined, id: string): ContenderResult | undefined => group?.contenders.find((c) => c.id === id);

/** A contender's metric over its error-free rounds. */
function roundsOf(c: ContenderResult | undefined, metric: Metric): RoundSpread | undefined {
  return spreadOf(c?.rounds.filter(measuredCleanly).map((r) => r[metric]));
}

const figure = (spread: RoundSpread | undefined, unit: string): string => (spread ? `${fmtSpread(spread)}${unit}` : 'not measured');

/** `2.44 (p25–p75 1.57–2.58)×, target ≥ 1.5×: met`. */
function judged(r: RatioResult | undefined): string {
  if (!r) return 'not measured';
  const target = [r.target !== undefined ? `≥ ${r.target}×` : '', r.atMost !== undefined ? `≤ ${r.atMost}×` : '']
    .filter(Boolean)
    .join(', ');
  return `${figure(spreadOf(r.perRound), '×')}${target ? `, target ${target}: ${verdictText(r.verdict)}` : ''}`;
}

const ratioOf = (group: GroupResult | undefined, numerator: string, denominator: string) =>
  group?.ratios.find((r) => r.numerator === numerator && r.denominator === denominator && r.metric === 'opsPerSec');

const runLine = (report: BenchReport): string =>
  `the committed full run of \`npm run bench\` (${report.environment.date.slice(0, 10)}, ${report.environment.cores} shared cores; ` +
  'median over rounds with the p25–p75 of the rounds; a target is met only when three quarters of the rounds meet it)';

/** docs/caching.md, after "Reads of one turn share one command": a Redis hit against cache-manager. */
export function cacheHitBlock(report: BenchReport): string {
  const at64 = groupOf(report, `cache@${HEADLINE_CONCURRENCY}`);
  const at1 = groupOf(report, 'cache@1');
  const ours = contenderOf(at64, 'ours-get');
  const peer = contenderOf(at64, 'cm-get');
  return (
    `Measured in ${runLine(report)}, ${HEADLINE_CONCURRENCY} concurrent callers: a hit of \`CacheService.get\` ` +
    `${figure(roundsOf(ours, 'opsPerSec'), '/s')} against cache-manager's \`get\` ${figure(roundsOf(peer, 'opsPerSec'), '/s')}, ` +
    `ours ÷ cache-manager inside each round ${judged(ratioOf(at64, 'ours-get', 'cm-get'))}; Redis CPU per hit ${figure(roundsOf(ours, 'redisCpuUsPerOp'), ' µs')} ` +
    `against ${figure(roundsOf(peer, 'redisCpuUsPerOp'), ' µs')}, client CPU ${figure(roundsOf(ours, 'clientCpuUsPerOp'), ' µs')} against ` +
    `${figure(roundsOf(peer, 'clientCpuUsPerOp'), ' µs')}. With one caller, where nothing is batched: ${judged(ratioOf(at1, 'ours-get', 'cm-get'))}. ` +
    'Every table: [benchmarks.md](benchmarks.md).'
  );
}

/** docs/caching.md, near cache: an L1 hit against a Redis hit, and how stale another instance can be. */
export function nearCacheBlock(report: BenchReport): string {
  const at64 = groupOf(report, `cache@${HEADLINE_CONCURRENCY}`);
  const near = contenderOf(at64, 'ours-near-get');
  const staleness = contenderOf(groupOf(report, 'near-cache'), 'near-staleness');
  const p99 = roundsOf(staleness, 'p99Ms');
  const lines = [
    `Measured in ${runLine(report)}, ${HEADLINE_CONCURRENCY} concurrent callers: an L1 hit ${figure(roundsOf(near, 'opsPerSec'), '/s')}; ` +
      `an L1 hit ÷ a Redis hit of \`CacheService.get\` inside each round ${judged(ratioOf(at64, 'ours-near-get', 'ours-get'))}.`,
  ];
  if (p99)
    lines.push(
      '',
      'Staleness after a write on another instance (two instances on loopback, one write at a time): the run kept the ' +
        'staleness itself only pooled over all rounds (the notes of [bench/RESULTS.md](../bench/RESULTS.md)), so its ' +
        'target (p99 < 10 ms) is **not judged by rounds** on it. Each round did keep the p99 of the whole write-then-observe ' +
        `operation, which bounds the staleness from above: ${figure(p99, ' ms')}, min–max ${fmt(p99.min)}–${fmt(p99.max)} ms over ${p99.n} rounds.`,
    );
  return lines.join('\n');
}

/** docs/observability.md, Overhead: the same operation with the OpenTelemetry SDK registered and without. */
export function otelBlock(report: BenchReport): string {
  const rows = [
    ['`CacheService.get` (a hit)', `cache@${HEADLINE_CONCURRENCY}`],
    ['`RateLimiterService.consume()`, fixed window', `rate-limit@${HEADLINE_CONCURRENCY}`],
  ].flatMap(([what, id]) => {
    const group = groupOf(report, id);
    const r = group?.ratios.find((x) => x.label.includes('OpenTelemetry'));
    if (!group || !r) return [];
    const cpu = (c: string) => figure(roundsOf(contenderOf(group, c), 'clientCpuUsPerOp'), ' µs');
    return [
      `| ${what} | ${figure(spreadOf(r.perRound), '×')} | ≥ ${r.target}× | ${verdictText(r.verdict)} | ${cpu(r.denominator)} → ${cpu(r.numerator)} |`,
    ];
  });
  return [
    `From ${runLine(report)}, ${HEADLINE_CONCURRENCY} concurrent callers, with the SDK registered and exporting every second against the same operation with none registered, side by side in each round:`,
    '',
    '| operation | ops/s with the SDK / without, inside each round | target | verdict | client CPU per operation, without → with |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** bench/results/PROFILES.md: the targets missed at 1 and 8 callers with the CPU per operation of both sides, and scaling. */
export function profilesBlock(report: BenchReport): string {
  const rows: string[] = [];
  for (const group of report.groups.filter((g) => g.concurrency === 1 || g.concurrency === 8)) {
    for (const r of group.ratios.filter((x) => x.verdict === 'missed')) {
      const cpu = (metric: Metric) =>
        `${figure(roundsOf(contenderOf(group, r.numerator), metric), '')} → ${figure(roundsOf(contenderOf(group, r.denominator), metric), '')}`;
      rows.push(
        `| ${group.concurrency} | ${group.title}: ${r.label} | ${judged(r)} | ${cpu('clientCpuUsPerOp')} | ${cpu('redisCpuUsPerOp')} |`,
      );
    }
  }
  const scaling = ['scaling', 'scaling-cluster'].flatMap((id) =>
    (groupOf(report, id)?.ratios ?? []).map((r) => `${r.label} ${figure(spreadOf(r.perRound), '×')}`),
  );
  return [
    `From ${runLine(report)}. Targets missed at **1 and 8 callers**, with the CPU per operation of each side (ours → the peer row the ratio is taken against):`,
    '',
    '| callers | target | ops/s ratio inside each round | client CPU µs/op, ours → peer | Redis CPU µs/op, ours → peer |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `Processes and a cluster (ops/s inside each round): ${scaling.join('; ')}.`,
  ].join('\n');
}
