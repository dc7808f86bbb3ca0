// The scenario every consumer app of the packed tarball runs (copied into each app by scripts/test-package.js):
// cache MISS -> HIT, a 429 with headers, a 409, /health, a clean close (no client left in CLIENT LIST), and the
// doctor command's exit codes. Each app supplies its own Nest application, written the way such an app would be.
'use strict';
const { spawnSync } = require('node:child_process');
const assert = require('node:assert/strict');

async function runScenario({ label, startApp, LockService, startTestRedis, Redis }) {
  // A scenario that stalls (a promise never settling) must not pass: the exit code is 0 only once every step ran.
  process.exitCode = 1;
  const step = (name) => console.log(`ok ${label}: ${name}`);
  const redis = await startTestRedis();
  try {
    const app = await startApp(redis.url);
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('0.0.0.0', '127.0.0.1');
    const get = (path, init) => fetch(base + path, { ...init, signal: AbortSignal.timeout(5000) });

    const miss = await get('/products/1');
    const hit = await get('/products/1');
    assert.equal(miss.status, 200);
    assert.equal(miss.headers.get('x-cache'), 'MISS');
    assert.equal(hit.headers.get('x-cache'), 'HIT');
    assert.deepEqual(await hit.json(), await miss.json());
    step('@Cacheable: X-Cache MISS, then HIT with the same body');

    const statuses = [];
    let denied;
    for (let i = 0; i < 3; i++) {
      const response = await get('/search');
      statuses.push(response.status);
      if (response.status === 429) denied = response;
    }
    assert.deepEqual(statuses, [200, 200, 429]);
    assert.ok(Number(denied.headers.get('retry-after')) > 0, 'Retry-After on the 429');
    assert.match(denied.headers.get('ratelimit') ?? '', /r=0/);
    assert.match(denied.headers.get('ratelimit-policy') ?? '', /q=2;w=60/);
    step('@RateLimit: 200, 200, then 429 with Retry-After, RateLimit and RateLimit-Policy');

    const held = await app.get(LockService).tryAcquire('order:1', { ttlMs: 5000 });
    assert.ok(held, 'the test holds the lock');
    const conflict = await get('/orders/1/pay', { method: 'POST' });
    assert.equal(conflict.status, 409);
    assert.ok(Number(conflict.headers.get('retry-after')) > 0);
    await held.release();
    assert.equal((await get('/orders/1/pay', { method: 'POST' })).status, 201);
    step('@WithLock: 409 with Retry-After while held, 201 once released');

    const health = await get('/health');
    assert.equal(health.status, 200);
    assert.match(JSON.stringify(await health.json()), /"up"/);
    step('/health: up');

    await app.close();
    const admin = new Redis(redis.url);
    try {
      const clients = (await admin.client('LIST')).trim().split('\n');
      assert.equal(clients.length, 1, `only the checking client is left after app.close(), found:\n${clients.join('\n')}`);
    } finally {
      admin.disconnect();
    }
    step('app.close(): no client of the module left in CLIENT LIST');

    const healthy = doctor(['--url', redis.url]);
    assert.equal(healthy.status, 0, healthy.output);
    step('doctor: exit 0 against a healthy server');
  } finally {
    await redis.stop();
  }

  const down = doctor(['--url', 'redis://127.0.0.1:1']);
  assert.equal(down.status, 1, down.output);
  assert.match(down.output, /unreachable/);
  step('doctor: exit 1 and "unreachable" when no server answers');

  const locked = await startTestRedis({ password: 'consumer-secret' });
  try {
    const wrong = doctor(['--url', `redis://127.0.0.1:${locked.port}`], { REDISCLI_AUTH: 'wrong-password' });
    assert.equal(wrong.status, 1, wrong.output);
    assert.match(wrong.output, /authentication failed/);
    assert.doesNotMatch(wrong.output, /wrong-password/);
    const right = doctor(['--url', `redis://127.0.0.1:${locked.port}`], { REDISCLI_AUTH: 'consumer-secret' });
    assert.equal(right.status, 0, right.output);
    step('doctor: exit 1 and "authentication failed" on a wrong password (never echoed), 0 with the right one');
  } finally {
    await locked.stop();
  }
  console.log(`ok ${label}: every step`);
  process.exitCode = 0;
}

/** The installed bin, as a user runs it: `npx nestjs-redis-patterns doctor …`. */
function doctor(args, env = {}) {
  const result = spawnSync('npx', ['--no-install', 'nestjs-redis-patterns', 'doctor', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

module.exports = { runScenario };
