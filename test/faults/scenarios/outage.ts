// CONN-1/2/3, CACHE-4, RL-3 (goals G1, G2): a Nest app under 200 req/s while its Redis is frozen (SIGSTOP 5 s),
// killed and restarted, then frozen for 30 s. Cached reads answer everything, the fail-open limiter admits, the
// locked route never runs without its lock, behaviour is normal within 2 s of Redis' return, and memory stays flat.
import { TsChild } from '../lib/child';
import { httpRequest, type HttpResult } from '../lib/http';
import { mb, now, pause, percentile, waitUntil } from '../lib/measure';
import { check, type Check, type Scenario } from '../lib/scenario';
import { ownStandalone } from '../lib/servers';

const RATE = 200;
const COMMAND_TIMEOUT_MS = 500;
const SOURCE_MS = 20;
const ROUTES = ['/cached/1', '/limited', '/locked'] as const;
type Sample = HttpResult & { route: string; xCache?: string };

function startLoad(port: number): { samples: Sample[]; stop(): Promise<void> } {
  const samples: Sample[] = [];
  const pending = new Set<Promise<void>>();
  let running = true;
  let n = 0;
  const loop = (async () => {
    const start = now();
    while (running) {
      const route = ROUTES[n % ROUTES.length];
      const route2 = route === '/cached/1' ? `/cached/${n % 5}` : route;
      const p = httpRequest(port, route2, { timeoutMs: 5000 }).then((r) => {
        samples.push({ ...r, route, xCache: r.headers['x-cache'] as string | undefined });
      });
      pending.add(p);
      void p.finally(() => pending.delete(p));
      n++;
      const due = start + (n * 1000) / RATE;
      await pause(Math.max(0, due - now()));
    }
  })();
  return {
    samples,
    stop: async () => {
      running = false;
      await loop;
      await Promise.all(pending);
    },
  };
}

const stats = async (port: number): Promise<{ heapUsed: number; offlineQueue: number; commandQueue: number; status: string }> => {
  const response = await httpRequest(port, '/stats');
  return response.status === 200
    ? JSON.parse(response.body)
    : { heapUsed: Number.NaN, offlineQueue: -1, commandQueue: -1, status: `unreachable (${response.error ?? response.status})` };
};

