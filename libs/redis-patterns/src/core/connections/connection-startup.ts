import type { LoggerService } from '@nestjs/common';
import type { ConnectionFailure } from './connection-failure';
import { ConnectionStartupError } from './connection-startup.error';
import type { ConnectionOutcome, ConnectionStateLog } from './connection-state-log';
import type { ManagedClient } from './create-client';
import { type ConnectionStartup, FIRST_ATTEMPT_BOUND_MS } from './startup-wait';
import { readyWithin } from './ready-within';

/** One connection as startup sees it: owned ones have a state log, adopted ones do not. */
export interface StartingConnection {
  readonly name: string;
  readonly managed: ManagedClient;
  readonly stateLog?: ConnectionStateLog;
}

const ignore = (): undefined => undefined;

/**
 * Connects every owned connection and waits for what `mode` asks, all connections at once:
 * - `'check'`: each connection's first attempt (at most {@link FIRST_ATTEMPT_BOUND_MS}). Wrong credentials or an
 *   unknown host fail startup; an outage is logged and the connection keeps trying in the background.
 * - `'retry'`: the same wait, but nothing fails startup: a misconfiguration is logged and retried too.
 * - `'wait'`: until every connection is ready, at most `connectTimeoutMs`; otherwise startup fails.
 * Rejects with a {@link ConnectionStartupError}; the caller closes the connections. No wait keeps a failed startup alive.
 */
export async function startConnections(
  connections: readonly StartingConnection[],
  mode: ConnectionStartup,
  connectTimeoutMs: number,
  logger: LoggerService,
): Promise<void> {
  const boundMs = mode === 'wait' ? connectTimeoutMs : Math.min(connectTimeoutMs, FIRST_ATTEMPT_BOUND_MS);
  for (const { managed, stateLog } of connections) {
    if (stateLog) stateLog.startup = true;
    const status = managed.client.status;
    if (managed.owned && (status === 'wait' || status === 'end')) managed.client.connect().catch(ignore);
  }
  const waits = connections.map(async (connection) => {
    if (!connection.stateLog) return waitForAdopted(connection, boundMs, logger);
    const outcome = await connection.stateLog.outcome(boundMs, (failure) => mode !== 'wait' || failure.misconfiguration);
    const failure = failureToRaise(connection, outcome, mode, boundMs);
    if (failure) throw failure;
  });
  try {
    await Promise.all(waits);
  } catch (error) {
    for (const { stateLog } of connections) stateLog?.stopWaiting();
    throw error;
  }
  for (const { stateLog } of connections) stateLog?.reportAtStartup();
}

function failureToRaise(
  { name, managed, stateLog }: StartingConnection,
  outcome: ConnectionOutcome | undefined,
  mode: ConnectionStartup,
  boundMs: number,
): ConnectionStartupError | undefined {
  if (outcome?.ready) return undefined;
  const failure: ConnectionFailure | undefined = outcome?.failure ?? stateLog?.failure;
  if (mode === 'wait' && !outcome) {
    const why = failure ? `: ${failure.what}. ${failure.check}` : '.';
    return new ConnectionStartupError(
      name,
      managed.endpoint,
      failure?.kind ?? 'not-ready',
      `Redis connection "${name}" (${managed.endpoint}) is not ready after ${boundMs} ms, and connectionStartup is 'wait'${why}`,
    );
  }
  if (mode === 'retry' || !failure?.misconfiguration) return undefined;
  return new ConnectionStartupError(
    name,
    managed.endpoint,
    failure.kind,
    `Redis connection "${name}" (${managed.endpoint}) cannot be used: ${failure.what}. ${failure.check} ` +
      `Startup stops here, since retrying cannot fix this; set connectionStartup: 'retry' to start anyway and keep retrying.`,
  );
}

/** An adopted client is the application's to connect: waited for as long as an owned one, never failed on. */
async function waitForAdopted({ name, managed }: StartingConnection, boundMs: number, logger: LoggerService): Promise<void> {
  const ready = await readyWithin(managed.client, boundMs);
  if (!ready) {
    logger.warn(
      `Redis connection "${name}" (${managed.endpoint}) is not ready after ${boundMs} ms; the application starts without waiting for it: patterns apply their outage policies until it is.`,
    );
  }
}
