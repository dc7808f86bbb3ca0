import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PUBLISHED, readOutcomes } from './lib/published-figures';

// The docs' and README's fault figures are the committed full run's, as generated: a hand edit, or a report
// committed without regenerating them, fails here.
describe('published fault figures', () => {
  const root = join(__dirname, '../..');
  const outcomes = readOutcomes(join(__dirname, 'report.jsonl'));

  it.each(PUBLISHED(root).map((p) => [p.file.slice(root.length + 1), p.render.name, p] as const))(
    '%s shows the committed run (%s)',
    (_, __, published) => {
      expect(published.block.in(readFileSync(published.file, 'utf8'))).toBe(published.render(outcomes));
    },
  );

  it('the goals table lives in docs/reliability.md, not in the README', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).not.toContain('fault-figures:begin');
    expect(readme).not.toContain('fault-goals:begin');
  });

  it('the committed run is a full run that broke no promise', () => {
    const report = readFileSync(join(__dirname, 'REPORT.md'), 'utf8');
    expect(report).toMatch(/\(full run\)/);
    const broken = outcomes.flatMap((o) => o.checks).filter((c) => c.kind === 'promise' && !c.pass);
    expect(broken).toEqual([]);
  });
});
