import { L1Store } from './l1-store';
import { resolveNearCacheSettings } from './near-cache.options';

const settings = (overrides: Record<string, unknown> = {}) => resolveNearCacheSettings({ enabled: true, ...overrides }, 'cache.nearCache');

function fill(store: L1Store, key: string, raw: string, expiresAt = Number.POSITIVE_INFINITY): void {
  store.commit(key, store.begin(key), raw.length * 2, raw, expiresAt, expiresAt);
}

describe('L1Store', () => {
  it('evicts the least recently used entry beyond maxEntries', () => {
    const store = new L1Store(settings({ maxEntries: 2 }));
    fill(store, 'a', '1');
    fill(store, 'b', '2');
    expect(store.get('a', 0, 0)?.value).toBe('1'); // a is now the most recently used
    fill(store, 'c', '3');
    expect(store.get('b', 0, 0)).toBeUndefined();
    expect(store.get('a', 0, 0)?.value).toBe('1');
    expect(store.get('c', 0, 0)?.value).toBe('3');
    expect(store.stats.evictions).toBe(1);
    expect(store.size).toBe(2);
  });

  it('keeps entries read since the last eviction pass (CLOCK) and evicts the unread ones first', () => {
    const store = new L1Store(settings({ maxEntries: 3 }));
    for (const key of ['a', 'b', 'c']) fill(store, key, key);
    store.get('a', 0, 0);
    store.get('b', 0, 0);
    fill(store, 'd', 'd'); // a and b were read: c, never read, goes (and a and b lose their bit)
    fill(store, 'e', 'e'); // d was never read: d goes, although a was read longer ago (strict LRU would drop a)
    expect(['a', 'b', 'c', 'd', 'e'].map((key) => store.get(key, 0, 0)?.value)).toEqual(['a', 'b', undefined, undefined, 'e']);
    expect(store.stats.evictions).toBe(2);
  });

  it('evicts by bytes and never keeps one entry bigger than maxBytes', () => {
    const store = new L1Store(settings({ maxBytes: 4096 }));
    const big = 'x'.repeat(900); // ~1.9 KB each in UTF-16
    fill(store, 'a', big);
    fill(store, 'b', big);
    fill(store, 'c', big);
    expect(store.byteSize).toBeLessThanOrEqual(4096);
    expect(store.get('a', 0, 0)).toBeUndefined();
    expect(store.get('c', 0, 0)?.value).toBe(big);
    fill(store, 'huge', 'y'.repeat(4096));
    expect(store.get('huge', 0, 0)).toBeUndefined();
    expect(store.get('c', 0, 0)?.value).toBe(big);
  });

  it('drops an entry at its deadline', () => {
    const store = new L1Store(settings());
    fill(store, 'a', '1', 100);
    expect(store.get('a', 99, 99)?.value).toBe('1');
    expect(store.get('a', 100, 100)).toBeUndefined();
    expect(store.stats.expirations).toBe(1);
    expect(store.byteSize).toBe(0);
  });

  it('drops an entry when either clock reaches its deadline (a step of the wall clock that Redis expires by)', () => {
    const store = new L1Store(settings());
    store.commit('wall', store.begin('wall'), 2, '1', 1000, 5000);
    store.commit('mono', store.begin('mono'), 2, '2', 5000, 1000);
    expect(store.get('wall', 10, 10)?.value).toBe('1');
    expect(store.get('wall', 10, 5000)).toBeUndefined(); // monotonic time barely moved; the wall clock jumped
    expect(store.get('mono', 10, 10)?.value).toBe('2');
    expect(store.get('mono', 5000, 20)).toBeUndefined(); // the wall clock went back; the monotonic deadline holds
    expect(store.stats.expirations).toBe(2);
  });

  it('discards a read that an invalidation of its key overtook, but not one that began after it', () => {
    const store = new L1Store(settings());
    const early = store.begin('k');
    store.invalidate('k');
    const late = store.begin('k');
    store.commit('k', early, 6, 'old', Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
    expect(store.get('k', 0, 0)).toBeUndefined();
    expect(store.stats.discardedFills).toBe(1);
    store.commit('k', late, 6, 'new', Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
    expect(store.get('k', 0, 0)?.value).toBe('new');
  });

  it('an invalidation of another key does not discard a read', () => {
    const store = new L1Store(settings());
    const ticket = store.begin('k');
    store.invalidate('other');
    store.commit('k', ticket, 2, 'v', Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
    expect(store.get('k', 0, 0)?.value).toBe('v');
  });

  it('a clear empties the store and discards every read in flight', () => {
    const store = new L1Store(settings());
    fill(store, 'a', '1');
    const ticket = store.begin('b');
    store.clear();
    store.commit('b', ticket, 2, '2', Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
    expect(store.size).toBe(0);
    expect(store.byteSize).toBe(0);
    expect(store.stats.clears).toBe(1);
  });
});

describe('resolveNearCacheSettings', () => {
  it('is off by default and names a bad option', () => {
    expect(resolveNearCacheSettings(undefined, 'cache.nearCache').enabled).toBe(false);
    expect(() => resolveNearCacheSettings({ maxBytes: -1 }, 'cache.nearCache')).toThrow('cache.nearCache.maxBytes');
    expect(() => resolveNearCacheSettings({ enabled: 'yes' }, 'cache.nearCache')).toThrow('cache.nearCache.enabled');
    expect(() => resolveNearCacheSettings({ maxEntry: 10 }, 'cache.nearCache')).toThrow('cache.nearCache.maxEntry');
  });
});
