import { createRequire } from 'node:module';
import { formatWithOptions, type InspectOptions } from 'node:util';
import { redactSecrets } from './redact';

interface DebugModule {
  log: (...args: unknown[]) => unknown;
  inspectOpts?: InspectOptions;
}

const secrets = new Set<string>();
let installed = false;

/**
 * With `DEBUG=ioredis:*`, ioredis prints every command it sends — `AUTH` and `HELLO 3 AUTH <user> <password>`
 * included (redis/ioredis#1796) — through the `debug` package. This routes that package's output (the instance
 * ioredis loads) through {@link redactSecrets} with the passwords of the module's connections, so turning the
 * output on to diagnose a connection never prints them. Output that contains no registered secret is unchanged;
 * nothing is installed until a connection with a secret exists.
 */
export function redactDebugOutput(connectionSecrets: readonly string[]): void {
  for (const secret of connectionSecrets) if (secret.length >= 3) secrets.add(secret);
  if (installed || secrets.size === 0) return;
  const debug = loadIoredisDebug();
  if (!debug || typeof debug.log !== 'function') return;
  installed = true;
  // debug calls `instance.log || createDebug.log` at each line, so replacing the module's log covers loggers ioredis
  // created before this ran. Same formatting as debug's own node log, then the redaction.
  debug.log = function redactedLog(...args: unknown[]) {
    return process.stderr.write(`${redactSecrets(formatWithOptions(debug.inspectOpts ?? {}, ...args), [...secrets])}\n`);
  };
}

function loadIoredisDebug(): DebugModule | undefined {
  try {
    return createRequire(require.resolve('ioredis'))('debug') as DebugModule;
  } catch {
    return undefined; // ioredis without the debug package: nothing prints commands
  }
}
