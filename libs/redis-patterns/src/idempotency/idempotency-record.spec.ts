import { decodeOutcome, encodeOutcome } from './idempotency-record';

describe('idempotency records', () => {
  it('round-trips values, typed values, headers and undefined', () => {
    const outcome = {
      kind: 'value' as const,
      status: 201,
      headers: { location: '/orders/1' },
      body: { id: 1, at: new Date(5), total: 10n, tags: new Set(['a']) },
    };
    expect(decodeOutcome(encodeOutcome(outcome))).toEqual(outcome);
    expect(decodeOutcome(encodeOutcome({ kind: 'value', body: undefined }))).toEqual({ kind: 'value', body: undefined });
    expect(decodeOutcome(encodeOutcome({ kind: 'value', body: 0 })).body).toBe(0);
    expect(decodeOutcome(encodeOutcome({ kind: 'error', status: 402, body: { message: 'no funds' } }))).toMatchObject({
      kind: 'error',
      status: 402,
    });
  });

  it('refuses what it cannot store faithfully', () => {
    expect(() => encodeOutcome({ kind: 'value', body: { run: () => 1 } })).toThrow('functions cannot be cached');
  });

  it('reads hostile records without polluting prototypes, and refuses malformed ones', () => {
    const decoded = decodeOutcome({ meta: '{"k":"value"}', body: '{"__proto__":{"polluted":true},"a":1}', typed: false });
    expect(decoded.body).toEqual({ a: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => decodeOutcome({ meta: '{"k":"other"}', body: '', typed: false })).toThrow('unreadable');
    expect(() => decodeOutcome({ meta: '{"k":"value","s":99}', body: '', typed: false })).toThrow('unreadable');
    expect(() => decodeOutcome({ meta: '{"k":"value","h":{"a":1}}', body: '', typed: false })).toThrow('unreadable');
  });
});
