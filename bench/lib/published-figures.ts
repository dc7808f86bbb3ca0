import { join } from 'node:path';
import { GeneratedBlock } from '../../test/harness/generated-block';
import type { BenchReport } from './report-markdown';
import { ratioTargetText } from './report-markdown';
import { cacheHitBlock, nearCacheBlock, otelBlock, profilesBlock } from './doc-figures';
import type { ContenderResult, DifferenceResult, GroupResult, RatioResult } from './runner';
import { fmtSummary } from './stats';
import { HEADLINE_CONCURRENCY, MODERATE_TARGET, SWEEP_LEVELS } from './sweep';
import { fmtSpread, spreadOf, type Verdict } from './verdict';

/**
 * The benchmark figures as docs/benchmarks.md (every table) and README.md (a summary) show them: generated from the
 * committed bench/results/results.json (a full run) between markers, never typed, so a figure cannot drift from the
 * run it came from.
 */
const FIGURES_BLOCK = new GeneratedBlock(
  '<!-- bench-figures:begin (generated from bench/results/results.json by npm run bench; do not edit) -->',
  '<!-- bench-figures:end -->',
);
const SUMMARY_BLOCK = new GeneratedBlock(
  '<!-- bench-summary:begin (generated from bench/results/results.json by npm run bench; do not edit) -->',
  '<!-- bench-summary:end -->',
);

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The library groups of the concurrency sweep, in the order the tables list them. */
const SWEEP_SUITES: Array<[id: string, title: string]> = [
  ['cache', 'cache hit'],
  ['rate-limit', 'rate limit, one policy'],
  ['rate-limit-multi', 'rate limit, three policies'],
  ['lock', 'lock acquire + release'],
  ['semaphore', 'semaphore acquire + release'],
  ['idempotency', 'idempotent replay'],
];

/** The HTTP groups: throughput at saturation and app CPU at a fixed rate, per adapter. */
const ADAPTERS: Array<[name: string, throughput: string, cpu: string]> = [
  ['Express', 'http', 'http-cpu'],
  ['Fastify', 'http-fastify', 'http-fastify-cpu'],
];

/** The performance bar, said once per document. */
export const RULE_SENTENCE =
  'A target is met only when at least three quarters of the rounds meet it: for "≥ X" the p25 of the within-round ' +
  'values must be ≥ X, for "≤ X" the p75 ≤ X, for "below the peer" ours must cost less than the peer in three ' +
  'quarters of the rounds; never by the median alone.';

/** ` met`, ` **missed**`, ` not judged by rounds`, or nothing for a figure without a target. */
function mark(verdict: Verdict | undefined): string {
  if (verdict === undefined) return '';
  return verdict === 'missed' ? ' **missed**' : ` ${verdict}`;
}

const leftOut = (n: number): string => (n ? `, ${n} round${n === 1 ? '' : 's'} left out` : '');

/** `1.52 (p25–p75 1.31–1.70)× met`: the median, the middle half of the rounds and the verdict by the rule. */
function ratioCell(r: RatioResult | undefined): string {
  const spread = spreadOf(r?.perRound);
  if (!r || !spread) return r?.verdict === 'not judged by rounds' ? 'not judged by rounds' : '–';
  return `${fmtSpread(spread)}×${mark(r.verdict)}${leftOut(r.excludedRounds)}`;
}

function differenceCell(d: DifferenceResult | undefined): string {
  const spread = spreadOf(d?.perRound);
  if (!d || !spread) return '–';
  return `${fmtSpread(spread)} µs${mark(d.verdict)}${leftOut(d.excludedRounds)}`;
}

/** Labels in first-seen order across groups. */
function labelsOf<T extends { label: string }>(lists: ReadonlyArray<readonly T[] | undefined>): string[] {
  return [...new Set(lists.flatMap((list) => (list ?? []).map((item) => item.label)))];
}

/** `resultsLink` is the path of bench/RESULTS.md from the document the block is in. */
function environmentLine(report: BenchReport, resultsLink: string): string {
  const env = report.environment;
  const versions = Object.entries(env.versions)
    .filter(([, version]) => version !== 'not installed')
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  return (
    `From the committed ${report.mode} run of ${env.date.slice(0, 10)} ([bench/RESULTS.md](${resultsLink})): ${env.cpu}, ` +
    `${env.cores} cores, Node ${env.node}, Redis ${env.redis}, load average ${env.loadAverage} at the start (a shared machine: ` +
    `read the ranges). Versions: ${versions}. A ratio or an added cost is taken inside each round and shown as the median ` +
    'over rounds with the p25–p75 of the rounds; an absolute figure as the median with its min–max; a round with ' +
    `errors on either side is left out. ${RULE_SENTENCE}`
  );
}

