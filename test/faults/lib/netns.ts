// Network namespaces for the NETWORK scenario: one per application instance, each joined to the host by its own veth
// pair on a private /30, and faults applied inside a namespace only (nftables drops, tc qdiscs), so nothing outside
// the addresses this module creates is touched. Needs root (CAP_NET_ADMIN) and `ip`, `nft`, `tc`.
import { execFile } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Runs a command, throwing its stderr (not just the exit code) on failure. */
async function sh(command: string, args: string[], input?: string): Promise<string> {
  const child = exec(command, args, { timeout: 10_000 });
  if (input !== undefined) {
    child.child.stdin!.end(input);
  }
  try {
    return (await child).stdout;
  } catch (error) {
    const e = error as Error & { stderr?: string };
    throw new Error(`${command} ${args.join(' ')}: ${(e.stderr ?? '').trim() || e.message}`, { cause: error });
  }
}

/** One application instance's namespace and its link to the host. */
export interface NetNode {
  /** Network namespace name (`ip netns`). */
  readonly ns: string;
  /** Host-side veth: its address is the instance's gateway and the Redis address it connects to. */
  readonly hostIf: string;
  readonly nsIf: string;
  readonly hostAddress: string;
  /** The instance's own address, where its HTTP server is reached from the host. */
  readonly address: string;
}

export interface NetLab {
  readonly nodes: NetNode[];
  /** Deletes every namespace and veth this lab created (idempotent; runs even if some are already gone). */
  remove(): Promise<void>;
}

/** Both ends of every pair must have names free in the host namespace, at most 15 characters. */
const ifName = (id: string, i: number, side: 'h' | 'n'): string => `rpn${id}${i}${side}`;

/**
 * Creates `count` namespaces `rpn-<id>-<i>`, each with a veth pair `rpn<id><i>h` (host) / `rpn<id><i>n` (inside)
 * on 10.X.Y.(4i+1)/30 and 10.X.Y.(4i+2)/30, for a /24 no host address or route uses. Throws (after removing what
 * it made) if the machine refuses, e.g. without CAP_NET_ADMIN.
 */
export async function createNetLab(count: number): Promise<NetLab> {
  const id = randomBytes(2).toString('hex');
  const inUse = (await sh('ip', ['-o', '-4', 'addr'])) + (await sh('ip', ['-4', 'route', 'show', 'table', 'all']));
  let net = '';
  for (let attempt = 0; attempt < 50 && !net; attempt++) {
    const candidate = `10.${randomInt(200, 250)}.${randomInt(0, 256)}`;
    if (!inUse.includes(`${candidate}.`)) net = candidate;
  }
  if (!net) throw new Error('no free 10.x.y.0/24 found for the namespaces');
  const nodes: NetNode[] = Array.from({ length: count }, (_, i) => ({
    ns: `rpn-${id}-${i}`,
    hostIf: ifName(id, i, 'h'),
    nsIf: ifName(id, i, 'n'),
    hostAddress: `${net}.${4 * i + 1}`,
    address: `${net}.${4 * i + 2}`,
  }));
  const created: NetNode[] = [];
  const lab: NetLab = {
    nodes,
    remove: async () => {
      const errors: string[] = [];
      for (const node of created) {
        // Deleting the namespace destroys its end of the pair and with it the host end, asynchronously, and not at
        // all while a process still runs inside it: the host end is deleted outright too.
        await sh('ip', ['netns', 'del', node.ns]).catch((e: Error) => errors.push(e.message));
        await sh('ip', ['link', 'del', node.hostIf]).catch((e: Error) => /Cannot find device/.test(e.message) || errors.push(e.message));
      }
      created.length = 0;
      if (errors.length) throw new Error(`network lab cleanup: ${errors.join('; ')}`);
    },
  };
  try {
    for (const node of nodes) {
      await sh('ip', ['netns', 'add', node.ns]);
      created.push(node);
      await sh('ip', ['link', 'add', node.hostIf, 'type', 'veth', 'peer', 'name', node.nsIf]);
      await sh('ip', ['link', 'set', node.nsIf, 'netns', node.ns]);
      await sh('ip', ['addr', 'add', `${node.hostAddress}/30`, 'dev', node.hostIf]);
      await sh('ip', ['link', 'set', node.hostIf, 'up']);
      await sh('ip', ['-n', node.ns, 'addr', 'add', `${node.address}/30`, 'dev', node.nsIf]);
      await sh('ip', ['-n', node.ns, 'link', 'set', node.nsIf, 'up']);
      await sh('ip', ['-n', node.ns, 'link', 'set', 'lo', 'up']);
    }
  } catch (error) {
    await lab.remove().catch(() => undefined);
    throw error;
  }
  return lab;
}

