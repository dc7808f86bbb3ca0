import { performance } from 'node:perf_hooks';
import { type Cluster, Redis } from 'ioredis';
import { createClient } from '../../../libs/redis-patterns/src/core/connections/create-client';
import { failFastOptions } from '../../../libs/redis-patterns/src/core/connections/fail-fast-defaults';
import { ReplyDeadlines } from '../../../libs/redis-patterns/src/core/connections/reply-deadlines';
import { connectionFor, privateServer, type RedisServerProcess, waitFor } from '../../support/redis-env';

const DEADLINE_MS = 300;
const SETTINGS = { name: 'default', keyPrefix: 'rd', commandTimeoutMs: 400, connectTimeoutMs: 2000 };
// How late a deadline may be noticed here: one sweep interval, plus a loaded machine's timer lateness.
const LATE_MS = 150;

describe('ReplyDeadlines: the command deadline of a single-server connection, kept by one sweep', () => {
  let server: RedisServerProcess;
  let client: Redis;
  let deadlines: ReplyDeadlines;
  let closes = 0;

  beforeAll(async () => {
    server = await privateServer();
  });

  beforeEach(async () => {
    client = new Redis(server.url, failFastOptions(2000));
    deadlines = ReplyDeadlines.keep(client, DEADLINE_MS);
    client.on('error', () => undefined);
    client.on('close', () => closes++);
    await client.connect();
    closes = 0;
  });

  afterEach(async () => {
    server.resume();
    const ended = new Promise((resolve) => client.once('end', resolve));
    client.disconnect();
    await ended;
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('leaves commands answered in time alone, and arms no timer per command', async () => {
    const timers = jest.spyOn(global, 'setTimeout');
    try {
      for (let i = 0; i < 100; i++) expect(await client.set(`k${i}`, 'v', 'PX', 10_000)).toBe('OK');
      const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => client.set(`k${i}`, 'v', 'PX', 10_000)));
      expect(replies.every((r) => r === 'OK')).toBe(true);
      // 300 commands, 100 of them on an idle connection: at most a sweep per command written to an idle connection
      // (per-command timers would be 300, or 400 with a silent-socket timer each time).
      expect(timers.mock.calls.length).toBeLessThanOrEqual(101);
    } finally {
      timers.mockRestore();
    }
    // ioredis' own deadline timers stay off: the sweep is the only deadline.
    expect(client.options.commandTimeout).toBeUndefined();
    expect(client.options.socketTimeout).toBeUndefined();
    expect(closes).toBe(0);
  });

  it('drops a connection silent for the deadline while replies are owed, failing what awaited them at once', async () => {
    const started = performance.now();
    server.freeze();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.get(`frozen${i}`).then(
          () => 'answered',
          (error: Error) => ({ message: error.message, name: error.name, atMs: performance.now() - started }),
        ),
      ),
    );
    for (const outcome of outcomes) {
      expect(outcome).not.toBe('answered');
      const failed = outcome as { atMs: number; name: string };
      // Never before the silence reached the deadline (less the 1 ms that lets the drop come first), at most one
      // sweep interval and some timer lateness after it.
      expect(failed.atMs).toBeGreaterThanOrEqual(DEADLINE_MS - 2);
      expect(failed.atMs).toBeLessThan(DEADLINE_MS + LATE_MS);
      // The socket closed under them (maxRetriesPerRequest 0): no command waits out a deadline of its own.
      expect(failed.name).toBe('MaxRetriesPerRequestError');
    }
    await waitFor(() => closes > 0, 2000);
    server.resume();
    await waitFor(() => client.status === 'ready', 5000);
    expect(await client.ping()).toBe('PONG');
  });

  it('fails a command unanswered for the deadline while earlier replies keep coming, and keeps the connection', async () => {
    // Six BLPOPs of an empty list that each give up after 100 ms, written at once: the server answers them one after
    // the other (a connection's commands run in order), so replies keep coming, at most ~200 ms apart (some server
    // versions check blocking timeouts every 100 ms), and the connection is never silent for the deadline; but the
    // last ones are still unanswered when the deadline has passed since they were written.
    const deadlineMs = 400;
    const own = new Redis(server.url, failFastOptions(2000));
    const sweep = ReplyDeadlines.keep(own, deadlineMs);
    let dropped = 0;
    own.on('error', () => undefined);
    own.on('close', () => dropped++);
    try {
      await own.connect();
      const started = performance.now();
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, () =>
          own.blpop('rd:empty', 0.1).then(
            (value) => ({ value, atMs: performance.now() - started }),
            (error: Error) => ({ error: error.message, atMs: performance.now() - started }),
          ),
        ),
      );
      expect(outcomes[0]).toMatchObject({ value: null });
      for (const late of outcomes.slice(-2)) {
        expect(late).toMatchObject({ error: 'Command timed out' });
        expect(late.atMs).toBeGreaterThanOrEqual(deadlineMs - 1);
        expect(late.atMs).toBeLessThan(deadlineMs + LATE_MS);
      }
      // Every call was answered in time or failed by the deadline: none by a dropped socket.
      expect(outcomes.every((o) => ('value' in o && o.value === null) || ('error' in o && o.error === 'Command timed out'))).toBe(true);
      // Their late replies are discarded as they come (the sweep stops once nothing is owed), and the connection stayed up.
      await waitFor(() => !sweep.sweeping, 3000);
      expect(await own.ping()).toBe('PONG');
      expect(dropped).toBe(0);
    } finally {
      own.disconnect();
    }
  });

  it('stops sweeping when nothing is owed, and starts again with the next command', async () => {
    expect(await client.ping()).toBe('PONG');
    await waitFor(() => !deadlines.sweeping, 1000);
    server.freeze();
    const failed = await client.get('after-idle').catch((error: Error) => error.name);
    expect(failed).toBe('MaxRetriesPerRequestError');
    server.resume();
    await waitFor(() => client.status === 'ready', 5000);
  });
});

describe('ReplyDeadlines on the connections the module creates', () => {
  it('keeps the deadline on a single server with the sweep alone, and on a cluster’s nodes with ioredis’ own', async () => {
    const standalone = createClient(connectionFor('standalone'), SETTINGS);
    const cluster = createClient(connectionFor('cluster'), SETTINGS);
    try {
      const single = standalone.client as Redis;
      expect(ReplyDeadlines.of(single)?.deadlineMs).toBe(SETTINGS.commandTimeoutMs);
      expect(single.options.commandTimeout).toBeUndefined();
      expect(single.options.socketTimeout).toBeUndefined();

      const nodes = cluster.client as Cluster;
      await nodes.connect();
      // One key per master, so that every master's connection exists and has carried a command.
      await Promise.all(['{a}', '{b}', '{c}', '{d}', '{e}'].map((tag) => nodes.set(`rd:${tag}`, '1', 'PX', 10_000)));
      const masters = nodes.nodes('master');
      expect(masters).toHaveLength(3);
      for (const node of masters) {
        // ioredis creates the nodes and gives each an offline queue the sweep would not see: they keep its pair.
        expect(ReplyDeadlines.of(node)).toBeUndefined();
        expect(node.options.commandTimeout).toBe(SETTINGS.commandTimeoutMs);
        expect(node.options.socketTimeout).toBe(SETTINGS.commandTimeoutMs - 1);
      }
    } finally {
      standalone.client.disconnect();
      cluster.client.disconnect();
    }
  });
});
