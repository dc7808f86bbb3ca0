import type { Contender, RunResult } from '../lib/contender';
import { unavailableContender } from '../lib/contenders';
import type { AppProcess } from './app-process';
import { type RequestPath, sendLoad } from './load';
import { awaitNearCacheFilled, type NearStats, readNearStats } from './near-cache-stats';
import type { SharedApp } from './shared-app';

/** One route of the benchmark app, measured as a contender. */
export interface HttpRouteSpec {
  id: string;
  label: string;
  path: string;
  /** Sends `?id=<n>` with a different n per request (cycling over 10,000): an uncontended lock each time. */
  resourcePerRequest?: boolean;
  /** Set when the route cannot be served (its decorator is not exported by the library yet). */
  missing?: string;
  /** Every request must be answered from the app's near cache (L1): the ones that were not count as errors. */
  fromNearCache?: boolean;
}

/**
 * How the load is applied: as fast as the app answers, or a fixed number of requests per second. A fixed-rate
 * contender measures rounds of `roundMs` (the plan's round duration); a run of any other length is the runner's
 * warm-up, sent at saturation: it is there to get the route's code compiled, which more requests do sooner.
 */
export type Pace = { kind: 'saturation' } | { kind: 'fixed-rate'; requestsPerSecond: number; roundMs: number };

/** A rate held for less than this share of the requests it should have sent does not measure that rate. */
const MIN_RATE_SHARE = 0.95;
const RESOURCES = 10_000;
/**
 * A connection's quota renews on its own one-second timer: a run that ended exactly on a whole second could start
 * one more second's burst first (a 2 s run sent 3 s worth in some runs). Ending 0.2 s before it (autocannon acts on
 * its stop within one sample tick, see load.ts) leaves the last second's burst 0.8 s to complete.
 */
const STOP_EARLY_S = 0.2;

/**
 * The measured window of a fixed-rate round: the whole seconds of the round's duration (at least one), because
 * autocannon's rate is a quota per second (see sendLoad in load.ts).
 */
export function fixedRateWindowS(roundMs: number): number {
  return Math.max(1, Math.floor(roundMs / 1000));
}

/**
 * A contender that loads one route of the group's app process with autocannon (in the benchmark process). Its client
 * CPU is the app process's CPU over the run, so the report's client CPU per operation is the app's CPU per request.
 */
export function httpContender(shared: SharedApp, spec: HttpRouteSpec, pace: Pace, connections: number): Contender {
  if (spec.missing) return unavailableContender(spec.id, spec.label, spec.missing);
  let app: AppProcess | undefined;
  let next = 0;
  const path: RequestPath = spec.resourcePerRequest ? () => `${spec.path}?id=${next++ % RESOURCES}` : spec.path;
  return {
    id: spec.id,
    label: spec.label,
    setup: async () => {
      app = await shared.acquire();
      try {
        if (spec.fromNearCache) await awaitNearCacheFilled(app.port);
      } catch (error) {
        // The runner tears down only contenders whose setup succeeded: give the app back here.
        await shared.release();
        throw error;
      }
    },
    run: async (durationMs): Promise<RunResult> => {
      const port = app!.port;
      const fixedRate = pace.kind === 'fixed-rate' && durationMs === pace.roundMs ? pace : undefined;
      const windowS = fixedRate ? fixedRateWindowS(fixedRate.roundMs) : durationMs / 1000;
      // Read outside the measured stretch: these two requests are neither timed nor in the app's CPU figure.
      const nearBefore = spec.fromNearCache ? await readNearStats(port) : undefined;
      if (fixedRate) await app!.collectGarbage();
      const cpuBefore = app!.cpuUs();
      const load = await sendLoad(port, path, {
        connections,
        durationS: fixedRate ? windowS - STOP_EARLY_S : windowS,
        overallRate: fixedRate?.requestsPerSecond,
      });
      const clientCpuUs = app!.cpuUs() - cpuBefore;
      const nearAfter = nearBefore ? await readNearStats(port) : undefined;
      const notFromL1 = nearBefore && nearAfter ? requestsNotFromL1(load.ok, nearBefore, nearAfter) : 0;
      const expected = fixedRate ? fixedRate.requestsPerSecond * windowS : 0;
      const shortfall = load.ok < MIN_RATE_SHARE * expected ? expected - load.ok : 0;
      const errors = load.errors + load.non2xx + notFromL1 + shortfall;
      if (errors > 0) {
        const parts = [
          load.errors && `${load.errors} connection errors or timeouts`,
          load.non2xx && `${load.non2xx} non-2xx responses`,
          notFromL1 &&
            `${notFromL1} of ${load.ok} responses not answered from L1 (near cache live: ${nearAfter!.live}, L1 misses: ${nearAfter!.misses - nearBefore!.misses})`,
          shortfall && `${load.ok} of ${expected} requests answered in ${windowS} s: ${shortfall} short of the fixed rate`,
        ].filter(Boolean);
        process.stderr.write(
          `  ${spec.label} (${shared.adapter}${fixedRate || pace.kind === 'saturation' ? '' : ', warm-up'}): ${parts.join(', ')}\n`,
        );
      }
      return {
        ops: Math.max(0, load.ok - notFromL1),
        // At the fixed rate the run covers `windowS` seconds of quota (it stops early only to start no more), so
        // ops/s reads as the rate the route held.
        elapsedMs: fixedRate ? windowS * 1000 : load.durationMs,
        p50Ms: load.p50Ms,
        p99Ms: load.p99Ms,
        p999Ms: load.p999Ms,
        clientCpuUs,
        errors,
      };
    },
    teardown: () => shared.release(),
  };
}

/**
 * Responses of a run that L1 did not answer: the run's responses minus the L1 hits the app counted meanwhile (a hit
 * for a request still in flight when autocannon stopped counts too, hence never below 0). Every one of them went
 * to Redis, so the row would not measure what its label says.
 */
function requestsNotFromL1(responses: number, before: NearStats, after: NearStats): number {
  return Math.max(0, responses - (after.hits - before.hits));
}