/** The loads of the two adapters' groups, said once when they are the same. */
function loadsOf(groups: ReadonlyArray<GroupResult | undefined>): string {
  const present = groups.flatMap((g, i) => (g ? [{ adapter: ADAPTERS[i][0], load: g.load }] : []));
  if (present.length > 0 && present.every((p) => p.load === present[0].load)) return `both adapters: ${present[0].load}`;
  return present.map((p) => `${p.adapter}: ${p.load}`).join('; ');
}

function endToEnd(groups: Map<string, GroupResult>): string[] {
  const lines: string[] = [];
  const cpu = ADAPTERS.map(([, , id]) => groups.get(id));
  if (cpu.some(Boolean)) {
    lines.push(
      `**End to end: app CPU per request over a bare route**, the app's CPU at a fixed request rate below saturation (${loadsOf(cpu)}):`,
      '',
      `| route, added µs per request | ${ADAPTERS.map(([name]) => name).join(' | ')} | target |`,
      `|---|${ADAPTERS.map(() => '---|').join('')}---|`,
    );
    for (const label of labelsOf(cpu.map((g) => g?.differences))) {
      const diffs = cpu.map((g) => g?.differences.find((d) => d.label === label));
      const spec = diffs.find(Boolean)!;
      const target = [spec.atMost !== undefined ? `≤ ${spec.atMost} µs` : '', spec.peer ? 'below the peer route' : '']
        .filter(Boolean)
        .join(', ');
      lines.push(`| ${cell(label)} | ${diffs.map(differenceCell).join(' | ')} | ${target} |`);
    }
    const bare = cpu.map((g) => g?.contenders.find((c) => c.id === 'bare')?.summary?.clientCpuUsPerOp);
    lines.push(
      '',
      `The bare route itself: ${bare
        .map((s, i) => (s ? `${ADAPTERS[i][0]} ${fmtSummary(s)} µs per request` : ''))
        .filter(Boolean)
        .join(', ')}.`,
      '',
    );
  }
  const throughput = ADAPTERS.map(([, id]) => groups.get(id));
  if (throughput.some(Boolean)) {
    lines.push(
      `**End to end: requests per second at saturation**, ratio of the two routes (${loadsOf(throughput)}):`,
      '',
      `| ratio of requests/s | ${ADAPTERS.map(([name]) => name).join(' | ')} | target |`,
      `|---|${ADAPTERS.map(() => '---|').join('')}---|`,
    );
    for (const label of labelsOf(throughput.map((g) => g?.ratios))) {
      const ratios = throughput.map((g) => g?.ratios.find((r) => r.label === label));
      lines.push(`| ${cell(label)} | ${ratios.map(ratioCell).join(' | ')} | ${ratioTargetText(ratios.find(Boolean)!)} |`);
    }
    lines.push('');
  }
  return lines;
}

function libraryRatios(groups: Map<string, GroupResult>): string[] {
  const lines = [
    `**Library level**: ours ÷ the peer at its best (the better of its plain and auto-pipelined rows), closed loop at 1, 8 and ` +
      `${HEADLINE_CONCURRENCY} concurrent callers. Targets are set at ${HEADLINE_CONCURRENCY} callers; at 8 every peer ratio's is ` +
      `≥ ${MODERATE_TARGET}× (or the ${HEADLINE_CONCURRENCY}-caller one where that is lower); at 1 caller, where nothing can be batched, ` +
      'the target is ≥ 1.0× every peer.',
    '',
    `| what | ratio | ${SWEEP_LEVELS.map((c) => `${c} caller${c === 1 ? '' : 's'}`).join(' | ')} | target at ${HEADLINE_CONCURRENCY} |`,
    `|---|---|${SWEEP_LEVELS.map(() => '---|').join('')}---|`,
  ];
  for (const [id, title] of SWEEP_SUITES) {
    const levels = SWEEP_LEVELS.map((c) => groups.get(`${id}@${c}`));
    if (!levels.some(Boolean)) continue;
    for (const label of labelsOf(levels.map((g) => g?.ratios))) {
      const ratios = levels.map((g) => g?.ratios.find((r) => r.label === label));
      const headline = ratios[SWEEP_LEVELS.indexOf(HEADLINE_CONCURRENCY)];
      lines.push(`| ${title} | ${cell(label)} | ${ratios.map(ratioCell).join(' | ')} | ${headline ? ratioTargetText(headline) : ''} |`);
    }
  }
  lines.push('', sweepSentence(groups, true), '');
  return lines;
}

