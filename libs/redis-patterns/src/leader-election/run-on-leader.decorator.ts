import { createAdvisedDecorator } from '../core/advice/create-advised-decorator';
import type { CampaignOptions } from './campaign.options';
import { RunOnLeaderAdvisor } from './run-on-leader.advisor';

/** @internal What `@RunOnLeader` records for its advisor. */
export interface RunOnLeaderDeclaration {
  readonly resource: string;
  readonly options?: CampaignOptions;
}

/**
 * Runs the method only on the instance that leads `resource`; on the others a call resolves `undefined` without running
 * it (logged at debug). The campaign for `resource` starts at bootstrap. Inside the method, `LeaderElection.currentTerm()`
 * is the term it runs under: its `fencingToken` for writes, its `signal` that aborts if the term ends. Meant for
 * scheduled provider methods (`@Cron`, `@Interval` of @nestjs/schedule, or any timer); the method becomes async.
 *
 * @example
 * @Cron('0 * * * *')
 * @RunOnLeader('hourly-report', { ttlMs: 15_000 })
 * async hourlyReport() { const { fencingToken, signal } = this.election.currentTerm()!; … }
 */
export function RunOnLeader(resource: string, options?: CampaignOptions): MethodDecorator {
  return createAdvisedDecorator(RunOnLeaderAdvisor, { resource, options } satisfies RunOnLeaderDeclaration);
}
