// Pull-based access to the bundle's bytes: sniffing the format, and feeding decompressors in
// small slices so that no single step can expand into more memory than a few megabytes.
import { BundleError, SourceFailure } from './errors';
import type { BundleFormat } from './types';

/** Largest piece handed to a decompressor at once: DEFLATE expands at most ~1032:1, so ~8 MB. */
export const DECOMPRESS_SLICE_BYTES = 8 * 1024;
/** Whitespace tolerated before a JSON document's opening brace. */
const MAX_LEADING_WHITESPACE = 1024 * 1024;

export class ByteSource {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly pushedBack: Uint8Array[] = [];
  private finished = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  /** The next chunk, or null at the end. Chunks are never empty. */
  async read(): Promise<Uint8Array | null> {
    const back = this.pushedBack.shift();
    if (back) return back;
    while (!this.finished) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await this.reader.read();
      } catch (error) {
        throw new SourceFailure(error);
      }
      const { done, value } = result;
      if (done) {
        this.finished = true;
        break;
      }
      if (value.byteLength > 0) return value;
    }
    return null;
  }

  /** Chunks of at most `max` bytes. */
  async readSlice(max: number): Promise<Uint8Array | null> {
    const chunk = await this.read();
    if (!chunk || chunk.byteLength <= max) return chunk;
    this.pushedBack.unshift(chunk.subarray(max));
    return chunk.subarray(0, max);
  }

  unread(chunk: Uint8Array): void {
    if (chunk.byteLength > 0) this.pushedBack.unshift(chunk);
  }

  async cancel(reason?: unknown): Promise<void> {
    this.finished = true;
    this.pushedBack.length = 0;
    await this.reader.cancel(reason).catch(() => {});
  }
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

function describe(bytes: Uint8Array): string {
  const first = bytes[0];
  if (first === 0x3c) return 'It looks like XML; CycloneDX XML is not supported, export the BOM as JSON.';
  if (first === 0x5b) return 'It is a JSON array; a bundle must be one CycloneDX JSON object.';
  if (startsWith(bytes, [0x42, 0x5a, 0x68])) return 'It looks like a bzip2 file; only gzip-compressed tar archives are supported.';
  if (startsWith(bytes, [0xfd, 0x37, 0x7a, 0x58, 0x5a])) return 'It looks like an xz file; only gzip-compressed tar archives are supported.';
  if (startsWith(bytes, [0x28, 0xb5, 0x2f, 0xfd])) return 'It looks like a zstd file; only gzip-compressed tar archives are supported.';
  const hex = [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  return `It starts with the bytes ${hex}.`;
}

/**
 * Reads just enough to tell the format from the first bytes, then pushes them back.
 * gzip magic 1f 8b -> tar.gz; "PK\x03\x04" (or an empty zip's "PK\x05\x06") -> zip;
 * "{" after an optional UTF-8 BOM and whitespace -> CycloneDX JSON.
 */
export async function sniffFormat(source: ByteSource): Promise<BundleFormat> {
  const seen: Uint8Array[] = [];
  let length = 0;
  let head: Uint8Array = new Uint8Array(0);
  try {
    for (;;) {
      const chunk = await source.read();
      if (chunk) {
        seen.push(chunk);
        length += chunk.byteLength;
      }
      if (head.byteLength < 8) head = concat(seen, Math.min(length, 8));
      if (head.byteLength === 0) throw new BundleError('empty', 'The bundle is empty (0 bytes).');
      if (!chunk || head.byteLength >= 4) {
        if (startsWith(head, [0x1f, 0x8b])) return 'tar.gz';
        if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return 'zip';
      }
      if (chunk && head.byteLength < 4) continue;
      const significant = firstSignificantByte(seen);
      if (significant !== undefined) {
        if (significant === 0x7b) return 'cyclonedx-json';
        throw new BundleError('unreadable', `The bundle is not a CycloneDX JSON document, a .tar.gz or a .zip archive. ${describe(head)}`);
      }
      if (!chunk) throw new BundleError('empty', 'The bundle holds only whitespace.');
      if (length > MAX_LEADING_WHITESPACE) throw new BundleError('unreadable', 'The bundle starts with more than 1 MiB of whitespace.');
    }
  } finally {
    for (let i = seen.length - 1; i >= 0; i--) source.unread(seen[i]!);
  }
}

const BOM = [0xef, 0xbb, 0xbf];

function firstSignificantByte(chunks: Uint8Array[]): number | undefined {
  let position = 0;
  for (const chunk of chunks) {
    for (const byte of chunk) {
      if (position < 3 && byte === BOM[position]) {
        position++;
        continue;
      }
      // A partial byte-order mark is not whitespace: report its first byte.
      if (position > 0 && position < 3) return BOM[0];
      position = 3;
      if (!isWhitespace(byte)) return byte;
    }
  }
  return undefined;
}

function concat(chunks: Uint8Array[], max: number): Uint8Array {
  const out = new Uint8Array(max);
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= max) break;
    const part = chunk.subarray(0, max - offset);
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
