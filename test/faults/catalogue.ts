/**
 * Every scenario and goal of ../shared/RELIABILITY.md (§4 and §6), with its bound in the catalogue's words and where
 * it is answered: by lines of this suite (their `ref` names the id), by an integration spec run by `npm test`, or
 * not at all here, with the reason. The report renders this table; a whole-suite run fails when an entry said to be
 * answered by the suite has no line in it.
 */
export type Coverage =
  | { readonly by: 'suite' }
  | { readonly by: 'spec'; readonly where: string }
  | { readonly by: 'suite+spec'; readonly where: string }
  | { readonly by: 'none'; readonly why: string }
  /** A promise the library does not keep yet: measured by the suite as figures, shown as a gap, never as passed. */
  | { readonly by: 'gap'; readonly why: string };

export interface CatalogueEntry {
  readonly id: string;
  readonly title: string;
  readonly bound: string;
  readonly coverage: Coverage;
}

const suite: Coverage = { by: 'suite' };
const spec = (where: string): Coverage => ({ by: 'spec', where });
const both = (where: string): Coverage => ({ by: 'suite+spec', where });
const none = (why: string): Coverage => ({ by: 'none', why });
const gap = (why: string): Coverage => ({ by: 'gap', why });

export const CATALOGUE: readonly CatalogueEntry[] = [
  // §6 goals
  {
    id: 'G1',
    title: 'cache never turns an outage into app errors',
    bound: '5 s outage at 200 req/s: answered M of M, 5xx 0, p99 ≤ commandTimeout + source latency',
    coverage: suite,
  },
  {
    id: 'G2',
    title: 'no unbounded memory during outages',
    bound: '30 s outage at 1000 cmd/s: heap growth ≤ 20 MB, queued commands 0',
    coverage: suite,
  },
  { id: 'G3', title: 'locks are exclusive', bound: '5000 acquisitions, 32 contenders: overlaps 0, counter exact', coverage: suite },
  {
    id: 'G4',
    title: 'stale holders are fenced',
    bound: 'stale writes accepted 0 with fencing; abort signal ≤ 1 renewal interval after resume',
    coverage: suite,
  },
  {
    id: 'G5',
    title: 'no expired lock is ever returned',
    bound: '0 locks with expiration ≤ now across 10k acquisitions with retries and CLIENT PAUSE',
    coverage: suite,
  },
  { id: 'G6', title: 'failover double-grant measured, WAIT closes it', bound: 'with WAIT: double grants 0 in 50 runs', coverage: suite },
  {
    id: 'G7',
    title: 'rate limits are exact',
    bound: '1000 concurrent requests, limit 100: admitted exactly 100; with ±10 s app-clock skew: still 100',
    coverage: suite,
  },
  {
    id: 'G8',
    title: 'limiter failure mode explicit and bounded',
    bound: 'per policy: admitted during 5 s outage reported; decision p99 ≤ commandTimeout',
    coverage: suite,
  },
  {
    id: 'G9',
    title: 'XFF spoofing does not multiply budget',
    bound: '200 spoofed requests: over-admission 0, keys created 1',
    coverage: suite,
  },
  {
    id: 'G10',
    title: 'limiter keys cannot grow memory without bound',
    bound: '200k identities: PTTL −1 keys 0; memory returns to baseline after window',
    coverage: suite,
  },
  {
    id: 'G11',
    title: 'stampede suppressed',
    bound: 'loader calls 1 per hot key per process (1 total with distributed lock); XFetch ≈ 1 recompute/window',
    coverage: spec('integration/cache/cache-service, cache-decorators, cache-instances'),
  },
  {
    id: 'G12',
    title: 'no prototype pollution through any read path',
    bound: '({}).polluted === undefined after the matrix',
    coverage: suite,
  },
  {
    id: 'G13',
    title: 'streams at-least-once, bounded duplicates, DLQ',
    bound: 'lost 0; DLQ after exactly maxDeliveries incl. crash-in-handler',
    coverage: suite,
  },
  {
    id: 'G14',
    title: "sessions don't lose updates or resurrect",
    bound: '50/50 fields; resurrections 0',
    coverage: spec('integration/structures/sessions'),
  },
  {
    id: 'G15',
    title: 'cluster transparency',
    bound: 'resharding + SCRIPT FLUSH under load: caller-visible errors 0; CROSSSLOT 0',
    coverage: suite,
  },
  { id: 'G16', title: 'secrets never appear in output', bound: 'grep hits 0 (errors, logs, DEBUG=ioredis:*)', coverage: suite },
  {
    id: 'G17',
    title: 'graceful shutdown',
    bound: 'in-flight lost 0; locks left 0; shutdown ≤ deadline',
    coverage: both('e2e/sample-api-shutdown'),
  },
  // §4.1 connections
  {
    id: 'CONN-1',
    title: 'Redis crashes for 5 s',
    bound: 'fail fast, reconnect ≤ 2 s after restart, features apply their policy',
    coverage: suite,
  },
  {
    id: 'CONN-2',
    title: 'Redis black-holed (SIGSTOP) for 5 s',
    bound: 'p99 ≤ commandTimeout + 10 ms, then ≈ source latency',
    coverage: both('integration/connections/failover-and-freeze'),
  },
  { id: 'CONN-3', title: 'offline queue growth', bound: 'request-path clients queue nothing; heap bounded', coverage: suite },
  {
    id: 'CONN-4',
    title: 'non-idempotent command replayed after reconnect',
    bound: '0 double-applied writes; unknown outcomes counted',
    coverage: suite,
  },
  {
    id: 'CONN-5',
    title: 'Sentinel failover',
    bound: 'writes resume ≤ 3 s on T2 settings; acknowledged-but-missing reported',
    coverage: suite,
  },
  {
    id: 'CONN-6',
    title: 'cluster redirections and slot rules',
    bound: 'errors 0 for migration, reshard, SCRIPT FLUSH; bounded for CLUSTER FAILOVER; CROSSSLOT 0',
    coverage: both('integration/core/redis-executor, coalescing'),
  },
  {
    id: 'CONN-7',
    title: 'memory full (OOM)',
    bound: 'cache → source, limiter → policy, lock → fail closed, XADD → error; no crash',
    coverage: suite,
  },
  {
    id: 'CONN-8',
    title: 'AUTH / ACL / TLS',
    bound: 'secret occurrences 0; works under a least-privilege ACL user',
    coverage: both('integration/connections/connections'),
  },
  {
    id: 'CONN-9',
    title: 'graceful shutdown',
    bound: 'in-flight lost 0; locks left 0; shutdown ≤ deadline',
    coverage: both('e2e/sample-api-shutdown'),
  },
  // §4.2 locks
  { id: 'LOCK-1', title: 'mutual exclusion under contention', bound: 'overlaps 0; counters exact', coverage: suite },
  {
    id: 'LOCK-2',
    title: 'only the owner can release / extend',
    bound: "B's key intact after A's release; A gets LockLostError",
    coverage: spec('integration/lock/lock-service, using'),
  },
  {
    id: 'LOCK-3',
    title: 'holder paused past TTL — fencing',
    bound: 'stale fenced writes 0; abort ≤ one extension interval',
    coverage: suite,
  },
  {
    id: 'LOCK-4',
    title: 'auto-extension and its failure modes',
    bound: 'PTTL > 0 during fn; timers after using() 0; loss detected',
    coverage: spec('integration/lock/using, lock-faults'),
  },
  { id: 'LOCK-5', title: 'never hand out an expired lock', bound: 'locks returned with expiration ≤ now: 0', coverage: suite },
  {
    id: 'LOCK-6',
    title: 'failover loses the lock key',
    bound: 'double grants with WAIT 0 (50 runs); without WAIT reported',
    coverage: suite,
  },
  {
    id: 'LOCK-7',
    title: 'Redlock quorum on 5 masters',
    bound: 'succeeds with 2 down, fails with 3; latency bounded by per-node timeout',
    coverage: spec('integration/lock/redlock'),
  },
  {
    id: 'LOCK-8',
    title: 'clock behaviour',
    bound: 'validity vs PTTL ≤ 5 ms under ±1 h wall jumps',
    coverage: spec('integration/lock/lock-faults'),
  },
  {
    id: 'LOCK-9',
    title: 'Redis unavailable during acquire/release',
    bound: 'fail within budget; shutdown ≤ deadline; keys gone after TTL',
    coverage: both('integration/lock/lock-faults'),
  },
  // §4.3 rate limiters
  {
    id: 'RL-1',
    title: 'exact counts under concurrency',
    bound: 'admitted exactly the limit per window; keys without TTL 0',
    coverage: both('integration/rate-limit/algorithms'),
  },
  {
    id: 'RL-2',
    title: 'clock skew between app instances',
    bound: 'admitted = limit with ±10 s skew; normal ≤ one window after a future timestamp',
    coverage: suite,
  },
  {
    id: 'RL-3',
    title: 'Redis down: fail-open / fail-closed / insurance',
    bound: 'per policy: admitted during outage; decision p99 ≤ commandTimeout; 5xx',
    coverage: both('integration/rate-limit/outage'),
  },
  {
    id: 'RL-4',
    title: 'X-Forwarded-For spoofing',
    bound: 'over-admission 0; keys created 1',
    coverage: both('integration/rate-limit/http'),
  },
  {
    id: 'RL-5',
    title: 'key cardinality / memory',
    bound: 'PTTL −1 keys 0; memory back to baseline after window',
    coverage: both('integration/rate-limit/cardinality'),
  },
  {
    id: 'RL-6',
    title: 'script cache loss / failover',
    bound: 'decision errors 0 for SCRIPT FLUSH; over-admission across failover bounded',
    coverage: suite,
  },
  // §4.4 caches
  {
    id: 'CACHE-1',
    title: 'stampede on a cold hot key',
    bound: 'loader 1 per process (1 total with lock)',
    coverage: spec('integration/cache/cache-instances, cache-decorators'),
  },
  {
    id: 'CACHE-2',
    title: 'recompute-lock holder dies',
    bound: 'waiters ≤ lockTtl + loader time',
    coverage: spec('integration/cache/cache-instances'),
  },
  {
    id: 'CACHE-3',
    title: 'probabilistic early expiration',
    bound: 'mean ≈ 1 recompute per TTL window; hard misses 0',
    coverage: spec('integration/cache/cache-service'),
  },
  {
    id: 'CACHE-4',
    title: 'Redis down → source of truth',
    bound: 'M of M answered; 5xx 0; p99 ≤ commandTimeout + source',
    coverage: both('integration/cache/cache-fail-open'),
  },
  {
    id: 'CACHE-5',
    title: 'tag invalidation correctness',
    bound: 'no stale read after invalidation; O(1), cluster-safe',
    coverage: spec('integration/cache/cache-service'),
  },
  { id: 'CACHE-6', title: 'cache-aside race', bound: 'no stale set after invalidate', coverage: spec('integration/cache/cache-service') },
  { id: 'CACHE-7', title: 'key injection / poisoning', bound: 'escaped, bounded keys; no collision', coverage: suite },
  { id: 'CACHE-8', title: 'prototype pollution', bound: '({}).polluted undefined through every read path', coverage: suite },
  { id: 'CACHE-9', title: 'big values', bound: 'size cap with a typed error; nothing half-written', coverage: suite },
  {
    id: 'CACHE-10',
    title: 'negative caching / penetration',
    bound: 'misses of absent entities cached briefly',
    coverage: spec('integration/cache/cache-service'),
  },
  // §4.5 pub/sub
  {
    id: 'PS-1',
    title: 'at-most-once stated, gaps observable',
    bound: 'channels and patterns resubscribed after reconnect',
    coverage: spec('integration/messaging/pubsub'),
  },
  {
    id: 'PS-2',
    title: 'slow subscriber and output-buffer limit',
    bound: 'reader never blocked; reconnect + resubscribe; no silent dead subscriber',
    coverage: suite,
  },
  {
    id: 'PS-3',
    title: 'cluster pub/sub',
    bound: 'sharded pub/sub survives node failover',
    coverage: none(
      'the library publishes with classic PUBLISH on a cluster (broadcast); sharded pub/sub is not offered yet, so there is nothing to fail over',
    ),
  },
  // §4.6 streams
  {
    id: 'STR-1',
    title: 'at-least-once across consumer crash',
    bound: 'lost 0; duplicates ≤ in-flight × crashes; PEL 0 at the end',
    coverage: suite,
  },
  {
    id: 'STR-2',
    title: 'own PEL recovery on restart',
    bound: 'pending entries reprocessed before minIdle',
    coverage: spec('integration/messaging/messaging-restart'),
  },
  { id: 'STR-3', title: 'poison messages → dead letter', bound: 'DLQ after exactly maxDeliveries (throw, crash, hang)', coverage: suite },
  {
    id: 'STR-4',
    title: 'deleted / trimmed entries still pending',
    bound: 'recovery terminates; PEL 0; errors 0',
    coverage: spec('integration/messaging/streams'),
  },
  {
    id: 'STR-5',
    title: 'alive-but-slow consumer vs reclaimer',
    bound: 'duplicate executions 0 with heartbeat; double side effects 0 with the idempotency helper',
    coverage: gap(
      'no heartbeat for in-flight entries and no idempotency helper yet: STREAMS-SLOW measures the duplicates (figures); until then claimIdleMs must exceed the slowest handler and handlers must be idempotent (docs/messaging.md)',
    ),
  },
  {
    id: 'STR-6',
    title: 'failover loses acknowledged XADDs',
    bound: 'acknowledged-but-missing > 0 without WAIT (documented)',
    coverage: none(
      'the same asynchronous-replication loss is measured for plain writes by SENTINEL (acknowledged-then-lost); the library offers no WAIT for XADD (docs/messaging.md, Limitations)',
    ),
  },
  // §4.7 sessions, §4.8 leaderboards
  {
    id: 'SESS-1',
    title: 'concurrent requests keep every update',
    bound: '50 of 50 fields',
    coverage: spec('integration/structures/sessions'),
  },
  { id: 'SESS-2', title: 'logout is not resurrected', bound: 'resurrections 0', coverage: spec('integration/structures/sessions') },
  {
    id: 'SESS-3',
    title: 'idle and absolute expiry',
    bound: 'alive after absolute limit: no',
    coverage: spec('integration/structures/sessions'),
  },
  {
    id: 'SESS-4',
    title: 'Redis down on authenticated reads',
    bound: 'served as authenticated during outage 0',
    coverage: spec('integration/structures/sessions'),
  },
  { id: 'LB-1', title: 'exact concurrent increments', bound: 'sum − expected = 0', coverage: spec('integration/structures/leaderboard') },
  {
    id: 'LB-2',
    title: 'score precision',
    bound: 'precision errors surfaced as errors',
    coverage: spec('integration/structures/leaderboard'),
  },
  {
    id: 'LB-3',
    title: 'resets and pagination',
    bound: 'period keys with TTL; no DEL of a huge key on the request path',
    coverage: spec('integration/structures/leaderboard'),
  },
];

/** The catalogue ids a check's `ref` names (`'G1 CONN-2'` → G1, CONN-2). */
export const refIds = (ref: string): string[] => ref.split(/\s+/).filter((id) => /^(G\d+|[A-Z]+-\d+)$/.test(id));
