// CONN-9 (goal G17): the sample API (apps/sample-api/src/main.ts, its own SIGTERM handling) under a mixed load of
// locked payments, cached reads and stream events, then SIGTERM. Requests in flight at the signal complete, the
// process exits 0 within the orchestrator's grace period, no lock key is left behind, and every event the API
// accepted into the stream is still there: acknowledged by the consumer group, pending in it, or not read yet.
import { Agent, request } from 'node:http';
import { Redis } from 'ioredis';
import { freeLoopbackPort } from '../../../libs/redis-patterns/src/testing/free-port';
import { TsChild } from '../lib/child';
import { now, pause, waitUntil } from '../lib/measure';
import { check, type Scenario } from '../lib/scenario';
import { scanAll, ownStandalone } from '../lib/servers';

const RATE = 150;
/** Each simulated database call of the sample takes this long: a payment (two calls under a lock) is in flight ~400 ms. */
const DB_LATENCY_MS = 200;
/** Product reads walk ids 1–120 in order, 50 a second: the signal comes before the first walk ends, so reads still miss the cache. */
const LOAD_BEFORE_SIGTERM_MS = 2000;
/** A typical orchestrator grace period; main.ts gives up by itself after 9.5 s. */
const GRACE_MS = 10_000;
const PREFIX = 'fsd';
const EVENTS_KEY = `${PREFIX}:stream:events`;
const GROUP = 'visitor-stats';

type Route = 'pay' | 'product' | 'event';
interface Sent {
  route: Route;
  startedAt: number;
  endedAt?: number;
  status?: number;
  error?: string;
  eventId?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function send(port: number, record: Sent, method: string, path: string, body?: unknown): Promise<void> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const finish = (status: number, error?: string, text = ''): void => {
      if (record.endedAt !== undefined) return;
      record.endedAt = now();
      record.status = status;
      record.error = error;
      if (record.route === 'event' && status === 202) record.eventId = (JSON.parse(text) as { id: string }).id;
      resolve();
    };
    const headers = payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => finish(res.statusCode ?? 0, undefined, text));
      res.on('error', (error) => finish(0, error.message));
    });
    req.setTimeout(GRACE_MS + 5000, () => req.destroy(new Error('client timeout')));
    req.on('error', (error) => finish(0, error.message));
    req.end(payload);
  });
}

/** Open-loop load: RATE requests a second whatever the answers, a third of each route, until told to stop. */
function startLoad(port: number): { sent: Sent[]; stop(): Promise<void> } {
  const sent: Sent[] = [];
  const pending = new Set<Promise<void>>();
  let running = true;
  const loop = (async () => {
    const start = now();
    for (let n = 0; running; n++) {
      const route = (['pay', 'product', 'event'] as const)[n % 3];
      const record: Sent = { route, startedAt: now() };
      sent.push(record);
      const p =
        route === 'pay'
          ? send(port, record, 'POST', `/orders/${(n % 120) + 1}/pay`)
          : route === 'product'
            ? send(port, record, 'GET', `/products/${(Math.floor(n / 3) % 120) + 1}`)
            : send(port, record, 'POST', '/events', { type: n % 9 === 2 ? 'purchase' : 'page_view', visitor: `v${n}` });
      pending.add(p);
      void p.finally(() => pending.delete(p));
      await pause(Math.max(0, start + ((n + 1) * 1000) / RATE - now()));
    }
  })();
  return {
    sent,
    stop: async () => {
      running = false;
      await loop;
      await Promise.all(pending);
    },
  };
}

/** Stream ids compare as (ms, seq) pairs. */
function idAfter(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am !== bm ? am > bm : as > bs;
}

/** The group's last-delivered id, from XINFO GROUPS in either the RESP2 (flat list) or RESP3 (map) shape. */
async function lastDeliveredId(admin: Redis): Promise<string | undefined> {
  const groups = (await admin.call('XINFO', 'GROUPS', EVENTS_KEY)) as unknown[];
  for (const group of groups) {
    const fields: Record<string, unknown> = Array.isArray(group)
      ? Object.fromEntries(Array.from({ length: group.length / 2 }, (_, i) => [group[2 * i], group[2 * i + 1]]))
      : (group as Record<string, unknown>);
    if (fields.name === GROUP) return String(fields['last-delivered-id']);
  }
  return undefined;
}

