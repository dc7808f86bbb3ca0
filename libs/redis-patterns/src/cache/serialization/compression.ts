import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants, gunzip, gzip } from 'node:zlib';

/** `cache.compression`: values whose encoded form is at least `thresholdBytes` are stored compressed. */
export interface CacheCompressionOptions {
  /** `brotli` (default: smaller) or `gzip` (faster at its default level). */
  algorithm?: 'brotli' | 'gzip';
  /**
   * Encoded values smaller than this many bytes are stored as they are (default 16384: below it, compressing and
   * decompressing cost more client CPU than the bytes saved are worth; see docs/caching.md).
   */
  thresholdBytes?: number;
  /** Compression level: brotli 0–11 (default 4), gzip 1–9 (default 6). Higher: smaller and slower to write. */
  level?: number;
}

/** The compression of a cache, resolved. */
export interface CompressionSettings {
  readonly algorithm: 'brotli' | 'gzip';
  readonly thresholdBytes: number;
  readonly level: number;
}

const brotliCompressAsync = promisify(brotliCompress);
const brotliDecompressAsync = promisify(brotliDecompress);
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The entry flag of each algorithm. */
export const COMPRESSION_FLAGS = { brotli: 'z', gzip: 'g' } as const;

/**
 * Compresses off the event loop (zlib's thread pool): a 100 KB value takes a millisecond or more to compress, which
 * would stall every request of the process if done synchronously.
 */
export function compress(bytes: Buffer, settings: CompressionSettings): Promise<Buffer> {
  return settings.algorithm === 'brotli'
    ? brotliCompressAsync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: settings.level,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : gzipAsync(bytes, { level: settings.level });
}

/**
 * Decompresses an entry's payload, refusing to produce more than `maxBytes` (a small entry written by someone else
 * could otherwise expand to gigabytes in this process).
 */
export function decompress(bytes: Buffer, flag: string, maxBytes: number): Promise<Buffer> {
  return flag === COMPRESSION_FLAGS.brotli
    ? brotliDecompressAsync(bytes, { maxOutputLength: maxBytes })
    : gunzipAsync(bytes, { maxOutputLength: maxBytes });
}
