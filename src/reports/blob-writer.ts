// Writes a large document (a report's JSON, a rendering) to R2 as it is produced, in bounded memory:
// text (or bytes) fills one part buffer, sent as an R2 multipart part when full (every part but the
// last the same size, as R2 requires) and then filled again; a document smaller than one part is a
// single put.

/**
 * R2's minimum part size (5 MiB): the part buffer and the copy R2 takes of it are the largest arrays a
 * rendering holds, so the smallest part R2 accepts keeps a streamed document's memory lowest.
 */
export const REPORT_PART_BYTES = 5 * 1024 * 1024;
/**
 * Written text is encoded this many characters at a time: a document is written a component at a time,
 * and encoding each on its own made a million small buffers (and their backing stores) per document.
 * Not more: a joined string over about 128 KB goes to V8's large-object space and waits there for a
 * full collection.
 */
const ENCODE_CHARS = 32 * 1024;
/** Text is encoded through a scratch buffer of this size, then copied into the part. */
const SCRATCH_BYTES = 64 * 1024;
/** The part buffer starts this small (most documents are small) and doubles up to a part as it fills. */
const FIRST_BUFFER_BYTES = 256 * 1024;

export class BlobWriter {
  private readonly encoder = new TextEncoder();
  private pending: string[] = [];
  private pendingChars = 0;
  private scratch: Uint8Array | null = null;
  /**
   * The part being filled, one buffer reused for every part: R2 has taken a part once its upload
   * answers, so the document's bytes never pile up as arrays waiting for the collector.
   */
  private part = new Uint8Array(0);
  private filled = 0;
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

  /** Text, or bytes (copied: the caller may reuse the array). */
  async write(text: string | Uint8Array): Promise<void> {
    if (typeof text !== 'string') {
      await this.encodePending();
      return this.append(text);
    }
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= ENCODE_CHARS) await this.encodePending();
  }

  private async encodePending(): Promise<void> {
    if (!this.pending.length) return;
    let rest = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    this.scratch ??= new Uint8Array(SCRATCH_BYTES);
    while (rest.length > 0) {
      const { read, written } = this.encoder.encodeInto(rest, this.scratch);
      rest = rest.slice(read);
      await this.append(this.scratch.subarray(0, written));
    }
  }

  /** Copies bytes into the part, sending each part as it fills. */
  private async append(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.byteLength) {
      if (this.filled === this.part.byteLength) this.grow();
      const n = Math.min(this.part.byteLength - this.filled, bytes.byteLength - offset);
      this.part.set(bytes.subarray(offset, offset + n), this.filled);
      this.filled += n;
      this.size += n;
      offset += n;
      if (this.filled === this.partBytes) {
        await this.sendPart(this.part);
        this.filled = 0;
      }
    }
  }

  /** A larger part buffer (twice the size, up to a part), keeping what it holds. */
  private grow(): void {
    const larger = new Uint8Array(Math.min(this.partBytes, Math.max(FIRST_BUFFER_BYTES, this.part.byteLength * 2)));
    larger.set(this.part.subarray(0, this.filled));
    this.part = larger;
  }

  /** Sends what is left and completes the object. */
  async close(): Promise<void> {
    await this.encodePending();
    const rest = this.part.slice(0, this.filled);
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
}
