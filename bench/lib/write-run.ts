import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { judgeGroup } from './judge';
import { type BenchReport, renderMarkdown } from './report-markdown';
import { renderRatioChart } from './report-svg';

/**
 * Writes a run's files under `outDir` (results/results.json, results/ratios.svg, RESULTS.md) after judging every
 * target by the rule from the per-round values the report holds, so the verdicts written are never the median's.
 */
export function writeRun(outDir: string, report: BenchReport): BenchReport {
  for (const group of report.groups) judgeGroup(group);
  const resultsDir = join(outDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'results.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(join(resultsDir, 'ratios.svg'), renderRatioChart(report.groups));
  writeFileSync(join(outDir, 'RESULTS.md'), renderMarkdown(report, relative(outDir, join(resultsDir, 'ratios.svg'))));
  return report;
}
