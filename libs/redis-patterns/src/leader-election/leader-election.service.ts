import { Injectable } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import type { LeadershipChange } from './campaign';
import { type CampaignOptions, checkCampaignArguments, describeSettings, sameSettings } from './campaign.options';
import { LeaderElectionRuntime } from './leader-election.runtime';
import type { LeaderTerm } from './leader-term';

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
export class LeaderElection {
  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(private readonly runtime: LeaderElectionRuntime) {}

  /**
   * Starts campaigning for `resource` in the background (or joins the campaign already running) and resolves after
   * the first attempt: true when this instance leads the resource now. Followers retry every `renewEveryMs`; a Redis
   * that does not answer leaves this instance a follower (never "probably leader").
   *
   * @throws InvalidArgumentError naming `resource` or `options.<name>`, or when the resource already campaigns with other options.
   */
  campaign(resource: string, options?: CampaignOptions): Promise<boolean> {
    const checked = checkCampaignArguments(resource, options);
    const existing = this.runtime.campaigns.get(checked.resource);
    const agreed = existing?.settings ?? this.runtime.declaredSettings(checked.resource);
    if (options !== undefined && agreed && !sameSettings(agreed, checked.settings)) {
      throw new InvalidArgumentError('options', `resource "${checked.resource}" already campaigns with ${describeSettings(agreed)}`);
    }
    if (existing) return existing.settled().then(() => existing.isLeader);
    if (this.runtime.closing) return Promise.resolve(false);
    return this.runtime.start(checked.resource, agreed ?? checked.settings);
  }

  /** Whether this instance leads `resource` now (exact: checked against the lease's validity on a monotonic clock). */
  isLeader(resource: string): boolean {
    return this.runtime.campaigns.get(resource)?.isLeader ?? false;
  }

  /**
   * The term this instance leads `resource` in now, or undefined. Without a resource: the term the running `@RunOnLeader`
   * method was called under (it stays that term, ended or not, for the whole call).
   */
  currentTerm(resource?: string): LeaderTerm | undefined {
    return resource === undefined ? this.runtime.runningTerm() : this.runtime.campaigns.get(resource)?.currentTerm;
  }

  /** Terms gained and ended by this instance, for one resource or all; completes when the application shuts down. */
  changes(resource?: string): Observable<LeadershipChange> {
    return this.runtime.recorder.changes(resource);
  }

  /** Stops campaigning for `resource`; a term in progress ends (`resigned`) and the lease is given back at once. */
  async resign(resource: string): Promise<void> {
    const campaign = this.runtime.campaigns.get(resource);
    if (!campaign) return;
    this.runtime.campaigns.delete(resource);
    await campaign.stop('resigned');
  }
}
