import { ConflictException, Injectable, type OnModuleDestroy, ServiceUnavailableException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { setMaxListeners } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { BURST_ROUNDS, type PlannedRequest, planRound } from './traffic-plan';

/** What a burst did (shown on the status page). */
export interface BurstReport {
  startedAt: string;
  /** Null while the burst runs. */
  finishedAt: string | null;
  planned: number;
  sent: number;
  /** Responses by HTTP status; `failed` counts requests that got none (cut off by the deadline or a shutdown). */
  byStatus: Record<string, number>;
}

const ROUND_INTERVAL_MS = 1000;
/** However slow the app is, a burst ends by then: a demo must not outlive its click by much. */
const BURST_DEADLINE_MS = 8000;
/** Requests in flight at once: enough for the payments of one order to contend, few enough for a laptop. */
const CONCURRENCY = 12;

/**
 * "Generate traffic" on the status page: a short burst of real HTTP requests against this app's own routes (see
 * traffic-plan.ts), so a newcomer sees every pattern move. One burst at a time, a few hundred requests over a few
 * seconds, and a shutdown aborts it at once (its requests would otherwise hold app.close() up).
 */
@Injectable()
export class TrafficGenerator implements OnModuleDestroy {
  private readonly shutdown = new AbortController();
  private report: BurstReport | undefined;
  private runningNow = false;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  get running(): boolean {
    return this.runningNow;
  }

  /** The current burst, or the last one. */
  lastBurst(): BurstReport | undefined {
    return this.report;
  }

  /** Starts a burst in the background and answers at once; refuses a second one while one runs (409). */
  start(): BurstReport {
    if (this.runningNow) throw new ConflictException('A burst of traffic is already running; it ends within a few seconds.');
    if (this.shutdown.signal.aborted) throw new ServiceUnavailableException('The app is shutting down.');
    const base = this.ownUrl();
    const rounds = Array.from({ length: BURST_ROUNDS }, planRound);
    const report: BurstReport = {
      startedAt: new Date().toISOString(),
      finishedAt: null,
      planned: rounds.reduce((sum, round) => sum + round.length, 0),
      sent: 0,
      byStatus: {},
    };
    this.report = report;
    this.runningNow = true;
    const signal = AbortSignal.any([this.shutdown.signal, AbortSignal.timeout(BURST_DEADLINE_MS)]);
    // Every request in flight listens to it until its socket has closed (a little after its response), and so does
    // the pause between rounds: more than Node's default warning level of 10, bounded by the concurrency.
    setMaxListeners(2 * CONCURRENCY, signal);
    void this.run(base, rounds, report, signal).finally(() => {
      report.finishedAt = new Date().toISOString();
      this.runningNow = false;
    });
    return { ...report };
  }

  onModuleDestroy(): void {
    this.shutdown.abort();
  }

  private async run(base: string, rounds: PlannedRequest[][], report: BurstReport, signal: AbortSignal): Promise<void> {
    const startedAt = Date.now();
    for (const [i, round] of rounds.entries()) {
      const wait = startedAt + i * ROUND_INTERVAL_MS - Date.now();
      if (wait > 0) await delay(wait, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < round.length && !signal.aborted) {
          const status = await send(base, round[next++], signal);
          report.sent++;
          report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    }
  }

  /** This app's own address: the burst goes through HTTP like any client, guards and interceptors included. */
  private ownUrl(): string {
    const address = (
      this.adapterHost.httpAdapter?.getHttpServer() as { address?: () => AddressInfo | string | null } | undefined
    )?.address?.();
    if (!address || typeof address === 'string') {
      throw new ServiceUnavailableException('The app is not listening on a TCP port, so it cannot send itself traffic.');
    }
    const wildcard = address.address === '0.0.0.0' || address.address === '::';
    const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }
}

/**
 * One request over a connection of its own (no keep-alive). A pooled keep-alive socket would outlive the burst, and a
 * server closing while one of them is mid-request waits for the client to drop it: seconds added to app.close().
 */
function send(base: string, planned: PlannedRequest, signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const body = planned.body ? JSON.stringify(planned.body) : undefined;
    const headers = body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {};
    const outgoing = httpRequest(`${base}${planned.path}`, { method: planned.method, headers, agent: false, signal }, (response) => {
      const status = String(response.statusCode);
      response.resume();
      response.once('end', () => resolve(status));
      response.once('close', () => resolve(response.complete ? status : 'failed'));
    });
    outgoing.once('error', () => resolve('failed'));
    outgoing.end(body);
  });
}
