import { Injectable } from '@nestjs/common';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../core/advice/method-advice.interface';
import { UnsupportedHandlerError } from '../errors/unsupported-handler.error';
import { checkResourceOption, resolveCampaignOptions } from './campaign.options';
import { LeaderElectionRuntime } from './leader-election.runtime';
import type { RunOnLeaderDeclaration } from './run-on-leader.decorator';

/**
 * Turns `@RunOnLeader` into the advice around each decorated method, and declares its resource so the campaign starts
 * at bootstrap. Bad options fail startup naming `@RunOnLeader(Class.method).<option>`.
 */
@Injectable()
export class RunOnLeaderAdvisor implements MethodAdvisor<RunOnLeaderDeclaration> {
  constructor(private readonly runtime: LeaderElectionRuntime) {}

  prepare(declaration: RunOnLeaderDeclaration, method: AdvisedMethod): MethodAdvice {
    const path = `@RunOnLeader(${method.className}.${method.methodName})`;
    if (method.handlerKind) {
      // A skipped call resolves undefined: a route or message handler would answer its caller with nothing.
      throw new UnsupportedHandlerError(
        method.className,
        method.methodName,
        'is a request or message handler, and @RunOnLeader skips calls on followers; decorate the provider method it calls, or a scheduled one',
      );
    }
    const resource = checkResourceOption(declaration.resource, `${path}.resource`);
    const settings = resolveCampaignOptions(declaration.options, path);
    this.runtime.declare(resource, settings, path);
    const methodName = `${method.className}.${method.methodName}`;
    return (_invocation, proceed) => this.runtime.runAsLeader(resource, proceed, methodName);
  }
}
