/** The "Method" section of the report: how the numbers are produced and how to read them. */
export const METHOD = [
  '- Every contender runs in this one process against one private `redis-server` (loopback, no persistence) that the',
  "  benchmark starts on a free port, so `INFO` deltas contain only the contenders' own traffic.",
  '- Contenders of a group run **interleaved in rounds**: every round runs each contender once for the same duration,',
  '  in an order rotated by one each round, after one warm-up pass of every contender. Ratios are computed inside',
  '  each round and then summarised as the median with the min–max range over rounds; single timings are never quoted.',
  "- Library level: a closed loop of N concurrent callers (N in each group's header). ops/s = completed operations /",
  '  wall time; p50/p99 = per-call latency under that load; client CPU = `process.cpuUsage()` delta / ops (the',
  '  runner, the library and the client together); Redis CPU = `used_cpu_user + used_cpu_sys` delta / ops;',
  '  Redis cmds/op = `INFO commandstats` calls delta / ops (commands run inside Lua scripts count too); socket',
  "  reads/op = `total_reads_processed` delta / ops (below 1 when auto-pipelining batches several callers' commands).",
  '- "At concurrency 1": the same operation run one at a time, so socket reads/op are the round trips one',
  '  operation needs, with the commands it sends (inner script commands included).',
  '- HTTP level: each Nest app (Express) runs in its own Node process; autocannon runs in the benchmark process with',
  "  a fixed number of connections. Client CPU there is the **app process's** CPU (from `/proc/<pid>/stat`) per request.",
  '- Peers are configured as their documentation shows, with a plain ioredis client (no auto-pipelining) unless',
  "  the row says otherwise; ours uses the module's defaults (fail-fast; no auto-pipelining on a single node, batched scripts).",
  '- The machine is shared and noisy: read the ratios (both sides feel the same noise in a round), not the absolute',
  '  numbers. A quick run (`--quick`) is a smoke test and its numbers mean little.',
].join('\n');

/** Facts about the contenders that a reader needs to interpret the tables (not measurements). */
export const CONTENDER_NOTES = [
  "Cache: every caller reads its own key. cache-manager's `wrap` coalesces concurrent calls for the same key into one read, so a single hot key would measure that coalescing rather than a hit.",
  'Cache: cache-manager + Keyv store an envelope (`{"value":…,"expires":…}`) and go through @keyv/redis, which uses node-redis (@redis/client 5) underneath.',
  'Rate limit: @nest-lab/throttler-storage-redis sends its script with `EVAL` (the whole Lua text) on every call, not `EVALSHA`.',
  'Rate limit, three policies: the throttler contender makes the three `increment()` calls ThrottlerGuard makes, one after another, for three named throttlers; the HTTP group has the real guard.',
  'Locks: redlock is used with one client (no quorum) and `retryCount: 0`; ours includes a fencing token on every acquire (one more command inside the same script).',
  'Streams: a run drains a stream that was filled before the measurement; the hand-written loop does XREADGROUP COUNT 100 then one XACK per batch on one connection.',
  'To see where the time goes for one contender: `node --cpu-prof --cpu-prof-dir=/tmp/prof -r ./scripts/register-ts.js bench/run.ts --only lock --contenders ours --rounds 6 --out /tmp/p`, then `node -r ./scripts/register-ts.js bench/tools/top-frames.ts /tmp/prof/*.cpuprofile`.',
];
