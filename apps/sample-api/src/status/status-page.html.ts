/** The status page served at GET /: static HTML and a little JavaScript, no build step, updated over SSE. */
export const STATUS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>redis-patterns sample API</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem; color: #1d232a; }
  h1 { font-size: 1.3rem; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 1rem; }
  .card { border: 1px solid #d0d7de; border-radius: 8px; padding: .8rem 1rem; }
  .card b { display: block; font-size: 1.6rem; }
  #connection { font-size: .85rem; color: #57606a; }
  ol { padding-left: 1.4rem; }
</style>
</head>
<body>
<h1>redis-patterns sample API <span id="connection">connecting…</span></h1>
<div class="grid">
  <div class="card">Cache hit ratio<b id="cache-hit-ratio">–</b><span id="cache-counts"></span></div>
  <div class="card">Rate-limit rejections<b id="rate-limited">–</b></div>
  <div class="card">Lock contention (409)<b id="lock-contention">–</b></div>
  <div class="card">Stream lag<b id="stream-lag">–</b><span id="stream-detail"></span></div>
  <div class="card">Unique visitors today<b id="unique-visitors">–</b></div>
  <div class="card">Requests<b id="requests">–</b></div>
</div>
<h2>Leaderboard</h2>
<ol id="leaderboard"></ol>
<script>
  const $ = (id) => document.getElementById(id);
  const source = new EventSource('/status/stream');
  source.onopen = () => { $('connection').textContent = 'live'; };
  source.onerror = () => { $('connection').textContent = 'reconnecting…'; };
  source.onmessage = (event) => {
    const s = JSON.parse(event.data);
    $('cache-hit-ratio').textContent = (s.cache.hitRatio * 100).toFixed(1) + '%';
    $('cache-counts').textContent = s.cache.hits + ' hits, ' + s.cache.misses + ' misses';
    $('rate-limited').textContent = s.rateLimited;
    $('lock-contention').textContent = s.lockContention;
    $('stream-lag').textContent = s.stream.lag;
    $('stream-detail').textContent = s.stream.processed + ' processed, ' + s.stream.pending + ' pending';
    $('unique-visitors').textContent = s.uniqueVisitors;
    $('requests').textContent = s.requests;
    const list = $('leaderboard');
    list.replaceChildren(...s.leaderboard.map((row) => {
      const li = document.createElement('li');
      li.textContent = row.member + ' — ' + row.score;
      return li;
    }));
  };
</script>
</body>
</html>
`;
