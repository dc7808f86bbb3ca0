// G7 RL-1/RL-2 and RL-6 (SCRIPT FLUSH) on a standalone server, for every algorithm:
// - 1000 concurrent decisions (4 processes × 250 fired at once), limit 100, over many windows, with the four app
//   clocks in step and skewed by −10/−3/+3/+10 s: admitted exactly 100 in every window (windows of 2–5 s, which a
//   limiter on the app clock could not survive: see fixtures/faults/rate-policies.ts);
// - RL-2 state injection: a state written 60 s ahead of the server's clock locks the limiter out for at most one
//   window and admits no more than the same state written on time;
// - SCRIPT FLUSH every 10 ms under load: no decision fails, none counts twice.
import { Redis } from 'ioredis';
import { type RateLimitPolicy, RateLimiterService } from 'nestjs-redis-patterns';
import { TsChild } from '../lib/child';
import { now, pause, percentile, waitUntil } from '../lib/measure';
import { check, type Check, figure, type Scenario, type ScenarioContext } from '../lib/scenario';
import { keysWithoutTtl, ownApp, ownStandalone } from '../lib/servers';
import { FUTURE_STATE_LUA } from '../../fixtures/faults/future-state';
import { FLUSH_POLICIES, refillPerMs, SKEW_LIMIT, SKEW_POLICIES, SKEWS_MS, windowOf } from '../../fixtures/faults/rate-policies';

const PREFIX = 'frl';
const PER_PROCESS = 250;
/** Identities per algorithm, used in turn, so one can rest (its state expire) while the others are hit. */
const IDENTITIES = 4;
/** RL-2: how far ahead the injected state's clock runs. */
const AHEAD_MS = 60_000;
const PROBE_EVERY_MS = 20;
const ALGORITHMS = Object.keys(SKEW_POLICIES);
const SHORT: Readonly<Record<string, string>> = {
  'fixed-window': 'fw',
  'sliding-log': 'sl',
  'sliding-window-counter': 'swc',
  'token-bucket': 'tb',
  gcra: 'gcra',
};
const short = (algorithm: string): string => SHORT[algorithm];

const serverMs = async (admin: Redis): Promise<number> => {
  const [s, us] = await admin.time();
  return Number(s) * 1000 + Number(us) / 1000;
};

/** True once no key of `identity` is left: its window has ended, its bucket is full again. */
const stateGone = async (admin: Redis, identity: string): Promise<boolean> => (await admin.keys(`${PREFIX}:*{${identity}}*`)).length === 0;

interface Burst {
  algorithm: string;
  skewed: boolean;
  allowed: number;
  perProcess: number[];
  errors: number;
  /** The burst on the Redis clock (from before the first call left to after the last answer arrived). */
  spanMs: number;
  /** What a bucket may add by refilling during the burst. */
  refill: number;
  p99: number;
}

async function burst(
  workers: TsChild[],
  admin: Redis,
  id: number,
  algorithm: string,
  identity: string,
  skewed: boolean,
  command: 'fire' | 'naive' = 'fire',
): Promise<Burst> {
  const pending = workers.map((w) => w.waitForLine(new RegExp(`^result ${id} (\\d+) (\\d+) (\\d+) (\\S+)$`), 30_000));
  const before = await serverMs(admin);
  for (const w of workers) w.send(`${command} ${id} ${algorithm} ${identity} ${PER_PROCESS} ${skewed ? 1 : 0}`);
  const results = await Promise.all(pending);
  const spanMs = (await serverMs(admin)) - before;
  const perProcess = results.map((m) => Number(m[1]));
  return {
    algorithm,
    skewed,
    allowed: perProcess.reduce((s, n) => s + n, 0),
    perProcess,
    errors: results.reduce((s, m) => s + Number(m[3]), 0),
    spanMs: Math.round(spanMs),
    refill: Math.floor(refillPerMs(SKEW_POLICIES[algorithm]) * spanMs),
    p99: Math.max(...results.map((m) => Number(m[4]))),
  };
}

