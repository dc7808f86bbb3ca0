import type { Environment } from './environment';
import type { GroupResult, RatioResult } from './runner';
import { fmt, fmtSummary } from './stats';
import { fmtSpread, spreadOf, type Verdict, verdictText } from './verdict';

/** The data behind a report (also written as JSON). */
export interface BenchReport {
  environment: Environment;
  mode: 'full' | 'quick';
  method: string;
  groups: GroupResult[];
  /** Profiles taken for missed targets: top self-time frames per contender, when available. */
  notes: string[];
}

function contenderTable(group: GroupResult): string[] {
  const rows = [
    '| contender | ops/s | p50 ms | p99 ms | p99.9 ms | client CPU µs/op | Redis CPU µs/op | Redis cmds/op | socket reads/op | at concurrency 1: round trips/op, commands |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const c of group.contenders) {
    if (c.unavailable || !c.summary) {
      rows.push(`| ${c.label} | ${c.unavailable ?? 'no data'} | | | | | | | | |`);
      continue;
    }
    const s = c.summary;
    const probe = c.probe
      ? `${fmt(c.probe.roundTripsPerOp, 2)}: ${
          Object.entries(c.probe.byCommand)
            .map(([name, n]) => `${name}×${n}`)
            .join(' ') || '–'
        }`
      : '–';
    const withErrors = c.rounds.filter((r) => r.errors > 0);
    const errors = withErrors.length
      ? ` ⚠ errors in ${withErrors.length} of ${c.rounds.length} rounds (${withErrors.map((r) => r.errors).join(', ')}; those rounds are left out of ratios)`
      : '';
    const behind = c.rounds.filter((r) => r.shortfall! > 0);
    const fellBehind = behind.length
      ? ` ⚠ fell behind the arrival rate in ${behind.length} of ${c.rounds.length} rounds (${behind.map((r) => r.shortfall).join(', ')} arrivals not served on schedule; those rounds are left out of ratios)`
      : '';
    rows.push(
      `| ${c.label} | ${fmtSummary(s.opsPerSec)}${errors}${fellBehind} | ${fmtSummary(s.p50Ms)} | ${fmtSummary(s.p99Ms)} | ${fmtSummary(s.p999Ms)} | ${fmtSummary(s.clientCpuUsPerOp)} | ${fmtSummary(s.redisCpuUsPerOp)} | ${fmtSummary(s.commandsPerOp)} | ${fmtSummary(s.readsPerOp)} | ${probe} |`,
    );
  }
  return rows;
}

const METRIC_NAMES: Record<RatioResult['metric'], string> = {
  opsPerSec: 'ops/s',
  clientCpuUsPerOp: 'client CPU per op',
  redisCpuUsPerOp: 'Redis CPU per op',
  p50Ms: 'p50 latency',
  p99Ms: 'p99 latency',
  p999Ms: 'p99.9 latency',
};

/** `≥ 1.5×`, `≤ 0.5×` or nothing. */
export function ratioTargetText(r: Pick<RatioResult, 'target' | 'atMost'>): string {
  return [r.target !== undefined ? `≥ ${r.target}×` : '', r.atMost !== undefined ? `≤ ${r.atMost}×` : ''].filter(Boolean).join(', ');
}

/** The verdict by the rule (`met`, `**missed**`, `not judged by rounds`), `not measured`, or nothing (no target). */
export function verdictOf(item: { verdict?: Verdict; summary: { n: number } }): string {
  if (item.summary.n === 0) return 'not measured';
  return verdictText(item.verdict);
}

/** `median (p25–p75 a–b), min–max c–d`: the within-round values a verdict is read from. */
function roundsText(perRound: readonly number[] | undefined, unit = ''): string {
  const spread = spreadOf(perRound);
  if (!spread) return '–';
  return spread.n === 1 ? `${fmtSpread(spread)}${unit}` : `${fmtSpread(spread)}${unit}, min–max ${fmt(spread.min)}–${fmt(spread.max)}`;
}

/** The denominator's label, with the rows it was chosen from when the peer had several. */
function denominatorText(group: GroupResult, r: RatioResult): string {
  const label = (id: string) => group.contenders.find((c) => c.id === id)?.label ?? id;
  if (!r.candidates) return label(r.denominator);
  return `${label(r.denominator)} (the better of ${r.candidates.length} rows)`;
}

function ratioTable(group: GroupResult): string[] {
  if (group.ratios.length === 0) return [];
  const rows = [
    '',
    '| ratio (within each round) | of | against | median (p25–p75), min–max | target | verdict (¾ of rounds) | rounds left out (errors, fell behind) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of group.ratios) {
    const target = ratioTargetText(r);
    rows.push(
      `| ${r.label} | ${METRIC_NAMES[r.metric]} | ${denominatorText(group, r)} | ${roundsText(r.perRound, '×')} | ${target} | ${verdictOf(r)} | ${r.excludedRounds || ''} |`,
    );
  }
  return rows;
}

