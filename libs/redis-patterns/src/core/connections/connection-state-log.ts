import type { LoggerService } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { closedByServer, type ConnectionFailure, explainConnectionError, type FailureContext } from './connection-failure';

/** What a connection's outage means for the work it carries, as the down line says it. */
const REQUEST_PATH_CONSEQUENCE = 'until it is back, patterns apply their outage policies; it reconnects in the background.';
const DEDICATED_CONSEQUENCE = 'its subscriptions and blocking reads resume when it is back; it reconnects in the background.';

type State = 'connecting' | 'up' | 'lost' | 'down';

/** The first outcome of a connection attempt: ready, or the failure that ended it. */
export type ConnectionOutcome = { readonly ready: true } | { readonly ready: false; readonly failure: ConnectionFailure };

/** What the state log needs to know about the connection it watches. */
export interface StateLogSettings extends FailureContext {
  /** The connection's name as configured (a dedicated connection: `"<name>:<purpose>"`). */
  readonly name: string;
  /** A dedicated connection (subscriber, blocking reader) rather than a request-path one. */
  readonly dedicated?: boolean;
  /**
   * Whether the connection this one was opened from is down too: its line already tells the outage, so this one's
   * lines are debug only.
   */
  readonly coveredBy?: () => boolean;
}

/**
 * Logs a connection's state in the library's words, once per change, not once per reconnect attempt: going down is
 * one line naming the connection, what failed, what the patterns do meanwhile and what to check (an error for a
 * misconfiguration, a warning for an outage); a different failure while down is one more line; coming back is one
 * line at the level of the failure, with how long it lasted. A socket that drops and reconnects at the first attempt
 * is one line too. Passwords never appear.
 *
 * While `startup` is true the first failure is held for the startup check, which decides whether it fails startup
 * or is logged (see `reportAtStartup`).
 */
