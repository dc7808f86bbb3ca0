import { Cluster, Redis } from 'ioredis';
import { batchFormOf, crossSlotFormOf } from '../../../libs/redis-patterns/src/core/scripts/batch-form';
import { IN_FLIGHT_WINDOW, MAX_BATCH_ITEMS } from '../../../libs/redis-patterns/src/core/scripts/coalescing-queue';
import { keySlot } from '../../../libs/redis-patterns/src/core/keys/key-slot';
import { RedisExecutor } from '../../../libs/redis-patterns/src/core/scripts/redis-executor';
import { defineCommandScript, defineScript, type RedisScript } from '../../../libs/redis-patterns/src/core/scripts/redis-script';
import { WRITES_PER_SOCKET_WRITE } from '../../../libs/redis-patterns/src/core/scripts/turn-writes';

function run<T>(client: Redis | Cluster, script: RedisScript<T>, keys: string[], args: Array<string | number>): Promise<T> {
  return RedisExecutor.of(client).run(script, keys, args);
}

/** One call: INCRBY KEYS[1] by ARGV[1] with a TTL; replies {new value, #KEYS, #ARGV}; 'nil' and 'boom' test the edges. */
const counter = defineScript<[number, number, number] | null>(
  'test_batched_counter',
  `
if ARGV[1] == 'nil' then return nil end
if ARGV[1] == 'boom' then error('boom') end
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 60000)
return { value, #KEYS, #ARGV }`,
);

/** The same counter with a fixed shape (1 key, 1 arg per call): calls travel in a batch without their counts. */
const shapedCounter = defineScript<[number, number, number]>(
  'test_batched_shaped_counter',
  `
if ARGV[1] == 'boom' then error('boom') end
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 60000)
return { value, #KEYS, #ARGV }`,
  { keys: 1, args: 1 },
);

/** A command script: ZREM KEYS[1] ARGV[1]. */
const remove = defineCommandScript<number>('test_command_zrem', 'zrem', { keys: 1, args: 1 });

/** Appends ARGV[1] to a list: shows the order calls reach the server in. */
const append = defineScript<number>(
  'test_batched_append',
  `
local n = redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 60000)
return n`,
);

/**
 * Records the script commands (EVALSHA, or EVAL after a NOSCRIPT) a client sends from now on, with the SHA-1 each
 * names. Counted at the client: the server's statistics also count the scripts of other test files.
 */
function scriptCommands(client: Redis): { sent(): number; shas(): string[] } {
  const spy = jest.spyOn(client, 'sendCommand'); // calls through to the real client
  const scripts = () =>
    spy.mock.calls.map(([command]) => command).filter((command) => command.name === 'evalsha' || command.name === 'eval');
  return { sent: () => scripts().length, shas: () => scripts().map((command) => String(command.args[0])) };
}

/**
 * Counts the writes a client's socket makes from now on (`_write` for one chunk, `_writev` for several held ones):
 * what reaches the kernel, where `scriptCommands` counts the commands.
 */
function socketWrites(client: Redis): () => number {
  const stream = client.stream as unknown as { _write: () => void; _writev: () => void };
  const one = jest.spyOn(stream, '_write');
  const several = jest.spyOn(stream, '_writev');
  return () => one.mock.calls.length + several.mock.calls.length;
}

/**
 * Fills the connection's window of outstanding replies with `IN_FLIGHT_WINDOW` calls written at once, so the calls
 * that follow in the same turn wait and coalesce. Resolves when the filling calls are answered.
 */
function fillWindow(client: Redis, prefix: string): Promise<unknown> {
  return Promise.all(Array.from({ length: IN_FLIGHT_WINDOW }, (_, i) => run(client, counter, [`${prefix}:fill${i}`], [1])));
}

