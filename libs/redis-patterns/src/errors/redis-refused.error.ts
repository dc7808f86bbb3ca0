import { httpAnswer } from './http-answer';
import type { HttpResponseSpec } from './http-mappable';
import { AnsweredRedisPatternsError } from './redis-patterns.error';

// Replies that say the server will never run this command for this connection as configured: an ACL permission
// (NOPERM), credentials (NOAUTH, WRONGPASS), a command renamed or disabled away (unknown command), a key of another
// type than the pattern writes (WRONGTYPE), or scripting turned off. Retrying or failing open would hide them forever.
const CONFIGURATION_REPLY =
  /^(NOPERM|NOAUTH|WRONGPASS|WRONGTYPE)\b|^ERR (unknown command|unknown subcommand|This Redis command is not allowed|.*(is disabled|not allowed from script))/;

/** The Redis error code of a configuration reply (`NOPERM`, `WRONGTYPE`, `ERR` …), or undefined for anything else. */
export function configurationReplyCode(error: unknown): string | undefined {
  const message = (error as Error | undefined)?.message;
  if (typeof message !== 'string' || !CONFIGURATION_REPLY.test(message)) return undefined;
  return message.slice(0, message.search(/\s|$/));
}

/**
 * Redis refused a command of the library for a reason that retrying will not change: the connection's ACL user lacks
 * a permission (`NOPERM`), a command was renamed or disabled away, or a key holds another type than the pattern
 * writes (`WRONGTYPE`). A configuration error, not an outage: no pattern fails open on it (rate limits deny, caches
 * raise it from `set`, locks throw), and health reports the connection down with this message. `reply` is the Redis
 * error code; `command` the command the library sent.
 */
export class RedisRefusedError extends AnsweredRedisPatternsError {
  /** This error's stable code (docs/errors.md). */
  readonly code = 'REDIS_REFUSED';

  constructor(
    /** The command the library sent, as Redis spells it (e.g. `evalsha`). */
    readonly command: string,
    /** The Redis error code of the reply (`NOPERM`, `WRONGTYPE`, `ERR` …). */
    readonly reply: string,
    /** The first line of the server's reply, or that line with the context in which the library sent the command. */
    readonly detail: string,
  ) {
    super(
      `Redis refused ${command.toUpperCase()}: ${detail} (a configuration error, not an outage: see docs/security.md for the ACL each pattern needs)`,
    );
  }

  /** Wraps `error` when it is a configuration reply; anything else is returned unchanged. */
  static from(command: string, error: unknown): unknown {
    if (error instanceof RedisRefusedError) return error;
    const reply = configurationReplyCode(error);
    return reply === undefined ? error : new RedisRefusedError(command, reply, (error as Error).message.split('\n')[0]);
  }

  /**
   * A server misconfiguration: 503 to the caller, without the details (they are in the server log), and without
   * `Retry-After`: retrying will not help until the configuration is fixed.
   */
  toHttpResponse(): HttpResponseSpec {
    return httpAnswer(503, 'The service cannot use its Redis server');
  }
}