const callers = (c: number): string => `${c} caller${c === 1 ? '' : 's'}`;

/**
 * The concurrency sweep's verdicts, one clause per level (1, 8, 64), each with its own counts by the rule and, when
 * `names`, the targets it missed.
 */
export function sweepSentence(groups: Map<string, GroupResult>, names: boolean): string {
  const clauses = SWEEP_LEVELS.map((c) => {
    const judged = SWEEP_SUITES.flatMap(([id, title]) =>
      (groups.get(`${id}@${c}`)?.ratios ?? []).filter((r) => r.verdict !== undefined).map((r) => ({ title, r })),
    );
    if (judged.length === 0) return `at ${callers(c)} no target is set (reported only)`;
    const missed = judged.filter(({ r }) => r.verdict === 'missed');
    const met = judged.filter(({ r }) => r.verdict === 'met').length;
    const other = judged.length - met - missed.length;
    const named = names && missed.length ? ` (missed: ${missed.map(({ title, r }) => `${title}, ${r.label}`).join('; ')})` : '';
    return (
      `at ${callers(c)} ${met} of ${judged.length} targets met, ${missed.length} missed${named}` +
      (other ? `, ${other} not judged by rounds` : '')
    );
  });
  return `The sweep by the rule: ${clauses.join('; ')}.`;
}

const ms = (c: ContenderResult, metric: 'p50Ms' | 'p99Ms' | 'p999Ms') => (c.summary ? fmtSummary(c.summary[metric]) : '–');

function latency(groups: Map<string, GroupResult>): string[] {
  const group = groups.get('latency');
  if (!group) return [];
  return [
    `**Open-loop latency** (${group.load}), ms from each request’s intended start:`,
    '',
    '| contender | completed/s | p50 | p99 | p99.9 |',
    '|---|---|---|---|---|',
    ...group.contenders.map((c) =>
      c.summary
        ? `| ${cell(c.label)} | ${fmtSummary(c.summary.opsPerSec)} | ${ms(c, 'p50Ms')} | ${ms(c, 'p99Ms')} | ${ms(c, 'p999Ms')} |`
        : `| ${cell(c.label)} | ${cell(c.unavailable ?? 'no data')} | | | |`,
    ),
    '',
  ];
}

function scaling(groups: Map<string, GroupResult>): string[] {
  const lines: string[] = [];
  for (const id of ['scaling', 'scaling-cluster']) {
    const group = groups.get(id);
    if (!group) continue;
    lines.push(
      `**${group.title}** (${group.load}):`,
      '',
      '| contender | ops/s | Redis CPU µs/op | client CPU µs/op |',
      '|---|---|---|---|',
      ...group.contenders.map((c) =>
        c.summary
          ? `| ${cell(c.label)} | ${fmtSummary(c.summary.opsPerSec)} | ${fmtSummary(c.summary.redisCpuUsPerOp)} | ${fmtSummary(c.summary.clientCpuUsPerOp)} |`
          : `| ${cell(c.label)} | ${cell(c.unavailable ?? 'no data')} | | |`,
      ),
    );
    if (group.ratios.length) lines.push('', group.ratios.map((r) => `${r.label}: ${ratioCell(r)}`).join('; ') + '.');
    lines.push('');
  }
  return lines;
}

function limits(groups: Map<string, GroupResult>): string[] {
  const server = groups.get('redis-benchmark');
  const cache = groups.get(`cache@${HEADLINE_CONCURRENCY}`);
  const nodeRedis = cache?.contenders.find((c) => c.id === 'node-redis');
  const ours = cache?.contenders.find((c) => c.id === 'ours-get');
  const parts: string[] = [];
  if (ours?.summary && nodeRedis?.summary)
    parts.push(
      `a cache hit at ${HEADLINE_CONCURRENCY} callers: ours ${fmtSummary(ours.summary.opsPerSec)}/s, raw node-redis \`GET\` + \`JSON.parse\` ${fmtSummary(nodeRedis.summary.opsPerSec)}/s`,
    );
  for (const c of server?.contenders ?? []) if (c.summary) parts.push(`${c.label}: ${fmtSummary(c.summary.opsPerSec)}/s`);
  return parts.length ? [`**Limits** on this machine: ${parts.join('; ')}.`, ''] : [];
}

/** Every target of the run, with its group. */
function targetsOf(report: BenchReport): Array<{ group: string; label: string; verdict: Verdict }> {
  return report.groups.flatMap((g) =>
    [...g.ratios, ...(g.differences ?? []), ...(g.minimums ?? [])].flatMap((t) =>
      t.verdict === undefined ? [] : [{ group: g.id, label: t.label, verdict: t.verdict }],
    ),
  );
}

