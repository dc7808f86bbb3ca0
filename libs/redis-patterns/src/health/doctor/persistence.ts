import type { DoctorCheck, DoctorWorkload } from './doctor.types';

/** The persistence settings of one master (CONFIG GET appendonly, appendfsync, save). */
export interface PersistenceSettings {
  /** `host:port`, on a cluster. */
  endpoint?: string;
  /** `yes` or `no`. */
  appendonly: string;
  /** `always`, `everysec` or `no`. */
  appendfsync: string;
  /** The RDB schedule, e.g. `3600 1 300 100 60 10000`; empty when there is none. */
  save: string;
}

/** Reads {@link PersistenceSettings} from a `CONFIG GET` reply (a flat `[name, value, …]` array). */
export function persistenceSettings(reply: unknown, endpoint?: string): PersistenceSettings {
  const values = new Map<string, string>();
  const flat = Array.isArray(reply) ? reply.map(String) : [];
  for (let i = 0; i + 1 < flat.length; i += 2) values.set(flat[i].toLowerCase(), flat[i + 1]);
  return {
    endpoint,
    appendonly: values.get('appendonly') ?? '?',
    appendfsync: values.get('appendfsync') ?? '?',
    save: values.get('save') ?? '',
  };
}

const FIX =
  'appendonly yes with appendfsync everysec (a crash then loses at most a second of acquisitions), and after a crash or restart keep the server (or the lock workload) away for the longest lock TTL before it grants locks again; see docs/locks.md, "Persistence and restarts".';

/** What a restart of a server with these settings forgets, or undefined when it forgets (almost) nothing. */
function restartLoss(settings: PersistenceSettings): string | undefined {
  if (settings.appendonly === 'yes') {
    if (settings.appendfsync === 'no')
      return 'AOF with appendfsync no: the OS writes it out when it likes (about every 30 s), so a crash loses that much';
    return undefined;
  }
  if (settings.save.trim() !== '')
    return `no AOF, only RDB snapshots (save "${settings.save}"): a restart loses the writes since the last snapshot, minutes of them`;
  return 'no persistence (appendonly no, save ""): a restart starts empty';
}

/**
 * Judges persistence for the workloads whose keys must survive a restart: with `locks`, a restart that forgets held
 * locks lets a second holder in before the first has finished (a stream forgets its queued messages the same way).
 */
export function judgePersistence(masters: readonly PersistenceSettings[], workloads: readonly DoctorWorkload[]): DoctorCheck {
  const name = 'persistence';
  const describe = (s: PersistenceSettings) =>
    `appendonly ${s.appendonly}, appendfsync ${s.appendfsync}, save "${s.save}"${s.endpoint ? ` on ${s.endpoint}` : ''}`;
  const settings = [...new Set(masters.map(describe))].join('; ');
  const durable = workloads.filter((w) => w === 'locks' || w === 'streams');
  if (durable.length === 0)
    return { name, status: 'pass', reason: `${settings}: no locks or streams here, nothing must survive a restart` };
  const losses = masters.map(restartLoss).filter((loss): loss is string => loss !== undefined);
  if (losses.length === 0) {
    const fsync = masters.some((s) => s.appendfsync !== 'always') ? ': a crash loses at most a second of writes' : '';
    return { name, status: 'pass', reason: `${settings}${fsync}` };
  }
  const what = [
    durable.includes('locks') ? 'held locks are forgotten, and a second holder can get one before the first has finished' : '',
    durable.includes('streams') ? 'queued stream messages are lost' : '',
  ]
    .filter(Boolean)
    .join('; ');
  return {
    name,
    status: 'warn',
    reason: `${losses[0]}; ${what}`,
    evidence: masters.map(describe),
    fix: FIX,
  };
}
