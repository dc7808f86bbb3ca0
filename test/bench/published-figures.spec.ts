import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blockIn, readmeBlock } from '../../bench/lib/published-figures';
import type { BenchReport } from '../../bench/lib/report-markdown';
import { brokenContenders } from '../../bench/lib/runner';

// The README's benchmark figures are the committed full run's, as generated: a hand edit, or a run committed
// without the README it regenerated, fails here.
describe('published benchmark figures', () => {
  const root = join(__dirname, '../..');
  const report = JSON.parse(readFileSync(join(root, 'bench/results/results.json'), 'utf8')) as BenchReport;

  it('README.md shows the committed run', () => {
    expect(blockIn(readFileSync(join(root, 'README.md'), 'utf8'))).toBe(readmeBlock(report));
  });

  it('the committed run is a full run in which no contender broke', () => {
    expect(report.mode).toBe('full');
    expect(brokenContenders(report.groups)).toEqual([]);
  });
});
