import { checkBoolean, checkConnectionName, checkKnownKeys, checkNumber, checkObject, type SectionValidator } from './option-checks';

/** The rule of a number option (see checkNumber). */
export type NumberRule = Parameters<typeof checkNumber>[2];

/** One option of a section: a number with its rule, or a boolean; `default` is applied when the option is absent. */
export type SectionField =
  { readonly number: NumberRule; readonly default?: number } | { readonly boolean: true; readonly default: boolean };

/** A pattern's option section: its startup validator and the resolver that applies every default once. */
export interface OptionsSection<TSettings> {
  readonly validate: SectionValidator;
  /** The section with every default applied, frozen (an option given as undefined keeps its default). */
  readonly resolve: (section?: object) => TSettings;
}

/**
 * Declares a section made of `connection` (the name of a configured connection) and the given fields, so each pattern
 * states its options and defaults as data, and validation (unknown keys, types, ranges, every error naming the
 * dotted option) and defaults are applied the same way everywhere.
 */
export function optionsSection<TSettings extends { readonly connection?: string }>(fields: {
  readonly [K in Exclude<keyof TSettings, 'connection'>]-?: SectionField;
}): OptionsSection<TSettings> {
  const entries = Object.entries(fields) as Array<[string, SectionField]>;
  const known = ['connection', ...entries.map(([name]) => name)];
  const validate: SectionValidator = (value, path, context) => {
    const section = checkObject(value, path);
    checkKnownKeys(section, path, known);
    checkConnectionName(section.connection, `${path}.connection`, context);
    for (const [name, field] of entries) {
      const option = section[name];
      if (option === undefined) continue;
      if ('boolean' in field) checkBoolean(option, `${path}.${name}`);
      else checkNumber(option, `${path}.${name}`, field.number);
    }
  };
  const resolve = (section: object = {}): TSettings => {
    const given = section as Record<string, unknown>;
    const settings: Record<string, unknown> = { connection: given.connection };
    for (const [name, field] of entries) settings[name] = given[name] ?? field.default;
    return Object.freeze(settings) as TSettings;
  };
  return { validate, resolve };
}
