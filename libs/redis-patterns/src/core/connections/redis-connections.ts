import { Logger, type LoggerService, type OnApplicationShutdown } from '@nestjs/common';
import { Cluster, type Redis, type RedisOptions } from 'ioredis';
import { ConnectionNotFoundError } from '../../errors/connection-not-found.error';
import { NoRedisInMemoryModeError } from '../../errors/no-redis-in-memory-mode.error';
import { MemoryKeyspace } from '../memory/memory-keyspace';
import { DEFAULT_CONNECTION, type ResolvedCoreOptions } from '../options/resolve-options';
import { clientName, createClient, type ManagedClient } from './create-client';
import { DEDICATED_CONNECTION_OVERRIDES } from './fail-fast-defaults';
import { RedisExecutor } from '../scripts/redis-executor';
import { closeClient } from './client-lifecycle';
import { stoppedAnswering } from './connection-failure';
import { startConnections, type StartingConnection } from './connection-startup';
import { ConnectionStateLog } from './connection-state-log';
import { recordCommandTimeouts, recordConnectionMetrics } from './connection.metrics';
import { FrozenServerWatchdog } from './frozen-server-watchdog';
import { redactDebugOutput } from './redact-debug-output';
import { SentinelSwitchWatcher } from './sentinel-switch-watcher';
import { probeConnection } from './startup-probe';

/** An ioredis client of either kind. */
export type RedisClient = Redis | Cluster;

/**
 * The module's Redis connections: the default one, named extras, and dedicated connections for blocking reads
 * and subscriptions. It closes what it created at shutdown (after the patterns have stopped their work in
 * `beforeApplicationShutdown`) and never closes an adopted client.
 */
export class RedisConnections implements OnApplicationShutdown {
  private readonly managed = new Map<string, ManagedClient>();
  private readonly dedicated = new Set<RedisClient>();
  private readonly watchers: Array<{ start(): void; stop(): void }> = [];
  private readonly stateLogs = new Map<string, ConnectionStateLog>();
  private readonly logger: LoggerService;
  private closed = false;
  /**
   * In memory mode (`connection: 'memory://'`), the keys every pattern's in-memory store keeps; undefined when the
   * module talks to Redis. One per module instance, so two applications in one process share nothing.
   * @internal
   */
  readonly memory?: MemoryKeyspace;

  // Created by `RedisConnections.open`, which the module calls.
  private constructor(private readonly options: ResolvedCoreOptions) {
    this.logger = options.logger ?? new Logger('RedisPatterns');
    if (options.inMemory) this.memory = new MemoryKeyspace();
  }

  /**
   * Creates every configured connection, waits for them as `connectionStartup` says (by default, each one's first
   * attempt, at most a second), and checks that each ready one may run the patterns' scripts on the keyPrefix's keys.
   * Whatever fails, nothing it opened stays open.
   * @throws ConnectionStartupError when a connection cannot be used (wrong credentials, unknown host; or not ready in
   * time with `connectionStartup: 'wait'`).
   * @throws RedisRefusedError when Redis refuses that check (an ACL permission or key pattern missing).
   * @internal
   */
  static async open(options: ResolvedCoreOptions): Promise<RedisConnections> {
    const connections = new RedisConnections(options);
    if (connections.memory) {
      connections.logger.warn(
        'Running in memory (connection "memory://"): caches, limits and locks live in this process only. For unit tests, never for a deployment.',
      );
      return connections;
    }
    for (const [name, config] of options.connections) {
      const managed = createClient(config, {
        name,
        keyPrefix: options.keyPrefix,
        commandTimeoutMs: options.commandTimeoutMs,
        connectTimeoutMs: options.connectTimeoutMs,
      });
      connections.managed.set(name, managed);
      redactDebugOutput(managed.secrets);
      recordCommandTimeouts(managed.client, name);
      RedisExecutor.of(managed.client).failures.connection = name;
      if (managed.owned) {
        connections.stateLogs.set(name, connections.stateLog(managed.client, name, managed));
        recordConnectionMetrics(managed.client, name);
        connections.watch(managed, name);
      }
    }
    options.startupWait.track(() => [...connections.managed.values()].every((managed) => managed.client.status === 'ready'));
    const starting: StartingConnection[] = [...connections.managed].map(([name, managed]) => ({
      name,
      managed,
      stateLog: connections.stateLogs.get(name),
    }));
    try {
      await startConnections(starting, options.connectionStartup, options.connectTimeoutMs, connections.logger);
    } catch (error) {
      await connections.onApplicationShutdown();
      throw error;
    }
    await connections.checkPermissions();
    return connections;
  }

  private stateLog(client: RedisClient, name: string, managed: ManagedClient, base?: string): ConnectionStateLog {
    const { commandTimeoutMs, connectTimeoutMs } = this.options;
    const coveredBy = base === undefined ? undefined : () => this.stateLogs.get(base)?.failure !== undefined;
    const settings = { name, endpoint: managed.endpoint, secrets: managed.secrets, commandTimeoutMs, connectTimeoutMs };
    return new ConnectionStateLog(client, { ...settings, dedicated: base !== undefined, coveredBy }, this.logger);
  }

