// The MessagePack codec of docs/caching.md "Codecs and compression": an adapter of `msgpackr` (an optional peer you
// install yourself) to the cache's CacheCodec. test/integration/cache/codecs.integration-spec.ts stores and reads
// values with this very file on Redis (standalone and cluster) and in memory mode.
import { Packr } from 'msgpackr';
import type { CacheCodec } from 'nestjs-redis-patterns';

// Dates, Sets and BigInts come back as they went in; MessagePack has one map type, so a Map comes back as a plain
// object (use the built-in JSON codec, or convert, where a Map must stay a Map). No records: entries stay readable by
// any MessagePack decoder.
const packr = new Packr({ structuredClone: true, useRecords: false });

export const msgpackCodec: CacheCodec = {
  format: 'msgpack',
  encode: (value) => packr.pack(value),
  decode: (data) => packr.unpack(typeof data === 'string' ? Buffer.from(data, 'utf8') : data),
};
