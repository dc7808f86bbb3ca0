import { readFileSync, writeFileSync } from 'node:fs';

/**
 * A generated block of a Markdown file: the text between two HTML-comment markers, rewritten by the run that produced
 * its figures and compared by a test, so a published figure cannot drift from its source.
 */
export class GeneratedBlock {
  constructor(
    private readonly begin: string,
    private readonly end: string,
  ) {}

  /** The block currently in `text` (undefined without markers). */
  readonly in = (text: string): string | undefined => {
    const from = text.indexOf(this.begin);
    const to = text.indexOf(this.end);
    return from < 0 || to < from ? undefined : text.slice(from + this.begin.length, to).trim();
  };

  /** Rewrites the block of `file` with `block`; the markers must be there already. */
  readonly write = (file: string, block: string): void => {
    const text = readFileSync(file, 'utf8');
    const from = text.indexOf(this.begin);
    const to = text.indexOf(this.end);
    if (from < 0 || to < from) throw new Error(`${file} has no ${this.begin} … ${this.end} markers`);
    writeFileSync(file, `${text.slice(0, from + this.begin.length)}\n\n${block}\n\n${text.slice(to)}`);
  };
}
