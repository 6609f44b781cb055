// Writes a large document (a report's JSON, a rendering) to R2 as it is produced, in bounded memory:
// text (or bytes) is buffered up to one part and sent as an R2 multipart part (every part but the last the same size, as R2 requires); a
// document smaller than one part is a single put.

/** 8 MiB: above R2's 5 MiB minimum part size, far below a Worker's memory. */
export const REPORT_PART_BYTES = 8 * 1024 * 1024;
/**
 * Written text is encoded this many characters at a time: a document is written a component at a time,
 * and encoding each on its own made a million small buffers (and their backing stores) per document.
 */
const ENCODE_CHARS = 256 * 1024;

export class BlobWriter {
  private readonly encoder = new TextEncoder();
  private pending: string[] = [];
  private pendingChars = 0;
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private upload: R2MultipartUpload | null = null;
  private parts: R2UploadedPart[] = [];
  /** Bytes written so far (all of them once closed). */
  size = 0;

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly contentType = 'application/json',
    private readonly partBytes = REPORT_PART_BYTES,
  ) {}

  async write(text: string | Uint8Array): Promise<void> {
    if (typeof text !== 'string') return this.writeBytes(text);
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= ENCODE_CHARS) await this.encodePending();
  }

  /** Bytes after what was written; the array is kept until sent, so the caller must not reuse it. */
  private async writeBytes(bytes: Uint8Array): Promise<void> {
    await this.encodePending();
    this.chunks.push(bytes);
    this.buffered += bytes.byteLength;
    this.size += bytes.byteLength;
    while (this.buffered >= this.partBytes) await this.sendPart(this.take(this.partBytes));
  }

  private async encodePending(): Promise<void> {
    if (!this.pending.length) return;
    const bytes = this.encoder.encode(this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
    this.chunks.push(bytes);
    this.buffered += bytes.byteLength;
    this.size += bytes.byteLength;
    while (this.buffered >= this.partBytes) await this.sendPart(this.take(this.partBytes));
  }

  /** Sends what is left and completes the object. */
  async close(): Promise<void> {
    await this.encodePending();
    const rest = this.take(this.buffered);
    if (!this.upload) {
      await this.bucket.put(this.key, rest, { httpMetadata: { contentType: this.contentType } });
      return;
    }
    if (rest.byteLength) await this.sendPart(rest);
    await this.upload.complete(this.parts);
  }

  /** Gives up: an unfinished multipart upload is aborted so it leaves nothing behind. */
  async abort(): Promise<void> {
    await this.upload?.abort().catch(() => undefined);
  }

  private async sendPart(bytes: Uint8Array): Promise<void> {
    this.upload ??= await this.bucket.createMultipartUpload(this.key, { httpMetadata: { contentType: this.contentType } });
    this.parts.push(await this.upload.uploadPart(this.parts.length + 1, bytes));
  }

  /** The first `n` buffered bytes as one array. */
  private take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[0]!;
      const used = Math.min(chunk.byteLength, n - filled);
      out.set(chunk.subarray(0, used), filled);
      filled += used;
      if (used === chunk.byteLength) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(used);
    }
    this.buffered -= n;
    return out;
  }
}
