import type { Provider } from '@nestjs/common';
import { RedisConnections } from '../core/connections/redis-connections';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { LeaderElectionRuntime } from './leader-election.runtime';
import { LeaderElection } from './leader-election.service';
import { createLeaseStore, LEASE_STORE } from './lease.store';
import { RunOnLeaderAdvisor } from './run-on-leader.advisor';

/** The providers (services, advisors, guards) of this pattern; the module provides and exports them all. */
export const LEADER_ELECTION_PROVIDERS: Provider[] = [
  {
    provide: LEASE_STORE,
    useFactory: (settings: LeaseSettings, connections: RedisConnections) => createLeaseStore(settings, connections),
    inject: [LEASE_SETTINGS, RedisConnections],
  },
  LeaderElectionRuntime,
  LeaderElection,
  RunOnLeaderAdvisor,
];
