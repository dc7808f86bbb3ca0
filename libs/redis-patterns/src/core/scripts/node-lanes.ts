import type { Cluster, Redis } from 'ioredis';
import { CoalescingQueue, type WaitingGroup } from './coalescing-queue';
import type { RedisScript } from './redis-script';

/** One cluster master as the executor sees it: its own connection and the calls waiting for it. */
export interface NodeLane {
  /** The master as the client's slot table names it (`host:port`). */
  readonly node: string;
  readonly client: Redis;
  readonly queue: CoalescingQueue<RedisScript<unknown>>;
}

/**
 * A master's queue holds back a call while one of its own awaits a reply ({@link NodeLanes.writesAtOnce} also looks
 * at the other masters).
 */
const LANE_WINDOW = 1;

/**
 * The masters of a cluster, named as the client's own slot table names them (`Cluster.slots`, which ioredis keeps
 * current on MOVED and on its periodic refresh). Calls coalesce per node, not per slot: with distinct identities
 * almost every call has its own slot, so per-slot groups would be groups of one.
 *
 * A lane is looked up on every call and replaced when its connection ended; an unknown slot (the table is not loaded
 * yet, or the node is new) has no lane, and its call goes through the cluster client alone, with its redirections.
 */
export class NodeLanes {
  private readonly lanes = new Map<string, NodeLane>();

  constructor(
    private readonly cluster: Cluster,
    private readonly sendGroup: (lane: NodeLane, group: WaitingGroup<RedisScript<unknown>>) => void,
  ) {}

  /**
   * The lane of master `nodeKey` (as the slot table names it), if the client is connected to it. A node that is not
   * ready (reconnecting, or dropped from the cluster client's pool after a failover) has no lane: its calls go
   * through the cluster client, which knows where the slot went.
   */
  at(nodeKey: string): NodeLane | undefined {
    const lane = this.lanes.get(nodeKey) ?? this.open(nodeKey);
    return lane?.client.status === 'ready' ? lane : undefined;
  }

  /**
   * Whether a call for `lane` is written now: nothing waits for that master and no call of the client awaits a reply
   * from any master. Otherwise it waits for the end of the turn with the other calls for that master, and they leave
   * as one command. A lone caller's call always goes at once.
   *
   * Why the whole client and not each master: with distinct identities a master sees few calls at a time, so a
   * window per master (first a third of the client's 8, then 1) left most calls alone at 8 callers, each its own
   * EVALSHA as rate-limiter-flexible sends; and six Redis processes share the machine's cores with the app, so an
   * EVALSHA saved is Redis CPU saved. Measured with 8 callers on 3 masters (bench/results/PROFILES.md, "On a
   * cluster"): 0.89x rate-limiter-flexible with 3 per master, 0.95-1.03x with 1, 1.02-1.08x client-wide; unchanged
   * at 1 and 64 callers.
   */
  writesAtOnce(lane: NodeLane): boolean {
    if (!lane.queue.open) return false;
    for (const other of this.lanes.values()) if (other.queue.outstanding > 0) return false;
    return true;
  }

  /** Sends what waits on every lane. */
  flush(): void {
    for (const lane of this.lanes.values()) lane.queue.flush();
  }

  private open(nodeKey: string): NodeLane | undefined {
    const masters = this.cluster.nodes('master');
    const client = masters.find(({ options }) => `${options.host}:${options.port}` === nodeKey);
    if (!client) return undefined;
    // The pool replaces a node's connection when the node leaves and comes back: the lane follows it.
    client.once('end', () => {
      if (this.lanes.get(nodeKey) === lane) this.lanes.delete(nodeKey);
    });
    const lane: NodeLane = {
      node: nodeKey,
      client,
      queue: new CoalescingQueue<RedisScript<unknown>>((group) => this.sendGroup(lane, group), LANE_WINDOW),
    };
    this.lanes.set(nodeKey, lane);
    return lane;
  }
}
