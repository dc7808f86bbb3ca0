import type { LoggerService } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { RedisRefusedError } from '../../errors/redis-refused.error';
import { KeyBuilder } from '../keys/key-builder';
import { RedisExecutor } from '../scripts/redis-executor';
import { defineScript } from '../scripts/redis-script';
import { withDeadline } from '../time/with-deadline';
import { redactSecrets } from './redact';

/**
 * What every pattern sends: a script (EVALSHA, then EVAL after NOSCRIPT) declaring a key under the keyPrefix and
 * reading the server clock. It writes nothing, so it is harmless on an adopted client and needs no more than the
 * ACL every pattern needs (scripting, TIME, the prefix's keys).
 */
const PROBE_SCRIPT = defineScript<number>('startup_probe', `redis.call('TIME') return 1`, { keys: 1 });

/** Where and how long the startup check of one connection runs. */
export interface StartupProbeSettings {
  /** The connection's name, for messages. */
  readonly connection: string;
  readonly keyPrefix: string;
  /** The longest the check may take (the connect timeout): an outage must not delay startup further. */
  readonly deadlineMs: number;
  readonly logger: LoggerService;
  /** Secrets to keep out of log lines. */
  readonly secrets: readonly string[];
}

/**
 * Checks at startup that a connection may run what the patterns send, with one script call. A configuration refusal
 * (a missing ACL permission, the prefix's keys not granted, scripting disabled or renamed away) rejects with a
 * {@link RedisRefusedError} naming the permission, the command and the key: the module would otherwise start and fail
 * on every call. A connection that is not ready, or does not answer in time, is an outage: it is logged and startup
 * goes on, as the module does whenever Redis is down at startup.
 */
export async function probeConnection(client: Redis | Cluster, settings: StartupProbeSettings): Promise<void> {
  if (client.status !== 'ready') return;
  const key = new KeyBuilder(settings.keyPrefix).key('startup-probe');
  const outcome = await withDeadline(
    RedisExecutor.of(client)
      .run(PROBE_SCRIPT, [key], [])
      .then(
        () => undefined,
        (error: unknown) => error,
      ),
    settings.deadlineMs,
    () => new Error(`no reply within ${settings.deadlineMs} ms`),
  );
  if (outcome === undefined) return;
  if (outcome instanceof RedisRefusedError) {
    throw new RedisRefusedError(
      outcome.command,
      outcome.reply,
      `${outcome.detail} (startup check of connection "${settings.connection}": a script on key "${key}" under keyPrefix "${settings.keyPrefix}")`,
    );
  }
  const message = outcome instanceof Error ? outcome.message : String(outcome);
  settings.logger.warn(
    `Redis connection "${settings.connection}": the startup check could not run (${redactSecrets(message, settings.secrets)}); continuing, patterns apply their outage policies.`,
  );
}
