// Large read answers (a portfolio's state, first pages of ranked fixes), gzip-compressed once and kept in
// memory, keyed by what they were made from: a scoring build is never changed, only replaced by a new
// one, so a key names one answer for ever and nothing needs invalidating. Without it every read of a
// 500 kB state or a 5 MB page of full rows is compressed again on its way out (by Cloudflare's edge in
// production, by miniflare locally). One cache per isolate, shared by the project objects it holds
// (keys name their project), bounded by compressed bytes, least recently used first out.
import type { StoredAnswer } from '../lib/answers';

export type { StoredAnswer };

/** An isolate has 128 MB; its project objects share this much for compressed answers. */
const MAX_BYTES = 16 * 1024 * 1024;

async function gzipText(text: string): Promise<Uint8Array> {
  const compressed = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(compressed).arrayBuffer());
}

export class CompressedAnswers {
  // Map order gives the LRU.
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes = MAX_BYTES) {}

  /**
   * The answer for `key`: `text()` as it is, or compressed (from memory when made before) with `gzip`.
   * Answers that are rarely read twice (deep pages) pass `keep: false`: plain text, left to the edge.
   */
  async answer(key: string, text: () => string, options: { gzip: boolean; keep?: boolean }): Promise<StoredAnswer> {
    if (!options.gzip || options.keep === false) return { text: text() };
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return { gzip: hit };
    }
    const compressed = await gzipText(text());
    if (!this.entries.has(key)) {
      this.entries.set(key, compressed);
      this.bytes += compressed.byteLength;
    }
    for (const [oldest, bytes] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= bytes.byteLength;
    }
    return { gzip: compressed };
  }
}

/** The isolate's cache (module scope: every project object in the isolate shares it). */
export const compressedAnswers = new CompressedAnswers();
