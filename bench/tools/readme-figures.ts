// `node -r ./scripts/register-ts.js bench/tools/readme-figures.ts`: rewrites the published benchmark figures (every
// table in docs/benchmarks.md, the summary in README.md) from the committed bench/results/results.json (what
// `npm run bench` does at the end of a full run), e.g. after a change to how they are rendered.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePublished } from '../lib/published-figures';
import type { BenchReport } from '../lib/report-markdown';

const root = join(__dirname, '..', '..');
const report = JSON.parse(readFileSync(join(root, 'bench/results/results.json'), 'utf8')) as BenchReport;
writePublished(root, report);
process.stdout.write('docs/benchmarks.md and README.md benchmark figures regenerated from bench/results/results.json\n');
