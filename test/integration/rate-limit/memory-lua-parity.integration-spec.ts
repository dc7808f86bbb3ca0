import { Redis } from 'ioredis';
import { MemoryKeyspace } from '../../../libs/redis-patterns/src/core/memory/memory-keyspace';
import { batchFormOf, batchOf } from '../../../libs/redis-patterns/src/core/scripts/batch-form';
import type { RedisScript } from '../../../libs/redis-patterns/src/core/scripts/redis-script';
import type { RedisExecutor } from '../../../libs/redis-patterns/src/core/scripts/redis-executor';
import { checkCost, type CompiledPolicies, compilePolicies } from '../../../libs/redis-patterns/src/rate-limit/compile-policies';
import { MemoryRateLimitStore } from '../../../libs/redis-patterns/src/rate-limit/memory/memory-rate-limit.store';
import { BoundedEntries, MemoryRateLimiter } from '../../../libs/redis-patterns/src/rate-limit/memory/memory-rate-limiter';
import type { RateLimitPolicy } from '../../../libs/redis-patterns/src/rate-limit/rate-limit-policy';
import { RedisRateLimitStore } from '../../../libs/redis-patterns/src/rate-limit/rate-limit.store';
import { toDecision } from '../../../libs/redis-patterns/src/rate-limit/to-decision';
import { connectionFor, uniquePrefix } from '../../support/redis-env';

// The in-memory limiter (memory mode, outage fallback) must decide exactly as the Lua scripts on Redis. Both run
// the same seeded random sequences of consume / refund / penalize calls with the same clock readings, and every
// reply is compared: allowed, remaining, resetMs, retryAfterMs and the reported policy, per policy.
//
// Time: the scripts read Redis TIME, and fixed windows and blocks are key TTLs, kept by the server's clock. To give
// both sides the same "now", the scripts run in a variant built from their own source in which every redis.call
// goes through a shim: TIME answers the sequence's virtual clock, and TTLs (PEXPIRE, SET PX, PTTL, lazy expiry on
// access) are kept against that clock with Redis's own rules (a key lives while now <= its expiry time; PTTL is
// the difference, never negative). Everything else is the production script, run by the production store.

const SEQUENCES = 200;
const OPERATIONS = 50;
const error = (field: string, expected: string, received: string) => new Error(`${field}: expected ${expected}, got ${received}`);

/** Test-only Lua prelude: the virtual clock and TTLs. ARGV[1] is the virtual now (ms), ARGV[2] the expiry hash. */
const CLOCK_SHIM = `
local parity_now = tonumber(ARGV[1])
local parity_expiry = ARGV[2]
local parity_real_ttl = 600000
local function parity_expire_lazily(key)
  local at = redis.call('HGET', parity_expiry, key)
  if at and parity_now > tonumber(at) then
    redis.call('DEL', key)
    redis.call('HDEL', parity_expiry, key)
  end
end
local function parity_ms(value)
  local ms = tonumber(value)
  if not ms or ms ~= math.floor(ms) then error('ERR value is not an integer or out of range') end
  return ms
end
local function parity_call(command, key, ...)
  local name = string.upper(command)
  if name == 'TIME' then
    return { string.format('%d', math.floor(parity_now / 1000)), string.format('%d', (parity_now % 1000) * 1000) }
  end
  parity_expire_lazily(key)
  local reply
  if name == 'PTTL' then
    if redis.call('EXISTS', key) == 0 then return -2 end
    local at = redis.call('HGET', parity_expiry, key)
    if not at then return -1 end
    return math.max(tonumber(at) - parity_now, 0)
  elseif name == 'PEXPIRE' then
    if redis.call('EXISTS', key) == 0 then return 0 end
    redis.call('HSET', parity_expiry, key, string.format('%d', parity_now + parity_ms(...)))
    reply = 1
  elseif name == 'SET' then
    local args = { ... }
    local px
    for i = #args - 1, 2, -1 do
      if string.upper(args[i]) == 'PX' then px = parity_ms(args[i + 1]); table.remove(args, i + 1); table.remove(args, i) end
    end
    reply = redis.call('SET', key, unpack(args))
    if px then redis.call('HSET', parity_expiry, key, string.format('%d', parity_now + px))
    else redis.call('HDEL', parity_expiry, key) end
  else
    reply = redis.call(command, key, ...)
  end
  if redis.call('EXISTS', key) == 0 then redis.call('HDEL', parity_expiry, key)
  else redis.call('PEXPIRE', key, parity_real_ttl) end
  return reply
end
`;

const DRIVER_ARGS = 'local all_keys, all_args = KEYS, ARGV';

