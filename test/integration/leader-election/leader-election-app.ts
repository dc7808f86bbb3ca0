import type { INestApplication, Type } from '@nestjs/common';
import { type LeaderElection, type LeadershipChange, type RedisPatternsModuleOptions } from 'nestjs-redis-patterns';
import { filter, firstValueFrom, map, merge, timeout } from 'rxjs';
import { startLockApp } from '../lock/lock-test-app';

/** The lease of these specs: short, so takeovers happen in about a second. */
export const LEASE = { ttlMs: 1000, renewEveryMs: 200 } as const;
/** What timers and round trips may add on a loaded 2-core machine to a bound computed from the lease. */
export const SLACK_MS = 500;

/** `count` applications on one Redis (one prefix), as separate instances of one service would be. */
export async function startInstances(
  count: number,
  options: RedisPatternsModuleOptions,
  providers: Type<unknown>[] = [],
): Promise<INestApplication[]> {
  const apps: INestApplication[] = [];
  // One after the other: the first to start campaigns first (a decorator's campaign starts at bootstrap).
  for (let i = 0; i < count; i++) apps.push(await startLockApp(options, { providers }));
  return apps;
}

/** Which of the elections lead `resource` right now (their indexes). */
export function leadersOf(elections: LeaderElection[], resource: string): number[] {
  return elections.flatMap((election, i) => (election.isLeader(resource) ? [i] : []));
}

/** The next term gained among `elections` for `resource`, with the index of the instance that gained it. */
export function nextGain(
  elections: LeaderElection[],
  resource: string,
  withinMs: number,
): Promise<{ index: number; change: LeadershipChange }> {
  const gains = elections.map((election, index) =>
    election.changes(resource).pipe(
      filter((change) => change.type === 'gained'),
      map((change) => ({ index, change })),
    ),
  );
  return firstValueFrom(merge(...gains).pipe(timeout(withinMs)));
}
