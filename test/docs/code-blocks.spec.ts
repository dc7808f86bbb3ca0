import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeBlocks, problemsOf, regionOf } from './code-blocks';

const root = join(__dirname, '../..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

describe('code blocks of the docs', () => {
  it.each(pages)('every TypeScript/JavaScript block of %s is an example file (or region) or a fragment on purpose', (page) => {
    expect(problemsOf(page, readFileSync(join(root, page), 'utf8'), root)).toEqual([]);
  });
});

describe('the code block checker', () => {
  const page = (...lines: string[]) => lines.join('\n');

  it('names page:line of a block that is neither an example nor a fragment', () => {
    const problems = problemsOf('docs/x.md', page('# X', '', '```ts', 'const a = 1;', '```'), root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^docs\/x\.md:3: a `ts` block is neither an example/);
  });

  it('accepts fragments and ignores other languages', () => {
    expect(
      problemsOf('docs/x.md', page('```ts fragment', 'whatever(…)', '```', '```bash', 'npm i', '```', '```sql', 'x', '```'), root),
    ).toEqual([]);
    expect(problemsOf('docs/x.md', page('```typescript', 'x', '```', '```javascript', 'y', '```', '```js', 'z', '```'), root)).toHaveLength(
      3,
    );
  });

  it('compares a block with its whole example file, and names the first line that differs', () => {
    const file = readFileSync(join(root, 'docs/examples/cache-codec-msgpack.ts'), 'utf8');
    const marker = '<!-- example: docs/examples/cache-codec-msgpack.ts -->';
    expect(problemsOf('docs/x.md', page(marker, '```ts', file.trimEnd(), '```'), root)).toEqual([]);
    const edited = file.replace("format: 'msgpack'", "format: 'mp'");
    const [problem] = problemsOf('docs/x.md', page('', marker, '```ts', edited, '```'), root);
    expect(problem).toMatch(
      /^docs\/x\.md:3: the block differs from docs\/examples\/cache-codec-msgpack\.ts at its line \d+: the example has " {2}format: 'msgpack',"/,
    );
  });

  it('compares a block with a region, its marker lines excluded and common indentation removed', () => {
    const source = ['function f() {', '  // #region body', '  if (x) {', '    y();', '  }', '  // #endregion body', '}'].join('\n');
    expect(regionOf(source, 'body')).toBe('if (x) {\n  y();\n}');
    expect(regionOf(source, 'nope')).toBeUndefined();
  });

  it('names a missing example file or region', () => {
    const missingFile = problemsOf('docs/x.md', page('<!-- example: docs/examples/nope.ts -->', '```ts', 'x', '```'), root);
    expect(missingFile).toEqual(['docs/x.md:2: its example file docs/examples/nope.ts does not exist']);
    const missingRegion = problemsOf(
      'docs/x.md',
      page('<!-- example: docs/examples/cache-codec-msgpack.ts#nope -->', '```ts', 'x', '```'),
      root,
    );
    expect(missingRegion).toEqual([
      'docs/x.md:2: docs/examples/cache-codec-msgpack.ts has no region "nope" (// #region nope … // #endregion nope)',
    ]);
  });

  it('reads blocks indented under list items and longer fences', () => {
    const blocks = codeBlocks(page('- item', '', '  ````ts', '  a();', '  ```', '  ````', 'after'));
    expect(blocks).toEqual([{ line: 3, info: 'ts', content: 'a();\n```', previousLine: '' }]);
  });
});
