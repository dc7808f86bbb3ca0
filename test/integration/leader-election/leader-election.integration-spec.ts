import { performance } from 'node:perf_hooks';
import { Controller, Get, Injectable, type INestApplication } from '@nestjs/common';
import { InvalidArgumentError, InvalidOptionsError, LeaderElection, LeaderTermEndedError, RunOnLeader } from 'nestjs-redis-patterns';
import { UnsupportedHandlerError } from '../../../libs/redis-patterns/src/errors/unsupported-handler.error';
import { TsChild } from '../../faults/lib/child';
import { connectionOf, inspectKeys } from '../../support/backends';
import { privateServer, type RedisServerProcess, uniquePrefix, waitFor } from '../../support/redis-env';
import { stepDownMarginMs } from '../../../libs/redis-patterns/src/leader-election/campaign.options';
import { aborted, startLockApp } from '../lock/lock-test-app';
import { LEASE, leadersOf, nextGain, SLACK_MS, startInstances } from './leader-election-app';

jest.setTimeout(90_000);

/** A scheduled job: called on every instance (as @Cron would), its body must run on the leader only. */
@Injectable()
class Reports {
  readonly runs: Array<{ fencingToken: number; active: boolean; signalAborted: boolean }> = [];

  constructor(private readonly election: LeaderElection) {}

  @RunOnLeader('reports', LEASE)
  async publish(): Promise<string> {
    const term = this.election.currentTerm()!;
    this.runs.push({ fencingToken: term.fencingToken, active: term.isActive, signalAborted: term.signal.aborted });
    return 'published';
  }
}

/** Calls `publish` on every app every 100 ms for `ms`, as a scheduler would; what each call resolved to, per app. */
async function tick(apps: INestApplication[], ms: number): Promise<unknown[][]> {
  const results: unknown[][] = apps.map(() => []);
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const round = await Promise.all(apps.map((app) => app.get(Reports).publish()));
    round.forEach((result, i) => results[i].push(result));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return results;
}

