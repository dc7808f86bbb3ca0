import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type LoggerService,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ScopedContext } from '../core/context/scoped-context';
import { KeyBuilder } from '../core/keys/key-builder';
import { ThrottledLog } from '../core/logging/throttled-log';
import { invalid } from '../core/options/option-checks';
import { withDeadline } from '../core/time/with-deadline';
import type { ExclusiveLeaseStore } from '../lease/lease.store';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { leaseTokens } from '../lease/lease-runtime';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { Campaign, type CampaignContext } from './campaign';
import { type CampaignSettings, describeSettings, sameSettings, stepDownMarginMs } from './campaign.options';
import { LeaderElectionTracing } from './leader-election.tracing';
import type { LeaderTerm } from './leader-term';
import { LeadershipRecorder } from './leadership-recorder';
import { leaseKeys } from './lease-keys';
import { LEASE_STORE } from './lease.store';

/** The term a `@RunOnLeader` method runs under, per async context. */
const runningTerm = new ScopedContext<LeaderTerm>();

/**
 * The campaigns of this instance — those `campaign()` started and those `@RunOnLeader` methods declared — with the
 * runs of decorated methods and the leadership recorder. Shared by `LeaderElection` and `@RunOnLeader`'s advisor,
 * which inject it rather than reach through the public service: a resource has one campaign whoever asked for it,
 * and shutdown lets running methods finish before every lease is given back.
 */
@Injectable()
export class LeaderElectionRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** The running campaigns, per resource. */
  readonly campaigns = new Map<string, Campaign>();
  readonly recorder: LeadershipRecorder;
  /** Resources of `@RunOnLeader` methods, with their settings and the first method that declared each. */
  private readonly declared = new Map<string, { settings: CampaignSettings; by: string }>();
  private readonly running = new Set<Promise<unknown>>();
  private bootstrapped = false;
  private closed = false;
  private readonly logger: LoggerService;
  private readonly context: CampaignContext;
  /** Every resource this instance campaigned for: the gauge reports a resigned one as 0 rather than its last value. */
  private readonly resources = new Set<string>();
  private readonly tracing = new LeaderElectionTracing();

  constructor(
    @Inject(RESOLVED_OPTIONS) private readonly options: ResolvedRedisPatternsOptions,
    private readonly keys: KeyBuilder,
    @Inject(LEASE_SETTINGS) lockSettings: LeaseSettings,
    @Inject(LEASE_STORE) store: ExclusiveLeaseStore,
  ) {
    this.logger = options.logger ?? new Logger('RedisPatterns:LeaderElection');
    this.recorder = new LeadershipRecorder(this.logger, () =>
      [...this.resources].map((resource) => [resource, this.campaigns.get(resource)?.isLeader ?? false]),
    );
    this.context = {
      store,
      tokens: leaseTokens,
      driftMs: (ttlMs) => stepDownMarginMs(ttlMs, lockSettings.driftFactor),
      logger: this.logger,
      outage: new ThrottledLog(this.logger),
      // A refusal is a configuration error, not weather: throttled like an outage, but at error level.
      refusal: new ThrottledLog(this.logger, undefined, 'error'),
      changed: (change) => this.recorder.record(change),
    };
  }

  /** Set once the application shuts down: no campaign starts and no decorated method runs any more. */
  get closing(): boolean {
    return this.closed;
  }

  /** The settings `@RunOnLeader` declared for `resource`, if any. */
  declaredSettings(resource: string): CampaignSettings | undefined {
    return this.declared.get(resource)?.settings;
  }

  /** The term the running `@RunOnLeader` method was called under, if any. */
  runningTerm(): LeaderTerm | undefined {
    return runningTerm.get();
  }

  /** Starts a campaign for `resource` and resolves after its first attempt: true when this instance leads it. */
  start(resource: string, settings: CampaignSettings): Promise<boolean> {
    const campaign = new Campaign(resource, settings, leaseKeys(this.keys, resource), this.context);
    this.campaigns.set(resource, campaign);
    this.resources.add(resource);
    return campaign.start().then(() => campaign.isLeader);
  }

  /** A `@RunOnLeader` method of `resource` (at `path`): its campaign starts at bootstrap. */
  declare(resource: string, settings: CampaignSettings, path: string): void {
    const agreed =
      this.declared.get(resource) ??
      (this.campaigns.has(resource) ? { settings: this.campaigns.get(resource)!.settings, by: 'campaign()' } : undefined);
    if (agreed && !sameSettings(agreed.settings, settings)) {
      const option = agreed.settings.ttlMs !== settings.ttlMs ? 'ttlMs' : 'renewEveryMs';
      invalid(
        `${path}.${option}`,
        `the same campaign options as ${agreed.by} for resource "${resource}" (${describeSettings(agreed.settings)})`,
        settings[option],
      );
    }
    if (agreed) return;
    this.declared.set(resource, { settings, by: path });
    if (this.bootstrapped && !this.closed) void this.start(resource, settings);
  }

  /** Runs a `@RunOnLeader` method's `work` when this instance leads `resource`; resolves undefined otherwise. */
  runAsLeader(resource: string, work: () => Promise<unknown>, method: string): Promise<unknown> {
    const term = this.closed ? undefined : this.campaigns.get(resource)?.currentTerm;
    if (!term) {
      this.recorder.ran(resource, 'skipped');
      this.logger.debug?.(`${method} skipped: this instance is not the leader of "${resource}".`);
      return Promise.resolve(undefined);
    }
    this.recorder.ran(resource, 'ran');
    const run = runningTerm.run(term, () => this.tracing.run(method, term, work));
    this.running.add(run);
    const forget = (): boolean => this.running.delete(run);
    void run.then(forget, forget);
    return run;
  }

  /** Starts the campaign of every `@RunOnLeader` resource and waits (up to `connectTimeoutMs`) for their first attempts. */
  async onApplicationBootstrap(): Promise<void> {
    this.bootstrapped = true;
    const starting = [...this.declared]
      .filter(([resource]) => !this.campaigns.has(resource))
      .map(([resource, { settings }]) => this.start(resource, settings));
    if (starting.length > 0) await withDeadline(Promise.all(starting), this.options.startupWait.ms(), () => undefined);
  }

  /**
   * At shutdown: no new runs; running `@RunOnLeader` methods keep their term (still renewed) for up to
   * `shutdownTimeoutMs`, since another instance would start the same job the moment the lease is free; then every
   * campaign stops and every lease is given back, before the connections close.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.running.size > 0) await withDeadline(Promise.allSettled([...this.running]), this.options.shutdownTimeoutMs, () => undefined);
    const campaigns = [...this.campaigns.values()];
    this.campaigns.clear();
    await Promise.allSettled(campaigns.map((campaign) => campaign.stop('shutdown')));
    this.recorder.close();
  }
}
