/**
 * The status page's wiring, as browser JavaScript in a string: the SSE stream feeds the cards and the samples the
 * charts draw (status-charts.script.ts), and the "Generate traffic" button starts a burst. The first message holds
 * the server's whole history, so a page opened late shows the last minutes at once. No template literals in here.
 */
export const STATUS_PAGE_SCRIPT = `
const $ = (id) => document.getElementById(id);
let samples = [];

function renderCards(s) {
  $('cache-hit-ratio').textContent = (s.cache.hitRatio * 100).toFixed(1) + '%';
  $('cache-counts').textContent = s.cache.hits + ' hits, ' + s.cache.misses + ' misses' + (s.cache.stale ? ', ' + s.cache.stale + ' stale' : '');
  $('rate-limited').textContent = s.rateLimited;
  $('lock-contention').textContent = s.lockContention;
  $('stream-lag').textContent = s.stream.lag === null ? '\\u2013' : s.stream.lag;
  $('stream-detail').textContent = s.stream.processed + ' processed, ' + (s.stream.pending === null ? '\\u2013' : s.stream.pending) + ' pending';
  $('unique-visitors').textContent = s.uniqueVisitors;
  $('requests').textContent = s.requests;
  $('leaderboard').replaceChildren(...s.leaderboard.map((row) => {
    const item = document.createElement('li');
    item.textContent = row.member + ' \\u2014 ' + row.score;
    return item;
  }));
}

// 'requested' while this page's POST is in flight, then the startedAt of the burst it started, until a snapshot shows
// that burst: a snapshot taken before it began is stale and would re-enable the button in the middle of the burst.
let awaitedBurst = null;

function renderTraffic(traffic) {
  const burst = traffic.lastBurst;
  if (awaitedBurst !== null) {
    if (!burst || burst.startedAt !== awaitedBurst) return;
    awaitedBurst = null;
  }
  const button = $('generate-traffic');
  button.disabled = traffic.running;
  if (!burst) return;
  const statuses = Object.keys(burst.byStatus).sort().map((status) => status + ' \\u00d7' + burst.byStatus[status]).join(', ');
  $('traffic-status').textContent = (traffic.running ? 'running: ' : 'last burst: ') + burst.sent + '/' + burst.planned + ' requests' + (statuses ? ' (' + statuses + ')' : '');
}

const source = new EventSource('/status/stream');
source.onopen = () => { $('connection').textContent = 'live'; };
source.onerror = () => { $('connection').textContent = 'reconnecting\\u2026'; };
source.onmessage = (event) => {
  const s = JSON.parse(event.data);
  if (s.history) samples = s.history;
  if (s.sample && (samples.length === 0 || s.sample.at > samples[samples.length - 1].at)) {
    samples.push(s.sample);
    if (samples.length > s.historySamples) samples.splice(0, samples.length - s.historySamples);
  }
  renderCards(s);
  renderTraffic(s.traffic);
  drawCharts(samples, s.historySamples * s.sampleIntervalMs, s.sampleIntervalMs);
};

$('generate-traffic').addEventListener('click', async () => {
  const button = $('generate-traffic');
  button.disabled = true;
  awaitedBurst = 'requested';
  try {
    const response = await fetch('/status/traffic', { method: 'POST' });
    const body = await response.json().catch(() => ({}));
    if (response.status === 202) {
      awaitedBurst = body.startedAt;
      $('traffic-status').textContent = 'running: ' + body.planned + ' requests over a few seconds';
    } else {
      // Refused (another burst is running, or the app is stopping): the next snapshot says what is going on.
      awaitedBurst = null;
      $('traffic-status').textContent = body.message || 'HTTP ' + response.status;
    }
  } catch (error) {
    awaitedBurst = null;
    $('traffic-status').textContent = String(error);
    button.disabled = false;
  }
});
`;
