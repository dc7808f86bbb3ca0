import { isIP } from 'node:net';

/** What {@link clientAddress} reads of an HTTP request: Express's and Fastify's requests both fit. */
export interface ClientAddressRequest {
  /** The request headers; `X-Forwarded-For` is read only with `trustProxyHops` above 0. */
  headers?: Record<string, string | string[] | undefined>;
  /** The socket of the connection (Express, Node's http): its peer address. */
  socket?: { remoteAddress?: string };
  /** Fastify's raw Node request, whose socket gives the peer address. */
  raw?: { socket?: { remoteAddress?: string } };
  /** The address a framework already computed (used when no socket is given). */
  ip?: string;
}

/**
 * The client address of an HTTP request (Express or Fastify). With `trustProxyHops` 0 it is the socket's peer:
 * `X-Forwarded-For` is client-controlled and ignored, so rotating it buys no extra budget. With N trusted proxies
 * it is the N-th entry from the right of `X-Forwarded-For` (each proxy appends the address it saw; entries further
 * left were written by the client), without the port some proxies append (`203.0.113.5:40001`,
 * `[2001:db8::5]:40001`). An entry that is not an IP address (`unknown`, a host name, garbage) is not an identity:
 * the socket's peer is used instead, and `onInvalidEntry` is told. IPv6 addresses are reduced to their
 * `/ipv6Subnet` network.
 *
 * @example
 * // A rule on something the client cannot choose, with the same hops as `rateLimit.trustProxyHops`:
 * skipIf: (context) => clientAddress(context.switchToHttp().getRequest(), 1) === '127.0.0.1'
 */
export function clientAddress(
  request: ClientAddressRequest,
  trustProxyHops = 0,
  ipv6Subnet = 64,
  onInvalidEntry?: (entry: string) => void,
): string {
  const socketAddress = request.socket?.remoteAddress ?? request.raw?.socket?.remoteAddress ?? request.ip ?? '';
  let address = socketAddress;
  if (trustProxyHops > 0) {
    const header = request.headers?.['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    // Fewer entries than trusted hops: the leftmost is the furthest any trusted proxy vouches for (Express' rule).
    if (hops.length > 0) {
      const entry = hops[Math.max(0, hops.length - trustProxyHops)];
      const forwarded = withoutPort(entry);
      if (forwarded !== undefined) address = forwarded;
      else onInvalidEntry?.(entry);
    }
  }
  return normalizeAddress(address, ipv6Subnet);
}

/**
 * The IP address of an `X-Forwarded-For` entry, without a port, or undefined when the entry is no IP address. A
 * value that is not an address must never become an identity of its own: each distinct value would be a fresh
 * budget.
 */
export function withoutPort(entry: string): string | undefined {
  let value = entry;
  if (value.startsWith('[')) {
    // `[v6]` or `[v6]:port`
    const end = value.indexOf(']');
    if (end < 0) return undefined;
    const rest = value.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    value = value.slice(1, end);
    return isIP(stripZone(value)) === 6 ? value : undefined;
  }
  // `a.b.c.d:port` (one colon: an IPv6 address has at least two)
  const port = /^([^:]+):(\d{1,5})$/.exec(value);
  if (port) value = port[1];
  return isIP(stripZone(value)) === 0 ? undefined : value;
}

function stripZone(value: string): string {
  const zone = value.indexOf('%');
  return zone >= 0 ? value.slice(0, zone) : value;
}

/** IPv4-mapped IPv6 becomes IPv4; other IPv6 addresses become their network prefix (`2001:db8:1:2::/64`). */
export function normalizeAddress(address: string, ipv6Subnet = 64): string {
  let value = address.trim();
  if (value.startsWith('[')) value = value.slice(1, value.indexOf(']'));
  value = stripZone(value);
  if (value.toLowerCase().startsWith('::ffff:') && isIP(value.slice(7)) === 4) return value.slice(7);
  if (isIP(value) !== 6) return value || 'unknown';
  const groups = expandIpv6(value);
  const words: string[] = [];
  let bits = ipv6Subnet;
  for (const group of groups) {
    if (bits <= 0) break;
    const keep = Math.min(16, bits);
    words.push(((group >> (16 - keep)) << (16 - keep)).toString(16));
    bits -= keep;
  }
  return `${words.join(':')}${words.length < 8 ? '::' : ''}/${ipv6Subnet}`;
}

function expandIpv6(address: string): number[] {
  let text = address;
  // An embedded IPv4 tail (::1.2.3.4) is two 16-bit groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : new Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => parseInt(group, 16) || 0);
}
