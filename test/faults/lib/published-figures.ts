import { GeneratedBlock } from '../../harness/generated-block';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coverageRows, type ScenarioOutcome } from './report';

/**
 * The fault suite's figures as README.md and docs/reliability.md show them: generated from the committed
 * test/faults/report.jsonl (a full run) between two markers, never typed, so a figure cannot drift from its run.
 */
const BLOCK = new GeneratedBlock(
  '<!-- fault-figures:begin (generated from test/faults/report.jsonl by npm run test:faults; do not edit) -->',
  '<!-- fault-figures:end -->',
);

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The outcomes of a run, read back from its JSON lines. */
export function readOutcomes(jsonlPath: string): ScenarioOutcome[] {
  return readFileSync(jsonlPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ScenarioOutcome);
}

/** README: the goals (G1–G17), each with its bound, the run's result and its first figure. */
export function readmeBlock(outcomes: readonly ScenarioOutcome[]): string {
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

/** The generated block currently in `text` (undefined without markers). */
export const blockIn = BLOCK.in;

/** Rewrites the block of `file` with `block`; the markers must be there already. */
export const writeBlock = BLOCK.write;

/** The documents and the block each carries. */
export const PUBLISHED = (root: string) =>
  [
    { file: join(root, 'README.md'), render: readmeBlock },
    { file: join(root, 'docs/reliability.md'), render: docsBlock },
  ] as const;
