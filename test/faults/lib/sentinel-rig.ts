import { Redis } from 'ioredis';
import type { RedisServerProcess } from '../../../libs/redis-patterns/src/testing/redis-server-process';
import { sentinelDataNode, type SentinelTopology } from '../../harness/topologies';
import { now, waitUntil } from './measure';
import type { ScenarioContext } from './scenario';
import { ownSentinel } from './servers';

/** One event a sentinel published (`+sdown`, `+switch-master`, …), with when this process received it. */
export interface SentinelEvent {
  readonly at: number;
  readonly sentinel: number;
  readonly channel: string;
  readonly message: string;
}

/**
 * The T2 topology (a master, a replica, three sentinels with down-after 1 s) kept across many failovers: it records
 * every sentinel event, finds which data node is the master now, and brings a killed master back as a replica of the
 * new one, so each fault starts from a healthy pair without a new topology.
 */
export class SentinelRig {
  readonly events: SentinelEvent[] = [];
  /** The two data nodes; a restarted node replaces its predecessor here. */
  readonly nodes: RedisServerProcess[];
  private readonly admins = new Map<number, Redis>();
  private readonly sentinelAdmins: Redis[];
  private readonly crashed = new Set<RedisServerProcess>();
  private subscribed = 0;

  private constructor(
    private readonly context: ScenarioContext,
    readonly topology: SentinelTopology,
  ) {
    this.nodes = [topology.master, topology.replica];
    this.sentinelAdmins = topology.sentinels.map((s) => this.adminOf(s.port));
    topology.sentinels.forEach((s, i) => {
      const subscriber = new Redis({ port: s.port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 100 });
      subscriber.on('error', () => undefined);
      subscriber.on('pmessage', (_pattern: string, channel: string, message: string) =>
        this.events.push({ at: now(), sentinel: i, channel, message }),
      );
      void subscriber
        .connect()
        .then(() => subscriber.psubscribe('*'))
        .then(
          () => this.subscribed++,
          () => undefined,
        );
      context.defer(() => subscriber.disconnect());
    });
  }

  static async start(context: ScenarioContext, name: string): Promise<SentinelRig> {
    const rig = new SentinelRig(context, await ownSentinel(context, name));
    await waitUntil(() => rig.subscribed === rig.topology.sentinels.length, 10_000, 'a subscription to every sentinel');
    return rig;
  }

  get masterName(): string {
    return this.topology.masterName;
  }

