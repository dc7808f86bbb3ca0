import { InvalidArgumentError } from '../../errors/invalid-argument.error';
import { buildPolicy, freshTtlMs, jitteredTtlMs } from './entry-policy';

const defaults = { ttlMs: 60_000, jitter: 0.1 };

describe('entry policy', () => {
  it('jitter only shortens a TTL, by at most the configured fraction', () => {
    const policy = buildPolicy({ ttl: 10 }, defaults);
    const ttls = Array.from({ length: 2000 }, () => jitteredTtlMs(policy.ttlMs, policy.jitter));
    expect(Math.max(...ttls)).toBeLessThanOrEqual(10_000);
    expect(Math.min(...ttls)).toBeGreaterThanOrEqual(9_000);
    expect(new Set(ttls).size).toBeGreaterThan(100);
    expect(jitteredTtlMs(buildPolicy({ ttl: 10 }, { ttlMs: 1, jitter: 0 }).ttlMs, 0)).toBe(10_000);
  });

  it('takes the TTL of a write from a function of the value, validated per value', () => {
    const policy = buildPolicy({ ttl: (value: unknown[]) => (value.length === 0 ? 5 : 300) }, defaults);
    expect(freshTtlMs(policy, [])).toBe(5_000);
    expect(freshTtlMs(policy, [1])).toBe(300_000);
    const bad = buildPolicy({ ttl: () => -1 }, defaults);
    expect(() => freshTtlMs(bad, 'x')).toThrow(/ttl\(value\)/);
    expect(freshTtlMs(buildPolicy({ ttl: 2 }, defaults), 'x')).toBe(2_000);
  });

  it('names the bad field', () => {
    expect(() => buildPolicy({ ttl: -1 }, defaults)).toThrow(InvalidArgumentError);
    expect(() => buildPolicy({ ttl: -1 }, defaults)).toThrow(/options\.ttl/);
    expect(() => buildPolicy({ staleTtl: Number.NaN }, defaults)).toThrow(/options\.staleTtl/);
    expect(() => buildPolicy({ tags: ['a', ''] }, defaults)).toThrow(/options\.tags/);
    expect(() => buildPolicy({ earlyRefresh: -2 }, defaults)).toThrow(/options\.earlyRefresh/);
  });

  it('converts seconds to ms and dedupes tags', () => {
    expect(buildPolicy({ ttl: 1.5, staleTtl: 2, earlyRefresh: true, tags: ['a', 'a', 'b'] }, defaults)).toEqual({
      ttlMs: 1500,
      jitter: 0.1,
      staleMs: 2000,
      beta: 1,
      tags: ['a', 'b'],
      graceMs: 0,
      softTimeoutMs: 0,
      hardTimeoutMs: 0,
    });
  });

  it('takes the grace window and loader timeouts of a call, else the module defaults, and checks them', () => {
    const module = { ...defaults, graceMs: 30_000, softTimeoutMs: 100, hardTimeoutMs: 2_000 };
    expect(buildPolicy(undefined, module)).toMatchObject({ graceMs: 30_000, softTimeoutMs: 100, hardTimeoutMs: 2_000 });
    expect(buildPolicy({ ttl: 1 }, module)).toMatchObject({ graceMs: 30_000, softTimeoutMs: 100, hardTimeoutMs: 2_000 });
    expect(buildPolicy({ graceMs: 0, hardTimeoutMs: 50, softTimeoutMs: 0 }, module)).toMatchObject({
      graceMs: 0,
      softTimeoutMs: 0,
      hardTimeoutMs: 50,
    });
    expect(() => buildPolicy({ graceMs: -1 }, defaults)).toThrow(/options\.graceMs/);
    expect(() => buildPolicy({ hardTimeoutMs: 1.5 }, defaults)).toThrow(/options\.hardTimeoutMs/);
    expect(() => buildPolicy({ softTimeoutMs: 600_001 }, defaults)).toThrow(/options\.softTimeoutMs/);
    // A soft timeout at or past the hard one would never fire.
    expect(() => buildPolicy({ softTimeoutMs: 2_000 }, module)).toThrow(/options\.softTimeoutMs.*below hardTimeoutMs \(2000\)/);
    expect(() => buildPolicy({ forceFresh: 'yes' as unknown as boolean }, defaults)).toThrow(/options\.forceFresh/);
  });
});
