import { isDocumentedException } from './keys-without-ttl';

describe('documented TTL exceptions', () => {
  it('accepts fencing counters and streams under the prefix only', () => {
    expect(isDocumentedException('rp:lock:{order%3A1}:fence', 'rp')).toBe(true);
    expect(isDocumentedException('rp:stream:orders', 'rp')).toBe(true);
    expect(isDocumentedException('rp:lock:{order}', 'rp')).toBe(false);
    expect(isDocumentedException('rp:cache:stream:x', 'rp')).toBe(false);
    expect(isDocumentedException('other:stream:orders', 'rp')).toBe(false);
    expect(isDocumentedException('a.b:stream:s', 'a.b')).toBe(true);
    expect(isDocumentedException('axb:stream:s', 'a.b')).toBe(false);
    expect(isDocumentedException('rp:write-behind:{carts:3}', 'rp')).toBe(true);
    expect(isDocumentedException('rp:cache:{cart%3A7}:wb', 'rp')).toBe(true);
    expect(isDocumentedException('rp:cache:{cart%3A7}', 'rp')).toBe(false);
    expect(isDocumentedException('rp:write-behind-dlq:carts', 'rp')).toBe(true);
    expect(isDocumentedException('rp:write-behind:carts', 'rp')).toBe(false);
  });
});
