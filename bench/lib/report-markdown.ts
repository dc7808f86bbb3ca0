import type { Environment } from './environment';
import type { GroupResult, RatioResult } from './runner';
import { fmt, fmtSummary } from './stats';

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
    '| contender | ops/s median (min–max) | p50 ms | p99 ms | p99.9 ms | client CPU µs/op | Redis CPU µs/op | Redis cmds/op | socket reads/op | at concurrency 1: round trips/op, commands |',
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
    rows.push(
      `| ${c.label} | ${fmtSummary(s.opsPerSec)}${errors} | ${fmt(s.p50Ms.median)} | ${fmt(s.p99Ms.median)} | ${fmt(s.p999Ms.median)} | ${fmt(s.clientCpuUsPerOp.median)} | ${fmt(s.redisCpuUsPerOp.median)} | ${fmt(s.commandsPerOp.median)} | ${fmt(s.readsPerOp.median)} | ${probe} |`,
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

/** `met`, `**missed**`, `not measured` or nothing (no target). */
export function verdictOf(item: { met?: boolean; summary: { n: number } }, hasTarget: boolean): string {
  if (item.summary.n === 0) return 'not measured';
  if (!hasTarget || item.met === undefined) return '';
  return item.met ? 'met' : '**missed**';
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
    '| ratio (within each round) | of | against | median (min–max) | target | | rounds left out (errors) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of group.ratios) {
    const target = ratioTargetText(r);
    rows.push(
      `| ${r.label} | ${METRIC_NAMES[r.metric]} | ${denominatorText(group, r)} | ${r.summary.n ? `${fmtSummary(r.summary)}×` : '–'} | ${target} | ${verdictOf(r, target !== '')} | ${r.excludedRounds || ''} |`,
    );
  }
  return rows;
}

function differenceTable(group: GroupResult): string[] {
  if (group.differences.length === 0) return [];
  const rows = [
    '',
    '| added cost over the baseline (within each round) | median (min–max) | the peer route, same measure | target | | rounds left out (errors) |',
    '|---|---|---|---|---|---|',
  ];
  for (const d of group.differences) {
    const unit = d.metric.endsWith('UsPerOp') ? ' µs' : d.metric.endsWith('Ms') ? ' ms' : '';
    const peer = d.peer
      ? `${fmtSummary(d.peer.summary)}${unit} (${group.contenders.find((c) => c.id === d.peer!.id)?.label ?? d.peer.id})`
      : '';
    const target = [d.atMost !== undefined ? `≤ ${d.atMost}${unit}` : '', d.peer ? 'below the peer' : ''].filter(Boolean).join(', ');
    rows.push(
      `| ${d.label} | ${d.summary.n ? `${fmtSummary(d.summary)}${unit}` : '–'} | ${peer} | ${target} | ${verdictOf(d, target !== '')} | ${d.excludedRounds || ''} |`,
    );
  }
  return rows;
}

/** A group's title with the concurrency of its sweep level. */
export function groupTitle(group: GroupResult): string {
  return group.concurrency === undefined
    ? group.title
    : `${group.title} — ${group.concurrency} caller${group.concurrency === 1 ? '' : 's'}`;
}

/** The targets of the pattern issues, one line each, as read from this run. */
export function targetLines(groups: GroupResult[]): string[] {
  const rows = ['| target | measured (median, min–max) | |', '|---|---|---|'];
  for (const group of groups) {
    for (const r of group.ratios) {
      const target = ratioTargetText(r);
      if (target === '') continue;
      rows.push(
        `| ${groupTitle(group)}: ${r.label} ${target} | ${r.summary.n ? `${fmtSummary(r.summary)}×` : '–'} | ${verdictOf(r, true)} |`,
      );
    }
    for (const d of group.differences) {
      if (d.atMost === undefined && !d.peer) continue;
      const target = [d.atMost !== undefined ? `≤ ${d.atMost}` : '', d.peer ? `below ${d.peer.id} (${fmtSummary(d.peer.summary)})` : '']
        .filter(Boolean)
        .join(' and ');
      rows.push(`| ${groupTitle(group)}: ${d.label} ${target} | ${d.summary.n ? fmtSummary(d.summary) : '–'} | ${verdictOf(d, true)} |`);
    }
    for (const m of group.minimums) {
      const verdict = m.met === undefined ? 'not measured' : m.met ? 'met' : '**missed**';
      rows.push(
        `| ${groupTitle(group)}: ${m.label} ≥ ${fmt(m.opsPerSec)}/s | ${m.measured ? `${fmtSummary(m.measured)}/s` : '–'} | ${verdict} |`,
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