function missed(report: BenchReport): string[] {
  const targets = targetsOf(report);
  const list = (verdict: Verdict) => targets.filter((t) => t.verdict === verdict).map((t) => cell(`${t.group}: ${t.label}`));
  const missedItems = list('missed');
  const unjudged = [...list('not judged by rounds'), ...list('not measured')];
  return [
    missedItems.length
      ? `Targets missed in this run by the rule (${missedItems.length} of ${targets.length}): ${missedItems.join('; ')}.`
      : `Every one of the ${targets.length} targets was met in this run by the rule.`,
    ...(unjudged.length ? ['', `Not judged by rounds (${unjudged.length}): ${unjudged.join('; ')}.`] : []),
  ];
}

/** docs/benchmarks.md: the end-to-end tables first, then library ratios by concurrency, then the limits. */
export function docsBlock(report: BenchReport): string {
  const groups = new Map(report.groups.map((g) => [g.id, g]));
  return [
    environmentLine(report, '../bench/RESULTS.md'),
    '',
    ...endToEnd(groups),
    ...libraryRatios(groups),
    ...latency(groups),
    ...scaling(groups),
    ...limits(groups),
    ...missed(report),
  ]
    .join('\n')
    .trim();
}

/** The headline comparison of each library group: its first ratio (ours against its main peer), at every level of the sweep. */
function headlines(groups: Map<string, GroupResult>): string[] {
  return SWEEP_SUITES.flatMap(([id, title]) => {
    const ratios = SWEEP_LEVELS.map((c) => groups.get(`${id}@${c}`)?.ratios[0]);
    const first = ratios.find(Boolean);
    if (!first) return [];
    const peer = first.label.split(' / ').slice(1).join(' / ') || first.label;
    const levels = SWEEP_LEVELS.map((c, i) => `${c}: ${ratioCell(ratios[i])}`);
    return [`${title} vs ${peer}, by callers: ${levels.join(', ')}`];
  });
}

/** README.md: the run, the headline ratios at every level of the sweep, and how many targets were met by the rule. */
export function summaryBlock(report: BenchReport): string {
  const groups = new Map(report.groups.map((g) => [g.id, g]));
  const env = report.environment;
  const targets = targetsOf(report);
  const count = (verdict: Verdict) => targets.filter((t) => t.verdict === verdict).length;
  const unjudged = count('not judged by rounds') + count('not measured');
  return [
    `Committed full run of ${env.date.slice(0, 10)} (${env.cpu}, ${env.cores} cores, Redis ${env.redis}; a shared machine). ` +
      `Ours ÷ the peer inside each round, median (p25–p75 of the rounds), at 1, 8 and 64 concurrent callers: ` +
      `${headlines(groups).join('; ')}.`,
    sweepSentence(groups, false),
    `${count('met')} of ${targets.length} targets met, ${count('missed')} missed${unjudged ? `, ${unjudged} not judged by rounds` : ''}, ` +
      'met only when at least three quarters of the rounds meet the target (never by the median alone): every table, ' +
      'range and missed target is in [docs/benchmarks.md](docs/benchmarks.md).',
  ].join('\n');
}

/** A block generated from the committed run in a topic document. */
const docBlock = (name: string): GeneratedBlock =>
  new GeneratedBlock(
    `<!-- ${name}:begin (generated from bench/results/results.json by npm run bench; do not edit) -->`,
    `<!-- ${name}:end -->`,
  );

/** One generated block of one document. */
export interface PublishedBlock {
  readonly file: string;
  readonly block: GeneratedBlock;
  readonly render: (report: BenchReport) => string;
}

/** The documents and the blocks each carries. */
export const PUBLISHED = (root: string): readonly PublishedBlock[] => [
  { file: join(root, 'README.md'), block: SUMMARY_BLOCK, render: summaryBlock },
  { file: join(root, 'docs/benchmarks.md'), block: FIGURES_BLOCK, render: docsBlock },
  { file: join(root, 'docs/caching.md'), block: docBlock('bench-cache-hit'), render: cacheHitBlock },
  { file: join(root, 'docs/caching.md'), block: docBlock('bench-near-cache'), render: nearCacheBlock },
  { file: join(root, 'docs/observability.md'), block: docBlock('bench-otel-overhead'), render: otelBlock },
  { file: join(root, 'bench/results/PROFILES.md'), block: docBlock('bench-profiles'), render: profilesBlock },
];

/** Rewrites every published block from `report`; the markers must be there already. */
export function writePublished(root: string, report: BenchReport): void {
  for (const published of PUBLISHED(root)) published.block.write(published.file, published.render(report));
}
