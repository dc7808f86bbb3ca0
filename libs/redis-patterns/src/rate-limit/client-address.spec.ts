import { clientAddress, normalizeAddress } from './client-address';

describe('clientAddress', () => {
  const req = (xff?: string, remoteAddress = '10.1.1.1') => ({
    socket: { remoteAddress },
    headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
  });

  it('uses the socket address and ignores X-Forwarded-For without trusted hops', () => {
    expect(clientAddress(req('6.6.6.6'))).toBe('10.1.1.1');
  });

  it('takes the N-th entry from the right with N trusted hops', () => {
    expect(clientAddress(req('6.6.6.6, 1.1.1.1, 2.2.2.2'), 1)).toBe('2.2.2.2');
    expect(clientAddress(req('6.6.6.6, 1.1.1.1, 2.2.2.2'), 2)).toBe('1.1.1.1');
    // Fewer entries than hops: the leftmost.
    expect(clientAddress(req('1.1.1.1'), 3)).toBe('1.1.1.1');
    expect(clientAddress(req(undefined), 1)).toBe('10.1.1.1');
  });

  it('drops the port a proxy appended, for IPv4 and bracketed IPv6', () => {
    expect(clientAddress(req('203.0.113.5:40001'), 1)).toBe('203.0.113.5');
    expect(clientAddress(req('6.6.6.6, 203.0.113.5:40002'), 1)).toBe('203.0.113.5');
    expect(clientAddress(req('[2001:db8::5]:40001'), 1)).toBe('2001:db8:0:0::/64');
    expect(clientAddress(req('[2001:db8::5]'), 1)).toBe('2001:db8:0:0::/64');
  });

  it('falls back to the socket address for an entry that is no IP address, and says so', () => {
    const invalid: string[] = [];
    for (const entry of ['unknown', 'proxy.example.com', '999.1.1.1', '1.2.3.4:port', '[2001:db8::5', '[2001:db8::5]x', '_hidden'])
      expect(clientAddress(req(entry), 1, 64, (value) => invalid.push(value))).toBe('10.1.1.1');
    expect(invalid).toHaveLength(7);
  });

  it('reads Fastify requests (raw socket)', () => {
    expect(clientAddress({ raw: { socket: { remoteAddress: '::ffff:127.0.0.1' } } })).toBe('127.0.0.1');
  });
});

describe('normalizeAddress', () => {
  it('groups IPv6 addresses by prefix', () => {
    expect(normalizeAddress('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(normalizeAddress('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(normalizeAddress('2001:db8:1:2::9', 48)).toBe('2001:db8:1::/48');
    expect(normalizeAddress('2001:db8:1:2::9', 128)).toBe('2001:db8:1:2:0:0:0:9/128');
    expect(normalizeAddress('::1')).toBe('0:0:0:0::/64');
  });

  it('keeps IPv4 as is and unwraps IPv4-mapped IPv6', () => {
    expect(normalizeAddress('192.0.2.7')).toBe('192.0.2.7');
    expect(normalizeAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(normalizeAddress('')).toBe('unknown');
  });
});