describe('RedisExecutor.run: adaptive batching against a real server', () => {
  let redis: Redis;
  let observer: Redis;
  let cluster: Cluster | undefined;
  const prefix = `batched-spec:${process.pid}:${Date.now()}`;

  beforeAll(async () => {
    redis = new Redis(process.env.REDIS_URL_STANDALONE!);
    observer = new Redis(process.env.REDIS_URL_STANDALONE!);
    if (process.env.REDIS_CLUSTER_PORTS) {
      cluster = new Cluster(process.env.REDIS_CLUSTER_PORTS.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })));
    }
    // Loads both forms of every script (the NOSCRIPT path) before the counts start.
    const filled = fillWindow(redis, `${prefix}:warm`);
    await Promise.all(
      [1, 2].flatMap((i) => [
        run(redis, counter, [`${prefix}:warm${i}`], [1]),
        run(redis, shapedCounter, [`${prefix}:warm-shaped${i}`], [1]),
      ]),
    );
    await filled;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => {
    redis.disconnect();
    observer.disconnect();
    cluster?.disconnect();
  });

  it('writes a lone call at once, as one EVALSHA of the one-call script: no extra event-loop turn', async () => {
    const scripts = scriptCommands(redis);
    const reply = run(redis, counter, [`${prefix}:lone`], [3]);
    // Written before this function yields: no waiting for the end of the turn.
    expect(scripts.sent()).toBe(1);
    expect(await reply).toEqual([3, 1, 1]);
    expect(scripts.shas()).toEqual([counter.sha]);
  });

  it('writes a lone call at once, in a socket write of its own', async () => {
    const writes = socketWrites(redis);
    const reply = run(redis, counter, [`${prefix}:lone-write`], [2]);
    // Nothing else is awaited on the connection: not held, written before this function yields.
    expect(writes()).toBe(1);
    expect(await reply).toEqual([2, 1, 1]);
  });

  it(`sends the calls one turn writes at once in shared socket writes of at most ${WRITES_PER_SOCKET_WRITE}, each still its own command`, async () => {
    const scripts = scriptCommands(redis);
    const writes = socketWrites(redis);
    const replies = await Promise.all(
      Array.from({ length: IN_FLIGHT_WINDOW }, (_, i) => run(redis, counter, [`${prefix}:w${i}`], [i + 1])),
    );
    expect(replies).toEqual(Array.from({ length: IN_FLIGHT_WINDOW }, (_, i) => [i + 1, 1, 1]));
    expect(scripts.shas()).toEqual(Array.from({ length: IN_FLIGHT_WINDOW }, () => counter.sha));
    // The first leaves at once (nothing else was awaited), the others by fours; one write each without holding: 8.
    expect(writes()).toBe(1 + Math.ceil((IN_FLIGHT_WINDOW - 1) / WRITES_PER_SOCKET_WRITE));
  });

  it('holds nothing back for a command that goes to the offline queue, and answers it once connected', async () => {
    const late = new Redis(process.env.REDIS_URL_STANDALONE!, { lazyConnect: true });
    try {
      const reply = RedisExecutor.of(late).run(counter, [`${prefix}:late`], [4]);
      expect(await reply).toEqual([4, 1, 1]);
      const again = await Promise.all([1, 2].map((n) => RedisExecutor.of(late).run(counter, [`${prefix}:late${n}`], [n])));
      expect(again).toEqual([
        [1, 1, 1],
        [2, 1, 1],
      ]);
    } finally {
      late.disconnect();
    }
  });

  it(`writes up to ${IN_FLIGHT_WINDOW} concurrent calls at once; beyond, the calls of one turn share commands of at most ${MAX_BATCH_ITEMS}`, async () => {
    const scripts = scriptCommands(redis);
    const waiting = 2 * MAX_BATCH_ITEMS + 1;
    const calls = IN_FLIGHT_WINDOW + waiting;
    const replies = await Promise.all(Array.from({ length: calls }, (_, i) => run(redis, counter, [`${prefix}:n${i}`], [i + 1])));
    expect(replies).toEqual(Array.from({ length: calls }, (_, i) => [i + 1, 1, 1]));
    expect(scripts.sent()).toBe(IN_FLIGHT_WINDOW + Math.ceil(waiting / MAX_BATCH_ITEMS));
    const batch = batchFormOf(counter).sha;
    // Two full batches; the one call left over is a group of one, sent as the one-call script.
    expect(scripts.shas().filter((sha) => sha === counter.sha)).toHaveLength(IN_FLIGHT_WINDOW + 1);
    expect(scripts.shas().filter((sha) => sha === batch)).toHaveLength(2);
  });

  it('gathers the waiting calls of a whole event-loop turn, not only those of one tick', async () => {
    const scripts = scriptCommands(redis);
    // As with HTTP requests read in one turn: each call is submitted from a later tick of the same turn.
    const replies = await new Promise<unknown[]>((resolve) => {
      const filled = fillWindow(redis, `${prefix}:turn`);
      const first = run(redis, counter, [`${prefix}:turn1`], [1]);
      process.nextTick(() => {
        const second = run(redis, counter, [`${prefix}:turn2`], [2]);
        process.nextTick(() => resolve(Promise.all([first, second, run(redis, counter, [`${prefix}:turn3`], [3]), filled])));
      });
    });
    expect(replies.slice(0, 3)).toEqual([
      [1, 1, 1],
      [2, 1, 1],
      [3, 1, 1],
    ]);
    expect(scripts.sent()).toBe(IN_FLIGHT_WINDOW + 1);
  });

  it('gives each waiting call its own keys and arguments, whatever the others of its batch carry', async () => {
    const filled = fillWindow(redis, `${prefix}:own`);
    const [one, two] = await Promise.all([
      run(redis, counter, [`${prefix}:a`], [5]),
      run(redis, counter, [`${prefix}:b`, `${prefix}:unused`], [7, 'x', 'y']),
      filled,
    ]);
    expect(one).toEqual([5, 1, 1]);
    expect(two).toEqual([7, 2, 3]);
  });

  it('fails only the call that failed; the others of its batch succeed, alone or batched', async () => {
    await observer.hset(`${prefix}:hash`, 'f', '1');
    await observer.pexpire(`${prefix}:hash`, 60_000);
    const calls = (tag: string) => [
      run(redis, counter, [`${prefix}:${tag}ok1`], [1]),
      run(redis, counter, [`${prefix}:hash`], [1]),
      run(redis, counter, [`${prefix}:${tag}ok2`], ['boom']),
      run(redis, counter, [`${prefix}:${tag}ok3`], ['nil']),
      run(redis, counter, [`${prefix}:${tag}ok4`], [2]),
    ];
    const alone = await Promise.allSettled(calls('alone'));
    const filled = fillWindow(redis, `${prefix}:fail`);
    const batched = await Promise.allSettled(calls('batched'));
    await filled;
    for (const outcomes of [alone, batched]) {
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
      expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/^RedisRefusedError: Redis refused EVALSHA: WRONGTYPE/);
      expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/^ReplyError: ERR .*boom/);
      expect((outcomes[3] as PromiseFulfilledResult<unknown>).value).toBeNull();
      expect((outcomes[4] as PromiseFulfilledResult<unknown>).value).toEqual([2, 1, 1]);
    }
  });

  it('sends a lone call of a command script as the command itself, and waiting calls of it in the batch form', async () => {
    const key = `${prefix}:command-script`;
    await observer.zadd(key, 1, 'a', 2, 'b', 3, 'c');
    await observer.pexpire(key, 60_000);
    const sent = jest.spyOn(redis, 'sendCommand');
    const names = () => sent.mock.calls.map(([command]) => command.name);
    expect(await run(redis, remove, [key], ['a'])).toBe(1);
    expect(names()).toEqual(['zrem']);
    sent.mockClear();
    const filled = fillWindow(redis, `${prefix}:command-fill`);
    const replies = Promise.all(['b', 'missing', 'c'].map((member) => run(redis, remove, [key], [member])));
    expect(await replies).toEqual([1, 0, 1]);
    await filled;
    expect(names()).not.toContain('zrem');
    const scripts = sent.mock.calls.map(([command]) => command).filter((command) => command.name === 'evalsha');
    expect(scripts.map((command) => String(command.args[0]))).toContain(batchFormOf(remove).sha);
    expect(remove.body).toBe("return redis.call('ZREM', KEYS[1], ARGV[1])");
    expect(await observer.exists(key)).toBe(0);
  });

  it('applies calls in submission order, from the ones written at once to the ones that waited, across batches', async () => {
    const key = `${prefix}:order`;
    const count = IN_FLIGHT_WINDOW + 2 * MAX_BATCH_ITEMS + 3;
    await Promise.all(Array.from({ length: count }, (_, i) => run(redis, append, [key], [i])));
    expect(await observer.lrange(key, 0, -1)).toEqual(Array.from({ length: count }, (_, i) => String(i)));
  });

  it('sends the waiting calls before a later plain command, so a plain command never overtakes them', async () => {
    const key = `${prefix}:before-plain`;
    const filled = fillWindow(redis, `${prefix}:plain`);
    const appended = run(redis, append, [key], ['first']);
    const length = RedisExecutor.of(redis).call<number>('llen', key);
    expect(await Promise.all([appended, length, filled]).then(([, n]) => n)).toBe(1);
  });

  it('survives SCRIPT FLUSH (the NOSCRIPT path), alone and batched', async () => {
    await observer.script('FLUSH');
    expect(await run(redis, counter, [`${prefix}:flushed`], [3])).toEqual([3, 1, 1]);
    await observer.script('FLUSH');
    const filled = fillWindow(redis, `${prefix}:flush`);
    const replies = await Promise.all([run(redis, counter, [`${prefix}:flushed2`], [1]), run(redis, counter, [`${prefix}:flushed3`], [2])]);
    await filled;
    expect(replies).toEqual([
      [1, 1, 1],
      [2, 1, 1],
    ]);
  });

  it('rejects every call the connection cannot send, alone or batched', async () => {
    const closed = new Redis(process.env.REDIS_URL_STANDALONE!, { enableOfflineQueue: false });
    await new Promise((ready) => closed.once('ready', ready));
    await closed.quit();
    const calls = Array.from({ length: IN_FLIGHT_WINDOW + 3 }, (_, i) => run(closed, counter, [`x${i}`], [1]));
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/^RedisUnavailableError: Redis connection ".+" is closed\.$/);
    // The batched ones leave at the end of the turn, on the same closed connection.
    expect(String((outcomes.at(-1) as PromiseRejectedResult).reason)).toMatch(/^RedisUnavailableError: Redis connection ".+" is /);
  });

  it('keeps its scripts out of ioredis auto-pipelining without touching the client, other commands still auto-pipelined', async () => {
    const piped = new Redis(process.env.REDIS_URL_STANDALONE!, { enableAutoPipelining: true });
    try {
      const [reply, pong] = await Promise.all([run(piped, counter, [`${prefix}:auto`], [1]), piped.ping()]);
      expect([reply, pong]).toEqual([[1, 1, 1], 'PONG']);
      // Nothing defined on the client, no option changed: an adopted client stays as it was handed over.
      expect(piped.options.autoPipeliningIgnoredCommands).toEqual([]);
      expect((piped as unknown as Record<string, unknown>)[counter.commandName]).toBeUndefined();
      expect(piped.autoPipelineQueueSize).toBe(0);
    } finally {
      piped.disconnect();
    }
  });

  it('with a fixed shape, batches calls without their counts and still answers each with its own reply', async () => {
    const calls = IN_FLIGHT_WINDOW + 2 * MAX_BATCH_ITEMS + 3;
    const replies = await Promise.allSettled(
      Array.from({ length: calls }, (_, i) => run(redis, shapedCounter, [`${prefix}:shaped${i}`], [i === 12 ? 'boom' : i + 1])),
    );
    replies.forEach((outcome, i) => {
      if (i === 12) expect(outcome.status).toBe('rejected');
      else expect(outcome).toEqual({ status: 'fulfilled', value: [i + 1, 1, 1] });
    });
    // The batch form's ARGV holds only the arguments: one call's is exactly its argument.
    expect(await redis.eval(batchFormOf(shapedCounter).lua, 1, `${prefix}:shaped-by-hand`, 4)).toEqual([[4, 1, 1]]);
  });

  it('refuses a call that does not fit its script, before it can shift the others of its batch', async () => {
    const filled = fillWindow(redis, `${prefix}:fit`);
    const outcomes = await Promise.allSettled([
      run(redis, shapedCounter, [`${prefix}:fit1`], [1]),
      run(redis, shapedCounter, [`${prefix}:misfit`], [1, 2]),
      run(redis, shapedCounter, [`${prefix}:fit2`], [2]),
    ]);
    await filled;
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: [1, 1, 1] });
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/takes 1 keys and 1 args, got 1 keys and 2 args/);
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: [2, 1, 1] });
    expect(() => defineScript('test_bad_shape', 'return 1', { keys: -1 })).toThrow(/keys must be a whole number/);
  });

  describe('on a cluster', () => {
    const needCluster = (): Cluster => {
      if (!cluster) throw new Error('this spec runs with the cluster topology (unset REDIS_TOPOLOGIES)');
      return cluster;
    };
    const masterScripts = (client: Cluster) => {
      const spies = client.nodes('master').map((node) => jest.spyOn(node, 'sendCommand'));
      return () =>
        spies.flatMap((spy) => spy.mock.calls).filter(([command]) => command.name === 'evalsha' || command.name === 'eval').length;
    };

    beforeAll(async () => {
      const client = needCluster();
      await Promise.all(Array.from({ length: 60 }, (_, i) => run(client, counter, [`${prefix}:cluster-warm${i}`], [1])));
    });

    it("computes every key's slot as the server does", async () => {
      const client = needCluster();
      const keys = ['123456789', `${prefix}:{é}:x`, 'a{}b', 'x{{y}}z', ...Array.from({ length: 30 }, (_, i) => `${prefix}:{id${i}}:n`)];
      const slots = await Promise.all(keys.map((key) => client.cluster('KEYSLOT', key)));
      expect(keys.map(keySlot)).toEqual(slots);
    });

    it('coalesces per master, not per slot: distinct identities share commands, each answered with its own reply', async () => {
      const client = needCluster();
      const sent = masterScripts(client);
      const calls = 120; // each its own hash tag, so nearly each its own slot
      const replies = await Promise.all(Array.from({ length: calls }, (_, i) => run(client, counter, [`${prefix}:{id${i}}:n`], [i + 1])));
      expect(replies).toEqual(Array.from({ length: calls }, (_, i) => [i + 1, 1, 1]));
      // Per slot, 120 identities would be ~120 commands; per master, at most a window and a share of batches each.
      expect(sent()).toBeLessThan(calls / 2);
      const values = await Promise.all(Array.from({ length: calls }, (_, i) => client.get(`${prefix}:{id${i}}:n`)));
      expect(values).toEqual(Array.from({ length: calls }, (_, i) => String(i + 1)));
    });

    it('writes a call at once only while no call awaits a reply; the calls that follow in the turn leave as one command per master', async () => {
      const client = needCluster();
      const [first, second] = client.nodes('master');
      // Identities of distinct slots served by one master.
      const servedBy = (master: Redis, tag: string, count: number) => {
        const node = `${master.options.host}:${master.options.port}`;
        return Array.from({ length: 400 }, (_, i) => `${prefix}:{${tag}${i}}:n`)
          .filter((key) => client.slots[keySlot(key)]?.[0] === node)
          .slice(0, count);
      };
      const keys = [...servedBy(first, 'turn-a', 2), ...servedBy(second, 'turn-b', 3)];
      expect(keys).toHaveLength(5);
      const sent = masterScripts(client);
      const writes = [socketWrites(first), socketWrites(second)];
      const replies = await Promise.all(keys.map((key, i) => run(client, counter, [key], [i + 1])));
      expect(replies).toEqual(keys.map((_, i) => [i + 1, 1, 1]));
      // The first call leaves at once (nothing else was awaited). The four made while it was awaited wait for the end
      // of the turn, the second master's three too: one EVALSHA of the cross-slot form for each master.
      expect(sent()).toBe(3);
      expect(writes.map((count) => count())).toEqual([2, 1]);
    });

    it('answers calls of several keys per slot, whatever the others of the batch carry', async () => {
      const client = needCluster();
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) => run(client, counter, [`${prefix}:{slot${i % 10}}:c${i}`, `${prefix}:{slot${i % 10}}:d`], [1])),
      );
      expect(replies).toEqual(Array.from({ length: 40 }, () => [1, 2, 1]));
    });

    it('sends again alone, with its redirection, a call that reached a master that does not serve its slot; it runs once', async () => {
      const client = needCluster();
      const keys = Array.from({ length: 40 }, (_, i) => `${prefix}:{moved${i}}:n`);
      const masters = [...new Set(client.slots.map((nodes) => nodes[0]))];
      // A stale slot table, as after a resharding the client has not seen: every slot of these keys points at
      // another master than its own.
      const slots = keys.map(keySlot);
      const saved = slots.map((slot) => client.slots[slot]);
      slots.forEach((slot, i) => (client.slots[slot] = [masters.find((m) => m !== saved[i][0])!]));
      const replies = await Promise.all(keys.map((key) => run(client, counter, [key], [1])));
      expect(replies).toEqual(keys.map(() => [1, 1, 1]));
      expect(await Promise.all(keys.map((key) => client.get(key)))).toEqual(keys.map(() => '1'));
    });

    it("reports, per call, the server's refusal of a key another master serves, without running it", async () => {
      const client = needCluster();
      const served = `${prefix}:{here}:x`;
      const nodeKey = client.slots[keySlot(served)][0];
      const node = client.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === nodeKey)!;
      const other = Array.from({ length: 200 }, (_, i) => `${prefix}:{there${i}}:x`).find(
        (key) => client.slots[keySlot(key)][0] !== nodeKey,
      )!;
      const form = crossSlotFormOf(counter);
      // ARGV: 2 keys, the keys, then per call its key count, argument count and argument.
      const replies = (await node.eval(form.lua, 0, 2, served, other, 1, 1, 7, 1, 1, 8)) as unknown[];
      expect(replies[0]).toEqual([7, 1, 1]);
      expect(String(replies[1])).toMatch(/non local key/);
      expect(await client.get(other)).toBeNull();
    });
  });
});
