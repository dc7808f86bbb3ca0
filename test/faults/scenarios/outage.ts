// CONN-1/2/3, CACHE-4, RL-3 (goals G1, G2, G8): a Nest app under load while its Redis is frozen (SIGSTOP 5 s),
// killed and restarted, then frozen for 30 s at 1000 req/s. Cached reads answer everything within one command
// deadline plus the source, each limited route follows its outage policy (open, closed, in-memory insurance) with
// decisions inside the command deadline, the locked route never runs without its lock, behaviour is normal within
// 2 s of Redis' return, and memory stays flat.
//
// Counting: a request belongs to a fault window when it *started* inside it, whenever it ended; the load waits for
// every request (each has a 5 s client deadline), so a request that hung past the window is seen, as a failure.
import { TsChild } from '../lib/child';
import { httpRequest, type HttpResult } from '../lib/http';
import { mb, now, pause, percentile, waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario } from '../lib/scenario';
import { ownStandalone } from '../lib/servers';

const COMMAND_TIMEOUT_MS = 500;
const SOURCE_MS = 20;
const CLIENT_TIMEOUT_MS = 5000;
/** Calls per 1 s window each limited route admits (LIMIT_PER_SECOND in the fixture). */
const LIMIT = 10;
/** Load cycles per second: each cycle sends one call to every non-cached route and `cachedPerCycle` cached reads. */
const CYCLES_PER_SECOND = 40;
const OTHER_ROUTES = ['/limited', '/limited-closed', '/limited-insured', '/locked'] as const;
const LIMITED = { open: '/limited', closed: '/limited-closed', insured: '/limited-insured' } as const;
type Route = '/cached' | (typeof OTHER_ROUTES)[number];
type Sample = HttpResult & { route: Route; xCache?: string };
interface Window {
  fault: string;
  from: number;
  to: number;
  recoveryMs: number;
}

/** Open-loop load: requests leave on schedule whether or not earlier ones have answered. */
class Load {
  readonly samples: Sample[] = [];
  private readonly pending = new Set<Promise<void>>();
  private running = true;
  private cachedPerCycle = 5;
  private readonly loop: Promise<void>;

  constructor(private readonly port: number) {
    this.loop = this.run();
  }

  /** Cached reads per second (the other routes stay at one call per cycle each). */
  set cachedRate(perSecond: number) {
    this.cachedPerCycle = Math.max(1, Math.round(perSecond / CYCLES_PER_SECOND));
  }

  private async run(): Promise<void> {
    let cycle = 0;
    let n = 0;
    const start = now();
    while (this.running) {
      for (let i = 0; i < this.cachedPerCycle; i++) this.send('/cached', `/cached/${n++ % 5}`);
      for (const route of OTHER_ROUTES) this.send(route, route);
      cycle++;
      await pause(Math.max(0, start + (cycle * 1000) / CYCLES_PER_SECOND - now()));
    }
  }

  private send(route: Route, path: string): void {
    const p = httpRequest(this.port, path, { timeoutMs: CLIENT_TIMEOUT_MS }).then((r) => {
      this.samples.push({ ...r, route, xCache: r.headers['x-cache'] as string | undefined });
    });
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await Promise.all(this.pending);
  }
}

const stats = async (port: number): Promise<{ heapUsed: number; offlineQueue: number; commandQueue: number; status: string }> => {
  const response = await httpRequest(port, '/stats');
  return response.status === 200
    ? JSON.parse(response.body)
    : { heapUsed: Number.NaN, offlineQueue: -1, commandQueue: -1, status: `unreachable (${response.error ?? response.status})` };
};

