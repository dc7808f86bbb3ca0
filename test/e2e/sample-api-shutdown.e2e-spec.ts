import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { freeLoopbackPort, waitFor } from '../support/redis-env';

/** What Express answers, with `Connection: close`, to a request that reaches an app already closing. */
const CLOSING_ANSWER = 'Service Unavailable';

const root = join(__dirname, '../..');
const mainJs = join(root, 'dist/apps/sample-api/apps/sample-api/src/main.js');

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => socket.destroy() || resolve(true));
    socket.once('error', () => resolve(false));
  });
}

/** The built sample API (`npm run build`), started with plain node and no REDIS_URL, then SIGTERM under load. */
describe('built sample API: graceful shutdown', () => {
  let child: ChildProcess;
  let output = '';

  beforeAll(() => {
    execFileSync('npx', ['nest', 'build', 'sample-api'], { cwd: root, stdio: 'pipe' });
  }, 120_000);

  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('finishes in-flight requests, stops its embedded Redis and exits 0 within 10 s', async () => {
    const port = await freeLoopbackPort();
    const { REDIS_URL: _unset, ...inherited } = process.env;
    // Graceful shutdown is the subject, not outages: a generous command deadline keeps a busy machine (other specs run
    // in parallel) from turning a slow Redis reply into a 503 before the signal.
    const env = { ...inherited, PORT: String(port), SAMPLE_DB_LATENCY_MS: '20', REDIS_COMMAND_TIMEOUT_MS: '5000' };
    child = spawn(process.execPath, [mainJs], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => (await fetch(`${base}/health`)).status === 200,
      20_000,
      () => `the app to answer /health. Output:\n${output}`,
    );
    const redisPort = Number(/redis:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
    expect(redisPort).toBeGreaterThan(0);

    // Load: a steady stream of requests, some of them locked payments and uncached reads.
    let stop = false;
    let signalledAt = Infinity;
    let signalled = false;
    const results = { ok: 0, closed: 0, broken: 0 };
    // What broke, for the failure message: the path, the status or error, and when it was sent relative to SIGTERM.
    const brokenCalls: string[] = [];
    const broke = (path: string, what: string, sentAt: number): void => {
      results.broken++;
      brokenCalls.push(`${path}: ${what}, sent ${sentAt - started0}ms after start (signal at ${signalledAt - started0}ms)`);
    };
    const started0 = Date.now();
    const worker = async (i: number): Promise<void> => {
      for (let n = 0; !stop; n++) {
        const path = n % 3 === 0 ? `/orders/${((i * 50 + n) % 100) + 1}/pay` : `/products/${(n % 100) + 1}`;
        const sentAt = Date.now();
        // Whether the signal went first, by the order of this one thread's steps (the clock's milliseconds cannot
        // tell a request sent in the signal's own millisecond from one sent before it).
        const sentAfterSignal = signalled;
        try {
          const response = await fetch(`${base}${path}`, { method: path.includes('pay') ? 'POST' : 'GET' });
          const body = await response.text();
          if (response.status < 500) results.ok++;
          // Once closing, the app answers requests it had not taken in with Express' plain 503 (return503OnClosing):
          // nothing of them ran, whenever they were sent (one sent just before the signal may arrive after it).
          // The library's own 503s are JSON, and count as broken.
          else if (response.status === 503 && body === CLOSING_ANSWER) results.closed++;
          else broke(path, `status ${response.status}`, sentAt);
        } catch (error) {
          // Once SIGTERM is sent the listener closes: new connections are refused and idle keep-alive sockets are
          // closed, so a request sent after it may fail without a response. A request already in flight must not.
          if (sentAfterSignal) results.closed++;
          else broke(path, String(error), sentAt);
          return;
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, i) => worker(i));
    await waitFor(() => results.ok > 100, 10_000);

    const started = Date.now();
    signalledAt = started;
    signalled = true;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    child.kill('SIGTERM');
    const { code, signal } = await exited;
    stop = true;
    await Promise.all(workers);

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(brokenCalls).toEqual([]);
    expect(results.broken).toBe(0);
    expect(await portOpen(redisPort)).toBe(false);
  }, 60_000);
});