export const outageScenario: Scenario = {
  id: 'OUTAGE',
  title: 'Nest app under load: Redis frozen, killed, frozen 30 s',
  deadlineMs: 120_000,
  async run(context) {
    const server = await ownStandalone(context, 'outage');
    // FAULTS_NO_AUTOPIPELINE=1 passes enableAutoPipelining: false explicitly (the single-node default since it measured slower).
    const app = new TsChild(
      'test/fixtures/faults/outage-app.ts',
      { REDIS_URL: server.url, KEY_PREFIX: 'fout', NO_AUTOPIPELINE: process.env.FAULTS_NO_AUTOPIPELINE ?? '' },
      ['--expose-gc'],
    );
    context.defer(() => app.kill());
    const port = Number((await app.waitForLine(/^listening (\d+)$/, 60_000))[1]);
    const load = startLoad(port);
    context.defer(() => load.stop());
    await pause(2000);
    const checks: Check[] = [];
    const windows: Array<{ fault: string; from: number; to: number; recoveryMs: number }> = [];
    const recovery = async (since: number): Promise<number> => {
      try {
        await waitUntil(
          () =>
            load.samples.some((s) => s.startedAt > since && s.route === '/locked' && s.status === 200) &&
            load.samples.some((s) => s.startedAt > since && s.xCache === 'HIT'),
          10_000,
          'normal behaviour',
        );
      } catch {
        const after = load.samples.filter((s) => s.startedAt > since);
        context.log(
          `no recovery: ${JSON.stringify(after.slice(-6).map((s) => [s.route, s.status, s.xCache, Math.round(s.ms), s.error]))}; app running ${app.running}; app stderr: ${app.stderr.slice(-1500)}`,
        );
        return Number.POSITIVE_INFINITY;
      }
      // The first normal answer of each kind, counted from Redis' return.
      const firstLock = load.samples
        .filter((s) => s.startedAt > since && s.route === '/locked' && s.status === 200)
        .map((s) => s.startedAt + s.ms);
      const firstHit = load.samples.filter((s) => s.startedAt > since && s.xCache === 'HIT').map((s) => s.startedAt + s.ms);
      return Math.max(Math.min(...firstLock), Math.min(...firstHit)) - since;
    };

    // SIGSTOP 5 s (black hole), then kill -9 with a 5 s restart delay.
    let from = now();
    server.server.freeze();
    await pause(5000);
    let to = now();
    server.server.resume();
    windows.push({ fault: 'SIGSTOP 5 s', from, to, recoveryMs: Math.round(await recovery(to)) });
    await pause(2000);
    from = now();
    await server.server.crash();
    await pause(5000);
    to = now();
    await server.server.restart();
    windows.push({ fault: 'kill -9, restart after 5 s', from, to, recoveryMs: Math.round(await recovery(to)) });
    await pause(2000);

    // 30 s outage: heap and queues.
    const heapBefore = (await stats(port)).heapUsed;
    server.server.freeze();
    from = now();
    await pause(30_000);
    const during = await stats(port);
    to = now();
    server.server.resume();
    windows.push({ fault: 'SIGSTOP 30 s', from, to, recoveryMs: Math.round(await recovery(to)) });
    await pause(1000);
    await load.stop();

    const inside = (s: Sample, w: { from: number; to: number }) => s.startedAt >= w.from && s.startedAt + s.ms <= w.to;
    const figures: Record<string, unknown> = {};
    for (const w of windows) {
      const during = load.samples.filter((s) => inside(s, w));
      const cached = during.filter((s) => s.route === '/cached/1');
      const limited = during.filter((s) => s.route === '/limited');
      const locked = during.filter((s) => s.route === '/locked');
      const cachedBad = cached.filter((s) => s.status !== 200).length;
      const p99 = percentile(
        cached.map((s) => s.ms),
        99,
      );
      const bound = COMMAND_TIMEOUT_MS + SOURCE_MS + 100;
      const limitedBad = limited.filter((s) => s.status !== 200).length;
      const lockedRan = locked.filter((s) => s.status === 200).length;
      const lockedStatuses = [...new Set(locked.map((s) => s.status))].join('/');
      figures[w.fault] = { requests: during.length, cachedBad, p99, limitedBad, lockedRan, lockedStatuses, recoveryMs: w.recoveryMs };
      checks.push(
        check(
          `${w.fault} at ${RATE} req/s — cached route answers all (5xx 0), p99 ≤ commandTimeout + source + 100 ms (${bound} ms)`,
          `cached ${cached.length - cachedBad}/${cached.length} answered, p99 ${p99} ms`,
          cached.length > 0 && cachedBad === 0 && p99 <= bound,
        ),
        check(
          `${w.fault} — rate-limited route follows its policy (failOpen: admitted)`,
          `non-200 ${limitedBad} of ${limited.length}`,
          limited.length > 0 && limitedBad === 0,
        ),
        // Fails closed = answered (503/409), never run; a dead app (status 0) proves nothing, so it fails too.
        check(
          `${w.fault} — locked route fails closed (answers 503/409, never runs without the lock)`,
          `ran ${lockedRan} of ${locked.length} (statuses ${lockedStatuses})`,
          locked.length > 0 && lockedRan === 0 && locked.every((s) => s.status === 503 || s.status === 409),
        ),
        check(`${w.fault} — normal within 2 s of Redis' return (lock granted, cache HIT)`, `${w.recoveryMs} ms`, w.recoveryMs <= 2000),
      );
    }
    checks.unshift(
      check(
        'the app process survives every outage',
        app.running
          ? 'alive'
          : `crashed: ${/\n(\w*Error: [^\n]*)\n\s*at ([^\n]*)/.exec(app.stderr)?.slice(1).join(' at ') ?? app.stderr.slice(-200)}`,
        app.running,
      ),
    );
    const growth = during.heapUsed - heapBefore;
    figures.heap = {
      before: mb(heapBefore),
      during: mb(during.heapUsed),
      offlineQueue: during.offlineQueue,
      commandQueue: during.commandQueue,
      status: during.status,
    };
    checks.push(
      check(
        `30 s outage under ${RATE} req/s: heap growth < 20 MB, no command in the offline queue`,
        `heap +${mb(growth)} MB (after GC); offline queue ${during.offlineQueue}; commands awaiting a reply on the frozen socket ${during.commandQueue}`,
        growth < 20 * 1024 * 1024 && during.offlineQueue === 0,
      ),
    );
    Object.assign(context.figures, figures, { totalRequests: load.samples.length });
    return checks;
  },
};
