// `node -r ./scripts/register-ts.js bench/tools/readme-figures.ts`: re-judges the committed runs by the rule (three
// quarters of the rounds, from the per-round values they hold) and rewrites what is generated from them, without
// running the benchmark: each run's results.json verdicts, RESULTS.md and ratios.svg, and the figures published in
// the docs (docs/benchmarks.md, README.md, docs/caching.md, docs/observability.md, bench/results/PROFILES.md) from the
// committed full run. `npm run bench` does the same at the end of a full run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePublished } from '../lib/published-figures';
import type { BenchReport } from '../lib/report-markdown';
import { writeRun } from '../lib/write-run';

const root = join(__dirname, '..', '..');
/** The committed runs: the full run the docs quote, and the earlier partial runs kept beside it. */
const RUNS = ['bench', 'bench/results/coordination', 'bench/results/otel-overhead'];

for (const dir of RUNS) {
  const file = join(root, dir, 'results/results.json');
  const report = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  writeRun(join(root, dir), report);
  if (dir === 'bench') writePublished(root, report);
  process.stdout.write(`${dir}: verdicts, RESULTS.md and ratios.svg regenerated from ${dir}/results/results.json\n`);
}
process.stdout.write('published benchmark figures regenerated from bench/results/results.json\n');