export class ConnectionStateLog {
  private state: State = 'connecting';
  private since = 0;
  private logged?: ConnectionFailure;
  /** The level the outage was logged at (recovery is logged at the same one). */
  private level: 'error' | 'warn' | 'debug' = 'warn';
  /** The kinds logged since the connection went down: a failure that alternates with another is not logged again. */
  private readonly loggedKinds = new Set<string>();
  private pending?: ConnectionFailure;
  private reconnects = 0;
  /** The first attempt's outcome, for the startup check. */
  private first?: ConnectionOutcome;
  private readonly waiters = new Set<(outcome: ConnectionOutcome | undefined) => void>();
  startup = false;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly settings: StateLogSettings,
    private readonly logger: LoggerService,
  ) {
    client.on('error', (error: unknown) => this.failed(explainConnectionError(error, settings)));
    client.on('ready', () => this.ready());
    client.on('close', () => this.closed());
    client.on('reconnecting', () => this.reconnecting());
  }

  /** The failure logged last while down (or held at startup), if the connection is not up. */
  get failure(): ConnectionFailure | undefined {
    return this.state === 'up'
      ? undefined
      : (this.logged ?? this.pending ?? (this.first?.ready === false ? this.first.failure : undefined));
  }

  /**
   * Resolves with the first outcome that is ready, or a failure `accept` accepts (all by default), or undefined after
   * `boundMs`: what the startup check waits for.
   */
  outcome(boundMs: number, accept: (failure: ConnectionFailure) => boolean = () => true): Promise<ConnectionOutcome | undefined> {
    if (this.client.status === 'ready') return Promise.resolve({ ready: true });
    if (this.first && (this.first.ready || accept(this.first.failure))) return Promise.resolve(this.first);
    return new Promise((resolve) => {
      const finish = (outcome: ConnectionOutcome | undefined): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(outcome);
      };
      const waiter = (outcome: ConnectionOutcome | undefined): void => {
        if (!outcome || outcome.ready || accept(outcome.failure)) finish(outcome);
      };
      const timer = setTimeout(() => finish(undefined), boundMs);
      this.waiters.add(waiter);
    });
  }

  /** Ends every `outcome` wait now (startup failed elsewhere): no timer outlives a failed startup. */
  stopWaiting(): void {
    for (const waiter of [...this.waiters]) waiter(undefined);
  }

  /**
   * A cause found by a watcher rather than by the client (a server that stopped answering): logged as the reason
   * when the watcher then drops the socket.
   */
  noteCause(failure: ConnectionFailure): void {
    if (this.state === 'up') this.pending = failure;
  }

  /** Ends the startup phase: a failure held so far is logged now, with the line saying startup goes on without it. */
  reportAtStartup(): void {
    this.startup = false;
    if (this.state === 'up') return;
    const failure = this.first?.ready === false ? this.first.failure : undefined;
    if (!failure) return;
    this.state = 'down';
    this.logged = failure;
    this.loggedKinds.add(failure.kind);
    const { name, endpoint } = this.settings;
    this.level = failure.misconfiguration ? 'error' : 'warn';
    this.log(
      this.level,
      `Redis connection "${name}" (${endpoint}) is not available at startup: ${failure.what}. The application starts anyway: ${this.consequence()} ${failure.check}`,
    );
  }

  private failed(failure: ConnectionFailure): void {
    if (!this.first) this.settle({ ready: false, failure });
    for (const waiter of [...this.waiters]) waiter({ ready: false, failure });
    if (this.startup && this.state === 'connecting') return;
    switch (this.state) {
      case 'connecting':
        this.since = performance.now();
        this.down(failure);
        return;
      case 'up':
        // An error on a live socket is followed by its close: reported then, with this cause.
        this.pending = this.pending ?? failure;
        return;
      case 'lost':
        this.down(this.pending?.kind === 'stopped-answering' ? this.pending : failure);
        return;
      case 'down':
        if (!this.loggedKinds.has(failure.kind)) this.changed(failure);
        return;
    }
  }

  private ready(): void {
    if (!this.first) this.settle({ ready: true });
    for (const waiter of [...this.waiters]) waiter({ ready: true });
    const { name, endpoint } = this.settings;
    const seconds = ((performance.now() - this.since) / 1000).toFixed(1);
    if (this.state === 'down' && this.logged) {
      this.log(this.level, `Redis connection "${name}" is back after ${seconds} s.`);
    } else if (this.state === 'lost') {
      const cause = this.pending ?? closedByServer(endpoint);
      this.logger.warn(`Redis connection "${name}" (${endpoint}) dropped (${cause.what}) and is back after ${seconds} s.`);
    } else if (this.state === 'connecting') {
      this.logger.debug?.(`Redis connection "${name}" (${endpoint}) is ready.`);
    }
    this.state = 'up';
    this.logged = undefined;
    this.loggedKinds.clear();
    this.pending = undefined;
    this.reconnects = 0;
  }

  private closed(): void {
    if (this.state !== 'up') return;
    this.since = performance.now();
    this.reconnects = 0;
    // A server that stopped answering is known at once; any other close waits for the first reconnect attempt, so
    // a restart is reported as "connection refused" (or as a blip, if the attempt succeeds), not twice.
    if (this.pending?.kind === 'stopped-answering') this.down(this.pending);
    else this.state = 'lost';
  }

  private reconnecting(): void {
    // Two attempts without an error of their own (the server accepts and closes at once): report what is known.
    if (this.state === 'lost' && ++this.reconnects >= 2) this.down(this.pending ?? closedByServer(this.settings.endpoint));
  }

  private down(failure: ConnectionFailure): void {
    this.state = 'down';
    this.logged = failure;
    this.loggedKinds.add(failure.kind);
    this.pending = undefined;
    const { name, endpoint } = this.settings;
    this.level = this.settings.coveredBy?.() ? 'debug' : failure.misconfiguration ? 'error' : 'warn';
    this.log(
      this.level,
      `Redis connection "${name}" (${endpoint}) is down: ${failure.what}. ${capitalized(this.consequence())} ${failure.check}`,
    );
  }

  private changed(failure: ConnectionFailure): void {
    this.logged = failure;
    this.loggedKinds.add(failure.kind);
    if (failure.misconfiguration && this.level === 'warn') this.level = 'error';
    this.log(
      this.level,
      `Redis connection "${this.settings.name}" (${this.settings.endpoint}) is still down, now: ${failure.what}. ${failure.check}`,
    );
  }

  private log(level: 'error' | 'warn' | 'debug', message: string): void {
    if (level === 'debug') this.logger.debug?.(message);
    else this.logger[level](message);
  }

  private consequence(): string {
    return this.settings.dedicated ? DEDICATED_CONSEQUENCE : REQUEST_PATH_CONSEQUENCE;
  }

  private settle(outcome: ConnectionOutcome): void {
    this.first = outcome;
    if (!outcome.ready && this.startup) this.since = performance.now();
  }
}

function capitalized(sentence: string): string {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
