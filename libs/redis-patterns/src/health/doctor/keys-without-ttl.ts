import { Cluster, type Redis } from 'ioredis';
import { KeyBuilder } from '../../core/keys/key-builder';
import type { DoctorCheck } from './doctor.types';

const SHOWN = 10;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The documented exceptions to invariant 1: a lock's fencing counter (it must outlive every holder), streams
 * (bounded by MAXLEN instead, as write-behind's dead-letter streams are), and write-behind's partition streams and
 * pending change records (they hold acknowledged writes until their writer has them: an expiry would lose them).
 */
export function isDocumentedException(key: string, keyPrefix: string): boolean {
  const head = keyPrefix ? `${escapeRegExp(keyPrefix)}:` : '';
  return new RegExp(`^${head}(lock:\\{.*\\}:fence$|stream:|write-behind:\\{.*\\}$|write-behind-dlq:|cache:\\{.*\\}:wb$)`).test(key);
}

/**
 * SCAN (never KEYS) over `<keyPrefix>:*` on every master, up to `sampleLimit` keys, and PTTL each. Finding no key at
 * all is a warning, not a pass: nothing was checked, and the usual cause is a prefix other than the application's.
 * `prefixHint` ends the line: how to give the right prefix (a CLI flag, an option), or why there is none to give.
 */
export async function checkKeysWithoutTtl(
  client: Redis | Cluster,
  keyPrefix: string,
  sampleLimit: number,
  prefixHint = "if the application's keyPrefix is another, pass it as keyPrefix",
): Promise<DoctorCheck> {
  const match = new KeyBuilder(keyPrefix).pattern();
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  let scanned = 0;
  let exceptions = 0;
  let complete = true;
  const offenders: string[] = [];
  for (const [index, node] of nodes.entries()) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      const batch = keys.slice(0, sampleLimit - scanned);
      const ttls = await Promise.all(batch.map((key) => node.pttl(key)));
      batch.forEach((key, i) => {
        if (ttls[i] !== -1) return;
        if (isDocumentedException(key, keyPrefix)) exceptions++;
        else offenders.push(key);
      });
      scanned += batch.length;
      if (scanned >= sampleLimit && (cursor !== '0' || batch.length < keys.length)) complete = false;
    } while (cursor !== '0' && scanned < sampleLimit);
    if (scanned >= sampleLimit) {
      if (index < nodes.length - 1) complete = false;
      break;
    }
  }
  if (scanned === 0) {
    return {
      name: 'keys-without-ttl',
      status: 'warn',
      reason: `no keys found under ${match}, so nothing was checked: ${prefixHint}`,
    };
  }
  const scope = `${scanned} key${scanned === 1 ? '' : 's'} matching ${match}${complete ? '' : ` (sample limit ${sampleLimit} reached)`}`;
  const documented = `${exceptions} documented exception${exceptions === 1 ? '' : 's'} (fencing counters, streams)`;
  if (offenders.length > 0) {
    const shown = offenders.slice(0, SHOWN).join(', ') + (offenders.length > SHOWN ? ', …' : '');
    return {
      name: 'keys-without-ttl',
      status: 'fail',
      reason: `${offenders.length} of ${scope} have no TTL and never leave: ${shown}; ${documented}`,
    };
  }
  return { name: 'keys-without-ttl', status: 'pass', reason: `${scope}, all with a TTL; ${documented}` };
}
