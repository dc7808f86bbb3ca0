import { GeneratedBlock } from '../../harness/generated-block';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coverageRows, type ScenarioOutcome } from './report';

/**
 * The fault suite's figures as docs/reliability.md and README.md show them: generated from the committed
 * test/faults/report.jsonl (a full run) between markers, never typed, so a figure cannot drift from its run.
 */
const CATALOGUE_BLOCK = new GeneratedBlock(
  '<!-- fault-figures:begin (generated from test/faults/report.jsonl by npm run test:faults; do not edit) -->',
  '<!-- fault-figures:end -->',
);
const GOALS_BLOCK = new GeneratedBlock(
  '<!-- fault-goals:begin (generated from test/faults/report.jsonl by npm run test:faults; do not edit) -->',
  '<!-- fault-goals:end -->',
);
const SUMMARY_BLOCK = new GeneratedBlock(
  '<!-- fault-summary:begin (generated from test/faults/report.jsonl by npm run test:faults; do not edit) -->',
  '<!-- fault-summary:end -->',
);

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The outcomes of a run, read back from its JSON lines. */
export function readOutcomes(jsonlPath: string): ScenarioOutcome[] {
  return readFileSync(jsonlPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ScenarioOutcome);
}

/** docs/reliability.md, at a glance: the goals (G1–G17), each with its bound, the run's result and its first figure. */
export function goalsBlock(outcomes: readonly ScenarioOutcome[]): string {
  const rows = coverageRows(outcomes).filter((r) => /^G\d+$/.test(r.entry.id));
  return [
    '| goal | bound | result | figure |',
    '|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.entry.id} ${cell(r.entry.title)} | ${cell(r.entry.bound)} | ${r.result} | ${cell(r.figure || `see ${r.where}`)} |`,
    ),
  ].join('\n');
}

/** docs/reliability.md: every catalogue entry, where it is answered, the run's result and its first figure. */
export function docsBlock(outcomes: readonly ScenarioOutcome[]): string {
  return [
    '| id | scenario | bound | answered by | result | figure |',
    '|---|---|---|---|---|---|',
    ...coverageRows(outcomes).map(
      (r) => `| ${r.entry.id} | ${cell(r.entry.title)} | ${cell(r.entry.bound)} | ${cell(r.where)} | ${r.result} | ${cell(r.figure)} |`,
    ),
  ].join('\n');
}

/**
 * README.md: two lines — what the goals' results were and how many promises the run checked — and where the tables
 * are.
 */
export function summaryBlock(outcomes: readonly ScenarioOutcome[]): string {
  const goals = coverageRows(outcomes).filter((r) => /^G\d+$/.test(r.entry.id));
  const count = (test: (result: string) => boolean) => goals.filter((r) => test(r.result)).length;
  const checks = outcomes.flatMap((o) => o.checks);
  const promises = checks.filter((c) => c.kind === 'promise');
  const broken = promises.filter((c) => !c.pass).length;
  const figures = checks.filter((c) => c.kind === 'figure').length;
  const notRun = checks.filter((c) => c.kind === 'unavailable').length;
  const specs = count((r) => r === 'spec');
  return [
    `Committed full run: of the ${goals.length} reliability goals, ${count((r) => r.startsWith('PASS'))} passed in the suite, ` +
      `${specs} ${specs === 1 ? 'is' : 'are'} answered by integration specs and ${count((r) => r.includes('FAIL'))} failed; ` +
      `${outcomes.length} scenarios checked ${promises.length} bounds (${broken} broken), ` +
      `with ${figures} figures reported without a bound and ${notRun} lines this machine could not run.`,
    'Every goal and scenario with its figure: [docs/reliability.md](docs/reliability.md).',
  ].join('\n');
}

/** One generated block of one document. */
export interface PublishedBlock {
  readonly file: string;
  readonly block: GeneratedBlock;
  readonly render: (outcomes: readonly ScenarioOutcome[]) => string;
}

/** The documents and the blocks each carries. */
export const PUBLISHED = (root: string): readonly PublishedBlock[] => [
  { file: join(root, 'README.md'), block: SUMMARY_BLOCK, render: summaryBlock },
  { file: join(root, 'docs/reliability.md'), block: GOALS_BLOCK, render: goalsBlock },
  { file: join(root, 'docs/reliability.md'), block: CATALOGUE_BLOCK, render: docsBlock },
];

/** Rewrites every published block from `outcomes`; the markers must be there already. */
export function writePublished(root: string, outcomes: readonly ScenarioOutcome[]): void {
  for (const published of PUBLISHED(root)) published.block.write(published.file, published.render(outcomes));
}