export const shutdownScenario: Scenario = {
  id: 'SHUTDOWN',
  title: 'sample API under load: SIGTERM',
  deadlineMs: 30_000,
  async run(context) {
    const server = await ownStandalone(context, 'shutdown');
    const admin = new Redis(server.url);
    context.defer(() => admin.disconnect());
    const port = await freeLoopbackPort();
    const app = new TsChild('apps/sample-api/src/main.ts', {
      REDIS_URL: server.url,
      REDIS_KEY_PREFIX: PREFIX,
      PORT: String(port),
      SAMPLE_DB_LATENCY_MS: String(DB_LATENCY_MS),
    });
    context.defer(() => app.kill());
    await app.waitForLine(/listening on http:\/\/127\.0\.0\.1:\d+/, 30_000);

    const load = startLoad(port);
    context.defer(() => load.stop());
    // Under load long enough for the consumer group to be reading and some payments to hold their locks.
    await pause(LOAD_BEFORE_SIGTERM_MS);
    await waitUntil(async () => (await lastDeliveredId(admin)) !== '0-0', 5000, 'the consumer group to read events').catch(() =>
      context.log('the consumer group had read nothing'),
    );

    const locksAtSignal = (await scanAll(admin, `${PREFIX}:lock:*`)).filter((k) => !k.endsWith(':fence')).length;
    const signalledAt = now();
    const inFlight = load.sent.filter((r) => r.endedAt === undefined);
    app.signal('SIGTERM');
    const code = await Promise.race([app.exited, pause(GRACE_MS + 5000).then(() => 'still running' as const)]);
    const exitMs = Math.round(now() - signalledAt);
    await load.stop();

    const completed = inFlight.filter((r) => r.status !== undefined && r.status > 0 && r.status < 500);
    const failed = inFlight.filter((r) => !completed.includes(r));
    const failures = [...new Set(failed.map((r) => `${r.route} ${r.status} ${r.error ?? ''}`.trim()))].slice(0, 4);
    const afterSignal = load.sent.filter((r) => r.startedAt > signalledAt);
    const before = load.sent.filter((r) => r.startedAt <= signalledAt);
    const beforeBroken = before.filter((r) => !r.status || r.status >= 500).length;

    const lockKeys = (await scanAll(admin, `${PREFIX}:lock:*`)).filter((k) => !k.endsWith(':fence'));

    // Every event the API answered 202 for (those accepted while in flight at the signal included).
    const accepted = load.sent.filter((r) => r.eventId !== undefined).map((r) => r.eventId!);
    const inStream = new Set((await admin.xrange(EVENTS_KEY, '-', '+')).map(([id]) => id));
    const pendingRows = (await admin.call('XPENDING', EVENTS_KEY, GROUP, '-', '+', 100_000)) as Array<[string, string, number, number]>;
    const pending = new Set(pendingRows.map((row) => row[0]));
    const lastDelivered = (await lastDeliveredId(admin)) ?? '0-0';
    const dropped = accepted.filter((id) => !inStream.has(id));
    const stillPending = accepted.filter((id) => inStream.has(id) && pending.has(id));
    const unread = accepted.filter((id) => inStream.has(id) && !pending.has(id) && idAfter(id, lastDelivered));
    const acknowledged = accepted.length - dropped.length - stillPending.length - unread.length;
    const hll = (await scanAll(admin, `${PREFIX}:hll:*`))[0];
    const visitorsCounted = hll ? Number(await admin.pfcount(hll)) : 0;

    Object.assign(context.figures, {
      requestsBeforeSignal: before.length,
      brokenBeforeSignal: beforeBroken,
      inFlightAtSignal: inFlight.length,
      inFlightByRoute: {
        pay: inFlight.filter((r) => r.route === 'pay').length,
        product: inFlight.filter((r) => r.route === 'product').length,
        event: inFlight.filter((r) => r.route === 'event').length,
      },
      completed: completed.length,
      completedStatuses: [...new Set(completed.map((r) => r.status))],
      failed: failed.length,
      failures,
      sentAfterSignal: afterSignal.length,
      answeredAfterSignal: afterSignal.filter((r) => r.status && r.status < 500).length,
      exitCode: code,
      exitMs,
      lockKeysAtSignal: locksAtSignal,
      lockKeysLeft: lockKeys.length,
      events: {
        accepted: accepted.length,
        acknowledged,
        pending: stillPending.length,
        unread: unread.length,
        dropped: dropped.length,
        visitorsCountedHll: visitorsCounted,
      },
    });
    if (code !== 0) context.log(`app output: ${app.stdout.slice(-1500)} ${app.stderr.slice(-1500)}`);
    return [
      check(
        'G17 CONN-9',
        `SIGTERM at ${RATE} req/s: requests in flight at the signal complete`,
        `in flight ${inFlight.length} (pay ${inFlight.filter((r) => r.route === 'pay').length}), completed ${completed.length}, failed ${failed.length}${failures.length ? ` (${failures.join('; ')})` : ''}; ${before.length - inFlight.length} answered before, ${beforeBroken} of all before the signal broken`,
        inFlight.length > 0 && failed.length === 0 && beforeBroken === 0,
      ),
      check(
        'G17 CONN-9',
        `exit code 0 within the ${GRACE_MS / 1000} s grace period`,
        `exit code ${code} after ${exitMs} ms`,
        code === 0 && exitMs <= GRACE_MS,
      ),
      check(
        'G17 CONN-9',
        '0 lock keys left in Redis (SCAN of the lock prefix, fencing counters aside)',
        `${lockKeys.length} left (${locksAtSignal} held at the signal)`,
        lockKeys.length === 0,
      ),
      check(
        'G17 CONN-9',
        'no stream entry lost: every event accepted is acknowledged, pending in the group or not read yet',
        `accepted ${accepted.length}: acknowledged ${acknowledged}, pending ${stillPending.length}, unread ${unread.length}, dropped ${dropped.length} (HLL of handled visitors ≈ ${visitorsCounted})`,
        accepted.length > 0 && dropped.length === 0 && acknowledged > 0,
      ),
    ];
  },
};