const statuses = (samples: readonly Sample[]): string => {
  const counts = new Map<string, number>();
  for (const s of samples) counts.set(String(s.status), (counts.get(String(s.status)) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${count}×${status}`).join(', ') || 'none';
};

/** The checks of one fault window. */
function windowChecks(w: Window, samples: readonly Sample[], rate: number): { checks: Check[]; figures: Record<string, unknown> } {
  const started = samples.filter((s) => s.startedAt >= w.from && s.startedAt <= w.to);
  const of = (route: Route, list = started) => list.filter((s) => s.route === route);
  // Requests that started at least one command deadline before Redis returned were decided without it (their command
  // failed fast or timed out before the return); later ones may legitimately have been decided by Redis.
  const decidedInOutage = started.filter((s) => s.startedAt <= w.to - COMMAND_TIMEOUT_MS);
  const cached = of('/cached');
  const cachedBad = cached.filter((s) => s.status !== 200);
  const cachedP99 = percentile(
    cached.map((s) => s.ms),
    99,
  );
  const cachedBound = COMMAND_TIMEOUT_MS + SOURCE_MS;
  const afterFirstDeadline = cached.filter((s) => s.startedAt >= w.from + COMMAND_TIMEOUT_MS + 100);
  const limited = [...of(LIMITED.open), ...of(LIMITED.closed), ...of(LIMITED.insured)];
  const limitedUnanswered = limited.filter((s) => ![200, 429, 503].includes(s.status));
  const decisionP99 = percentile(
    limited.map((s) => s.ms),
    99,
  );
  const open = of(LIMITED.open, decidedInOutage);
  const closed = of(LIMITED.closed, decidedInOutage);
  const insured = of(LIMITED.insured, decidedInOutage);
  const insuredAdmitted = insured.filter((s) => s.status === 200).length;
  const outageSeconds = (w.to - COMMAND_TIMEOUT_MS - w.from) / 1000;
  // The in-memory fallback enforces the same fixed 1 s windows per instance; windows it opens need not line up with
  // the outage's edges, so the outage spans at most ceil(seconds) + 1 of them.
  const insuredBound = LIMIT * (Math.ceil(outageSeconds) + 1);
  // As for the limiters: a locked request that started within a deadline of Redis' return may have been granted by
  // Redis once back (the app can reach it after the return), which is no outage behaviour.
  const locked = of('/locked', decidedInOutage);
  const lockedRan = locked.filter((s) => s.status === 200).length;
  const checks = [
    check(
      'G1 CONN-1 CONN-2 CACHE-4',
      `${w.fault} at ${rate} cached req/s — cached route answers all (5xx 0, no hang), p99 ≤ commandTimeout + source latency (${cachedBound} ms)`,
      `answered ${cached.length - cachedBad.length} of ${cached.length} (${statuses(cachedBad)} failed), p99 ${cachedP99} ms`,
      cached.length > 0 && cachedBad.length === 0 && cachedP99 <= cachedBound,
    ),
    figure(
      'CONN-2 CACHE-4',
      `${w.fault} — cached latency once the first deadline has passed (source ${SOURCE_MS} ms)`,
      `p50 ${percentile(
        afterFirstDeadline.map((s) => s.ms),
        50,
      )} ms, p99 ${percentile(
        afterFirstDeadline.map((s) => s.ms),
        99,
      )} ms over ${afterFirstDeadline.length}`,
    ),
    check(
      'G8 RL-3',
      `${w.fault} — every limiter decision answered (200/429/503, no hang), decision p99 ≤ commandTimeout (${COMMAND_TIMEOUT_MS} ms)`,
      `${limited.length - limitedUnanswered.length} of ${limited.length} answered (${statuses(limitedUnanswered)} not), p99 ${decisionP99} ms`,
      limited.length > 0 && limitedUnanswered.length === 0 && decisionP99 <= COMMAND_TIMEOUT_MS,
    ),
    check(
      'G8 RL-3',
      `${w.fault} — fail-open limiter admits every call Redis cannot decide`,
      `admitted ${open.filter((s) => s.status === 200).length} of ${open.length} (${statuses(open)})`,
      open.length > 0 && open.every((s) => s.status === 200),
    ),
    check(
      'G8 RL-3',
      `${w.fault} — fail-closed limiter admits none (503)`,
      `admitted ${closed.filter((s) => s.status === 200).length} of ${closed.length} (${statuses(closed)})`,
      closed.length > 0 && closed.every((s) => s.status === 503),
    ),
    check(
      'G8 RL-3',
      `${w.fault} — in-memory insurance admits at most its limit per window (${LIMIT}/s over ${outageSeconds.toFixed(1)} s: ≤ ${insuredBound})`,
      `admitted ${insuredAdmitted} of ${insured.length} (${statuses(insured)})`,
      insured.length > 0 &&
        insuredAdmitted > 0 &&
        insuredAdmitted <= insuredBound &&
        insured.every((s) => s.status === 200 || s.status === 429),
    ),
    check(
      'CONN-1 LOCK-9',
      `${w.fault} — locked route fails closed (answers 503/409, never runs without the lock)`,
      `ran ${lockedRan} of ${locked.length} (${statuses(locked)})`,
      locked.length > 0 && lockedRan === 0 && locked.every((s) => s.status === 503 || s.status === 409),
    ),
    check(
      'CONN-1 RL-3',
      `${w.fault} — normal within 2 s of Redis' return (lock granted, cache HIT, limiter deciding from Redis)`,
      `${w.recoveryMs} ms`,
      w.recoveryMs <= 2000,
    ),
  ];
  const slowest = (list: readonly Sample[]) =>
    [...list]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 12)
      .map((s) => `+${Math.round(s.startedAt - w.from)}:${Math.round(s.ms)}`)
      .join(' ');
  const figures = {
    slowestCached: slowest(cached),
    slowestDecisions: slowest(limited),
    requests: started.length,
    cached: cached.length,
    cachedFailed: cachedBad.length,
    cachedP99,
    decisionP99,
    open: statuses(open),
    closed: statuses(closed),
    insured: statuses(insured),
    locked: statuses(locked),
    recoveryMs: w.recoveryMs,
  };
  return { checks, figures };
}

