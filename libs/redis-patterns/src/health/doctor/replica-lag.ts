import { parseInfoFields } from '../parse-info';
import { formatBytes, plural } from './doctor-support';
import type { DoctorCheck } from './doctor.types';

/** A replica whose last acknowledgement is older than this (seconds) lags; replicas acknowledge every second. */
export const REPLICA_LAG_SECONDS = 10;
/** A replica this far behind its master's replication offset lags: 10 MB of writes it does not have. */
export const REPLICA_BEHIND_BYTES = 10 * 1024 * 1024;

/** One replica as its master sees it (a `slaveN` line of INFO replication). */
export interface ReplicaState {
  /** `ip:port` the replica announced. */
  endpoint: string;
  /** `online`, or `wait_bgsave`, `send_bulk` … while it synchronises. */
  state: string;
  /** Seconds since its last acknowledgement. */
  lag: number;
  /** Bytes of the master's replication stream it has not acknowledged. */
  behind: number;
}

/** The replication view of one master. */
export interface ReplicationView {
  /** `host:port` of the node the doctor asked. */
  endpoint: string;
  /** `master`, or `slave` when the doctor was pointed at a replica. */
  role: string;
  replicas: ReplicaState[];
}

/** Reads the replication view of a node from its parsed INFO replication. */
export function replicationView(info: Readonly<Record<string, string>>, endpoint: string): ReplicationView {
  const offset = Number(info.master_repl_offset ?? 0);
  const replicas = Object.entries(info)
    .filter(([field]) => /^slave\d+$/.test(field))
    .map(([, value]) => {
      const fields = parseInfoFields(value);
      return {
        endpoint: `${fields.ip ?? '?'}:${fields.port ?? '?'}`,
        state: fields.state ?? 'unknown',
        lag: Number(fields.lag ?? 0),
        behind: Math.max(0, offset - Number(fields.offset ?? 0)),
      };
    });
  return { endpoint, role: info.role ?? 'unknown', replicas };
}

/** Warns when a replica is not online, has not acknowledged for `REPLICA_LAG_SECONDS`, or is `REPLICA_BEHIND_BYTES` behind. */
export function judgeReplicaLag(views: readonly ReplicationView[]): DoctorCheck {
  const name = 'replica-lag';
  const replicas = views.flatMap((view) => view.replicas.map((replica) => ({ ...replica, master: view.endpoint })));
  const evidence = replicas.map((r) => `${r.endpoint} of ${r.master}: ${r.state}, lag ${r.lag} s, ${formatBytes(r.behind)} behind`);
  if (replicas.length === 0) {
    const replicaNodes = views.filter((view) => view.role === 'slave');
    return {
      name,
      status: 'pass',
      reason:
        replicaNodes.length > 0
          ? `${replicaNodes.map((view) => view.endpoint).join(', ')} is a replica: point the doctor at its master to judge replication`
          : `no replica connected to ${views.map((view) => view.endpoint).join(', ')}`,
    };
  }
  const lagging = replicas.filter((r) => r.state !== 'online' || r.lag > REPLICA_LAG_SECONDS || r.behind > REPLICA_BEHIND_BYTES);
  if (lagging.length === 0) {
    return {
      name,
      status: 'pass',
      reason: `${plural(replicas.length, 'replica')} online, none more than ${REPLICA_LAG_SECONDS} s or ${formatBytes(REPLICA_BEHIND_BYTES)} behind`,
      evidence,
    };
  }
  return {
    name,
    status: 'warn',
    reason: `${lagging.length} of ${plural(replicas.length, 'replica')} lagging (${lagging
      .map((r) => `${r.endpoint}: ${r.state}, lag ${r.lag} s, ${formatBytes(r.behind)} behind`)
      .join('; ')}): reads there are stale, and a failover to it loses those writes — held locks included`,
    evidence,
    fix: "Check the replica's host (CPU, disk, network) and the writes that outrun it (big keys, bulk loads); raise client-output-buffer-limit replica and repl-backlog-size if it keeps resynchronising; lock.waitReplicas makes an acquisition wait for a replica's acknowledgement.",
  };
}
