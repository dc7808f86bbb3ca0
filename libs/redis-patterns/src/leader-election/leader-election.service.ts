import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type LoggerService,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import { KeyBuilder } from '../core/keys/key-builder';
import { ThrottledLog } from '../core/logging/throttled-log';
import { invalid } from '../core/options/option-checks';
import { withDeadline } from '../core/time/with-deadline';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import type { ExclusiveLeaseStore } from '../lease/lease.store';
import { TokenSource } from '../lease/token-source';
import { LEASE_SETTINGS, type LeaseSettings } from '../lease/lease.options';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import { Campaign, type CampaignContext, type LeadershipChange } from './campaign';
import {
  type CampaignOptions,
  type CampaignSettings,
  checkCampaignArguments,
  describeSettings,
  sameSettings,
  stepDownMarginMs,
} from './campaign.options';
import { LeaderElectionTracing } from './leader-election.tracing';
import { LeadershipRecorder } from './leadership-recorder';
import type { LeaderTerm } from './leader-term';
import { ScopedContext } from '../core/context/scoped-context';
import { LEASE_STORE } from './lease.store';
import { leaseKeys } from './lease-keys';

/** The term a `@RunOnLeader` method runs under, per async context. */
const runningTerm = new ScopedContext<LeaderTerm>();

/** Owner tokens of every lease of the process (the lock's pool of crypto-random bytes). */
const tokens = new TokenSource();

/**
 * Leader election per resource (a job, a singleton task): the instances that campaign for a resource compete for a lease —
 * a lock with an owner token, TTL = `ttlMs` and a fencing token per term — and the one that holds it is the
 * resource's leader until it fails to renew it, resigns or shuts down. It fails closed: an instance that cannot renew
 * stops being leader before its lease can expire in Redis. In memory mode (`memory://`) every application is the
 * leader of every resource it campaigns for.
 *
 * @example
 * await election.campaign('reports', { ttlMs: 10_000 });
 * const term = election.currentTerm('reports');
 * if (term) await reports.publish({ fencingToken: term.fencingToken, signal: term.signal });
 */
@Injectable()
export class LeaderElection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly campaigns = new Map<string, Campaign>();
  /** Resources of `@RunOnLeader` methods, with their settings and the first method that declared each. */
  private readonly declared = new Map<string, { settings: CampaignSettings; by: string }>();
  private readonly running = new Set<Promise<unknown>>();
  private bootstrapped = false;
  private closing = false;
  private readonly logger: LoggerService;
  private readonly context: CampaignContext;
  /** Every resource this instance campaigned for: the gauge reports a resigned one as 0 rather than its last value. */
  private readonly resources = new Set<string>();
  private readonly recorder: LeadershipRecorder;
  private readonly tracing = new LeaderElectionTracing();

  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    @Inject(RESOLVED_OPTIONS) private readonly options: ResolvedRedisPatternsOptions,
    private readonly keys: KeyBuilder,
    @Inject(LEASE_SETTINGS) lockSettings: LeaseSettings,
    @Inject(LEASE_STORE) store: ExclusiveLeaseStore,
  ) {
    this.logger = options.logger ?? new Logger('RedisPatterns:LeaderElection');
    this.recorder = new LeadershipRecorder(this.logger, () => [...this.resources].map((resource) => [resource, this.isLeader(resource)]));
    this.context = {
      store,
      tokens,
      driftMs: (ttlMs) => stepDownMarginMs(ttlMs, lockSettings.driftFactor),
      logger: this.logger,
      outage: new ThrottledLog(this.logger),
      // A refusal is a configuration error, not weather: throttled like an outage, but at error level.
      refusal: new ThrottledLog(this.logger, undefined, 'error'),
      changed: (change) => this.recorder.record(change),
    };
  }

  /**
   * Starts campaigning for `resource` in the background (or joins the campaign already running) and resolves after
   * the first attempt: true when this instance leads the resource now. Followers retry every `renewEveryMs`; a Redis
   * that does not answer leaves this instance a follower (never "probably leader").
   *
   * @throws InvalidArgumentError naming `resource` or `options.<name>`, or when the resource already campaigns with other options.
   */
  campaign(resource: string, options?: CampaignOptions): Promise<boolean> {
    const checked = checkCampaignArguments(resource, options);
    const existing = this.campaigns.get(checked.resource);
    const agreed = existing?.settings ?? this.declared.get(checked.resource)?.settings;
    if (options !== undefined && agreed && !sameSettings(agreed, checked.settings)) {
      throw new InvalidArgumentError('options', `resource "${checked.resource}" already campaigns with ${describeSettings(agreed)}`);
    }
    if (existing) return existing.settled().then(() => existing.isLeader);
    if (this.closing) return Promise.resolve(false);
    return this.start(checked.resource, agreed ?? checked.settings);
  }

  /** Whether this instance leads `resource` now (exact: checked against the lease's validity on a monotonic clock). */
  isLeader(resource: string): boolean {
    return this.campaigns.get(resource)?.isLeader ?? false;
  }

  /**
   * The term this instance leads `resource` in now, or undefined. Without a resource: the term the running `@RunOnLeader`
   * method was called under (it stays that term, ended or not, for the whole call).
   */
  currentTerm(resource?: string): LeaderTerm | undefined {
    return resource === undefined ? runningTerm.get() : this.campaigns.get(resource)?.currentTerm;
  }

  /** Terms gained and ended by this instance, for one resource or all; completes when the application shuts down. */
  changes(resource?: string): Observable<LeadershipChange> {
    return this.recorder.changes(resource);
  }

  /** Stops campaigning for `resource`; a term in progress ends (`resigned`) and the lease is given back at once. */
  async resign(resource: string): Promise<void> {
    const campaign = this.campaigns.get(resource);
    if (!campaign) return;
    this.campaigns.delete(resource);
    await campaign.stop('resigned');
  }

  /** @internal A `@RunOnLeader` method of `resource` (at `path`): its campaign starts at bootstrap. */
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
    if (this.bootstrapped && !this.closing) void this.start(resource, settings);
  }

  /** @internal Runs a `@RunOnLeader` method's `work` when this instance leads `resource`; resolves undefined otherwise. */
  runAsLeader(resource: string, work: () => Promise<unknown>, method: string): Promise<unknown> {
    const term = this.closing ? undefined : this.campaigns.get(resource)?.currentTerm;
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
    this.closing = true;
    if (this.running.size > 0) await withDeadline(Promise.allSettled([...this.running]), this.options.shutdownTimeoutMs, () => undefined);
    const campaigns = [...this.campaigns.values()];
    this.campaigns.clear();
    await Promise.allSettled(campaigns.map((campaign) => campaign.stop('shutdown')));
    this.recorder.close();
  }

  private start(resource: string, settings: CampaignSettings): Promise<boolean> {
    const campaign = new Campaign(resource, settings, leaseKeys(this.keys, resource), this.context);
    this.campaigns.set(resource, campaign);
    this.resources.add(resource);
    return campaign.start().then(() => campaign.isLeader);
  }
}
