import { InvalidArgumentError } from '../../errors/invalid-argument.error';
import { compilePolicies } from '../compile-policies';
import { BoundedEntries, MemoryRateLimiter } from './memory-rate-limiter';

const compile = (policy: unknown) => compilePolicies(policy, 'policy', (f, e) => new InvalidArgumentError(f, e));

describe('MemoryRateLimiter', () => {
  it.each([
    [{ algorithm: 'fixed-window', limit: 3, windowMs: 1000 }],
    [{ algorithm: 'sliding-log', limit: 3, windowMs: 1000 }],
    [{ algorithm: 'sliding-window-counter', limit: 3, windowMs: 1000 }],
    [{ algorithm: 'token-bucket', capacity: 3, refillPerSecond: 1 }],
    [{ algorithm: 'gcra', limit: 3, periodMs: 1000 }],
  ])('enforces %j exactly and refills with time', (policy) => {
    const memory = new MemoryRateLimiter();
    const compiled = compile(policy);
    const t = 1_000_000;
    const allowed = Array.from({ length: 5 }, () => memory.consume(['k'], compiled, 1, t)[0]);
    expect(allowed).toEqual([1, 1, 1, 0, 0]);
    const denied = memory.consume(['k'], compiled, 1, t);
    expect(denied[3]).toBeGreaterThan(0);
    expect(memory.consume(['k'], compiled, 1, t + 2001)[0]).toBe(1);
  });

  it('is all-or-nothing across policies', () => {
    const memory = new MemoryRateLimiter();
    const wide = { algorithm: 'fixed-window', limit: 5, windowMs: 1000 };
    const narrow = { algorithm: 'fixed-window', limit: 1, windowMs: 1000 };
    const both = compile([wide, narrow]);
    expect(memory.consume(['a', 'b'], both, 1, 0)[0]).toBe(1);
    expect(memory.consume(['a', 'b'], both, 1, 0)[0]).toBe(0);
    // The denied call did not consume from the wide policy.
    expect(memory.consume(['a'], compile(wide), 0, 0)[1]).toBe(4);
  });

  it('stays bounded', () => {
    const entries = new BoundedEntries(100);
    const memory = new MemoryRateLimiter(entries);
    const compiled = compile({ algorithm: 'fixed-window', limit: 1, windowMs: 60_000 });
    for (let i = 0; i < 1000; i++) memory.consume([`k${i}`], compiled, 1, 0);
    expect(entries.size).toBeLessThanOrEqual(100);
  });
});
