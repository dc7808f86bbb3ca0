/**
 * The status page's chart drawing, as browser JavaScript in a string (the page has no build step and loads nothing
 * from elsewhere). Each chart is an inline SVG redrawn from the samples on every update: a few hundred points, so
 * redrawing is simpler than patching and costs nothing. Every series path carries `data-series` and `data-points`
 * (the e2e test reads them). No template literals in here: the string itself is one.
 */
export const STATUS_CHARTS_SCRIPT = `
const SVG_NS = 'http://www.w3.org/2000/svg';
const WIDTH = 480, HEIGHT = 200;
const MARGIN = { left: 56, right: 12, top: 10, bottom: 24 };

/** The charts: what each series plots from a sample (null leaves a gap), its colour and legend label. */
const CHARTS = [
  { id: 'chart-hit-ratio', unit: '%', max: 100, series: [
    { key: 'hit-ratio', label: 'hits / reads', color: '#1a7f37', value: (p) => (p.hitRatio === null ? null : p.hitRatio * 100) },
  ] },
  { id: 'chart-decisions', unit: '/s', minMax: 1, series: [
    { key: 'decisions-allowed', label: 'allowed', color: '#0969da', value: (p) => p.decisionsPerSecond.allowed },
    { key: 'decisions-denied', label: 'denied', color: '#cf222e', value: (p) => p.decisionsPerSecond.denied },
    // Outcomes taken without Redis (its outage policy): drawn only when they happened, or they would hide the rest.
    { key: 'decisions-failed_open', label: 'failed open', color: '#bf8700', optional: true, value: (p) => p.decisionsPerSecond.failed_open },
    { key: 'decisions-failed_closed', label: 'failed closed', color: '#8250df', optional: true, value: (p) => p.decisionsPerSecond.failed_closed },
    { key: 'decisions-fallback', label: 'fallback', color: '#57606a', optional: true, value: (p) => p.decisionsPerSecond.fallback },
  ] },
  { id: 'chart-lock-wait', unit: ' ms', minMax: 1, series: [
    { key: 'lock-wait-p99', label: 'p99 wait', color: '#bc4c00', value: (p) => p.lockWaitP99Ms },
  ] },
  { id: 'chart-stream', unit: '', minMax: 5, series: [
    { key: 'stream-acked', label: 'acked/s', color: '#0969da', value: (p) => p.streamAckedPerSecond },
    { key: 'stream-lag', label: 'lag (undelivered)', color: '#6639ba', value: (p) => p.streamLag },
    { key: 'stream-pending', label: 'pending (unacked)', color: '#1b7c83', value: (p) => p.streamPending },
  ] },
];

function svgElement(name, attributes, text) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * A y-axis top at or above the value whose four gridlines fall on round numbers: a quarter of it is 1, 2, 2.5 or 5
 * times a power of ten.
 */
function niceCeiling(value) {
  const quarter = value / 4;
  const power = Math.pow(10, Math.floor(Math.log10(quarter)));
  for (const step of [1, 2, 2.5, 5, 10]) if (quarter <= step * power * 1.000001) return 4 * step * power;
  return 40 * power;
}

function formatNumber(value) {
  if (value === 0) return '0';
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 1) return String(Number(value.toFixed(1)));
  return String(Number(value.toPrecision(2)));
}

function lastValue(series, samples) {
  for (let i = samples.length - 1; i >= 0; i--) {
    const value = series.value(samples[i]);
    if (value !== null && value !== undefined) return value;
  }
  return null;
}

/**
 * The time span a chart shows: the whole history, at least a minute and at most the window, so a freshly started
 * app's charts fill from the first minute rather than sit in a corner of five.
 */
function spanOf(samples, windowMs) {
  if (samples.length === 0) return 60000;
  return Math.min(windowMs, Math.max(60000, samples[samples.length - 1].at - samples[0].at));
}

/** Tick spacing along the time axis: at most six ticks, on round numbers of seconds or minutes. */
function timeStep(spanMs) {
  for (const step of [10000, 15000, 30000, 60000]) if (spanMs / step <= 6) return step;
  return 60000;
}

function timeLabel(agoMs) {
  if (agoMs === 0) return 'now';
  return '\\u2212' + (agoMs < 60000 ? agoMs / 1000 + ' s' : agoMs / 60000 + ' min');
}

/** Draws one chart: samples within its span ending at the newest one, gaps where a value is missing. */
function drawChart(chart, samples, windowMs, intervalMs) {
  const svg = document.querySelector('#' + chart.id + ' svg');
  const legend = document.querySelector('#' + chart.id + ' .legend');
  const end = samples.length > 0 ? samples[samples.length - 1].at : Date.now();
  const span = spanOf(samples, windowMs);
  const start = end - span;
  const visible = samples.filter((p) => p.at >= start);
  const shown = chart.series.filter((s) => !s.optional || visible.some((p) => (s.value(p) || 0) > 0));
  let highest = 0;
  for (const s of shown) for (const p of visible) highest = Math.max(highest, s.value(p) || 0);
  const max = chart.max || niceCeiling(Math.max(highest, chart.minMax));
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const xOf = (at) => MARGIN.left + ((at - start) / span) * plotWidth;
  const yOf = (value) => MARGIN.top + plotHeight - (Math.min(value, max) / max) * plotHeight;

  const children = [];
  for (let i = 0; i <= 4; i++) {
    const value = (max * i) / 4;
    const y = yOf(value);
    children.push(svgElement('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y, y2: y, class: i === 0 ? 'axis' : 'grid' }));
    children.push(svgElement('text', { x: MARGIN.left - 6, y: y + 4, 'text-anchor': 'end', class: 'tick' }, formatNumber(value) + chart.unit));
  }
  const step = timeStep(span);
  for (let ago = 0; ago <= span; ago += step) {
    const x = xOf(end - ago);
    children.push(svgElement('line', { x1: x, x2: x, y1: MARGIN.top + plotHeight, y2: MARGIN.top + plotHeight + 4, class: 'axis' }));
    children.push(svgElement('text', { x: x, y: HEIGHT - 6, 'text-anchor': ago === 0 ? 'end' : 'middle', class: 'tick' }, timeLabel(ago)));
  }
  for (const s of shown) {
    let d = '';
    let points = 0;
    let previousAt = null;
    for (const p of visible) {
      const value = s.value(p);
      if (value === null || value === undefined) {
        previousAt = null;
        continue;
      }
      const x = xOf(p.at).toFixed(1);
      const y = yOf(value).toFixed(1);
      // A new stretch after a gap starts with a dot (a zero-length segment with a round cap), so a lone point shows.
      const resumes = previousAt === null || p.at - previousAt > 2.5 * intervalMs;
      d += resumes ? 'M' + x + ' ' + y + 'h0 ' : 'L' + x + ' ' + y + ' ';
      points++;
      previousAt = p.at;
    }
    children.push(svgElement('path', { d: d.trim(), class: 'series', stroke: s.color, 'data-series': s.key, 'data-points': points }));
  }
  svg.replaceChildren(...children);

  legend.replaceChildren(...shown.map((s) => {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = s.color;
    const latest = lastValue(s, visible);
    item.append(swatch, s.label + (latest === null ? '' : ': ' + formatNumber(latest) + chart.unit));
    return item;
  }));
}

function drawCharts(samples, windowMs, intervalMs) {
  for (const chart of CHARTS) drawChart(chart, samples, windowMs, intervalMs);
}
`;