const FAULT_TABLE = 'rpfault';

/**
 * Drops packets between the instance and Redis (its gateway address, `port`) inside the instance's namespace, in
 * both directions: every `oneIn`-th on average (numgen random: real loss, TCP retransmits), or all of them (a black
 * hole: sockets stay open, nothing answers, no RST — a partition). Only the Redis flow, so the scenario still reaches
 * the instance's HTTP server. Counters tell how many packets were dropped, and how many connection attempts (SYNs)
 * the instance made.
 */
export async function dropRedisPackets(node: NetNode, port: number, oneIn: number | 'all'): Promise<void> {
  const drop = oneIn === 'all' ? 'counter drop' : `numgen random mod ${oneIn} == 0 counter drop`;
  const ruleset = `
table inet ${FAULT_TABLE} {
  set attempts { type inet_service; flags dynamic; size 65536; }
  chain out {
    type filter hook output priority 0; policy accept;
    ip daddr ${node.hostAddress} tcp dport ${port} tcp flags & (syn | ack) == syn add @attempts { tcp sport } counter comment "syn"
    ip daddr ${node.hostAddress} tcp dport ${port} counter ${drop}
  }
  chain in {
    type filter hook input priority 0; policy accept;
    ip saddr ${node.hostAddress} tcp sport ${port} counter ${drop}
  }
}
`;
  await sh('ip', ['netns', 'exec', node.ns, 'nft', '-f', '-'], ruleset);
}

/**
 * Packets of the Redis flow seen and dropped since `dropRedisPackets` (both directions), SYNs sent, and connection
 * attempts (distinct source ports of those SYNs: a retransmitted SYN keeps its port, a new attempt gets another).
 */
export async function droppedCounts(node: NetNode): Promise<{ seen: number; dropped: number; syns: number; attempts: number }> {
  const listing = await sh('ip', ['netns', 'exec', node.ns, 'nft', 'list', 'table', 'inet', FAULT_TABLE]);
  const elements = /elements = \{([^}]*)\}/.exec(listing)?.[1] ?? '';
  const counts = { seen: 0, dropped: 0, syns: 0, attempts: elements.split(',').filter((e) => e.trim()).length };
  for (const line of listing.split('\n')) {
    const counters = [...line.matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
    if (/comment "syn"/.test(line)) counts.syns += counters[0] ?? 0;
    else if (counters.length === 2) {
      counts.seen += counters[0];
      counts.dropped += counters[1];
    }
  }
  return counts;
}

/** Removes the drops (the partition heals, the loss ends). */
export async function healRedisPackets(node: NetNode): Promise<void> {
  await sh('ip', ['netns', 'exec', node.ns, 'nft', 'delete', 'table', 'inet', FAULT_TABLE]);
}

/** Adds `ms` of delay to every packet the instance sends (tc netem); throws tc's own error if the kernel refuses. */
export async function addDelay(node: NetNode, ms: number): Promise<void> {
  await sh('ip', ['netns', 'exec', node.ns, 'tc', 'qdisc', 'add', 'dev', node.nsIf, 'root', 'netem', 'delay', `${ms}ms`]);
}

export async function removeDelay(node: NetNode): Promise<void> {
  await sh('ip', ['netns', 'exec', node.ns, 'tc', 'qdisc', 'del', 'dev', node.nsIf, 'root']);
}
