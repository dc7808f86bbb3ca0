import { InvalidArgumentError } from '../errors/invalid-argument.error';

/** Options of `PubSubService.subscribe`. */
export interface SubscribeOptions {
  /**
   * Whether the name is a glob pattern (`*`, `?`, `[…]`, as PSUBSCRIBE), like `psubscribe(name, handler)`. Default
   * false: the name is one channel whatever characters it holds, so a name built from user input (`room:${room}`)
   * can never subscribe to more than itself.
   */
  readonly pattern?: boolean;
}

const KNOWN: ReadonlySet<string> = new Set(['pattern']);

/** Whether `options` asks for a pattern; rejects anything but an object of known options, naming what is wrong. */
export function isPatternRequested(options: unknown): boolean {
  if (options === undefined) return false;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError('options', 'expected an object such as { pattern: true }');
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new InvalidArgumentError(`options.${key}`, 'unknown option (known: pattern)');
  }
  const { pattern } = options as SubscribeOptions;
  if (pattern !== undefined && typeof pattern !== 'boolean') throw new InvalidArgumentError('options.pattern', 'expected true or false');
  return pattern === true;
}
