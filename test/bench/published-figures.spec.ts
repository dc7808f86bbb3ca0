import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PUBLISHED } from '../../bench/lib/published-figures';
import type { BenchReport } from '../../bench/lib/report-markdown';
import { judgeGroup } from '../../bench/lib/judge';
import { renderMarkdown } from '../../bench/lib/report-markdown';
import { brokenContenders } from '../../bench/lib/runner';

// The published benchmark figures (docs/benchmarks.md's tables, the README's summary) are the committed full run's,
// as generated: a hand edit, or a run committed without the documents it regenerated, fails here.
describe('published benchmark figures', () => {
  const root = join(__dirname, '../..');
  const report = JSON.parse(readFileSync(join(root, 'bench/results/results.json'), 'utf8')) as BenchReport;

  it.each(PUBLISHED(root).map((p) => [p.file.slice(root.length + 1), p.render.name, p] as const))(
    '%s shows the committed run (%s)',
    (_, __, published) => {
      expect(published.block.in(readFileSync(published.file, 'utf8'))).toBe(published.render(report));
    },
  );

  it('the committed verdicts are by the rule (three quarters of the rounds), not by the median', () => {
    const rejudged = JSON.parse(JSON.stringify(report)) as BenchReport;
    rejudged.groups.forEach(judgeGroup);
    expect(report).toEqual(rejudged);
  });

  it('bench/RESULTS.md is the report of the committed run', () => {
    expect(readFileSync(join(root, 'bench/RESULTS.md'), 'utf8')).toBe(renderMarkdown(report, 'results/ratios.svg'));
  });

  it('the full tables live in docs/benchmarks.md, not in the README', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8')).not.toContain('bench-figures:begin');
  });

  it('the committed run is a full run in which no contender broke', () => {
    expect(report.mode).toBe('full');
    expect(brokenContenders(report.groups)).toEqual([]);
  });
});
