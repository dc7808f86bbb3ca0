import { parseInfoFields } from '../parse-info';
import { plural } from './doctor-support';
import type { DoctorCheck } from './doctor.types';

/**
 * Commands that stop the whole server for a time that grows with the data, whatever their arguments: KEYS walks the
 * keyspace; FLUSHALL and FLUSHDB free it in the foreground (their ASYNC forms do not, but INFO commandstats counts
 * both forms under one name); SAVE writes the snapshot from the main thread; DEBUG (SLEEP, RELOAD, OBJECT …) is a
 * test tool. Commands that are O(N) in one key (HGETALL, SMEMBERS, LRANGE 0 -1 …) are fine on small keys: the
 * big-keys and slow-commands checks catch the harmful calls.
 */
export const BLOCKING_COMMANDS: Readonly<Record<string, string>> = {
  keys: 'walks the whole keyspace',
  flushall: 'frees every database in the foreground (unless ASYNC)',
  flushdb: 'frees the database in the foreground (unless ASYNC)',
  save: 'writes the RDB snapshot from the main thread',
  debug: 'a test tool (DEBUG SLEEP, RELOAD …)',
};

/**
 * `calls` of each command of `INFO commandstats` (`cmdstat_<name>:calls=…`), by lower-case command name, summed over
 * the parsed INFO replies of every master.
 */
export function commandCalls(infos: ReadonlyArray<Record<string, string>>): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const [field, value] of infos.flatMap((info) => Object.entries(info))) {
    if (!field.startsWith('cmdstat_')) continue;
    const command = field.slice('cmdstat_'.length).toLowerCase();
    calls[command] = (calls[command] ?? 0) + Number(parseInfoFields(value).calls ?? 0);
  }
  return calls;
}

/** Warns with the count of each blocking command called since the statistics began (a restart or CONFIG RESETSTAT). */
export function judgeBlockingCommands(calls: Readonly<Record<string, number>>, uptimeSeconds: number | undefined): DoctorCheck {
  const name = 'blocking-commands';
  const since = `since the statistics began (a restart or CONFIG RESETSTAT${uptimeSeconds === undefined ? '' : `; uptime ${formatUptime(uptimeSeconds)}`})`;
  const called = Object.keys(BLOCKING_COMMANDS).filter((command) => (calls[command] ?? 0) > 0);
  const listed = Object.keys(BLOCKING_COMMANDS)
    .map((command) => command.toUpperCase())
    .join(', ');
  if (called.length === 0) return { name, status: 'pass', reason: `none of ${listed} called ${since}` };
  const flushes = called.some((command) => command.startsWith('flush'));
  return {
    name,
    status: 'warn',
    reason: `${called.map((command) => `${command.toUpperCase()} ${plural(calls[command], 'call')}`).join(', ')} ${since}: each blocks every client while it runs${flushes ? '; FLUSHALL/FLUSHDB counts include their ASYNC forms, which INFO commandstats cannot tell apart' : ''}`,
    evidence: called.map((command) => `${command.toUpperCase()}: ${plural(calls[command], 'call')} — ${BLOCKING_COMMANDS[command]}`),
    fix: 'Use SCAN with MATCH and COUNT instead of KEYS, FLUSHALL/FLUSHDB ASYNC (or lazyfree-lazy-user-flush yes), BGSAVE instead of SAVE, and keep DEBUG off production (enable-debug-command no); deny them to application users (ACL -keys -flushall -flushdb -save -debug, or -@dangerous), then CONFIG RESETSTAT to watch for new calls.',
  };
}

/** `3 d 4 h`, `2 h 5 min`, `42 s`. */
export function formatUptime(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  return minutes > 0 ? `${minutes} min` : `${seconds} s`;
}
