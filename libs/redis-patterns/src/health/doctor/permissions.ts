import type { LoggerService } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { probeConnection } from '../../core/connections/startup-probe';
import { RedisRefusedError } from '../../errors/redis-refused.error';
import { aclNeeds, type AclNeed } from './acl-needs';
import { endpointOf, mastersOf, refusalOf } from './doctor-support';
import type { DoctorCheck, DoctorWorkload } from './doctor.types';

/** What the permissions check found out. */
export interface PermissionFindings {
  /** The ACL user judged (the `aclUser` option, else ACL WHOAMI); undefined when neither is known. */
  user?: string;
  /**
   * The module's startup check run as the doctor's own user: `passed`, the refusal, or undefined when it was not run
   * (another user is judged).
   */
  startupCheck?: string;
  /** The commands judged by ACL DRYRUN, and the ones refused (with the server's words); undefined when it could not run. */
  dryRun?: { checked: AclNeed[]; denied: Array<{ grant: string; denial: string }> };
  /** Why ACL DRYRUN could not run (refused, Redis older than 7.0, no such user). */
  dryRunUnavailable?: string;
  /** The node asked. */
  endpoint: string;
}

const ADMIN_FIX =
  "Run the doctor as an administrator with --acl-user <the application's ACL user> (or the aclUser option): ACL DRYRUN (Redis 7.0 or later) then judges that user's grants without running anything.";

/** Fails when the startup check or a documented command is refused; warns when ACL DRYRUN could not judge. */
export function judgePermissions(findings: PermissionFindings): DoctorCheck {
  const name = 'permissions';
  const who = findings.user ? `user ${findings.user}` : 'the current user';
  const probe = findings.startupCheck;
  const probeLine =
    probe === undefined ? undefined : probe === 'passed' ? 'the startup check passed' : `the startup check was refused: ${probe}`;
  if (findings.dryRun) {
    const { checked, denied } = findings.dryRun;
    if (denied.length > 0 || (probe !== undefined && probe !== 'passed')) {
      const grants = denied.map((d) => `+${d.grant}`);
      const commands = denied.filter((d) => /no permissions to run the '[^']+' command/.test(d.denial)).map((d) => d.grant);
      const others = denied.filter((d) => !commands.includes(d.grant)).map((d) => `${d.grant}: ${d.denial}`);
      return {
        name,
        status: 'fail',
        reason: `${who} may not run ${denied.length > 0 ? `${denied.length} of the ${checked.length} commands the workloads need` : 'the startup check'}${probeLine && probe !== 'passed' ? `; ${probeLine}` : ''}: the patterns would throw RedisRefusedError`,
        evidence: [
          ...(commands.length > 0 ? [`commands refused: ${commands.join(', ')}`] : []),
          ...others,
          ...(probeLine ? [probeLine] : []),
        ],
        fix: `ACL SETUSER ${findings.user ?? '<user>'} ${grants.join(' ')} (with ~<keyPrefix>:* for the keys): docs/security.md lists the ACL of each pattern.`,
      };
    }
    return {
      name,
      status: 'pass',
      reason: `${who} may run the ${checked.length} commands the workloads need (ACL DRYRUN on ${findings.endpoint})${probeLine ? `, and ${probeLine}` : ''}`,
    };
  }
  const unavailable = `ACL DRYRUN could not run (${findings.dryRunUnavailable ?? 'no user to judge'})`;
  if (probe !== undefined && probe !== 'passed') {
    return { name, status: 'fail', reason: `${probeLine}; ${unavailable}: the patterns would throw RedisRefusedError`, fix: ADMIN_FIX };
  }
  return {
    name,
    status: 'warn',
    reason: `${unavailable}, so the workloads' commands were not judged${probeLine ? `; ${probeLine} (scripts and TIME on the prefix's keys)` : ''}`,
    fix: ADMIN_FIX,
  };
}

/** Collects what the startup check would log: it logs instead of throwing when it could not run. */
function collector(into: string[]): LoggerService {
  const keep = (message: unknown) => void into.push(String(message));
  return { log: keep, error: keep, warn: keep, debug: keep, verbose: keep };
}

/**
 * Checks that the ACL user may run what the workloads need, without running it: the module's own startup check (one
 * script on `<keyPrefix>:startup-probe` that reads TIME and writes nothing) as the doctor's user, then `ACL DRYRUN`
 * of every command docs/security.md lists for the workloads, against `aclUser` or the doctor's user.
 */
export async function checkPermissions(
  client: Redis | Cluster,
  options: { aclUser?: string; workloads: readonly DoctorWorkload[]; keyPrefix: string; timeoutMs: number; cluster: boolean; key: string },
): Promise<DoctorCheck> {
  const node = mastersOf(client)[0];
  const findings: PermissionFindings = { endpoint: endpointOf(node) };
  let whoami: string | undefined;
  try {
    whoami = String(await node.call('ACL', 'WHOAMI'));
  } catch (error) {
    findings.dryRunUnavailable = `ACL WHOAMI refused: ${refusalOf(error) ?? (error as Error).message}`;
  }
  findings.user = options.aclUser ?? whoami;
  if (options.aclUser === undefined || options.aclUser === whoami) {
    const logged: string[] = [];
    try {
      await probeConnection(client, {
        connection: 'doctor',
        keyPrefix: options.keyPrefix,
        deadlineMs: options.timeoutMs,
        logger: collector(logged),
        secrets: [],
      });
      findings.startupCheck = logged.length > 0 ? undefined : 'passed';
    } catch (error) {
      if (!(error instanceof RedisRefusedError)) throw error;
      findings.startupCheck = `${error.command.toUpperCase()} ${error.detail}`;
    }
  }
  if (findings.user !== undefined) {
    const needs = aclNeeds(options.workloads, options.cluster, options.key);
    const pipeline = node.pipeline();
    for (const need of needs) pipeline.call('ACL', 'DRYRUN', findings.user, ...need.call);
    const replies = (await pipeline.exec()) ?? [];
    // Refused (NOPERM), unknown before Redis 7.0 ("Unknown subcommand"), or no such user: nothing was judged.
    const unusable = (error: Error | null) =>
      error && (refusalOf(error) !== undefined || /unknown subcommand|User '.*' not found/i.test(error.message));
    const refused = replies.map(([error]) => error).find(unusable);
    if (refused) {
      findings.dryRunUnavailable = /not found/.test(refused.message)
        ? `no ACL user ${findings.user} on ${findings.endpoint}`
        : (refusalOf(refused) ?? refused.message.split('\n')[0]);
    } else {
      const denied = needs.flatMap((need, i) => {
        const [error, reply] = replies[i] ?? [];
        if (error) return [{ grant: need.grant, denial: `not judged: ${error.message.split('\n')[0]}` }];
        return reply === 'OK' ? [] : [{ grant: need.grant, denial: String(reply) }];
      });
      findings.dryRun = { checked: needs, denied };
    }
  }
  return judgePermissions(findings);
}