  /**
   * The startup check of every ready connection (see `probeConnection`): a configuration refusal fails startup,
   * after closing what was opened; an outage is only logged.
   */
  private async checkPermissions(): Promise<void> {
    const { keyPrefix, connectTimeoutMs } = this.options;
    try {
      await Promise.all(
        [...this.managed].map(([name, managed]) =>
          probeConnection(managed.client, {
            connection: name,
            keyPrefix,
            deadlineMs: connectTimeoutMs,
            logger: this.logger,
            secrets: managed.secrets,
          }),
        ),
      );
    } catch (error) {
      await this.onApplicationShutdown();
      throw error;
    }
  }

  /**
   * Watchers of an owned non-cluster connection: a frozen-server watchdog, and for Sentinel a +switch-master
   * subscriber. (A cluster client already refreshes its topology and redirects on MOVED.)
   */
  private watch(managed: ManagedClient, name: string): void {
    if (managed.client instanceof Cluster) return;
    const { commandTimeoutMs } = this.options;
    const onFrozen = (): void => this.stateLogs.get(name)?.noteCause(stoppedAnswering({ endpoint: managed.endpoint, commandTimeoutMs }));
    const added: Array<{ start(): void; stop(): void }> = [
      new FrozenServerWatchdog(managed.client, onFrozen, Math.max(100, Math.floor(commandTimeoutMs / 2)), commandTimeoutMs),
    ];
    if (managed.kind === 'sentinel') added.push(new SentinelSwitchWatcher(managed.client, name, this.logger));
    for (const watcher of added) watcher.start();
    this.watchers.push(...added);
  }

  /** The client of a configured connection (`'default'` is the `connection` option). */
  get(name: string = DEFAULT_CONNECTION): RedisClient {
    if (this.memory) throw new NoRedisInMemoryModeError(`The Redis client of connection "${name}"`);
    const managed = this.managed.get(name);
    if (!managed) throw new ConnectionNotFoundError(name, [...this.managed.keys()]);
    return managed.client;
  }

  /**
   * The executor every store sends its commands through, for a configured connection.
   * @internal
   */
  executor(name: string = DEFAULT_CONNECTION): RedisExecutor {
    return RedisExecutor.of(this.get(name));
  }

  /** Whether a connection of that name was configured. */
  has(name: string): boolean {
    return this.options.connections.has(name);
  }

  /** The configured connection names, `'default'` first. */
  names(): string[] {
    return [...this.options.connections.keys()];
  }

  /** Kind, endpoint (never credentials) and ownership of a connection, for health and diagnostics. @internal */
  describe(name: string = DEFAULT_CONNECTION): Pick<ManagedClient, 'kind' | 'endpoint' | 'owned'> {
    if (this.memory && this.has(name)) return { kind: 'memory', endpoint: 'memory://', owned: true };
    const managed = this.managed.get(name);
    if (!managed) throw new ConnectionNotFoundError(name, [...this.managed.keys()]);
    return { kind: managed.kind, endpoint: managed.endpoint, owned: managed.owned };
  }

  /**
   * A new connection to the same deployment for blocking commands or subscriptions: no command deadline, an
   * offline queue, automatic re-subscription. The module owns and closes it at shutdown; `closeDedicated`
   * closes it earlier. `options` override those defaults (on a cluster, for its node connections).
   */
  createDedicated(purpose: string, name: string = DEFAULT_CONNECTION, options: RedisOptions = {}): RedisClient {
    if (this.memory) throw new NoRedisInMemoryModeError(`A dedicated connection (${purpose})`);
    if (this.closed) throw new Error('RedisConnections is closed: no new dedicated connection can be opened.');
    const base = this.get(name);
    const overrides = {
      ...DEDICATED_CONNECTION_OVERRIDES,
      ...options,
      connectionName: clientName(this.options.keyPrefix, name, purpose),
    };
    const client: RedisClient =
      base instanceof Cluster
        ? base.duplicate([], {
            enableOfflineQueue: true,
            enableAutoPipelining: false,
            redisOptions: { ...base.options.redisOptions, ...overrides, lazyConnect: true },
          })
        : base.duplicate(overrides);
    const managed = this.managed.get(name)!;
    this.stateLog(client, `${name}:${purpose}`, managed, name);
    recordConnectionMetrics(client, name);
    this.dedicated.add(client);
    return client;
  }

  /** Closes a dedicated connection now (QUIT with the shutdown deadline, then disconnect). */
  async closeDedicated(client: RedisClient): Promise<void> {
    if (!this.dedicated.delete(client)) return;
    await closeClient(client, this.options.shutdownTimeoutMs);
  }

  /** Closes every owned connection, dedicated ones first; adopted clients stay open. */
  async onApplicationShutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const watcher of this.watchers) watcher.stop();
    const dedicated = [...this.dedicated];
    this.dedicated.clear();
    await Promise.all(dedicated.map((client) => closeClient(client, this.options.shutdownTimeoutMs)));
    await Promise.all(
      [...this.managed.values()]
        .filter((managed) => managed.owned)
        .map((managed) => closeClient(managed.client, this.options.shutdownTimeoutMs)),
    );
  }
}