function differenceTable(group: GroupResult): string[] {
  if (group.differences.length === 0) return [];
  const rows = [
    '',
    '| added cost over the baseline (within each round) | median (p25–p75), min–max | the peer route, same measure | target | verdict (¾ of rounds) | rounds left out (errors, fell behind) |',
    '|---|---|---|---|---|---|',
  ];
  for (const d of group.differences) {
    const unit = d.metric.endsWith('UsPerOp') ? ' µs' : d.metric.endsWith('Ms') ? ' ms' : '';
    const peer = d.peer
      ? `${fmtSummary(d.peer.summary)}${unit} (${group.contenders.find((c) => c.id === d.peer!.id)?.label ?? d.peer.id})`
      : '';
    const target = [d.atMost !== undefined ? `≤ ${d.atMost}${unit}` : '', d.peer ? 'below the peer' : ''].filter(Boolean).join(', ');
    rows.push(`| ${d.label} | ${roundsText(d.perRound, unit)} | ${peer} | ${target} | ${verdictOf(d)} | ${d.excludedRounds || ''} |`);
  }
  return rows;
}

/** A group's title with the concurrency of its sweep level. */
export function groupTitle(group: GroupResult): string {
  return group.concurrency === undefined
    ? group.title
    : `${group.title} — ${group.concurrency} caller${group.concurrency === 1 ? '' : 's'}`;
}

/** The targets of the pattern issues, one line each, as read from this run, with the verdict by the rule. */
export function targetLines(groups: GroupResult[]): string[] {
  const rows = ['| target | within-round values: median (p25–p75), min–max | verdict (¾ of rounds) |', '|---|---|---|'];
  for (const group of groups) {
    for (const r of group.ratios) {
      const target = ratioTargetText(r);
      if (target === '') continue;
      rows.push(`| ${groupTitle(group)}: ${r.label} ${target} | ${roundsText(r.perRound, '×')} | ${verdictOf(r)} |`);
    }
    for (const d of group.differences) {
      if (d.atMost === undefined && !d.peer) continue;
      const target = [d.atMost !== undefined ? `≤ ${d.atMost}` : '', d.peer ? `below ${d.peer.id} (${fmtSummary(d.peer.summary)})` : '']
        .filter(Boolean)
        .join(' and ');
      const versus = d.peer?.versus ? `; ours − ${d.peer.id}: ${roundsText(d.peer.versus)}` : '';
      rows.push(`| ${groupTitle(group)}: ${d.label} ${target} | ${roundsText(d.perRound)}${versus} | ${verdictOf(d)} |`);
    }
    for (const m of group.minimums) {
      rows.push(
        `| ${groupTitle(group)}: ${m.label} ≥ ${fmt(m.opsPerSec)}/s | ${m.perRound ? roundsText(m.perRound, '/s') : '–'} | ${verdictText(m.verdict)} |`,
      );
    }
  }
  return rows;
}

/** Renders the report as Markdown. */
export function renderMarkdown(report: BenchReport, chartFile: string): string {
  const env = report.environment;
  const lines = [
    `# Benchmark results (${report.mode} run)`,
    '',
    `Generated by \`npm run bench${report.mode === 'quick' ? ' -- --quick' : ''}\` on ${env.date}.`,
    '',
    `- Machine: ${env.cpu}, ${env.cores} cores, ${env.memoryGb} GB, ${env.os}; Node ${env.node}; Redis ${env.redis} (a private`,
    '  server started by the benchmark, so its counters see only the contenders).',
    `- Load average (1 min) at the start: ${env.loadAverage ?? 'not recorded'} on ${env.cores} cores (other work on the machine competes with every contender).`,
    `- Versions: ${Object.entries(env.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}.`,
    '',
    '## Method',
    '',
    report.method,
    '',
    '## Targets',
    '',
    'Every figure is the median over rounds with its range. A target is met only when at least three quarters of the',
    'rounds meet it: for "≥ X" the p25 of the within-round values must be ≥ X, for "≤ X" the p75 ≤ X, for "below the',
    'peer" ours must cost less than the peer in the same round in three quarters of the rounds; never by the median alone.',
    '',
    ...targetLines(report.groups),
    '',
    `![ratios](${chartFile})`,
    '',
  ];
  for (const group of report.groups) {
    lines.push(
      `## ${groupTitle(group)}`,
      '',
      `One operation: ${group.unit}. Load: ${group.load}.`,
      '',
      ...contenderTable(group),
      ...ratioTable(group),
      ...differenceTable(group),
      '',
    );
  }
  if (report.notes.length) lines.push('## Notes', '', ...report.notes.map((note) => `- ${note}`), '');
  return lines.join('\n');
}
