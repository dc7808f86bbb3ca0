import type { Cluster, Redis } from 'ioredis';
import { keySlot } from '../keys/key-slot';

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
export class ConnectionLiveness {
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
    client.on('ready', () => liveness.cameBack());
    return liveness;
  }

  /** True from a command that went unanswered until the server answers again. */
  get isDown(): boolean {
    return this.down;
  }

  /** The error of the command that took the connection down, while it is down. */
  get cause(): unknown {
    return this.down ? this.downCause : undefined;
  }

  /** A command went without an answer (`cause`): fail the next calls at once and probe until the server answers. */
  wentDown(cause: unknown): void {
    if (this.down || this.ended()) return;
    this.down = true;
    this.downCause = cause;
    this.schedule();
  }

  /** The server answered (a reply, the connection's `ready`, or the probe). */
  cameBack(): void {
    if (!this.down) return;
    this.down = false;
    this.downCause = undefined;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      // A closed client never comes back: stop probing, and stop refusing (its own error says it is closed).
      if (this.ended()) return this.cameBack();
      this.probe().then(
        () => this.cameBack(),
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
export class ClusterLiveness {
  /** The masters known down; empty in normal operation, so a call pays one size check. */
  private readonly down = new Map<string, ConnectionLiveness>();

  constructor(private readonly cluster: Cluster) {}

  /** The master serving `key`'s slot, as the client's slot table has it (undefined before the table is loaded). */
  nodeOf(key: string): string | undefined {
    return this.cluster.slots[keySlot(key)]?.[0];
  }

  /** While the master serving `key` is known not to answer, the error that took it down. */
  outageFor(key: string): unknown {
    if (this.down.size === 0) return undefined;
    const node = this.nodeOf(key);
    return node === undefined ? undefined : this.causeOf(node);
  }

  /** While master `node` is known not to answer, the error that took it down. */
  causeOf(node: string): unknown {
    if (this.down.size === 0) return undefined;
    const view = this.down.get(node);
    if (view === undefined) return undefined;
    if (view.isDown) return view.cause;
    this.down.delete(node);
    return undefined;
  }

  /** A command sent to master `node` went without an answer (`cause`). */
  wentDown(node: string, cause: unknown): void {
    let view = this.down.get(node);
    if (view === undefined) {
      view = new ConnectionLiveness(
        () => this.probe(node),
        () => this.cluster.status === 'end' || !this.servesSlots(node),
      );
      this.down.set(node, view);
    }
    view.wentDown(cause);
  }

  /** Master `node` answered a command. */
  answered(node: string): void {
    if (this.down.size === 0) return;
    this.down.get(node)?.cameBack();
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
