import type { DoctorWorkload } from './doctor.types';

/** The key placeholder of a dry-run template: replaced by a key under the application's prefix. */
const K = '\u0000key';

/**
 * The ACL grants of docs/security.md ("Least privilege: the ACL each pattern needs"), one record per documented
 * block, each grant (`+get`, `+client|setname`, `+xinfo` …) with a call of it that `ACL DRYRUN` can judge: the
 * command, a subcommand where the grant is a container, and placeholder arguments (`K` is a key under the prefix).
 * A spec keeps these in step with the page.
 */
export const ACL_NEEDS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  core: {
    ping: ['ping'],
    info: ['info'],
    time: ['time'],
    eval: ['eval', 'return 1', '1', K],
    evalsha: ['evalsha', '0'.repeat(40), '1', K],
    select: ['select', '0'],
    'client|setname': ['client', 'setname', 'doctor'],
  },
  cluster: {
    'cluster|slots': ['cluster', 'slots'],
    'cluster|shards': ['cluster', 'shards'],
    asking: ['asking'],
    readonly: ['readonly'],
  },
  cache: {
    get: ['get', K],
    mget: ['mget', K],
    set: ['set', K, 'v'],
    del: ['del', K],
    exists: ['exists', K],
    hget: ['hget', K, 'f'],
    hset: ['hset', K, 'f', 'v'],
    incr: ['incr', K],
    pexpire: ['pexpire', K, '1000'],
    pttl: ['pttl', K],
    zadd: ['zadd', K, '1', 'm'],
    zcount: ['zcount', K, '0', '1'],
    zrange: ['zrange', K, '0', '-1'],
    zremrangebyrank: ['zremrangebyrank', K, '0', '1'],
    scan: ['scan', '0'],
  },
  rateLimit: {
    get: ['get', K],
    set: ['set', K, 'v'],
    del: ['del', K],
    incrby: ['incrby', K, '1'],
    decrby: ['decrby', K, '1'],
    pexpire: ['pexpire', K, '1000'],
    pttl: ['pttl', K],
    zadd: ['zadd', K, '1', 'm'],
    zcard: ['zcard', K],
    zpopmax: ['zpopmax', K],
    zrange: ['zrange', K, '0', '-1'],
    zrangebyscore: ['zrangebyscore', K, '0', '1'],
    zremrangebyscore: ['zremrangebyscore', K, '0', '1'],
  },
  lock: {
    get: ['get', K],
    set: ['set', K, 'v'],
    del: ['del', K],
    pexpire: ['pexpire', K, '1000'],
    pttl: ['pttl', K],
    zadd: ['zadd', K, '1', 'm'],
    zcard: ['zcard', K],
    zcount: ['zcount', K, '0', '1'],
    zrange: ['zrange', K, '0', '-1'],
    zrem: ['zrem', K, 'm'],
    zremrangebyscore: ['zremrangebyscore', K, '0', '1'],
    zscore: ['zscore', K, 'm'],
    wait: ['wait', '0', '0'],
  },
  streams: {
    xadd: ['xadd', K, '*', 'f', 'v'],
    xreadgroup: ['xreadgroup', 'GROUP', 'g', 'c', 'STREAMS', K, '>'],
    xack: ['xack', K, 'g', '0-1'],
    xautoclaim: ['xautoclaim', K, 'g', 'c', '0', '0-0'],
    xgroup: ['xgroup', 'create', K, 'g', '$'],
    xdel: ['xdel', K, '0-1'],
    xpending: ['xpending', K, 'g'],
    xrange: ['xrange', K, '-', '+'],
    xinfo: ['xinfo', 'stream', K],
  },
  structures: {
    get: ['get', K],
    set: ['set', K, 'v'],
    del: ['del', K],
    exists: ['exists', K],
    hdel: ['hdel', K, 'f'],
    hgetall: ['hgetall', K],
    hmget: ['hmget', K, 'f'],
    hset: ['hset', K, 'f', 'v'],
    llen: ['llen', K],
    lpush: ['lpush', K, 'v'],
    lrange: ['lrange', K, '0', '-1'],
    ltrim: ['ltrim', K, '0', '1'],
    pexpire: ['pexpire', K, '1000'],
    pfadd: ['pfadd', K, 'e'],
    pfcount: ['pfcount', K],
    pfmerge: ['pfmerge', K, K],
    zadd: ['zadd', K, '1', 'm'],
    zcard: ['zcard', K],
    zincrby: ['zincrby', K, '1', 'm'],
    zrem: ['zrem', K, 'm'],
    zremrangebyrank: ['zremrangebyrank', K, '0', '1'],
    zrevrange: ['zrevrange', K, '0', '1'],
    zrevrank: ['zrevrank', K, 'm'],
    zscore: ['zscore', K, 'm'],
    zunionstore: ['zunionstore', K, '1', K],
  },
};

/** The documented blocks each workload needs besides `core` (sessions are one of the data structures). */
const BLOCKS: Readonly<Record<DoctorWorkload, readonly string[]>> = {
  cache: ['cache'],
  'rate-limit': ['rateLimit'],
  locks: ['lock'],
  sessions: ['structures'],
  streams: ['streams'],
  structures: ['structures'],
};

/** One command a workload needs, ready for `ACL DRYRUN <user>`: its grant as docs/security.md spells it, and a call. */
export interface AclNeed {
  /** The grant, e.g. `hset` or `client|setname`. */
  grant: string;
  /** The command and its arguments, with keys under the prefix. */
  call: string[];
}

/** The commands the workloads need (core always, the cluster grants on a cluster), each once, keys under `key`. */
export function aclNeeds(workloads: readonly DoctorWorkload[], cluster: boolean, key: string): AclNeed[] {
  const blocks = ['core', ...(cluster ? ['cluster'] : []), ...new Set(workloads.flatMap((w) => BLOCKS[w]))];
  const needs = new Map<string, string[]>();
  for (const block of blocks) {
    for (const [grant, call] of Object.entries(ACL_NEEDS[block])) {
      if (!needs.has(grant))
        needs.set(
          grant,
          call.map((arg) => (arg === K ? key : arg)),
        );
    }
  }
  return [...needs].map(([grant, call]) => ({ grant, call }));
}
