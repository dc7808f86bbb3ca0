import type { GroupResult } from './runner';
import { HEADLINE_CONCURRENCY } from './sweep';
import { spreadOf } from './verdict';

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A horizontal bar chart of every ratio (median bar, a thick p25–p75 whisker and a thin min–max one, a tick at the
 * target when there is one), on a linear scale with 1× marked: bars right of the line mean "ours does more
 * operations per second". A bar is green when its target is met by the rule (three quarters of the rounds), red when
 * missed.
 */
export function renderRatioChart(groups: GroupResult[]): string {
  // Throughput ratios only, at the headline concurrency of the sweep (the other levels are in the report's tables).
  const bars = groups
    .filter((g) => g.concurrency === undefined || g.concurrency === HEADLINE_CONCURRENCY)
    .flatMap((g) =>
      g.ratios
        .filter((r) => r.summary.n > 0 && r.metric === 'opsPerSec')
        .map((r) => ({
          group: g.title.split(':')[0],
          ...r,
          spread: spreadOf(r.perRound) ?? { ...r.summary, p25: r.summary.median, p75: r.summary.median },
        })),
    );
  const labelWidth = 560;
  const plotWidth = 420;
  const rowHeight = 24;
  const top = 40;
  const height = top + bars.length * rowHeight + 30;
  // Scaled to the medians and targets; a whisker beyond the plot is clipped (its value is in the report's tables).
  const maxValue = Math.max(2, ...bars.map((b) => Math.max(b.summary.median * 1.5, b.target ?? 0))) * 1.05;
  const x = (value: number) => labelWidth + (Math.min(value, maxValue) / maxValue) * plotWidth;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + plotWidth + 70}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="13" font-weight="bold">Ours ÷ other, ops/s: bar = median of rounds, thick whisker p25–p75, thin min–max, | target; red = missed (¾ of rounds)</text>`,
  ];
  bars.forEach((bar, i) => {
    const y = top + i * rowHeight;
    const color = bar.met === false ? '#d9534f' : bar.met ? '#2e8b57' : '#4a7bb7';
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${escapeXml(`${bar.group}: ${bar.label}`)}</text>`,
      `<rect x="${labelWidth}" y="${y + 4}" width="${Math.max(1, x(bar.summary.median) - labelWidth)}" height="14" fill="${color}"/>`,
      `<line x1="${x(bar.spread.min)}" x2="${x(bar.spread.max)}" y1="${y + 11}" y2="${y + 11}" stroke="#222"/>`,
      `<line x1="${x(bar.spread.p25)}" x2="${x(bar.spread.p75)}" y1="${y + 11}" y2="${y + 11}" stroke="#222" stroke-width="4"/>`,
      `<text x="${x(Math.max(bar.summary.max, bar.target ?? 0)) + 6}" y="${y + 15}">${bar.summary.median.toFixed(2)}×</text>`,
    );
    if (bar.target !== undefined)
      parts.push(`<line x1="${x(bar.target)}" x2="${x(bar.target)}" y1="${y + 1}" y2="${y + 21}" stroke="#000" stroke-width="2"/>`);
  });
  const one = x(1);
  parts.push(
    `<line x1="${one}" x2="${one}" y1="${top - 4}" y2="${height - 24}" stroke="#888" stroke-dasharray="4 3"/>`,
    `<text x="${one}" y="${height - 10}" text-anchor="middle">1×</text>`,
    '</svg>',
  );
  return parts.join('\n') + '\n';
}