/** Every algorithm in turn, `reps` windows each, alternately with app clocks in step and skewed. */
async function bursts(context: ScenarioContext, workers: TsChild[], admin: Redis, reps: number): Promise<Burst[]> {
  const out: Burst[] = [];
  let id = 0;
  for (let rep = 0; rep < reps; rep++) {
    for (const algorithm of ALGORITHMS) {
      const identity = `${short(algorithm)}-${rep % IDENTITIES}`;
      const window = windowOf(SKEW_POLICIES[algorithm]);
      await waitUntil(() => stateGone(admin, identity), window * 3, `the state of ${identity} to expire`);
      if (algorithm === 'sliding-window-counter') {
        // Its windows are aligned on the server clock: a burst inside one window is counted exactly (the algorithm
        // weighs the previous window's count, so a burst across a boundary is only estimated).
        await waitUntil(
          async () => {
            const phase = (await serverMs(admin)) % window;
            return phase > 0.1 * window && phase < 0.6 * window;
          },
          window * 2,
          'the middle of a counter window',
        );
      }
      out.push(await burst(workers, admin, id++, algorithm, identity, rep % 2 === 1));
    }
    if (context.signal.aborted) break;
  }
  return out;
}

/**
 * The negative control: the same bursts against a token bucket that reads the app's clock (NAIVE_BUCKET_LUA in the
 * worker, the token-bucket policy's capacity and refill). In step it admits 100; skewed, it must not, or these
 * bursts could not tell an app-clock limiter from a Redis-clock one.
 */
async function naiveBursts(workers: TsChild[], admin: Redis, inStep: number, skewed: number): Promise<Burst[]> {
  const out: Burst[] = [];
  for (let i = 0; i < inStep + skewed; i++) {
    const identity = `naive-${i % IDENTITIES}`;
    await waitUntil(
      async () => (await admin.exists(`${PREFIX}:naive:${identity}`)) === 0,
      15_000,
      `the naive bucket ${identity} to refill`,
    );
    out.push(await burst(workers, admin, 10_000 + i, 'token-bucket', identity, i >= inStep, 'naive'));
  }
  return out;
}

interface Injection {
  algorithm: string;
  window: number;
  /** Lock-out after the injection: at least `lockoutMinMs` (a denial that certainly came that late), at most `lockoutMaxMs`. */
  lockoutMinMs: number;
  lockoutMaxMs: number;
  resumed: boolean;
  futureAdmitted: number;
  controlAdmitted: number;
}

interface Probe {
  start: number;
  end: number;
  allowed: boolean;
}

/**
 * RL-2 for one algorithm: the state of a limiter that has just used its whole limit, written once as a clock 60 s
 * ahead would have written it and once on time (the control), then both probed every 20 ms for two windows, the
 * injected one first each time (so it never has a head start). Lock-out: from the first decision after the
 * injection to the first admission; a denial counts against the bound only if it certainly came later than a window
 * after that first decision (it left after the first one's answer arrived + the window). Over-admission: admitted
 * in the first window after the injection beyond what the control admitted.
 */
async function injection(limiter: RateLimiterService, admin: Redis, algorithm: string): Promise<Injection> {
  const policy: RateLimitPolicy = SKEW_POLICIES[algorithm];
  const window = windowOf(policy);
  const identities = [`inj-${short(algorithm)}-future`, `inj-${short(algorithm)}-control`];
  // One decision each creates the keys, so their names (the library's layout) can be looked up.
  await Promise.all(identities.map((identity) => limiter.consume(identity, policy)));
  const [future, control] = await Promise.all(identities.map(async (identity) => (await admin.keys(`${PREFIX}:*{${identity}}*`))[0]));
  // In the middle of a window of the server clock: a sliding-window counter observed full early in its aligned
  // window locks out for the rest of it and W/limit more (its normal recovery from a burst), which must not be taken
  // for the injection's effect.
  await waitUntil(
    async () => {
      const phase = (await serverMs(admin)) % window;
      return phase > 0.2 * window && phase < 0.5 * window;
    },
    window * 2,
    'the middle of a window',
  );
  await admin.eval(FUTURE_STATE_LUA, 2, future, control, algorithm, SKEW_LIMIT, window, AHEAD_MS);
  const probes: Record<'future' | 'control', Probe[]> = { future: [], control: [] };
  const until = now() + 2 * window + 300;
  while (now() < until) {
    for (const side of ['future', 'control'] as const) {
      const start = now();
      const decision = await limiter.consume(identities[side === 'future' ? 0 : 1], policy);
      probes[side].push({ start, end: now(), allowed: decision.allowed });
    }
    await pause(PROBE_EVERY_MS);
  }
  const first = probes.future[0];
  const firstAdmit = probes.future.findIndex((p) => p.allowed);
  const lastDenied = firstAdmit < 0 ? probes.future[probes.future.length - 1] : probes.future[Math.max(0, firstAdmit - 1)];
  // By tick (the future probe's start), so a tick's two decisions always fall on the same side of the cut.
  const ticks = probes.future.filter((p) => p.start < first.start + window).length;
  const admittedIn = (side: Probe[]): number => side.slice(0, ticks).filter((p) => p.allowed).length;
  return {
    algorithm,
    window,
    lockoutMinMs: firstAdmit === 0 ? 0 : Math.round(lastDenied.start - first.end),
    lockoutMaxMs: firstAdmit < 0 ? Number.POSITIVE_INFINITY : Math.round(probes.future[firstAdmit].end - first.start),
    resumed: firstAdmit >= 0,
    futureAdmitted: admittedIn(probes.future),
    controlAdmitted: admittedIn(probes.control),
  };
}

