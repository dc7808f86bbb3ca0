/** What startup does about connections that are not ready: see `connectionStartup`. */
export type ConnectionStartup = 'check' | 'wait' | 'retry';

/** The accepted values of `connectionStartup`. */
export const CONNECTION_STARTUP_MODES: readonly ConnectionStartup[] = ['check', 'wait', 'retry'];

/**
 * The longest startup waits for the first attempt of a connection, unless `connectionStartup` is `'wait'`. A server
 * that is up answers within milliseconds, and so do a refused port, an unknown host name or a wrong password; only a
 * network that drops packets takes longer, and that is an outage the patterns handle anyway.
 */
export const FIRST_ATTEMPT_BOUND_MS = 1000;

/**
 * How long a pattern may hold startup for its own work on Redis (subscribing, creating consumer groups, a first
 * leader campaign): `connectTimeoutMs` while every connection is ready — that work then takes milliseconds — and
 * nothing while one is not, so a server that is down costs startup one wait, the connections', not one per pattern.
 */
export class StartupWait {
  private allReady: () => boolean = () => true;

  constructor(private readonly connectTimeoutMs: number) {}

  /** @internal Called by the connections once they exist. */
  track(allReady: () => boolean): void {
    this.allReady = allReady;
  }

  /** The wait in ms (0 while a connection is not ready). */
  ms(): number {
    return this.allReady() ? this.connectTimeoutMs : 0;
  }
}
