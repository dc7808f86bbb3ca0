import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { checkCost, compilePolicies, type PolicyErrorFactory } from './compile-policies';

const error: PolicyErrorFactory = (field, expected) => new InvalidArgumentError(field, expected);
const fieldOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    return (e as InvalidArgumentError).argument;
  }
  throw new Error('did not throw');
};

describe('compilePolicies', () => {
  it('compiles once per policy object', () => {
    const policy = { algorithm: 'fixed-window', limit: 5, windowMs: 1000 } as const;
    expect(compilePolicies(policy, 'policy', error)).toBe(compilePolicies(policy, 'policy', error));
  });

  it('compiles once per distinct parameters, for policy objects built per call', () => {
    const plan = (limit: number) => [
      { algorithm: 'fixed-window', limit, windowMs: 1000 },
      { algorithm: 'gcra', limit: 2 * limit, periodMs: 60_000 },
    ];
    const first = compilePolicies(plan(7), 'policy', error);
    expect(compilePolicies(plan(7), 'policy', error)).toBe(first);
    expect(compilePolicies(plan(8), 'policy', error)).not.toBe(first);
    expect(compilePolicies(plan(8), 'policy', error).args).toEqual([1, 8, 1000, 5, 16, (16 * 1000) / 60_000]);
    // A single policy and a list of it are different inputs with different shapes, though they compile alike.
    expect(compilePolicies(plan(7)[0], 'policy', error)).not.toBe(first);
  });

  it('never lets an invalid policy share a cached shape with a valid one that prints alike', () => {
    compilePolicies({ algorithm: 'fixed-window', limit: 5, windowMs: 1000 }, 'policy', error);
    expect(fieldOf(() => compilePolicies({ algorithm: 'fixed-window', limit: '5', windowMs: 1000 }, 'policy', error))).toBe('policy.limit');
  });

  it('precomputes script arguments, key suffixes and the RateLimit-Policy header', () => {
    const compiled = compilePolicies(
      [
        { algorithm: 'gcra', limit: 4, periodMs: 1000 },
        { algorithm: 'token-bucket', capacity: 10, refillPerSecond: 2 },
      ],
      'policy',
      error,
    );
    expect(compiled.args).toEqual([5, 4, 4, 4, 10, 2]);
    expect(compiled.keySuffixes).toEqual([':gcra2:4:1000:4', ':tb2:10:2']);
    expect(compiled.policyHeader).toBe('"p0";q=4;w=1, "p1";q=10;w=5');
    expect(compiled.fractionalCost).toBe(true);
  });

  it('names the invalid field', () => {
    expect(fieldOf(() => compilePolicies({ algorithm: 'fixed-window', limit: -1, windowMs: 1 }, 'policy', error))).toBe('policy.limit');
    expect(fieldOf(() => compilePolicies({ algorithm: 'nope' }, 'policy', error))).toBe('policy.algorithm');
    expect(fieldOf(() => compilePolicies([], 'policy', error))).toBe('policy');
    expect(fieldOf(() => compilePolicies({ algorithm: 'sliding-log', limit: 1_000_000, windowMs: 1 }, 'policy', error))).toBe(
      'policy.limit',
    );
    const twice = { algorithm: 'fixed-window', limit: 1, windowMs: 1 };
    expect(fieldOf(() => compilePolicies([twice, { ...twice }], 'policy', error))).toBe('policy[1]');
  });

  it("rejects the name 'sliding-window', renamed 'sliding-log' in 1.0, naming the new name; the counter keeps its name", () => {
    // The service's error factory (rate-limiter.service.ts); a decorator's raises InvalidOptionsError at startup alike.
    const argumentError: PolicyErrorFactory = (field, expected, received) =>
      new InvalidArgumentError(field, `expected ${expected}, received ${received}`);
    const renamed = () => compilePolicies({ algorithm: 'sliding-window', limit: 5, windowMs: 1000 }, 'policy', argumentError);
    expect(renamed).toThrow(InvalidArgumentError);
    expect(renamed).toThrow(
      `Invalid argument "policy.algorithm": expected 'sliding-log' ('sliding-window' was renamed 'sliding-log' in 1.0; ` +
        `'sliding-window-counter' keeps its name), received "sliding-window"`,
    );
    // In a list too.
    const list = [
      { algorithm: 'fixed-window', limit: 5, windowMs: 1000 },
      { algorithm: 'sliding-window', limit: 5, windowMs: 1000 },
    ];
    expect(fieldOf(() => compilePolicies(list, 'policy', error))).toBe('policy[1].algorithm');
    // The new name compiles to the same algorithm and keys (tag `sw`) as before; the counter is unchanged.
    const [log] = compilePolicies({ algorithm: 'sliding-log', limit: 5, windowMs: 1000 }, 'policy', error).policies;
    expect(log).toMatchObject({ algorithm: 'sliding-log', code: 2, suffix: 'sw:5:1000' });
    const [counter] = compilePolicies({ algorithm: 'sliding-window-counter', limit: 5, windowMs: 1000 }, 'policy', error).policies;
    expect(counter).toMatchObject({ algorithm: 'sliding-window-counter', code: 3, suffix: 'swc2:5:1000' });
  });

  it('accepts a fractional cost only where every policy allows one', () => {
    const windows = compilePolicies({ algorithm: 'fixed-window', limit: 5, windowMs: 1000 }, 'policy', error);
    expect(fieldOf(() => checkCost(0.5, windows, error))).toBe('cost');
    expect(checkCost(undefined, windows, error)).toBe(1);
    const bucket = compilePolicies({ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 }, 'policy', error);
    expect(checkCost(0.5, bucket, error)).toBe(0.5);
  });
});