describe.each(['standalone', 'cluster'] as const)('leader election on %s', (topology) => {
  let apps: INestApplication[] = [];

  afterEach(async () => {
    await Promise.allSettled(apps.map((app) => app.close()));
    apps = [];
  });

  it('three instances: exactly one leader at every sample, each new term fenced above the last; every key has a TTL', async () => {
    const prefix = uniquePrefix(`le-three-${topology}`);
    apps = await startInstances(3, { connection: connectionOf(topology), keyPrefix: prefix });
    const elections = apps.map((app) => app.get(LeaderElection));
    const gains: number[] = [];
    const subscriptions = elections.map((election) =>
      election.changes('jobs').subscribe((change) => change.type === 'gained' && gains.push(change.term.fencingToken)),
    );
    await Promise.all(elections.map((election) => election.campaign('jobs', LEASE)));
    expect(leadersOf(elections, 'jobs')).toHaveLength(1);

    // Steady state, across many renewals: one leader at every sample.
    const steady: number[] = [];
    for (const until = performance.now() + 2 * LEASE.ttlMs; performance.now() < until;) {
      steady.push(leadersOf(elections, 'jobs').length);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(steady.length).toBeGreaterThan(100);
    expect(new Set(steady)).toEqual(new Set([1]));

    // Handovers: the leader resigns and campaigns again once another leads. Never two leaders at once.
    const during: number[] = [];
    const sampler = setInterval(() => during.push(leadersOf(elections, 'jobs').length), 2);
    try {
      for (let round = 0; round < 4; round++) {
        const [leader] = leadersOf(elections, 'jobs');
        await elections[leader].resign('jobs');
        await waitFor(() => leadersOf(elections, 'jobs').length === 1, LEASE.renewEveryMs + SLACK_MS);
        expect(leadersOf(elections, 'jobs')).not.toContain(leader);
        await elections[leader].campaign('jobs', LEASE);
      }
    } finally {
      clearInterval(sampler);
    }
    expect(during.length).toBeGreaterThan(50);
    expect(Math.max(...during)).toBe(1);
    subscriptions.forEach((subscription) => subscription.unsubscribe());
    expect(gains).toHaveLength(5);
    for (let i = 1; i < gains.length; i++) expect(gains[i]).toBeGreaterThan(gains[i - 1]);

    const keys = inspectKeys(topology, apps[0]);
    try {
      expect(await keys.keysWithoutTtl(prefix)).toEqual([]);
      expect(await keys.pttl(`${prefix}:leader:{jobs}`)).toBeGreaterThan(0);
      expect(await keys.pttl(`${prefix}:leader:{jobs}`)).toBeLessThanOrEqual(LEASE.ttlMs);
      expect(await keys.pttl(`${prefix}:leader:{jobs}:fence`)).toBeGreaterThan(LEASE.ttlMs);
    } finally {
      keys.close();
    }
  });

  it("the leader's application closing gives the lease back: another takes over within one renewal interval", async () => {
    const prefix = uniquePrefix(`le-close-${topology}`);
    apps = await startInstances(3, { connection: connectionOf(topology), keyPrefix: prefix });
    const elections = apps.map((app) => app.get(LeaderElection));
    await Promise.all(elections.map((election) => election.campaign('jobs', LEASE)));
    const [leader] = leadersOf(elections, 'jobs');
    const oldToken = elections[leader].currentTerm('jobs')!.fencingToken;
    const signal = elections[leader].currentTerm('jobs')!.signal;
    const rest = elections.filter((_, i) => i !== leader);
    const gained = nextGain(rest, 'jobs', LEASE.ttlMs + LEASE.renewEveryMs + SLACK_MS);

    await apps[leader].close();
    const closedAt = performance.now();
    apps.splice(leader, 1);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as LeaderTermEndedError).reason).toBe('shutdown');
    const { change } = await gained;
    // The lease was released at close, so a follower's next attempt wins: no waiting out the lease.
    expect(performance.now() - closedAt).toBeLessThan(LEASE.renewEveryMs + SLACK_MS);
    expect(change.term.fencingToken).toBeGreaterThan(oldToken);
    expect(leadersOf(rest, 'jobs')).toHaveLength(1);
  });

  it('a leader frozen by SIGSTOP is replaced within lease + one renewal interval; resumed, it sees its term ended before writing', async () => {
    const prefix = uniquePrefix(`le-stop-${topology}`);
    const child = new TsChild('test/fixtures/leader-election/leader-worker.ts', {
      CONNECTION: JSON.stringify(connectionOf(topology)),
      KEY_PREFIX: prefix,
      RESOURCE: 'jobs',
      TTL_MS: String(LEASE.ttlMs),
      RENEW_EVERY_MS: String(LEASE.renewEveryMs),
    });
    try {
      const childToken = Number((await child.waitForLine(/^leader (\d+)$/, 60_000))[1]);
      apps = await startInstances(2, { connection: connectionOf(topology), keyPrefix: prefix });
      const elections = apps.map((app) => app.get(LeaderElection));
      await Promise.all(elections.map((election) => election.campaign('jobs', LEASE)));
      expect(leadersOf(elections, 'jobs')).toEqual([]);

      const gained = nextGain(elections, 'jobs', LEASE.ttlMs + LEASE.renewEveryMs + SLACK_MS);
      child.signal('SIGSTOP');
      const stoppedAt = performance.now();
      const { index, change } = await gained;
      expect(performance.now() - stoppedAt).toBeLessThanOrEqual(LEASE.ttlMs + LEASE.renewEveryMs + SLACK_MS);
      expect(change.term.fencingToken).toBeGreaterThan(childToken);
      // The protected resource (a store that remembers the highest fencing token it accepted) took the new leader's write.
      const highestAccepted = change.term.fencingToken;

      // Resume the old leader with its "write" already waiting: its first callback asks whether its term is active.
      child.send('write');
      child.signal('SIGCONT');
      const check = await child.waitForLine(/^check (\S+) (\S+) (\S+)$/, 10_000);
      expect(check[1]).toBe('ended');
      expect(check[3]).toBe('aborted');
      const write = await child.waitForLine(/^write (sent|refused) (\d+)$/, 10_000);
      expect(write[1]).toBe('refused');
      // Had it written anyway, the fenced store would refuse its token.
      expect(Number(write[2])).toBeLessThan(highestAccepted);
      const abort = await child.waitForLine(/^abort (\d+) (\S+)$/, 10_000);
      expect(Number(abort[1])).toBeLessThanOrEqual(LEASE.renewEveryMs);
      expect(['expired', 'lost']).toContain(abort[2]);
      expect(await child.exited).toBe(0);
      // The resumed instance gave back nothing of the new leader's.
      expect(leadersOf(elections, 'jobs')).toEqual([index]);
      expect(elections[index].currentTerm('jobs')!.fencingToken).toBe(highestAccepted);
    } finally {
      await child.kill();
    }
  });

  it('@RunOnLeader: a method called on two instances every 100 ms runs only on the leader, then on the other once it closes', async () => {
    const prefix = uniquePrefix(`le-run-${topology}`);
    apps = await startInstances(2, { connection: connectionOf(topology), keyPrefix: prefix }, [Reports]);
    const elections = apps.map((app) => app.get(LeaderElection));
    // The campaign started at bootstrap, and init waited for its first attempt.
    const [leader] = leadersOf(elections, 'reports');
    expect(leader).toBeDefined();
    const follower = 1 - leader;

    const first = await tick(apps, 2000);
    expect(first[leader].length).toBeGreaterThan(10);
    expect(new Set(first[leader])).toEqual(new Set(['published']));
    expect(new Set(first[follower])).toEqual(new Set([undefined]));
    const leaderRuns = apps[leader].get(Reports).runs;
    expect(leaderRuns).toHaveLength(first[leader].length);
    expect(apps[follower].get(Reports).runs).toEqual([]);
    const token = elections[leader].currentTerm('reports')!.fencingToken;
    expect(leaderRuns.every((run) => run.fencingToken === token && run.active && !run.signalAborted)).toBe(true);

    await apps[leader].close();
    const survivor = apps[follower];
    apps = [survivor];
    await waitFor(() => elections[follower].isLeader('reports'), LEASE.renewEveryMs + SLACK_MS);
    const second = await tick([survivor], 1500);
    expect(new Set(second[0])).toEqual(new Set(['published']));
    const survivorRuns = survivor.get(Reports).runs;
    expect(survivorRuns.length).toBe(second[0].length);
    expect(survivorRuns.every((run) => run.fencingToken > token)).toBe(true);
  });
});

