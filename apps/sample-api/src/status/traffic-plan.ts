import { CATEGORIES } from '../catalog/product';

/** One request of a burst, sent to the app's own routes. */
export interface PlannedRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
}

/** Rounds of a burst, one a second, so the per-second charts show the traffic over a few samples. */
export const BURST_ROUNDS = 4;

const HOT_PRODUCTS = 8;
const PLAYERS = ['ada', 'grace', 'linus', 'margaret', 'ken'];
/** Contenders per order: concurrent payments of one order, all but one refused (409) while the first holds the lock. */
const PAYMENTS_PER_ORDER = 6;

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];
const between = (low: number, high: number): number => low + Math.floor(Math.random() * (high - low + 1));

/**
 * One round of a burst (about 70 requests) that moves every pattern the status page plots:
 * - product reads, mostly from a few hot products (cache hits after their first read), a few cold ones (misses);
 * - logins: a correct one, and three wrong passwords for "mallory", whose budget of 5 a minute runs out during the
 *   burst (429 from `login-by-username`; `login-by-address` allows 20 a minute, so a second burst hits it too);
 * - concurrent payments of the same orders, which contend for the order's lock (409);
 * - events into the stream (the consumer group's lag and pending rise, then drain), a purchase among them;
 * - scores for the leaderboard.
 * Requests of a kind are adjacent, so the payments of one order are in flight together.
 */
export function planRound(): PlannedRequest[] {
  const requests: PlannedRequest[] = [];
  for (let i = 0; i < 30; i++) {
    const id = Math.random() < 0.85 ? between(1, HOT_PRODUCTS) : between(HOT_PRODUCTS + 1, 120);
    requests.push({ method: 'GET', path: `/products/${id}` });
  }
  for (let i = 0; i < 2; i++) requests.push({ method: 'GET', path: `/products?category=${pick(CATEGORIES)}` });
  requests.push({ method: 'POST', path: '/auth/login', body: { username: 'alice', password: 'demo-password' } });
  for (let i = 0; i < 3; i++) requests.push({ method: 'POST', path: '/auth/login', body: { username: 'mallory', password: 'guess' } });
  for (let order = 0; order < 2; order++) {
    const id = between(1, 120);
    for (let i = 0; i < PAYMENTS_PER_ORDER; i++) requests.push({ method: 'POST', path: `/orders/${id}/pay` });
  }
  for (let i = 0; i < 14; i++)
    requests.push({ method: 'POST', path: '/events', body: { type: 'page_view', visitor: `visitor-${between(1, 200)}` } });
  requests.push({ method: 'POST', path: '/events', body: { type: 'purchase', visitor: `visitor-${between(1, 200)}` } });
  for (let i = 0; i < 5; i++) requests.push({ method: 'POST', path: `/scores/${pick(PLAYERS)}`, body: { points: between(1, 50) } });
  return requests;
}
