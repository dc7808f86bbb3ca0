import type { LoggerService } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import type { ManagedClient } from './create-client';
import { redactSecrets } from './redact';
import { withDeadline } from '../time/with-deadline';

const ERROR_LOG_INTERVAL_MS = 10_000;

/**
 * Logs connection events through Nest's logger. Errors repeat on every reconnect attempt during an outage, so
 * they are logged at most once per interval with a count; credentials are redacted.
 */
export function watchClientEvents(client: Redis | Cluster, name: string, secrets: readonly string[], logger: LoggerService): void {
  let lastErrorLog = 0;
  let suppressed = 0;
  client.on('error', (error: Error) => {
    const now = Date.now();
    if (now - lastErrorLog < ERROR_LOG_INTERVAL_MS) {
      suppressed++;
      return;
    }
    const more = suppressed > 0 ? ` (${suppressed} similar errors not logged)` : '';
    lastErrorLog = now;
    suppressed = 0;
    logger.warn(`Redis connection "${name}" error: ${redactSecrets(error.message, secrets)}${more}`);
  });
  client.on('ready', () => logger.debug?.(`Redis connection "${name}" ready`));
  client.on('reconnecting', () => logger.debug?.(`Redis connection "${name}" reconnecting`));
}

/**
 * Connects an owned client and waits until it is ready, at most `timeoutMs`. A server that is down at startup is
 * logged, not fatal: the client keeps reconnecting and every pattern applies its outage policy meanwhile.
 */
export async function waitUntilReady(managed: ManagedClient, timeoutMs: number, name: string, logger: LoggerService): Promise<void> {
  const { client } = managed;
  if (client.status === 'ready') return;
  if (managed.owned && (client.status === 'wait' || client.status === 'end')) {
    client.connect().catch(() => undefined);
  }
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => finish(false), timeoutMs);
    const onReady = (): void => finish(true);
    function finish(ok: boolean): void {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    }
    client.on('ready', onReady);
    if (client.status === 'ready') finish(true);
  });
  if (!ready) {
    logger.error(
      `Redis connection "${name}" (${managed.endpoint}) is not ready after ${timeoutMs} ms; continuing, patterns apply their outage policies until it is.`,
    );
  }
}

/**
 * QUIT (which waits for pending replies) with a deadline, then disconnect, which also stops reconnecting; resolves
 * once the client has reached `end`, so a caller can rely on the socket being gone.
 */
export async function closeClient(client: Redis | Cluster, deadlineMs: number): Promise<void> {
  if (client.status === 'end') return;
  const quit =
    client.status === 'ready'
      ? client.quit().then(
          () => undefined,
          () => undefined,
        )
      : Promise.resolve();
  await withDeadline(quit, deadlineMs, () => undefined);
  const status = (): string => client.status;
  if (status() !== 'end') client.disconnect();
  // Sockets close asynchronously; a manually closed cluster may stop at `close` (it never reconnects from there).
  for (let waited = 0; status() !== 'end' && status() !== 'close' && waited < 1000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
