// Streams .tar.gz and .zip bundles entry by entry through the limits, never holding an entry whole.
import { Gunzip, Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import { createTarDecoder } from 'modern-tar';
import type { BundleContents, EntryHandler } from './entries';
import { BundleError, SinkFailure, SourceFailure, errorText } from './errors';
import type { ArchiveBudget } from './limits';
import { DECOMPRESS_SLICE_BYTES, type ByteSource } from './source';

function corrupt(what: string, error: unknown): BundleError {
  return new BundleError('corrupt_archive', `${what} (${errorText(error)}). Re-create the archive and upload it again.`);
}

/** Errors of the bundle's own making pass through; anything else the decoders threw means corruption. */
function classify(error: unknown, what: string): unknown {
  if (error instanceof BundleError || error instanceof SinkFailure || error instanceof SourceFailure) return error;
  return corrupt(what, error);
}

function tarFailure(error: unknown): string {
  const text = errorText(error);
  if (/truncated/i.test(text)) return 'The tar archive is truncated';
  if (/checksum|invalid tar/i.test(text)) return 'The gzip stream does not hold a valid tar archive';
  return 'The .tar.gz archive is corrupt';
}

/**
 * The bundle gunzipped, one source slice per pull. fflate's Gunzip rather than the runtime's
 * DecompressionStream: workerd's implementation has no back-pressure (every write is inflated
 * into its buffer at once, see workerd api/streams/compression.c++), so a pipe would expand a
 * whole bomb into memory before the first byte could be counted. Here one pull expands one 8 KiB
 * slice (at most ~8 MB) and the limits see it before anything else is read.
 */
function gunzip(source: ByteSource, budget: ArchiveBudget, onError: (error: unknown) => void): ReadableStream<Uint8Array> {
  const output: Uint8Array[] = [];
  const inflater = new Gunzip((chunk) => {
    if (chunk.byteLength) output.push(chunk);
  });
  let ended = false;
  return new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        try {
          while (output.length === 0 && !ended) {
            const slice = await source.readSlice(DECOMPRESS_SLICE_BYTES);
            ended = slice === null;
            if (slice) budget.consumed(slice.byteLength);
            try {
              inflater.push(slice ?? new Uint8Array(0), ended);
            } catch (error) {
              throw corrupt(ended ? 'The gzip stream is truncated' : 'The gzip stream is corrupt', error);
            }
          }
          for (const chunk of output.splice(0)) {
            budget.produced(chunk.byteLength);
            controller.enqueue(chunk);
          }
        } catch (error) {
          onError(error);
          throw error;
        }
        if (ended) controller.close();
      },
      cancel: (reason) => source.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** Reads a gzip-compressed tar: fflate's Gunzip, then modern-tar's streaming decoder in strict mode. */
export async function readTarGz(source: ByteSource, budget: ArchiveBudget, contents: BundleContents): Promise<void> {
  // Errors raised in the gunzip stage reach the entry reader through the pipe; keep the original.
  let inflateError: unknown;
  const tar = gunzip(source, budget, (error) => (inflateError ??= error)).pipeThrough(createTarDecoder({ strict: true }));
  const entries = tar.getReader();
  try {
    for (;;) {
      const { done, value: entry } = await entries.read();
      if (done) break;
      const path = budget.entry(entry.header.name);
      const handler = entry.header.type === 'file' && !path.endsWith('/') ? openAnnounced(contents, budget, path, entry.header.size) : null;
      if (!handler) {
        await entry.body.cancel();
        continue;
      }
      const body = entry.body.getReader();
      for (;;) {
        const { done: bodyDone, value } = await body.read();
        if (bodyDone) break;
        await handler.write(value);
        if (handler.satisfied) {
          await body.cancel();
          break;
        }
      }
      await handler.end();
    }
  } catch (error) {
    const failure = inflateError ?? classify(error, tarFailure(error));
    await entries.cancel(failure).catch(() => {});
    await source.cancel(failure);
    throw failure;
  }
}

function openAnnounced(contents: BundleContents, budget: ArchiveBudget, path: string, size: number): EntryHandler | null {
  const handler = contents.open(path);
  if (handler) budget.announced(path, size);
  return handler;
}

type ZipEvent =
  | { type: 'file'; file: UnzipFile }
  | { type: 'data'; chunk: Uint8Array; final: boolean }
  | { type: 'error'; name: string; error: unknown };

/** End-of-central-directory record: 22 bytes and a comment of up to 65,535. */
const EOCD_SIGNATURE = 0x06054b50;
const EOCD_SEARCH_BYTES = 22 + 0xffff;

/** Keeps the last bytes of the archive to check that it ends with a central directory. */
class Tail {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.length += chunk.byteLength;
    while (this.chunks.length > 1 && this.length - this.chunks[0]!.byteLength >= EOCD_SEARCH_BYTES) {
      this.length -= this.chunks.shift()!.byteLength;
    }
  }

  endsWithCentralDirectory(): boolean {
    const bytes = new Uint8Array(this.length);
    let offset = 0;
    for (const chunk of this.chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    const view = new DataView(bytes.buffer);
    for (let at = bytes.byteLength - 22; at >= 0; at--) {
      if (view.getUint32(at, true) === EOCD_SIGNATURE && at + 22 + view.getUint16(at + 20, true) === bytes.byteLength) return true;
    }
    return false;
  }
}

/**
 * Reads a zip front to back with fflate's streaming Unzip (local headers; the central directory
 * is only checked for presence). fflate pushes synchronously, so its events are queued per slice
 * and handled with awaits before the next slice goes in.
 */
export async function readZip(source: ByteSource, budget: ArchiveBudget, contents: BundleContents): Promise<void> {
  const events: ZipEvent[] = [];
  const unzip = new Unzip((file) => {
    events.push({ type: 'file', file });
    if (file.compression !== 0 && file.compression !== 8) {
      events.push({ type: 'error', name: file.name, error: new Error(`compression method ${file.compression} is not supported; use deflate or store`) });
      return;
    }
    file.ondata = (error, chunk, final) => {
      events.push(error ? { type: 'error', name: file.name, error } : { type: 'data', chunk, final });
    };
    file.start();
  });
  unzip.register(UnzipInflate);

  const tail = new Tail();
  let current: { path: string; handler: EntryHandler | null; open: boolean } | null = null;

  const handle = async (event: ZipEvent): Promise<void> => {
    if (event.type === 'error') throw corrupt(`Zip entry "${event.name}" cannot be read`, event.error);
    if (event.type === 'file') {
      if (current?.open) throw corrupt(`Zip entry "${current.path}" ends early`, 'its data is incomplete');
      const path = budget.entry(event.file.name);
      const handler = path.endsWith('/') ? null : contents.open(path);
      if (handler && event.file.originalSize !== undefined) budget.announced(path, event.file.originalSize);
      current = { path, handler, open: true };
      return;
    }
    budget.produced(event.chunk.byteLength);
    if (!current) return;
    const { handler } = current;
    if (handler && !handler.satisfied && event.chunk.byteLength) await handler.write(event.chunk);
    if (event.final) {
      current.open = false;
      if (handler) await handler.end();
    }
  };

  const push = async (chunk: Uint8Array, final: boolean): Promise<void> => {
    try {
      unzip.push(chunk, final);
    } catch (error) {
      throw corrupt(final ? 'The zip archive is truncated' : 'The zip archive is corrupt', error);
    } finally {
      // Events queued before a failure are handled first, so a limit error wins over the symptom.
      while (events.length) await handle(events.shift()!);
    }
  };

  try {
    for (;;) {
      const slice = await source.readSlice(DECOMPRESS_SLICE_BYTES);
      if (!slice) break;
      budget.consumed(slice.byteLength);
      tail.push(slice);
      await push(slice, false);
    }
    await push(new Uint8Array(0), true);
    if ((current as { open: boolean } | null)?.open || !tail.endsWithCentralDirectory()) {
      throw new BundleError('corrupt_archive', 'The zip archive is truncated: it does not end with a central directory. Re-create the archive and upload it again.');
    }
  } catch (error) {
    const failure = classify(error, 'The zip archive is corrupt');
    await source.cancel(failure);
    throw failure;
  }
}
