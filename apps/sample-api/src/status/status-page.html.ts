import { STATUS_CHARTS_SCRIPT } from './status-charts.script';
import { STATUS_PAGE_SCRIPT } from './status-page.script';

/**
 * The status page served at GET /: static HTML, a stylesheet and a little JavaScript, no build step and nothing
 * loaded from elsewhere; updated over SSE. Cards count since the app started, charts span the last five minutes.
 */
export const STATUS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>redis-patterns sample API</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.2rem 1.5rem; color: #1d232a; }
  header { display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap; margin-bottom: .8rem; }
  h1 { font-size: 1.25rem; margin: 0; }
  h2 { font-size: 1rem; margin: 0 0 .4rem; }
  #connection, #traffic-status, .note { font-size: .85rem; color: #57606a; }
  button { font: inherit; padding: .3rem .8rem; border: 1px solid #1a7f37; border-radius: 6px; background: #1f883d; color: #fff; cursor: pointer; }
  button:disabled { background: #94d3a2; border-color: #94d3a2; cursor: default; }
  .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: .7rem; margin-bottom: .9rem; }
  .chart { margin: 0; }
  .card, .chart, aside { border: 1px solid #d0d7de; border-radius: 8px; padding: .5rem .8rem; }
  .card b { display: block; font-size: 1.4rem; }
  .card span { font-size: .8rem; color: #57606a; }
  .layout { display: grid; grid-template-columns: 1fr 1fr 210px; gap: .7rem; align-items: start; }
  aside { grid-column: 3; grid-row: 1 / span 2; }
  .chart h2 { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .chart h2 small { font-weight: normal; color: #57606a; }
  .chart svg { display: block; width: 100%; height: auto; }
  .chart .grid { stroke: #eaeef2; }
  .chart .axis { stroke: #8c959f; }
  .chart .tick { font-size: 11px; fill: #57606a; }
  .chart .series { fill: none; stroke-width: 2; stroke-linecap: round; stroke-linejoin: round; }
  .legend { list-style: none; display: flex; flex-wrap: wrap; gap: .2rem 1rem; margin: .2rem 0 0; padding: 0; font-size: .8rem; }
  .swatch { display: inline-block; width: .9rem; height: .25rem; border-radius: 2px; margin-right: .35rem; vertical-align: middle; }
  ol { padding-left: 1.4rem; margin: .3rem 0; }
  @media (max-width: 900px) { .layout { grid-template-columns: 1fr; } aside { grid-column: auto; grid-row: auto; } }
</style>
</head>
<body>
<header>
  <h1>redis-patterns sample API</h1>
  <span id="connection">connecting…</span>
  <button id="generate-traffic" type="button">Generate traffic</button>
  <span id="traffic-status">a few seconds of requests against this API's own routes</span>
</header>
<div class="cards">
  <div class="card">Cache hit ratio<b id="cache-hit-ratio">–</b><span id="cache-counts"></span></div>
  <div class="card">Rate-limit rejections<b id="rate-limited">–</b></div>
  <div class="card">Lock contention<b id="lock-contention">–</b></div>
  <div class="card">Stream lag<b id="stream-lag">–</b><span id="stream-detail"></span></div>
  <div class="card">Unique visitors today<b id="unique-visitors">–</b></div>
  <div class="card">Requests<b id="requests">–</b></div>
</div>
<div class="layout">
  <figure class="chart" id="chart-hit-ratio"><h2>Cache hit ratio <small>hits over reads, each second</small></h2><svg viewBox="0 0 480 200" role="img" aria-label="Cache hit ratio over the last five minutes"></svg><ul class="legend"></ul></figure>
  <figure class="chart" id="chart-decisions"><h2>Rate-limit decisions <small>per second, by outcome</small></h2><svg viewBox="0 0 480 200" role="img" aria-label="Rate-limit decisions per second over the last five minutes"></svg><ul class="legend"></ul></figure>
  <figure class="chart" id="chart-lock-wait"><h2>Lock wait <small>99th percentile, each second</small></h2><svg viewBox="0 0 480 200" role="img" aria-label="Lock wait p99 over the last five minutes"></svg><ul class="legend"></ul></figure>
  <figure class="chart" id="chart-stream"><h2>Stream <small>entries acked per second, consumer group backlog</small></h2><svg viewBox="0 0 480 200" role="img" aria-label="Stream entries consumed and consumer group lag over the last five minutes"></svg><ul class="legend"></ul></figure>
  <aside>
    <h2>Leaderboard</h2>
    <ol id="leaderboard"></ol>
    <p class="note">Cards count since the app started; charts show the last five minutes of the library's OpenTelemetry metrics (also at <a href="/metrics">/metrics</a>).</p>
  </aside>
</div>
<script>
${STATUS_CHARTS_SCRIPT}
${STATUS_PAGE_SCRIPT}
</script>
</body>
</html>
`;
