// `node -r ./scripts/register-ts.js bench/tools/codec-figures.ts [--out dir]`: what the cache's codecs and compression
// cost and save, per payload size — bytes stored in Redis (the whole entry string) and client CPU per KB of JSON to
// write (encode) and to read (decode) — through the library's own entry envelope, in this process. Medians and
// min–max over rounds; 2 noisy cores, so read the ratios, not the third digit. Writes <out>/RESULTS.md
// (default bench/results/codecs).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { msgpackCodec } from '../../docs/examples/cache-codec-msgpack';
import { CodecRegistry, JSON_CACHE_CODEC } from '../../libs/redis-patterns/src/cache/serialization/cache-codec';
import type { CompressionSettings } from '../../libs/redis-patterns/src/cache/serialization/compression';
import { decodeEntry, encodeEntry, type EntryFormat } from '../../libs/redis-patterns/src/cache/serialization/entry-envelope';
import { CACHED_VALUE } from '../suites/payload';

const ROUNDS = 9;
const out = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : 'bench/results/codecs';

// A list page of records shaped like CACHED_VALUE (~0.5 KB each) whose values vary as real data does (names, words,
// numbers from a fixed-seed generator): identical records would flatter compression.
const WORDS =
  'analytical engine note bernoulli number loom card punch gear column store mill carry table logic design steam brass difference poem science letter friend'.split(
    ' ',
  );
function payload(records: number) {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = () => WORDS[Math.floor(next() * WORDS.length)];
  const int = (max: number) => Math.floor(next() * max);
  return {
    page: 1,
    items: Array.from({ length: records }, (_, i) => ({
      ...CACHED_VALUE,
      id: 1000 + int(1_000_000),
      name: `${word()} ${word()}`,
      email: `${word()}.${int(10_000)}@example.com`,
      createdAt: new Date(1_700_000_000_000 + int(1e10)).toISOString(),
      stats: { posts: int(5000), followers: int(1e6), following: int(2000), score: Math.round(next() * 10000) / 100 },
      tags: Array.from({ length: 3 + int(10) }, () => `${word()}-${int(100)}`),
      bio: Array.from({ length: 8 + int(8) }, word).join(' ') + `. Item ${i}.`,
    })),
  };
}
const SIZES = [
  { label: '~1 KB', value: payload(2) },
  { label: '~16 KB', value: payload(32) },
  { label: '~256 KB', value: payload(512) },
];
const brotli: CompressionSettings = { algorithm: 'brotli', thresholdBytes: 0, level: 4 };
const gzip: CompressionSettings = { algorithm: 'gzip', thresholdBytes: 0, level: 6 };
const FORMATS: Array<{ label: string; format: EntryFormat }> = [
  { label: 'JSON (default)', format: { codec: JSON_CACHE_CODEC } },
  { label: 'JSON + brotli 4', format: { codec: JSON_CACHE_CODEC, compression: brotli } },
  { label: 'JSON + gzip 6', format: { codec: JSON_CACHE_CODEC, compression: gzip } },
  { label: 'MessagePack', format: { codec: msgpackCodec } },
  { label: 'MessagePack + brotli 4', format: { codec: msgpackCodec, compression: brotli } },
];
const reader = { codecs: new CodecRegistry([msgpackCodec]), maxDecodedBytes: 64 << 20 };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

async function cpuPerCall(work: () => unknown, calls: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const { label: size, value } of SIZES) {
    const jsonBytes = Buffer.byteLength(JSON.stringify(value));
    const kb = jsonBytes / 1024;
    const calls = Math.max(20, Math.round(4000 / kb));
    for (const { label, format } of FORMATS) {
      const raw = await encodeEntry(value, { staleMs: 0, graceMs: 0 }, 0, format);
      const stored = Buffer.byteLength(raw);
      const encodeUs: number[] = [];
      const decodeUs: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        encodeUs.push((await cpuPerCall(() => encodeEntry(value, { staleMs: 0, graceMs: 0 }, 0, format), calls)) / kb);
        decodeUs.push((await cpuPerCall(() => decodeEntry(raw, reader), calls)) / kb);
      }
      const range = (xs: number[]) => `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
      rows.push(
        `| ${size} | ${label} | ${stored.toLocaleString('en-US')} | ${(stored / jsonBytes).toFixed(2)} | ${range(encodeUs)} | ${range(decodeUs)} |`,
      );
      process.stdout.write(`${size} ${label}: ${stored} bytes\n`);
    }
  }
  const report = `# Cache codecs and compression: size and CPU

Generated by \`node -r ./scripts/register-ts.js bench/tools/codec-figures.ts\` on ${new Date().toISOString()}; Node
${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), load average ${loadavg()[0].toFixed(1)}.

Each payload is a page of ~0.5 KB records shaped like \`bench/suites/payload.ts\`'s, with values drawn from a fixed-seed
generator (identical records would flatter compression). **stored**: bytes of the whole entry string
the cache writes to Redis (header included; compressed and binary payloads are base64). **CPU per KB**: client CPU
(\`process.cpuUsage\`) per KB of the value's JSON, to encode an entry (write) and to decode it (read), compression and
decompression included (they run on zlib's thread pool, counted here because this process pays for it); median and
min–max over ${ROUNDS} rounds. The threshold is 0 here so every size is compressed; the cache's default threshold is
16384 bytes (\`cache.compression.thresholdBytes\`).

| payload | codec | stored (bytes) | stored / JSON | encode µs per KB | decode µs per KB |
|---|---|---|---|---|---|
${rows.join('\n')}
`;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'RESULTS.md'), report);
  process.stdout.write(`wrote ${join(out, 'RESULTS.md')}\n`);
}

void main();