export const outageScenario: Scenario = {
  id: 'OUTAGE',
  title: 'Nest app under load: Redis frozen, killed, frozen 30 s',
  deadlineMs: 150_000,
  async run(context) {
    const server = await ownStandalone(context, 'outage');
    const app = new TsChild('test/fixtures/faults/outage-app.ts', { REDIS_URL: server.url, KEY_PREFIX: 'fout' }, ['--expose-gc']);
    context.defer(() => app.kill());
    const port = Number((await app.waitForLine(/^listening (\d+)$/, 60_000))[1]);
    const load = new Load(port);
    load.cachedRate = 200;
    context.defer(() => load.stop());
    const warmFrom = now();
    await pause(3000);
    const warmTo = now();
    const windows: Array<Window & { rate: number }> = [];
    const recovery = async (since: number): Promise<number> => {
      const normal = (s: Sample): boolean =>
        s.startedAt > since &&
        ((s.route === '/locked' && s.status === 200) || s.xCache === 'HIT' || (s.route === LIMITED.closed && s.status === 429));
      try {
        await waitUntil(
          () =>
            ['/locked', 'HIT', LIMITED.closed].every((kind) =>
              load.samples.some((s) => normal(s) && (s.route === kind || s.xCache === kind)),
            ),
          10_000,
          'normal behaviour',
        );
      } catch {
        context.log(`no recovery; app running ${app.running}; app stderr: ${app.stderr.slice(-1500)}`);
        return Number.POSITIVE_INFINITY;
      }
      // The first normal answer of each kind (a granted lock, a cache hit, a limiter refusal decided by Redis), from
      // Redis' return.
      const first = (kind: string): number =>
        Math.min(...load.samples.filter((s) => normal(s) && (s.route === kind || s.xCache === kind)).map((s) => s.startedAt + s.ms));
      context.log(
        `recovery: lock ${Math.round(first('/locked') - since)} ms, hit ${Math.round(first('HIT') - since)} ms, refusal ${Math.round(first(LIMITED.closed) - since)} ms`,
      );
      return Math.max(first('/locked'), first('HIT'), first(LIMITED.closed)) - since;
    };

    let from = now();
    server.freeze();
    await pause(5000);
    let to = now();
    server.resume();
    windows.push({ fault: 'SIGSTOP 5 s', from, to, rate: 200, recoveryMs: Math.round(await recovery(to)) });
    await pause(2000);
    from = now();
    await server.kill();
    await pause(5000);
    to = now();
    await server.restart();
    windows.push({ fault: 'kill -9, restart after 5 s', from, to, rate: 200, recoveryMs: Math.round(await recovery(to)) });
    await pause(2000);

    // G2: a 30 s outage at 1000 cached req/s: heap and queues.
    const heapBefore = (await stats(port)).heapUsed;
    load.cachedRate = 1000;
    await pause(1000);
    server.freeze();
    from = now();
    await pause(30_000);
    const during = await stats(port);
    to = now();
    server.resume();
    windows.push({ fault: 'SIGSTOP 30 s', from, to, rate: 1000, recoveryMs: Math.round(await recovery(to)) });
    load.cachedRate = 200;
    await pause(1000);
    await load.stop();

    const warm = load.samples.filter((s) => s.startedAt >= warmFrom && s.startedAt <= warmTo && s.route === LIMITED.closed);
    const warmAdmitted = warm.filter((s) => s.status === 200).length;
    const warmBound = LIMIT * (Math.ceil((warmTo - warmFrom) / 1000) + 1);
    const checks: Check[] = [
      check(
        'CONN-1',
        'the app process survives every outage',
        app.running
          ? 'alive'
          : `crashed: ${/\n(\w*Error: [^\n]*)\n\s*at ([^\n]*)/.exec(app.stderr)?.slice(1).join(' at ') ?? app.stderr.slice(-200)}`,
        app.running,
      ),
      check(
        'RL-3',
        `before any fault the limiter is enforcing (${LIMIT}/s against ${CYCLES_PER_SECOND} calls/s: admitted ≤ ${warmBound} in ${((warmTo - warmFrom) / 1000).toFixed(1)} s, some refused)`,
        `admitted ${warmAdmitted} of ${warm.length} (${statuses(warm)})`,
        warmAdmitted > 0 && warmAdmitted <= warmBound && warm.some((s) => s.status === 429),
      ),
    ];
    const figures: Record<string, unknown> = {};
    for (const w of windows) {
      const result = windowChecks(w, load.samples, w.rate);
      checks.push(...result.checks);
      figures[w.fault] = result.figures;
    }
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
        'G2 CONN-3',
        '30 s outage at 1000 cached req/s: heap growth ≤ 20 MB, no command in the offline queue',
        `heap +${mb(growth)} MB (after GC); offline queue ${during.offlineQueue}`,
        Number.isFinite(growth) && growth <= 20 * 1024 * 1024 && during.offlineQueue === 0,
      ),
      figure('CONN-2', 'commands still awaiting a reply on the frozen socket after 30 s', String(during.commandQueue)),
    );
    Object.assign(context.figures, figures, { totalRequests: load.samples.length });
    return checks;
  },
};
