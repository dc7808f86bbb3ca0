import type { BenchArgs } from '../lib/args';
import type { BenchGroup } from '../lib/contender';
import type { PrivateRedis } from '../lib/private-redis';
import type { GroupResult, RunPlan } from '../lib/runner';

/** What every suite gets: the benchmark's private Redis, whether this is the quick (smoke) run, HTTP settings. */
export interface SuiteContext {
  redis: PrivateRedis;
  quick: boolean;
  http: BenchArgs['http'];
  /** Concurrent callers for a library group of the sweep (bench/lib/sweep.ts); the headline level otherwise. */
  concurrency: number;
}

/** A suite: builds its group, may change the run plan (HTTP rounds are longer), may add notes to the report. */
export interface Suite {
  id: string;
  create(ctx: SuiteContext): BenchGroup;
  plan?(args: BenchArgs): RunPlan;
  /** Measured at every level of the concurrency sweep (library groups), each level as its own group. */
  sweep?: boolean;
  notes?(result: GroupResult): string[];
}