/** The production script's batch form with its clock replaced by the shim's (two string substitutions, checked). */
function withVirtualClock(script: RedisScript<unknown>): string {
  const { lua } = batchFormOf(script);
  const calls = lua.split('redis.call(').length - 1;
  if (calls === 0 || !lua.includes(DRIVER_ARGS)) throw new Error(`${script.name}: the script's source changed shape`);
  const body = lua
    .replaceAll('redis.call(', 'parity_call(')
    .replace(DRIVER_ARGS, 'local all_keys, all_args = KEYS, {}\nfor i = 3, #ARGV do all_args[i - 2] = ARGV[i] end');
  return CLOCK_SHIM + body;
}

/**
 * Runs the store's scripts on real Redis at a virtual time: what RedisRateLimitStore calls (script, keys, ARGV) is
 * exactly what production sends; only the script text is the virtual-clock variant.
 */
class VirtualClockRedis {
  now = 0;
  private readonly shas = new Map<string, Promise<string>>();

  constructor(
    private readonly client: Redis,
    private readonly expiryKey: string,
  ) {}

  async run<T>(script: RedisScript<T>, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<T> {
    let sha = this.shas.get(script.name);
    if (!sha) this.shas.set(script.name, (sha = this.client.script('LOAD', withVirtualClock(script)) as Promise<string>));
    const batch = batchOf(script, [{ keys, args }]);
    const replies = (await this.client.evalsha(
      await sha,
      batch.keys.length,
      ...batch.keys,
      String(this.now),
      this.expiryKey,
      ...batch.args,
    )) as unknown[];
    if (replies[0] instanceof Error) throw replies[0];
    return replies[0] as T;
  }
}

/** A keyspace on the sequence's clock. */
class VirtualKeyspace extends MemoryKeyspace {
  clock = 0;
  override now(): number {
    return this.clock;
  }
}

/** mulberry32: small, fast, reproducible. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const int = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));
const pick = <T>(rng: Rng, values: readonly T[]): T => values[Math.floor(rng() * values.length)];

type Algorithm = RateLimitPolicy['algorithm'];
const ALGORITHMS: readonly Algorithm[] = ['fixed-window', 'sliding-log', 'sliding-window-counter', 'token-bucket', 'gcra'];

function randomPolicy(rng: Rng, algorithm: Algorithm, blocking: boolean): RateLimitPolicy {
  const blockDurationMs = blocking && rng() < 0.7 ? pick(rng, [1, int(rng, 2, 50), int(rng, 50, 3000)]) : undefined;
  const block = blockDurationMs === undefined ? {} : { blockDurationMs };
  switch (algorithm) {
    case 'token-bucket':
      return {
        algorithm,
        capacity: int(rng, 1, 6),
        refillPerSecond: pick(rng, [0.5, 1, 3, 7.5, 100, 1000 / 3, int(rng, 1, 50) / 7]),
        ...block,
      };
    case 'gcra':
      return {
        algorithm,
        limit: int(rng, 1, 6),
        periodMs: pick(rng, [int(rng, 1, 20), int(rng, 20, 500), int(rng, 500, 5000)]),
        ...(rng() < 0.5 ? { burst: int(rng, 1, 6) } : {}),
        ...block,
      };
    default:
      return { algorithm, limit: int(rng, 1, 6), windowMs: pick(rng, [int(rng, 1, 20), int(rng, 20, 500), int(rng, 500, 5000)]), ...block };
  }
}

/** How long a policy takes to come back to full: the scale of the sequence's random gaps. */
function spanOf(policy: RateLimitPolicy): number {
  if (policy.algorithm === 'token-bucket') return (policy.capacity / policy.refillPerSecond) * 1000;
  if (policy.algorithm === 'gcra') return policy.periodMs;
  return policy.windowMs;
}

type Operation = { kind: 'consume' | 'refund' | 'penalize'; units: number; gap: number };

interface Sequence {
  seed: number;
  policies: RateLimitPolicy[];
  compiled: CompiledPolicies;
  start: number;
  operations: Operation[];
}

function randomSequence(seed: number, algorithms: readonly Algorithm[] | 'mixed', blocking: boolean): Sequence {
  const rng = random(seed);
  for (;;) {
    const chosen = algorithms === 'mixed' ? Array.from({ length: int(rng, 2, 3) }, () => pick(rng, ALGORITHMS)) : algorithms;
    const policies = chosen.map((algorithm) => randomPolicy(rng, algorithm, blocking));
    let compiled: CompiledPolicies;
    try {
      compiled = compilePolicies(policies.length === 1 ? policies[0] : policies, 'policy', error);
    } catch {
      continue; // two identical policies drawn: draw again
    }
    const limit = Math.max(...compiled.policies.map((p) => p.limit));
    const span = Math.max(...policies.map(spanOf));
    const units = (): number => {
      const whole = rng() < 0.6 ? 1 : int(rng, 2, limit + 1);
      return compiled.fractionalCost && rng() < 0.4 ? whole - pick(rng, [0.25, 0.5, 0.75]) : whole;
    };
    const operations = Array.from({ length: OPERATIONS }, (): Operation => {
      const draw = rng();
      const gapDraw = rng();
      const gap =
        gapDraw < 0.3
          ? 0
          : gapDraw < 0.65
            ? int(rng, 0, Math.ceil(span / 4))
            : gapDraw < 0.9
              ? int(rng, 0, Math.ceil(span * 1.5))
              : int(rng, 0, Math.ceil(span * 3));
      if (draw < 0.08) return { kind: 'consume', units: 0, gap };
      if (draw < 0.75) return { kind: 'consume', units: units(), gap };
      return { kind: draw < 0.87 ? 'refund' : 'penalize', units: units(), gap };
    });
    // A realistic epoch: the float arithmetic (window indexes, token counts) sees numbers of the real magnitude.
    return { seed, policies, compiled, start: 1_700_000_000_000 + int(rng, 0, 1e9), operations };
  }
}

describe('rate limiting: the in-memory implementation decides as the Lua scripts', () => {
  const prefix = uniquePrefix('rl-parity');
  let client: Redis;

  beforeAll(() => {
    client = new Redis(connectionFor('standalone') as string, { maxRetriesPerRequest: 1 });
  });

  afterAll(async () => {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await client.del(...keys);
    } while (cursor !== '0');
    client.disconnect();
  });

  /** Runs one sequence on all three; resolves to a description of the first mismatch, or undefined. */
  async function runSequence(sequence: Sequence, group: string): Promise<string | undefined> {
    const { seed, compiled, operations } = sequence;
    const redis = new VirtualClockRedis(client, `${prefix}:{${group}}:expiry`);
    const lua = new RedisRateLimitStore(redis as unknown as RedisExecutor);
    const keyspace = new VirtualKeyspace();
    const memoryMode = new MemoryRateLimitStore(keyspace);
    const fallback = new MemoryRateLimiter(new BoundedEntries());
    const identity = `${prefix}:rl:{${group}-${seed}}`;
    const keys = compiled.keySuffixes.map((suffix) => identity + suffix);
    const stateKeys = keys.slice(0, compiled.policies.length);
    let now = sequence.start;
    for (const [index, op] of operations.entries()) {
      now += op.gap;
      redis.now = now;
      keyspace.clock = now;
      const units = checkCost(op.units, compiled, error);
      let replies: Array<[string, unknown]>;
      if (op.kind === 'consume') {
        const view = (reply: number[]) => {
          const { source: _source, ...decision } = toDecision(reply, compiled, 'redis');
          return decision;
        };
        replies = [
          ['lua', view(await lua.consume(keys, compiled, units))],
          ['memory mode', view(await memoryMode.consume(keys, compiled, units))],
          ['fallback', view(fallback.consume(keys, compiled, units, now))],
        ];
      } else {
        const delta = op.kind === 'refund' ? -units : units;
        replies = [
          ['lua', await lua.adjust(stateKeys, compiled, delta)],
          ['memory mode', await memoryMode.adjust(stateKeys, compiled, delta)],
          ['fallback', fallback.adjust(stateKeys, compiled, delta, now)],
        ];
      }
      const expected = JSON.stringify(replies[0][1]);
      const differing = replies.filter(([, reply]) => JSON.stringify(reply) !== expected);
      if (differing.length > 0) {
        const history = operations
          .slice(0, index + 1)
          .map((o, i) => `#${i} +${o.gap}ms ${o.kind}(${o.units})`)
          .join(', ');
        return [
          `seed ${seed}, operation #${index} (${op.kind} ${op.units} at t=${now - sequence.start}ms)`,
          `  policies: ${JSON.stringify(sequence.policies)}`,
          `  lua:      ${expected}`,
          ...differing.map(([name, reply]) => `  ${name.padEnd(9)} ${JSON.stringify(reply)}`),
          `  history:  ${history}`,
        ].join('\n');
      }
    }
    return undefined;
  }

  async function runAll(
    group: string,
    algorithms: readonly Algorithm[] | 'mixed',
    blocking: boolean,
    count = SEQUENCES,
  ): Promise<string[]> {
    const seeds = Array.from({ length: count }, (_, i) => 1 + i);
    const mismatches: string[] = [];
    // Sequences are independent (own keys): several in flight keep Redis busy while each stays in order.
    const parallel = 20;
    for (let i = 0; i < seeds.length; i += parallel) {
      const found = await Promise.all(
        seeds.slice(i, i + parallel).map((seed) => runSequence(randomSequence(seed, algorithms, blocking), group)),
      );
      mismatches.push(...found.filter((m): m is string => m !== undefined));
    }
    return mismatches;
  }

  const report = (mismatches: string[]) =>
    mismatches.length ? `${mismatches.length} sequences differ; the first:\n${mismatches.slice(0, 3).join('\n\n')}` : '';

  describe.each(ALGORITHMS)('%s', (algorithm) => {
    it.each([false, true])(`${SEQUENCES} sequences of ${OPERATIONS} calls (blockDurationMs: %s)`, async (blocking) => {
      const mismatches = await runAll(`${algorithm}-${blocking}`, [algorithm], blocking);
      expect(report(mismatches)).toBe('');
    });
  });

  it.each([false, true])(`2-3 mixed policies, all-or-nothing: ${SEQUENCES} sequences (blockDurationMs: %s)`, async (blocking) => {
    const mismatches = await runAll(`mixed-${blocking}`, 'mixed', blocking);
    expect(report(mismatches)).toBe('');
  });

  it.each([false, true])(
    `several fixed windows (their own script; the generic one with blocks): ${SEQUENCES} sequences (blockDurationMs: %s)`,
    async (blocking) => {
      const mismatches = await runAll(`mfw-${blocking}`, ['fixed-window', 'fixed-window'], blocking);
      expect(report(mismatches)).toBe('');
    },
  );
  // Two edges of fixed windows the random sequences found, spelled out on each script that decides fixed windows:
  // the specialised one, the several-windows one, and the generic one (a block duration selects it).
  describe.each<[string, RateLimitPolicy[]]>([
    ['one fixed window', [{ algorithm: 'fixed-window', limit: 1, windowMs: 100 }]],
    [
      'several fixed windows',
      [
        { algorithm: 'fixed-window', limit: 1, windowMs: 100 },
        { algorithm: 'fixed-window', limit: 50, windowMs: 60_000 },
      ],
    ],
    ['a fixed window with a block duration', [{ algorithm: 'fixed-window', limit: 1, windowMs: 100, blockDurationMs: 1 }]],
  ])('%s on Redis', (name, policies) => {
    const compiled = compilePolicies(policies.length === 1 ? policies[0] : policies, 'policy', error);
    const start = 1_700_000_000_000;
    let redis: VirtualClockRedis;
    let store: RedisRateLimitStore;
    let keys: string[];
    beforeEach(() => {
      redis = new VirtualClockRedis(client, `${prefix}:edges:expiry`);
      store = new RedisRateLimitStore(redis as unknown as RedisExecutor);
      keys = compiled.keySuffixes.map((suffix) => `${prefix}:rl:{edges-${name}-${Math.random()}}${suffix}`);
    });
    const at = (ms: number) => {
      redis.now = start + ms;
    };

    it('a denial after a refund to 0 keeps the window (its end, and its count)', async () => {
      at(0);
      expect((await store.consume(keys, compiled, 1))[0]).toBe(1);
      await store.adjust(keys.slice(0, policies.length), compiled, -1);
      at(10);
      // More than the limit: denied, and nothing consumed; the counter a refund left at 0 keeps its window.
      expect((await store.consume(keys, compiled, 2))[0]).toBe(0);
      at(30);
      const [remaining, resetMs] = await store.adjust(keys.slice(0, policies.length), compiled, 1);
      expect({ remaining, resetMs }).toEqual({ remaining: 0, resetMs: 70 });
    });

    it("a call in the counter's last millisecond starts the next window", async () => {
      at(0);
      expect((await store.consume(keys, compiled, 1))[0]).toBe(1);
      // Redis keeps the counter through the millisecond it expires in (PTTL 0), but its window is over.
      at(100);
      const peek = toDecision(await store.consume(keys, compiled, 0), compiled, 'redis');
      expect(peek.policies[0]).toEqual({ limit: 1, remaining: 1, resetMs: 0, retryAfterMs: 0 });
      const [allowed, remaining, resetMs] = await store.consume(keys, compiled, 1);
      expect({ allowed, remaining, resetMs }).toEqual({ allowed: 1, remaining: 0, resetMs: 100 });
      at(150);
      expect((await store.consume(keys, compiled, 1))[0]).toBe(0);
    });
  });
});
