/** A typical cached value: a small JSON document (~0.5 KB serialized), the same for every contender. */
export const CACHED_VALUE = {
  id: 42,
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  roles: ['admin', 'editor'],
  createdAt: '2024-05-01T10:00:00.000Z',
  preferences: { theme: 'dark', language: 'en', notifications: { email: true, sms: false, push: true } },
  stats: { posts: 128, followers: 4096, following: 256, score: 98.6 },
  tags: Array.from({ length: 12 }, (_, i) => `tag-${i}`),
  bio: 'Mathematician and writer, chiefly known for work on the Analytical Engine.',
};

/** Cache TTL used by every contender, in seconds: long enough that nothing expires during a run. */
export const CACHE_TTL_S = 3600;