describe('leader election when Redis freezes (private server): fail closed', () => {
  let server: RedisServerProcess;
  let app: INestApplication | undefined;

  afterAll(async () => {
    server?.resume();
    await app?.close();
    await server?.stop();
  });

  it('the leader steps down before its lease could expire in Redis, and leads again (a new term) once Redis answers', async () => {
    server = await privateServer();
    const lease = { ttlMs: 2000, renewEveryMs: 400 };
    app = await startLockApp({ connection: server.url, keyPrefix: uniquePrefix('le-freeze'), commandTimeoutMs: 300 });
    const election = app.get(LeaderElection);
    expect(await election.campaign('jobs', lease)).toBe(true);
    const term = election.currentTerm('jobs')!;

    server.freeze();
    const frozenAt = performance.now();
    const validFor = term.remainingMs;
    const reason = await aborted(term.signal);
    const steppedDownAfter = performance.now() - frozenAt;
    server.resume();
    expect(reason).toBeInstanceOf(LeaderTermEndedError);
    expect((reason as LeaderTermEndedError).reason).toBe('expired');
    expect(election.isLeader('jobs')).toBe(false);
    // Redis expires the lease no earlier than `validFor + margin` after the freeze (the validity counts from the send
    // time of the last renewal, minus the margin): the instance stepped down before that.
    expect(steppedDownAfter).toBeLessThan(validFor + stepDownMarginMs(lease.ttlMs, 0.01));

    await waitFor(() => election.isLeader('jobs'), 10_000);
    expect(election.currentTerm('jobs')!.fencingToken).toBeGreaterThan(term.fencingToken);
  });
});

