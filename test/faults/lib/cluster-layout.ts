import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { now } from './measure';

const run = promisify(execFile);

export const SLOTS = 16384;

// CRC16-XMODEM (polynomial 0x1021), the hash of the cluster spec: computing slots locally lets a scenario choose key
// names by the slot they land in without a CLUSTER KEYSLOT round trip per candidate.
const CRC_TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

/** The cluster slot of a key: CRC16 of its hash tag (the first non-empty `{…}`) or of the whole key, mod 16384. */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key);
  let start = 0;
  let end = bytes.length;
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) {
      start = open + 1;
      end = close;
    }
  }
  let crc = 0;
  for (let i = start; i < end; i++) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ bytes[i]) & 0xff];
  return crc % SLOTS;
}

export interface ClusterNode {
  readonly id: string;
  readonly port: number;
  readonly master: boolean;
  /** The master's id for a replica. */
  readonly masterId?: string;
  /** Slots the node owns (stable ones; `[slot->-id]` migration markers are ignored). */
  readonly slots: number[];
}

/** One node's view of the cluster (CLUSTER NODES), with the owner of every slot. */
export interface ClusterLayout {
  readonly nodes: ClusterNode[];
  readonly masters: ClusterNode[];
  /** Node id owning each slot ('' for none). */
  readonly owner: string[];
  byId(id: string): ClusterNode;
  replicaOf(masterId: string): ClusterNode;
}

export async function readLayout(node: Redis): Promise<ClusterLayout> {
  const text = String(await node.call('CLUSTER', 'NODES'));
  const nodes: ClusterNode[] = [];
  const owner: string[] = new Array<string>(SLOTS).fill('');
  for (const line of text.split('\n')) {
    const fields = line.trim().split(' ');
    if (fields.length < 8) continue;
    const [id, address, flags, masterId] = fields;
    const slots: number[] = [];
    for (const range of fields.slice(8)) {
      if (range.startsWith('[')) continue;
      const [from, to = from] = range.split('-').map(Number);
      for (let slot = from; slot <= to; slot++) {
        slots.push(slot);
        owner[slot] = id;
      }
    }
    const master = flags.split(',').includes('master');
    nodes.push({ id, port: Number(address.split('@')[0].split(':')[1]), master, masterId: master ? undefined : masterId, slots });
  }
  const byId = (id: string): ClusterNode => {
    const found = nodes.find((n) => n.id === id);
    if (!found) throw new Error(`node ${id} is not in the layout`);
    return found;
  };
  const replicaOf = (masterId: string): ClusterNode => {
    const found = nodes.find((n) => n.masterId === masterId);
    if (!found) throw new Error(`master ${masterId} has no replica in the layout`);
    return found;
  };
  return { nodes, masters: nodes.filter((n) => n.master && n.slots.length > 0), owner, byId, replicaOf };
}

/**
 * Whether `redis-cli --cluster check` finds the cluster consistent: every node agrees on the slot map, no slot is
 * open, all 16384 covered. reshard refuses to start otherwise, and agreement takes a gossip round after any change.
 */
export async function clusterCheckPasses(port: number): Promise<boolean> {
  try {
    await run('redis-cli', ['--cluster', 'check', `127.0.0.1:${port}`], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Names `<stem><n>` (n = 0, 1, …) whose slot passes `accept`, at most `perSlot` per slot. */
export function namesBySlot(stem: string, count: number, accept: (slot: number) => boolean, perSlot = Number.POSITIVE_INFINITY): string[] {
  const names: string[] = [];
  const taken = new Map<number, number>();
  for (let n = 0; names.length < count; n++) {
    if (n > 5_000_000) throw new Error(`found only ${names.length} of ${count} names ${stem}… in the accepted slots`);
    const name = `${stem}${n}`;
    const slot = keySlot(name);
    if (!accept(slot) || (taken.get(slot) ?? 0) >= perSlot) continue;
    taken.set(slot, (taken.get(slot) ?? 0) + 1);
    names.push(name);
  }
  return names;
}

/**
 * Moves one slot the way `redis-cli --cluster` does (clusterManagerMoveSlot): IMPORTING on the target, MIGRATING on
 * the source, GETKEYSINSLOT + MIGRATE in batches of `batch` keys with nothing in between, then SETSLOT NODE on the
 * target, the source and every other master. Returns how long the slot was open (from IMPORTING to the source's
 * SETSLOT NODE) and how many keys moved.
 */
export async function moveSlot(
  slot: number,
  from: { client: Redis; id: string },
  to: { client: Redis; id: string; port: number },
  others: Redis[],
  batch = 10,
): Promise<{ openMs: number; keys: number }> {
  const opened = now();
  await to.client.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.id);
  await from.client.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.id);
  let keys = 0;
  for (;;) {
    const batchKeys = (await from.client.call('CLUSTER', 'GETKEYSINSLOT', slot, batch)) as string[];
    if (batchKeys.length === 0) break;
    await from.client.call('MIGRATE', '127.0.0.1', to.port, '', 0, 60_000, 'KEYS', ...batchKeys);
    keys += batchKeys.length;
  }
  await to.client.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id);
  await from.client.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id);
  const openMs = now() - opened;
  for (const other of others) await other.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id);
  return { openMs, keys };
}
