import type { LoggerService } from '@nestjs/common';
import type { RedisConnectionConfig } from './connection-config.interface';
import { CONNECTION_STARTUP_MODES, type ConnectionStartup, StartupWait } from '../connections/startup-wait';
import {
  checkKnownKeys,
  checkNumber,
  checkObject,
  checkOneOf,
  checkString,
  invalid,
  type OptionsValidationContext,
  type SectionValidator,
} from './option-checks';
import type { RedisPatternsCoreOptions } from './core-module-options.interface';
import { MEMORY_CONNECTION, validateConnectionConfig } from './validate-connection-config';

/** The name of the connection given as `connection`. */
export const DEFAULT_CONNECTION = 'default';

/** The options core owns (connections, key prefix, deadlines, logger), validated, with every default applied. */
export interface ResolvedCoreOptions {
  readonly connections: ReadonlyMap<string, RedisConnectionConfig>;
  readonly keyPrefix: string;
  readonly commandTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly connectionStartup: ConnectionStartup;
  /** How long a pattern may hold startup for its own first commands (see `StartupWait`). */
  readonly startupWait: StartupWait;
  readonly shutdownTimeoutMs: number;
  readonly logger?: LoggerService;
  /** `connection: 'memory://'`: every pattern runs in this process, no Redis (unit tests). */
  readonly inMemory: boolean;
}

const CORE_KEYS = [
  'connection',
  'connections',
  'keyPrefix',
  'commandTimeoutMs',
  'connectTimeoutMs',
  'connectionStartup',
  'shutdownTimeoutMs',
  'logger',
  'allowMemoryInProduction',
];

const CONNECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Validates module options once, at startup, and applies the core defaults; each pattern's section is checked by
 * the validator the module registers for it (core knows no pattern). Every failure is an `InvalidOptionsError`
 * naming the option and what it accepts. Sections are returned as given, for their pattern to resolve.
 */
export function resolveCoreOptions(
  raw: unknown,
  sections: Readonly<Record<string, SectionValidator>>,
): ResolvedCoreOptions & Record<string, unknown> {
  const options = checkObject(raw ?? {}, 'options') as RedisPatternsCoreOptions & Record<string, unknown>;
  checkKnownKeys(options, '', [...CORE_KEYS, ...Object.keys(sections)]);

  const connections = new Map<string, RedisConnectionConfig>();
  const main = options.connection ?? 'redis://127.0.0.1:6379';
  validateConnectionConfig(main, 'connection');
  connections.set(DEFAULT_CONNECTION, main);
  if (options.connections !== undefined) {
    const named = checkObject(options.connections, 'connections');
    for (const [name, config] of Object.entries(named)) {
      if (!CONNECTION_NAME.test(name) || name === DEFAULT_CONNECTION) {
        invalid(`connections.${name}`, `a connection name of letters, digits, "_", "-" or "." other than "${DEFAULT_CONNECTION}"`, name);
      }
      validateConnectionConfig(config, `connections.${name}`);
      connections.set(name, config as RedisConnectionConfig);
    }
  }

  const inMemory = checkMemoryMode(options, connections);

  const keyPrefix =
    options.keyPrefix === undefined
      ? 'rp'
      : checkString(options.keyPrefix, 'keyPrefix', {
          pattern: /^[^{}\s]{0,64}$/,
          describe: 'a string of at most 64 characters without "{", "}" or whitespace (braces would break cluster hash tags)',
        });

  const context: OptionsValidationContext = { connectionNames: new Set(connections.keys()), sections: options as Record<string, unknown> };
  for (const [section, validate] of Object.entries(sections)) {
    if (options[section] !== undefined) validate(options[section], section, context);
  }
  if (options.logger !== undefined && typeof (options.logger as { log?: unknown }).log !== 'function') {
    invalid('logger', 'a Nest LoggerService (an object with log, error and warn methods)', options.logger);
  }

  const connectTimeoutMs = checkNumber(options.connectTimeoutMs ?? 5000, 'connectTimeoutMs', { exclusiveMin: 0, unit: 'ms' });
  return {
    ...options,
    connections,
    keyPrefix,
    commandTimeoutMs: checkNumber(options.commandTimeoutMs ?? 500, 'commandTimeoutMs', { exclusiveMin: 0, max: 600_000, unit: 'ms' }),
    connectTimeoutMs,
    connectionStartup: checkOneOf(options.connectionStartup ?? 'check', 'connectionStartup', CONNECTION_STARTUP_MODES),
    startupWait: new StartupWait(connectTimeoutMs),
    shutdownTimeoutMs: checkNumber(options.shutdownTimeoutMs ?? 2000, 'shutdownTimeoutMs', { min: 0, unit: 'ms' }),
    logger: options.logger,
    inMemory,
  };
}

/**
 * Memory mode is all or nothing (one process has no second deployment to reach), and it is refused where a real
 * deployment is expected: a limit or a lock kept in one process's memory is no limit or lock for the others.
 */
function checkMemoryMode(options: RedisPatternsCoreOptions, connections: ReadonlyMap<string, RedisConnectionConfig>): boolean {
  const inMemory = connections.get(DEFAULT_CONNECTION) === MEMORY_CONNECTION;
  for (const [name, config] of connections) {
    if (name !== DEFAULT_CONNECTION && (config === MEMORY_CONNECTION) !== inMemory) {
      invalid(
        `connections.${name}`,
        inMemory
          ? '"memory://" as well (in memory mode every connection is)'
          : 'a Redis connection ("memory://" only when `connection` is)',
        inMemory ? 'a Redis connection' : MEMORY_CONNECTION,
      );
    }
  }
  if (options.allowMemoryInProduction !== undefined && typeof options.allowMemoryInProduction !== 'boolean') {
    invalid('allowMemoryInProduction', 'true or false', options.allowMemoryInProduction);
  }
  if (inMemory && process.env.NODE_ENV === 'production' && options.allowMemoryInProduction !== true) {
    invalid(
      'connection',
      'a Redis connection when NODE_ENV=production ("memory://" keeps limits, locks and caches in one process; set allowMemoryInProduction: true to run it anyway)',
      MEMORY_CONNECTION,
    );
  }
  return inMemory;
}
