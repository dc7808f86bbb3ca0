import { InvalidOptionsError } from '../../errors/invalid-options.error';
import { optionsSection } from './options-section';

interface DemoSettings {
  readonly connection?: string;
  readonly ttlMs: number;
  readonly maxLength?: number;
  readonly strict: boolean;
}

const demo = optionsSection<DemoSettings>({
  ttlMs: { number: { min: 1, integer: true, unit: 'ms' }, default: 1000 },
  maxLength: { number: { min: 1, integer: true } },
  strict: { boolean: true, default: true },
});
const context = { connectionNames: new Set(['default', 'jobs']) };

function optionOf(run: () => void): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidOptionsError) return error.option;
    throw error;
  }
  return undefined;
}

describe('optionsSection', () => {
  it('applies every default once, keeps what is given, and freezes the result', () => {
    const settings = demo.resolve({ connection: 'jobs', maxLength: 5, strict: false });
    expect(settings).toEqual({ connection: 'jobs', ttlMs: 1000, maxLength: 5, strict: false });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(demo.resolve()).toEqual({ connection: undefined, ttlMs: 1000, maxLength: undefined, strict: true });
  });

  it('keeps the default of an option given as undefined', () => {
    expect(demo.resolve({ ttlMs: undefined }).ttlMs).toBe(1000);
  });

  it.each([
    [{ ttlMs: 0 }, 'demo.ttlMs'],
    [{ ttlMs: 1.5 }, 'demo.ttlMs'],
    [{ maxLength: '3' }, 'demo.maxLength'],
    [{ strict: 'yes' }, 'demo.strict'],
    [{ connection: 'other' }, 'demo.connection'],
    [{ ttl: 5 }, 'demo.ttl'],
  ])('rejects %j naming %s', (section, option) => {
    expect(optionOf(() => demo.validate(section, 'demo', context))).toBe(option);
  });

  it('accepts a valid section and an empty one', () => {
    expect(optionOf(() => demo.validate({ connection: 'jobs', ttlMs: 5, maxLength: 1, strict: false }, 'demo', context))).toBeUndefined();
    expect(optionOf(() => demo.validate({}, 'demo', context))).toBeUndefined();
  });

  it('rejects a section that is not an object', () => {
    expect(optionOf(() => demo.validate(42, 'demo', context))).toBe('demo');
  });
});
