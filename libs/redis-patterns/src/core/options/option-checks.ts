import { InvalidOptionsError } from '../../errors/invalid-options.error';

/** What every section validator may consult: the connection names that exist. */
export interface OptionsValidationContext {
  readonly connectionNames: ReadonlySet<string>;
  /** Every section as given, for a section whose rule depends on another's (write-behind on the cache's connection). */
  readonly sections?: Readonly<Record<string, unknown>>;
}

/** A validator of one option section; `path` is the section's dotted name. */
export type SectionValidator = (value: unknown, path: string, context: OptionsValidationContext) => void;

/** A short, secret-free description of a received value for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value);
    case 'function':
      return 'a function';
    default:
      return 'an object';
  }
}

export function invalid(path: string, expected: string, value: unknown): never {
  throw new InvalidOptionsError(path, expected, describeValue(value));
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function checkObject(value: unknown, path: string): Record<string, unknown> {
  if (!isPlainObject(value)) invalid(path, 'an object', value);
  return value;
}

/**
 * Option names of 0.x that 1.0 renamed (docs/glossary.md): given where the new name is known, the error names it, so
 * an upgrade fails at startup with the fix in the message.
 */
const RENAMED_IN_1_0: Readonly<Record<string, string>> = {
  maxLen: 'maxLength',
  maxSize: 'maxLength',
  deadLetterMaxLen: 'deadLetterMaxLength',
  leaseMs: 'ttlMs',
  waitTimeoutMs: 'waitReplicasTimeoutMs',
  name: 'resource',
};

/** Options of 0.x that 1.0 removed, with what replaces them: the startup error says so. */
const REMOVED_IN_1_0: Readonly<Record<string, string>> = {
  breakerThreshold: "no option: the connection's liveness skips Redis from the first unanswered command (docs/caching.md)",
  breakerCooldownMs: "no option: the connection's liveness skips Redis until a probe answers, every 250 ms (docs/caching.md)",
};

/** Unknown keys are rejected so that a typo (`defaultTTL`) fails loudly instead of being ignored. */
export function checkKnownKeys(value: Record<string, unknown>, path: string, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    if (Object.hasOwn(REMOVED_IN_1_0, key)) {
      throw new InvalidOptionsError(path ? `${path}.${key}` : key, REMOVED_IN_1_0[key], 'an option removed in 1.0');
    }
    const renamed = Object.hasOwn(RENAMED_IN_1_0, key) ? RENAMED_IN_1_0[key] : undefined;
    const expected =
      renamed !== undefined && allowed.includes(renamed)
        ? `\`${renamed}\` (\`${key}\` was renamed in 1.0)`
        : `one of the known options (${allowed.join(', ')})`;
    throw new InvalidOptionsError(path ? `${path}.${key}` : key, expected, 'an unknown option');
  }
}

export function checkNumber(
  value: unknown,
  path: string,
  rule: { min?: number; exclusiveMin?: number; max?: number; integer?: boolean; unit?: string },
): number {
  const unit = rule.unit ? ` (${rule.unit})` : '';
  const kind = rule.integer ? 'an integer' : 'a number';
  let expected = `${kind}${unit}`;
  if (rule.exclusiveMin !== undefined) expected = `${kind} greater than ${rule.exclusiveMin}${unit}`;
  else if (rule.min !== undefined) expected = `${kind} of at least ${rule.min}${unit}`;
  if (rule.max !== undefined) expected += ` and at most ${rule.max}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid(path, expected, value);
  if (rule.integer && !Number.isInteger(value)) invalid(path, expected, value);
  if (rule.exclusiveMin !== undefined && value <= rule.exclusiveMin) invalid(path, expected, value);
  if (rule.min !== undefined && value < rule.min) invalid(path, expected, value);
  if (rule.max !== undefined && value > rule.max) invalid(path, expected, value);
  return value;
}

export function checkOptionalNumber(value: unknown, path: string, rule: Parameters<typeof checkNumber>[2]): number | undefined {
  return value === undefined ? undefined : checkNumber(value, path, rule);
}

export function checkBoolean(value: unknown, path: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') invalid(path, 'true or false', value);
  return value as boolean | undefined;
}

export function checkString(value: unknown, path: string, rule: { nonEmpty?: boolean; pattern?: RegExp; describe?: string } = {}): string {
  const expected = rule.describe ?? (rule.nonEmpty ? 'a non-empty string' : 'a string');
  if (typeof value !== 'string') invalid(path, expected, value);
  if (rule.nonEmpty && value.length === 0) invalid(path, expected, value);
  if (rule.pattern && !rule.pattern.test(value)) invalid(path, expected, value);
  return value;
}

export function checkOneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    invalid(path, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, value);
  }
  return value as T;
}

/** A pattern section's `connection` must name a connection that exists. */
export function checkConnectionName(value: unknown, path: string, context: OptionsValidationContext): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || !context.connectionNames.has(value)) {
    invalid(path, `the name of a configured connection (${[...context.connectionNames].map((n) => `"${n}"`).join(', ')})`, value);
  }
}
