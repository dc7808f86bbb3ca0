import type { Cluster, Redis } from 'ioredis';
import { keySlot } from '../keys/key-slot';

/**
 * Whether the server behind a key answers, as the executor reads and feeds it. A single server (or a Sentinel group)
 * is one server for every key; a cluster has one per master. Both are the same view to the executor: a single
 * connection is a cluster of one master.
 */
export interface ServerLiveness {
  /**
   * The server that serves `key`: the connection's one server, or on a cluster the master of `key`'s slot (undefined
   * before the slot table is loaded). Without `key`: the connection's one server; none on a cluster.
   */
  serverOf(key?: string): string | undefined;
  // The three below take the server a call was for; undefined (a cluster call whose master is not known) is no server.
  /** While `server` is known not to answer, the error that took it down. */
  causeOf(server: string | undefined): unknown;
  /** A command sent to `server` went without an answer (`cause`): fail its next calls at once, probe until it answers. */
  wentDown(server: string | undefined, cause: unknown): void;
  /** `server` answered a command. */
  answered(server: string | undefined): void;
}

/** How a single connection names its one server. */
const ONE_SERVER = 'server';

/** The view of a connection: a single server or Sentinel group ({@link ConnectionLiveness}), or each master of a cluster. */
export function livenessOf(client: Redis | Cluster): ServerLiveness {
  return (client as Cluster).isCluster === true ? new ClusterLiveness(client as Cluster) : ConnectionLiveness.watching(client as Redis);
}

/**
 * One view per connection of whether its server answers, which every pattern reads through the executor: a command
 * that went without an answer (its deadline passed, its socket closed, or it could not be sent) marks the connection
 * down; a reply, the client's `ready` event or a background probe marks it up again.
 *
 * While it is down the executor fails calls at once (`RedisUnavailableError`, never sent), so during an outage each
 * pattern applies its own policy — fail open, fail closed, fall back — without every caller first paying a command
 * deadline, and nothing piles up in a frozen server's socket to be applied when it comes back. The probe runs every
 * {@link PROBE_MS} while down only, on the client itself (not through the executor, which would refuse it), and no
 * call is spent finding out.
 */
export class ConnectionLiveness implements ServerLiveness {
  private down = false;
  private timer?: NodeJS.Timeout;
  private downCause?: unknown;

  constructor(
    private readonly probe: () => Promise<unknown>,
    private readonly ended: () => boolean,
  ) {}

  /** The view of a single-server or Sentinel client: probed with PING, over when the client ends, up at `ready`. */
  static watching(client: Redis): ConnectionLiveness {
    const liveness = new ConnectionLiveness(
      () => client.ping(),
      () => client.status === 'end',
    );
    client.on('ready', () => liveness.answered());
    return liveness;
  }

  serverOf(): string {
    return ONE_SERVER;
  }

  /** The error of the command that took the connection down, while it is down. */
  causeOf(): unknown {
    return this.down ? this.downCause : undefined;
  }

  wentDown(_server: string | undefined, cause: unknown): void {
    if (this.down || this.ended()) return;
    this.down = true;
    this.downCause = cause;
    this.schedule();
  }

  /** The server answered (a reply, the connection's `ready`, or the probe). */
  answered(): void {
    if (!this.down) return;
    this.down = false;
    this.downCause = undefined;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      // A closed client never comes back: stop probing, and stop refusing (its own error says it is closed).
      if (this.ended()) return this.answered();
      this.probe().then(
        () => this.answered(),
        () => this.down && this.schedule(),
      );
    }, PROBE_MS);
    this.timer.unref();
  }
}

/** How often a down connection is probed: a server back is noticed within this. */
export const PROBE_MS = 250;

/**
 * The same view on a cluster, per master: a master whose command went unanswered is down for the keys of its slots
 * only (the others' keys still go to Redis), until it answers again or its slots move to another master.
 *
 * A master is named as the client's slot table names it (`host:port`). While one is down, each probe also refreshes
 * the slot table: the calls refused for it are never sent, so the client would otherwise not learn of a failover
 * from their redirections, and the keys of a promoted replica's slots go to it as soon as the table says so. A
 * master that serves no slot any more (failed over, left the cluster) stops being probed.
 */
export class ClusterLiveness implements ServerLiveness {
  /** The masters known down; empty in normal operation, so a call pays one size check. */
  private readonly down = new Map<string, ConnectionLiveness>();

  constructor(private readonly cluster: Cluster) {}

  serverOf(key?: string): string | undefined {
    return key === undefined ? undefined : this.cluster.slots[keySlot(key)]?.[0];
  }

  causeOf(node: string | undefined): unknown {
    if (this.down.size === 0 || node === undefined) return undefined;
    const cause = this.down.get(node)?.causeOf();
    if (cause === undefined) this.down.delete(node);
    return cause;
  }

  wentDown(node: string | undefined, cause: unknown): void {
    if (node === undefined) return;
    let view = this.down.get(node);
    if (view === undefined) {
      view = new ConnectionLiveness(
        () => this.probe(node),
        () => this.cluster.status === 'end' || !this.servesSlots(node),
      );
      this.down.set(node, view);
    }
    view.wentDown(node, cause);
  }

  answered(node: string | undefined): void {
    if (this.down.size === 0 || node === undefined) return;
    this.down.get(node)?.answered();
    this.down.delete(node);
  }

  private probe(node: string): Promise<unknown> {
    this.cluster.refreshSlotsCache();
    const client = this.cluster.nodes('master').find(({ options }) => `${options.host}:${options.port}` === node);
    return client ? client.ping() : Promise.reject(new Error(`${node} is not a master of the cluster client`));
  }

  private servesSlots(node: string): boolean {
    return this.cluster.slots.some((nodes) => nodes?.[0] === node);
  }
}
