import type { Redis } from 'ioredis';
import { endpointOf } from './doctor-support';
import type { DoctorCheck } from './doctor.types';

/** A SLOWLOG entry at or above this duration makes the check warn: 10 ms, the default `slowlog-log-slower-than`. */
export const SLOW_COMMAND_US = 10_000;
/** How many of the slowest entries the finding lists. */
export const SLOWEST_SHOWN = 3;
/** How many entries of each master's SLOWLOG are read. */
const READ = 128;

/**
 * Commands whose first argument is a subcommand (part of the command's name, as in Redis' own `client|setname`): the
 * subcommand is reported with them. Any other argument may hold a key, a value or a password, and is never read.
 */
const CONTAINERS = new Set([
  'ACL',
  'CLIENT',
  'CLUSTER',
  'COMMAND',
  'CONFIG',
  'DEBUG',
  'FUNCTION',
  'LATENCY',
  'MEMORY',
  'MODULE',
  'OBJECT',
  'PUBSUB',
  'SCRIPT',
  'SLOWLOG',
  'XGROUP',
  'XINFO',
]);

/** One SLOWLOG entry, reduced to what may be shown. */
export interface SlowCommand {
  /** The command's name (with its subcommand, for container commands such as CLIENT or DEBUG). */
  command: string;
  /** How long it ran, in µs. */
  durationUs: number;
  /** The master that logged it, on a cluster. */
  node?: string;
}

/** The name of a SLOWLOG entry's command from its argument list: the command, and the subcommand of a container. */
export function commandName(args: readonly unknown[]): string {
  const command = String(args[0] ?? '?').toUpperCase();
  const sub = args[1];
  return CONTAINERS.has(command) && typeof sub === 'string' && /^[a-z-]{1,32}$/i.test(sub) ? `${command} ${sub.toUpperCase()}` : command;
}

/** Reduces a raw `SLOWLOG GET` reply (`[id, time, µs, args, client, name]` entries) to names and durations. */
export function parseSlowlog(reply: unknown, node?: string): SlowCommand[] {
  if (!Array.isArray(reply)) return [];
  return reply
    .filter((entry): entry is unknown[] => Array.isArray(entry) && Array.isArray(entry[3]))
    .map((entry) => ({ command: commandName(entry[3] as unknown[]), durationUs: Number(entry[2]), node }));
}

/** Warns when the slowest logged command took `SLOW_COMMAND_US` or more, listing the slowest `SLOWEST_SHOWN`. */
export function judgeSlowCommands(entries: readonly SlowCommand[]): DoctorCheck {
  const name = 'slow-commands';
  if (entries.length === 0)
    return { name, status: 'pass', reason: 'the SLOWLOG is empty: no command ran longer than slowlog-log-slower-than' };
  const slowest = [...entries].sort((a, b) => b.durationUs - a.durationUs).slice(0, SLOWEST_SHOWN);
  const evidence = slowest.map((entry) => `${entry.command} ${formatMs(entry.durationUs)}${entry.node ? ` on ${entry.node}` : ''}`);
  const limit = formatMs(SLOW_COMMAND_US);
  if (slowest[0].durationUs < SLOW_COMMAND_US) {
    return {
      name,
      status: 'pass',
      reason: `the slowest of ${entries.length} SLOWLOG entries ran ${formatMs(slowest[0].durationUs)}, under ${limit}`,
      evidence,
    };
  }
  const over = entries.filter((entry) => entry.durationUs >= SLOW_COMMAND_US).length;
  return {
    name,
    status: 'warn',
    reason: `${over} of ${entries.length} SLOWLOG entries ran ${limit} or longer, the slowest ${slowest[0].command} for ${formatMs(slowest[0].durationUs)}: the server answers nobody else meanwhile`,
    evidence,
    fix: 'Find who sends these commands; read big keys in pieces (HSCAN, SSCAN, ZSCAN, LRANGE with bounds) instead of HGETALL/SMEMBERS/LRANGE 0 -1, split big keys (see big-keys), keep scripts short, and SLOWLOG RESET after the fix to watch for new entries.',
  };
}

/** The last `READ` entries of every master's SLOWLOG (names and durations only). */
export async function readSlowlogs(masters: readonly Redis[]): Promise<SlowCommand[]> {
  const cluster = masters.length > 1;
  const replies = await Promise.all(masters.map((node) => node.call('SLOWLOG', 'GET', String(READ))));
  return replies.flatMap((reply, i) => parseSlowlog(reply, cluster ? endpointOf(masters[i]) : undefined));
}

function formatMs(us: number): string {
  return `${(us / 1000).toFixed(1)} ms`;
}
