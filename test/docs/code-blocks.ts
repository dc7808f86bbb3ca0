import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A fenced code block of a Markdown page. */
export interface CodeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string after the opening fence, trimmed (`ts`, `ts fragment`, `bash` …). */
  info: string;
  /** The lines between the fences, the fence's own indentation removed. */
  content: string;
  /** The line right before the opening fence ('' on the first line). */
  previousLine: string;
}

/** The languages whose blocks must be examples or fragments. */
export const CHECKED_LANGUAGES = new Set(['ts', 'typescript', 'js', 'javascript']);

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;
const EXAMPLE_MARKER = /^<!--\s*example:\s*(docs\/examples\/[^\s#]+\.(?:ts|js|mjs|cjs))(?:#([\w.-]+))?\s*-->$/;

/** Every fenced code block of a Markdown text, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    // A backtick fence's info string cannot hold a backtick: such a line is inline code, not a fence.
    if (fence[0] === '`' && info.includes('`')) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    blocks.push({ line: i + 1, info: info.trim(), content: body.join('\n'), previousLine: i > 0 ? lines[i - 1].trim() : '' });
    i = j;
  }
  return blocks;
}

/** The lines of `text` with the indentation they all share removed (blank lines do not count). */
export function dedent(lines: string[]): string {
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^\s*/.exec(line)![0].length);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((line) => (line.trim() === '' ? '' : line.slice(common))).join('\n');
}

/** The text of a `// #region name` … `// #endregion name` region of a source file, or undefined when there is none. */
export function regionOf(source: string, region: string): string | undefined {
  const lines = source.split('\n');
  const isMarker = (line: string, word: string) => new RegExp(`^\\s*//\\s*#${word}\\s+${escapeRegExp(region)}\\s*$`).test(line);
  const start = lines.findIndex((line) => isMarker(line, 'region'));
  if (start < 0) return undefined;
  const end = lines.findIndex((line, index) => index > start && isMarker(line, 'endregion'));
  if (end < 0) return undefined;
  return dedent(lines.slice(start + 1, end));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Trailing newlines and trailing spaces do not count when a block is compared with its file. */
function normalise(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

/**
 * What is wrong with the checked code blocks of one page, one message per block, each starting with `page:line`.
 * A checked block is an example (the line before it is `<!-- example: docs/examples/<file>#<region> -->` and it
 * equals that file or region) or a fragment on purpose (info string `ts fragment` / `js fragment`).
 */
export function problemsOf(page: string, markdown: string, root: string): string[] {
  const problems: string[] = [];
  for (const block of codeBlocks(markdown)) {
    const [language, ...flags] = block.info.split(/\s+/);
    if (!CHECKED_LANGUAGES.has(language.toLowerCase())) continue;
    const where = `${page}:${block.line}`;
    const marker = EXAMPLE_MARKER.exec(block.previousLine);
    if (flags.includes('fragment')) {
      if (marker) problems.push(`${where}: a fragment cannot also be an example (drop "fragment" or the example comment)`);
      continue;
    }
    if (!marker) {
      problems.push(
        `${where}: a \`${block.info}\` block is neither an example (put <!-- example: docs/examples/<file>.ts[#<region>] --> on the line before it) nor marked \`${language} fragment\``,
      );
      continue;
    }
    const [, file, region] = marker;
    const path = join(root, file);
    if (!existsSync(path)) {
      problems.push(`${where}: its example file ${file} does not exist`);
      continue;
    }
    const source = readFileSync(path, 'utf8');
    const expected = region === undefined ? source : regionOf(source, region);
    if (expected === undefined) {
      problems.push(`${where}: ${file} has no region "${region}" (// #region ${region} … // #endregion ${region})`);
      continue;
    }
    if (normalise(expected) !== normalise(block.content)) {
      problems.push(
        `${where}: the block differs from ${file}${region ? `#${region}` : ''} at ${firstDifference(normalise(expected), normalise(block.content))}`,
      );
    }
  }
  return problems;
}

function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i])
      return `its line ${i + 1}: the example has ${JSON.stringify(a[i] ?? '(end)')}, the page ${JSON.stringify(b[i] ?? '(end)')}`;
  }
  return 'an unknown line';
}
