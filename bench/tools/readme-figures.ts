// `node -r ./scripts/register-ts.js bench/tools/readme-figures.ts`: rewrites the README's Benchmarks figures from the
// committed bench/results/results.json (what `npm run bench` does at the end of a full run), e.g. after a change to
// how they are rendered.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeBlock, writeBlock } from '../lib/published-figures';
import type { BenchReport } from '../lib/report-markdown';

const root = join(__dirname, '..', '..');
const report = JSON.parse(readFileSync(join(root, 'bench/results/results.json'), 'utf8')) as BenchReport;
writeBlock(join(root, 'README.md'), readmeBlock(report));
process.stdout.write('README.md Benchmarks figures regenerated from bench/results/results.json\n');