describe('leader election in memory mode', () => {
  it('every application is the leader of every resource it campaigns for; terms are fenced, runs happen, keys have TTLs', async () => {
    const prefix = uniquePrefix('le-memory');
    const apps = await startInstances(2, { connection: connectionOf('memory'), keyPrefix: prefix }, [Reports]);
    try {
      const elections = apps.map((app) => app.get(LeaderElection));
      expect(await Promise.all(elections.map((election) => election.campaign('jobs', LEASE)))).toEqual([true, true]);
      expect(leadersOf(elections, 'reports')).toEqual([0, 1]);
      expect(await apps[0].get(Reports).publish()).toBe('published');
      expect(await apps[1].get(Reports).publish()).toBe('published');

      const before = elections[0].currentTerm('jobs')!;
      await elections[0].resign('jobs');
      expect(before.signal.aborted).toBe(true);
      expect((before.signal.reason as LeaderTermEndedError).reason).toBe('resigned');
      expect(elections[0].isLeader('jobs')).toBe(false);
      expect(await elections[0].campaign('jobs', LEASE)).toBe(true);
      expect(elections[0].currentTerm('jobs')!.fencingToken).toBeGreaterThan(before.fencingToken);

      const keys = inspectKeys('memory', apps[0]);
      expect(await keys.keysWithoutTtl(prefix)).toEqual([]);
      expect(await keys.pttl(`${prefix}:leader:{jobs}`)).toBeGreaterThan(0);
    } finally {
      await Promise.allSettled(apps.map((app) => app.close()));
    }
  });
});

describe('leader election options', () => {
  const memory = { connection: connectionOf('memory') };

  async function startupError(
    providers: Array<new (...args: never[]) => unknown>,
    controllers: Array<new () => unknown> = [],
  ): Promise<unknown> {
    return startLockApp(memory, { providers, controllers }).then(
      async (app) => {
        await app.close();
        return undefined;
      },
      (error: unknown) => error,
    );
  }

  it('fails startup naming the decorator option', async () => {
    @Injectable()
    class ShortLease {
      @RunOnLeader('jobs', { ttlMs: 50 })
      async run(): Promise<void> {}
    }
    @Injectable()
    class SlowRenewal {
      @RunOnLeader('jobs', { ttlMs: 1000, renewEveryMs: 800 })
      async run(): Promise<void> {}
    }
    @Injectable()
    class BadResource {
      @RunOnLeader('user {42}')
      async run(): Promise<void> {}
    }
    @Injectable()
    class Disagreeing {
      @RunOnLeader('jobs', { ttlMs: 1000 })
      async first(): Promise<void> {}

      @RunOnLeader('jobs', { ttlMs: 2000 })
      async second(): Promise<void> {}
    }
    await expect(startupError([ShortLease])).resolves.toMatchObject({
      constructor: InvalidOptionsError,
      option: '@RunOnLeader(ShortLease.run).ttlMs',
    });
    await expect(startupError([SlowRenewal])).resolves.toMatchObject({ option: '@RunOnLeader(SlowRenewal.run).renewEveryMs' });
    await expect(startupError([BadResource])).resolves.toMatchObject({ option: '@RunOnLeader(BadResource.run).resource' });
    await expect(startupError([Disagreeing])).resolves.toMatchObject({ option: '@RunOnLeader(Disagreeing.second).ttlMs' });
  });

  it('refuses a request handler at startup', async () => {
    @Controller('jobs')
    class JobsController {
      @Get()
      @RunOnLeader('jobs')
      async run(): Promise<string> {
        return 'ran';
      }
    }
    await expect(startupError([], [JobsController])).resolves.toBeInstanceOf(UnsupportedHandlerError);
  });

  it('rejects invalid campaign() arguments naming the argument', async () => {
    const app = await startLockApp(memory);
    try {
      const election = app.get(LeaderElection);
      expect(() => election.campaign('', LEASE)).toThrow(expect.objectContaining({ argument: 'resource' }));
      expect(() => election.campaign('jobs', { ttlMs: 1000, renewEveryMs: 900 })).toThrow(
        expect.objectContaining({ argument: 'options.renewEveryMs' }),
      );
      await election.campaign('jobs', LEASE);
      expect(() => election.campaign('jobs', { ttlMs: 5000 })).toThrow(InvalidArgumentError);
      // Without options a call joins the running campaign.
      await expect(election.campaign('jobs')).resolves.toBe(true);
    } finally {
      await app.close();
    }
  });
});