  get sentinelAddresses(): Array<{ host: string; port: number }> {
    return this.topology.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port }));
  }

  /**
   * A connection to a data node (or sentinel) for polling: a command waits at most for the next connection attempt
   * while the node is down, and a second while it is frozen.
   */
  adminOf(port: number): Redis {
    let admin = this.admins.get(port);
    if (!admin) {
      admin = new Redis({
        port,
        host: '127.0.0.1',
        maxRetriesPerRequest: 0,
        commandTimeout: 1000,
        retryStrategy: () => 50,
      });
      admin.on('error', () => undefined);
      this.admins.set(port, admin);
      const created = admin;
      this.context.defer(() => created.disconnect());
    }
    return admin;
  }

  /** The data nodes by their current role (ROLE asked of each). */
  async roles(): Promise<{ master: RedisServerProcess; replica: RedisServerProcess }> {
    const roles = await Promise.all(
      this.nodes.map((node) =>
        this.adminOf(node.port)
          .call('ROLE')
          .then((r) => String((r as unknown[])[0]))
          .catch(() => 'down'),
      ),
    );
    const [first, second] = this.nodes;
    if (roles[0] === 'master' && roles[1] === 'slave') return { master: first, replica: second };
    if (roles[1] === 'master' && roles[0] === 'slave') return { master: second, replica: first };
    throw new Error(`no master-replica pair: ${first.port} ${roles[0]}, ${second.port} ${roles[1]}`);
  }

  /** The master address each sentinel names now. */
  async masterPorts(): Promise<number[]> {
    return Promise.all(
      this.sentinelAdmins.map((s) =>
        s
          .call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.masterName)
          .then((a) => Number((a as string[])[1]))
          .catch(() => 0),
      ),
    );
  }

  /**
   * How far the replica is behind: the master's replication offset, then (read after it) the offset the replica has
   * processed; 0 when the replica had caught up with the first reading by the time of the second.
   */
  async replicationLag(master: RedisServerProcess, replica: RedisServerProcess): Promise<string> {
    const field = (info: string, name: string): string => new RegExp(`${name}:(\\S+)`).exec(info)?.[1] ?? '?';
    const m = await this.adminOf(master.port).info('replication');
    const r = await this.adminOf(replica.port).info('replication');
    const lag = Math.max(0, Number(field(m, 'master_repl_offset')) - Number(field(r, 'slave_repl_offset')));
    return `${lag} bytes behind, link ${field(r, 'master_link_status')}, sync in progress ${field(r, 'master_sync_in_progress')}`;
  }

  /** Waits until every sentinel names `port` as the master; returns the ms waited. */
  async sentinelsAgree(port: number, timeoutMs: number): Promise<number> {
    return waitUntil(
      async () => (await this.masterPorts()).every((p) => p === port),
      timeoutMs,
      `every sentinel to name ${port} as master`,
    );
  }

  /** The last `count` events (but hello messages), for a failure's log line. */
  recentEvents(count = 40): string {
    return this.events
      .slice(-count)
      .map((e) => `${e.channel}[s${e.sentinel}]@${Math.round(e.at)} ${e.message}`)
      .join(' | ');
  }

  /** Each sentinel's view of the replicas (port, flags, link), for a failure's log line. */
  async replicaViews(): Promise<string> {
    const views = await Promise.all(
      this.sentinelAdmins.map((s) => s.call('SENTINEL', 'REPLICAS', this.masterName).catch((e: Error) => e.message)),
    );
    return views
      .map((view, i) =>
        typeof view === 'string'
          ? `s${i}: ${view}`
          : `s${i}: ${(view as string[][])
              .map(toObject)
              .map((f) => `${f.port} ${f.flags} link ${f['master-link-status']} of ${f['master-port']}`)
              .join(', ')}`,
      )
      .join('; ');
  }

  /**
   * Failovers the sentinels completed, and how many of their new masters the sentinels then took for down within
   * 1.5 s of the switch (+odown), though nothing had been done to them (see `settle`).
   */
  postSwitchDowns(): { switches: number; downs: number } {
    // Each failover is announced by every sentinel within milliseconds: one switch per burst of announcements.
    const switches: Array<{ at: number; port: string }> = [];
    for (const e of this.events) {
      if (e.channel !== '+switch-master') continue;
      if (switches.length && e.at - switches[switches.length - 1].at < 500) continue;
      switches.push({ at: e.at, port: e.message.split(' ')[4] });
    }
    const downs = switches.filter(({ at, port }) =>
      // "master <name> <ip> <port> #quorum n/q"
      this.events.some((e) => e.channel === '+odown' && e.at >= at && e.at <= at + 1500 && e.message.split(' ')[3] === port),
    ).length;
    return { switches: switches.length, downs };
  }

  /** The first event on `channel` at or after `since` (any sentinel), or undefined. */
  firstEvent(channel: string, since: number): SentinelEvent | undefined {
    return this.events.find((e) => e.at >= since && e.channel === channel);
  }

  /** The events since `since` as `channel@ms` (ms from `since`), first per channel and sentinel, for the log. */
  timeline(since: number, until = Number.POSITIVE_INFINITY): string {
    const seen = new Set<string>();
    const parts: string[] = [];
    for (const e of this.events) {
      if (e.at < since || e.at > until || e.channel === '__sentinel__:hello') continue;
      const id = `${e.channel}/${e.sentinel}`;
      if (seen.has(id)) continue;
      seen.add(id);
      parts.push(`${e.channel}[s${e.sentinel}]@${Math.round(e.at - since)}`);
    }
    return parts.join(' ');
  }

  /** SIGKILL of a data node; `settle` starts it again. */
  async crash(node: RedisServerProcess): Promise<void> {
    await node.kill();
    this.crashed.add(node);
    this.admins.get(node.port)?.disconnect();
    this.admins.delete(node.port);
  }

  /**
   * Brings the pair back to health after a fault and returns the master: the sentinels agree on a master and have no
   * failover in progress; the other node runs (a killed one is started again) as its online replica (a live former
   * master is told REPLICAOF, what Sentinel itself does 8 s after it answers again); every sentinel lists that
   * replica as a good one, so the next failover can promote it; and every sentinel has had a PING answered by the
   * master since it switched to it.
   *
   * That last condition matters on T2 settings. The switch resets a sentinel's view of the new master as if a PING
   * had just been sent, and its reconnection is throttled to one a second: with down-after 1 s the first answer can
   * come too late, and all three sentinels, reset at the same moment, then agree the healthy new master is down and
   * fail it over again (seen here about 1 s after +switch-master, in up to 1 failover in 8 that the sentinels began
   * on their own). Once each has had an answer, a PING a second answered at once keeps them from it. Such a second
   * failover is waited out here, never caused: the pair settles on whichever master the sentinels chose.
   */
  async settle(timeoutMs = 45_000): Promise<RedisServerProcess> {
    let master: RedisServerProcess | undefined;
    await waitUntil(
      async () => {
        master = undefined;
        const ports = await this.masterPorts();
        if (!ports.every((p) => p === ports[0])) return false;
        const views = (await Promise.all(this.sentinelAdmins.map((s) => s.call('SENTINEL', 'MASTER', this.masterName)))).map((v) =>
          toObject(v as string[]),
        );
        if (!views.every((f) => f.flags === 'master' && f['last-ping-sent'] === '0')) return false;
        const primary = this.nodes.find((n) => n.port === ports[0]);
        const other = this.nodes.find((n) => n !== primary);
        if (!primary || !other) throw new Error(`the sentinels name ${ports[0]}, not a node of this pair`);
        if (this.crashed.has(other)) {
          await this.restart(other, primary.port);
          return false;
        }
        const info = await this.adminOf(other.port).info('replication');
        if (!info.includes('role:slave') || !info.includes(`master_port:${primary.port}`)) {
          await this.adminOf(other.port).call('REPLICAOF', '127.0.0.1', String(primary.port));
          return false;
        }
        const online = new RegExp(`slave0:ip=127\\.0\\.0\\.1,port=${other.port},state=online`);
        if (!online.test(await this.adminOf(primary.port).info('replication'))) return false;
        const replicas = await Promise.all(this.sentinelAdmins.map((s) => s.call('SENTINEL', 'REPLICAS', this.masterName)));
        const good = replicas.every((view) =>
          (view as string[][])
            .map(toObject)
            .some(
              (f) =>
                f.port === String(other.port) &&
                f.flags === 'slave' &&
                f['master-link-status'] === 'ok' &&
                f['master-port'] === String(primary.port),
            ),
        );
        if (good) master = primary;
        return good;
      },
      timeoutMs,
      'the pair to settle (one master the sentinels agree on, its replica online and seen by every sentinel)',
    );
    return master!;
  }

  /** Starts a killed node again, as a replica of `masterPort` (an operator's configuration for a returning node). */
  private async restart(node: RedisServerProcess, masterPort: number): Promise<void> {
    const restarted = await sentinelDataNode(node.port, node.dir, masterPort).start();
    this.context.defer(() => restarted.stop());
    this.crashed.delete(node);
    this.nodes[this.nodes.indexOf(node)] = restarted;
  }
}

function toObject(fields: string[]): Record<string, string> {
  const object: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) object[fields[i]] = fields[i + 1];
  return object;
}