interface FlushRun {
  algorithm: string;
  allowed: number;
  errors: number;
}

/** RL-6: 400 decisions per algorithm (8 concurrent callers each, 20 ms apart) while SCRIPT FLUSH runs every 10 ms. */
async function scriptFlush(limiter: RateLimiterService, admin: Redis): Promise<{ runs: FlushRun[]; flushes: number; evals: number }> {
  const evalCalls = async (): Promise<number> => Number(/cmdstat_eval:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
  const evalsBefore = await evalCalls();
  let flushing = true;
  let flushes = 0;
  const flusher = (async () => {
    while (flushing) {
      await admin.script('FLUSH');
      flushes++;
      await pause(10);
    }
  })();
  const runs = await Promise.all(
    ALGORITHMS.map(async (algorithm) => {
      let allowed = 0;
      let errors = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = 0; i < 50; i++) {
            try {
              if ((await limiter.consume(`flush-${short(algorithm)}`, FLUSH_POLICIES[algorithm])).allowed) allowed++;
            } catch {
              errors++;
            }
            await pause(20);
          }
        }),
      );
      return { algorithm, allowed, errors };
    }),
  );
  flushing = false;
  await flusher;
  return { runs, flushes, evals: (await evalCalls()) - evalsBefore };
}

function describeBursts(of: Burst[], bucket: boolean): string {
  const exactly = of.filter((b) => b.allowed === SKEW_LIMIT).length;
  const others = of.filter((b) => b.allowed !== SKEW_LIMIT);
  const spans = of.map((b) => b.spanMs);
  return [
    `admitted ${SKEW_LIMIT} in ${exactly} of ${of.length} windows`,
    ...others.map((b) => `${b.allowed} (${b.perProcess.join('+')}) in a ${b.spanMs} ms burst (refill allowance ${b.refill})`),
    ...(bucket ? [`bursts ${Math.min(...spans)}–${Math.max(...spans)} ms on the Redis clock`] : []),
    `errors ${of.reduce((s, b) => s + b.errors, 0)}`,
  ].join('; ');
}

