// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { LeaderElection } from './leader-election.service';
export { LeaderTerm } from './leader-term';
export { LeaderTermEndedError } from './leader-term-ended.error';
export type { TermEndReason } from './leader-term-ended.error';
export type { LeadershipChange } from './campaign';
export type { CampaignOptions } from './campaign.options';
export { RunOnLeader } from './run-on-leader.decorator';
