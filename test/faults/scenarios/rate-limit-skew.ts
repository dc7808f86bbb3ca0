// RL-2 (goal G7): four app processes with wall clocks skewed by up to ±10 s share one budget exactly, for every
// algorithm, because every decision takes its time from Redis TIME inside the script.
import { Redis } from 'ioredis';
import { TsChild } from '../lib/child';
import { check, type Check, type Scenario } from '../lib/scenario';
import { keysWithoutTtl, ownStandalone } from '../lib/servers';
import { SKEW_LIMIT, SKEW_POLICIES } from '../../fixtures/faults/rate-policies';

const SKEWS_MS = [-10_000, -3_000, 3_000, 10_000];
const PER_PROCESS = 100;

export const rateLimitSkewScenario: Scenario = {
  id: 'RL-SKEW',
  title: 'rate limits with app clocks skewed ±10 s',
  deadlineMs: 90_000,
  async run(context) {
    const server = await ownStandalone(context, 'rl-skew');
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());
    const prefix = 'frl';
    const workers = SKEWS_MS.map(
      (skew) => new TsChild('test/fixtures/faults/skewed-limiter.ts', { REDIS_URL: server.url, KEY_PREFIX: prefix, SKEW_MS: String(skew) }),
    );
    workers.forEach((w) => context.defer(() => w.kill()));
    const clocks = await Promise.all(workers.map((w) => w.waitForLine(/^ready (\S+)$/, 60_000)));
    context.log(`app clocks: ${clocks.map((m) => m[1]).join(', ')}`);
    const checks: Check[] = [];
    const figures: Record<string, unknown> = {};
    for (const algorithm of Object.keys(SKEW_POLICIES)) {
      const key = `skew-${algorithm}`;
      const pending = workers.map((w) => w.waitForLine(new RegExp(`^result ${algorithm} (\\d+) (\\d+) (\\d+)$`), 30_000));
      workers.forEach((w) => w.send(`consume ${algorithm} ${key} ${PER_PROCESS}`));
      const results = (await Promise.all(pending)).map((m) => ({ allowed: Number(m[1]), denied: Number(m[2]), errors: Number(m[3]) }));
      const allowed = results.reduce((s, r) => s + r.allowed, 0);
      const errors = results.reduce((s, r) => s + r.errors, 0);
      figures[algorithm] = { allowed, perProcess: results.map((r) => r.allowed), errors };
      checks.push(
        check(
          'G7 RL-2',
          `${algorithm}: ${SKEWS_MS.length} processes (skew ${SKEWS_MS.map((s) => `${s / 1000}s`).join('/')}) × ${PER_PROCESS} calls (waves of 5, interleaved), limit ${SKEW_LIMIT}: admitted exactly ${SKEW_LIMIT}`,
          `admitted ${allowed} (per process ${results.map((r) => r.allowed).join('+')}), errors ${errors}`,
          allowed === SKEW_LIMIT && errors === 0,
        ),
      );
    }
    const noTtl = await keysWithoutTtl(admin, `${prefix}:*`);
    checks.push(check('RL-1 RL-5', 'every limiter key has a TTL', `keys without TTL ${noTtl.length}`, noTtl.length === 0));
    context.figures.rl2 = figures;
    return checks;
  },
};