export const rateLimitSkewScenario: Scenario = {
  id: 'RL-SKEW',
  title: 'rate limits exact under 1000 concurrent calls, ±10 s app-clock skew, future-stamped state and SCRIPT FLUSH',
  deadlineMs: 240_000,
  quickDeadlineMs: 60_000,
  async run(context) {
    // Alternately in step and skewed: quick 4 + 4 windows per algorithm, full 20 + 20 (RL-1's 20 windows).
    const reps = context.quick ? 8 : 40;
    const server = await ownStandalone(context, 'rl-skew');
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());
    const workers = SKEWS_MS.map(
      (skew) => new TsChild('test/fixtures/faults/skewed-limiter.ts', { REDIS_URL: server.url, KEY_PREFIX: PREFIX, SKEW_MS: String(skew) }),
    );
    workers.forEach((w) => context.defer(() => w.kill()));
    const app = await ownApp(context, { connection: server.url, keyPrefix: PREFIX, rateLimit: { failOpen: false } });
    const limiter = app.get(RateLimiterService);
    await Promise.all(workers.map((w) => w.waitForLine(/^ready /, 60_000)));
    context.log('workers ready');

    const results = await bursts(context, workers, admin, reps);
    context.figures.bursts = results;
    context.log(`bursts done: ${results.map((b) => b.allowed).join(' ')}`);
    const naive = await naiveBursts(workers, admin, context.quick ? 1 : 3, context.quick ? 3 : 6);
    context.figures.naive = naive;

    const injected = await Promise.all(ALGORITHMS.map((algorithm) => injection(limiter, admin, algorithm)));
    context.figures.rl2injection = injected;

    const flush = await scriptFlush(limiter, admin);
    context.figures.scriptFlush = flush;

    const checks: Check[] = [];
    for (const algorithm of ALGORITHMS) {
      for (const skewed of [false, true]) {
        const of = results.filter((b) => b.algorithm === algorithm && b.skewed === skewed);
        const bucket = refillPerMs(SKEW_POLICIES[algorithm]) > 0;
        const exact = (b: Burst): boolean => b.errors === 0 && b.allowed >= SKEW_LIMIT && b.allowed <= SKEW_LIMIT + b.refill;
        const wrong = of.filter((b) => !exact(b));
        checks.push(
          check(
            skewed ? 'G7 RL-2' : 'G7 RL-1',
            `${algorithm} (window ${windowOf(SKEW_POLICIES[algorithm]) / 1000} s): 1000 concurrent calls (4 processes × 250 fired at once), limit ${SKEW_LIMIT}, ${skewed ? `app clocks skewed ${SKEWS_MS.map((s) => `${s / 1000}s`).join('/')}` : 'app clocks in step'}: admitted exactly ${SKEW_LIMIT}${bucket ? ' (plus the tokens refilled while the burst lasted, on the Redis clock: 1 per 50 ms)' : ''} in each of ${of.length} windows`,
            describeBursts(of, bucket),
            of.length > 0 && wrong.length === 0,
          ),
        );
      }
    }
    const naiveOf = (skewed: boolean): string =>
      naive
        .filter((b) => b.skewed === skewed)
        .map((b) => b.allowed)
        .join('/');
    checks.push(
      figure(
        'G7 RL-2',
        'negative control: the same bursts against a token bucket on the app clock (same capacity and refill; not the library). It over-admits whenever a process ahead of the first one to write comes after it (3 bursts in 4); a sliding log on the app clock likewise, fixed and counter windows always',
        `admitted ${naiveOf(false)} with clocks in step; ${naiveOf(true)} with clocks skewed`,
      ),
      figure(
        'RL-1',
        'decision latency in a 1000-call burst (p99 per process, worst)',
        ALGORITHMS.map(
          (a) =>
            `${a} ${percentile(
              results.filter((b) => b.algorithm === a).map((b) => b.p99),
              50,
            )} ms`,
        ).join(', '),
      ),
    );
    for (const i of injected) {
      checks.push(
        check(
          'RL-2',
          `${i.algorithm}: after a state stamped ${AHEAD_MS / 1000} s in the future is injected, normal admission resumes within one window (${i.window / 1000} s)`,
          i.resumed ? `locked out ${i.lockoutMinMs}–${i.lockoutMaxMs} ms` : `never resumed in ${(2 * i.window) / 1000} s of probing`,
          i.resumed && i.lockoutMinMs <= i.window,
        ),
        check(
          'RL-2',
          `${i.algorithm}: over-admission 0 after the future-stamped injection (first window: admitted no more than the same state stamped on time)`,
          `admitted ${i.futureAdmitted} vs ${i.controlAdmitted} for the control (over-admission ${Math.max(0, i.futureAdmitted - i.controlAdmitted)})`,
          i.futureAdmitted <= i.controlAdmitted,
        ),
      );
    }
    const flushErrors = flush.runs.reduce((s, r) => s + r.errors, 0);
    checks.push(
      check(
        'RL-6',
        `SCRIPT FLUSH every 10 ms under 2000 decisions (5 algorithms × 8 callers × 50): decision errors 0, and each limiter admits exactly ${SKEW_LIMIT} (a retried decision never counts twice)`,
        `errors ${flushErrors}; admitted ${flush.runs.map((r) => `${r.algorithm} ${r.allowed}`).join(', ')}; ${flush.flushes} flushes, ${flush.evals} EVAL fallbacks`,
        flushErrors === 0 && flush.runs.every((r) => r.allowed === SKEW_LIMIT) && flush.evals > 0,
      ),
    );
    const noTtl = await keysWithoutTtl(admin, `${PREFIX}:*`);
    checks.push(check('RL-1 RL-5', 'every limiter key has a TTL', `keys without TTL ${noTtl.length}`, noTtl.length === 0));
    await Promise.all(workers.map((w) => w.kill()));
    return checks;
  },
};
