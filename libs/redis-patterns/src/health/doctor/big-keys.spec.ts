import { describeKeySize, isBigKey, judgeBigKeys, type KeySize } from './big-keys';

const sample = { scanned: 4, complete: true, limit: 10_000 };
const limits = { bytes: 10 * 1024 * 1024, elements: 1_000_000, top: 2 };
const small: KeySize[] = [
  { key: 'a', type: 'string', bytes: 60, elements: 3 },
  { key: 'b', type: 'hash', bytes: 900, elements: 10 },
  { key: 'c', type: 'list', bytes: 300, elements: 20 },
];

describe('big keys', () => {
  it('judges a key on its memory, and an aggregate on its element count too', () => {
    expect(isBigKey({ key: 'k', type: 'hash', bytes: 100, elements: 1_000_001 }, limits)).toBe(true);
    expect(isBigKey({ key: 'k', type: 'string', bytes: 100, elements: 2_000_000 }, limits)).toBe(false); // a string's length is bytes
    expect(isBigKey({ key: 'k', type: 'string', bytes: limits.bytes + 1 }, limits)).toBe(true);
    expect(isBigKey({ key: 'k', type: 'ReJSON-RL', bytes: 10 }, limits)).toBe(false);
  });

  it('passes small keys and lists the largest `top` of them', () => {
    const check = judgeBigKeys(small, sample, limits);
    expect(check).toMatchObject({
      name: 'big-keys',
      status: 'pass',
      evidence: ['b (hash, 10 elements, 900 B)', 'c (list, 20 elements, 300 B)'],
    });
    expect(check.fix).toBeUndefined();
  });

  it('warns on a key over either limit, lists it first, and says how to fix it', () => {
    const big: KeySize = { key: 'feed', type: 'list', bytes: 5000, elements: 1_500_000 };
    const large: KeySize = { key: 'blob', type: 'string', bytes: 12 * 1024 * 1024, elements: 12 * 1024 * 1024, node: '10.0.0.1:6379' };
    const check = judgeBigKeys([...small, big, large], { scanned: 5, complete: false, limit: 5 }, limits);
    expect(check.status).toBe('warn');
    expect(check.reason).toMatch(/^2 of 5 keys sampled with SCAN \(sample limit 5 reached\) above 10 MB or 1000000 elements/);
    expect(check.evidence).toEqual(['blob (string, 12582912 bytes long, 12 MB on 10.0.0.1:6379)', 'feed (list, 1500000 elements, 4.9 KB)']);
    expect(check.fix).toMatch(/CappedList maxLength.*MAXLEN/);
  });

  it('says so when there is nothing to measure', () => {
    expect(judgeBigKeys([], { scanned: 0, complete: true, limit: 10 }, limits)).toMatchObject({
      status: 'pass',
      reason: expect.stringContaining('no key'),
    });
    expect(describeKeySize({ key: 'k', type: 'stream', bytes: 2048, elements: 1 })).toBe('k (stream, 1 element, 2 KB)');
  });
});
