// One application process of the scaling benchmark:
// `node -r ./scripts/register-ts.js bench/scaling/scaling-worker.ts '<WorkerSpec as JSON>'`, started with an IPC
// channel. It creates our application context once, says `ready`, then runs a closed loop for every `run` request
// and reports its operations, errors, own CPU and latencies. It exits on SIGTERM, or when the benchmark that
// started it goes away (the IPC channel closes), so a crashed benchmark leaves no process behind.
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { closedLoop } from '../lib/closed-loop';
import { createOurContext } from '../lib/our-library';
import { type OperationCall, prepareOperations } from './worker-operations';
import type { RunReport, RunRequest, WorkerMessage, WorkerSpec } from './worker-protocol';

function send(message: WorkerMessage, then?: () => void): void {
  process.send!(message, undefined, {}, () => then?.());
}

/** Our application context, configured as an application would be, on the standalone server or the cluster. */
function createContext(spec: WorkerSpec): Promise<INestApplicationContext> {
  if (typeof spec.connection === 'string') return createOurContext(spec.connection, spec.keyPrefix);
  // createOurContext takes a URL and spreads its sections after it: a `connection` section replaces the URL, so the
  // cluster gets the same module setup otherwise. The URL given is a seed node's, never used.
  const [seed] = spec.connection.cluster.nodes;
  return createOurContext(`redis://${seed.host}:${seed.port}`, spec.keyPrefix, { connection: spec.connection });
}

async function run(call: OperationCall, concurrency: number, durationMs: number): Promise<RunReport> {
  const latenciesUs: number[] = [];
  // Timed here as well as in closedLoop, whose per-call latencies stay inside it: the benchmark merges every
  // process's latencies before taking quantiles (a median of per-process p99s is not a p99). Two clock reads per
  // call are noise next to a Redis round trip.
  const timed = async (caller: number) => {
    const t0 = performance.now();
    await call(caller);
    latenciesUs.push(Math.round((performance.now() - t0) * 1000));
  };
  const cpu = process.cpuUsage();
  const result = await closedLoop(timed, concurrency, durationMs);
  const used = process.cpuUsage(cpu);
  return {
    type: 'report',
    ops: result.ops,
    errors: result.errors,
    elapsedMs: result.elapsedMs,
    cpuUs: used.user + used.system,
    latenciesUs,
  };
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('scaling-worker must be started with an IPC channel');
  const spec = JSON.parse(process.argv[2] ?? '') as WorkerSpec;
  // Set once the context exists; a stop requested while it is being created exits without closing it.
  const state: { app?: INestApplicationContext; stopping: boolean } = { stopping: false };
  const shutdown = () => {
    if (state.stopping) return;
    state.stopping = true;
    void (state.app?.close() ?? Promise.resolve()).catch(() => undefined).finally(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('disconnect', shutdown);

  const app = (state.app = await createContext(spec));
  const calls = await prepareOperations(app, spec);
  process.on('message', (request: RunRequest) => {
    const call = calls.get(request.operation);
    if (!call) {
      send({ type: 'failed', message: `operation ${request.operation} was not prepared in this worker` });
      return;
    }
    run(call, spec.concurrency, request.durationMs).then(
      (report) => send(report),
      (error: unknown) => send({ type: 'failed', message: (error as Error).message ?? String(error) }),
    );
  });
  send({ type: 'ready' });
}

main().catch((error: unknown) => {
  const message = (error as Error).stack ?? String(error);
  process.stderr.write(`scaling worker failed: ${message}\n`);
  // Exit only once the message has left, so the benchmark reports the cause rather than a bare exit.
  if (process.send && process.connected) send({ type: 'failed', message }, () => process.exit(1));
  else process.exit(1);
});
