// The daily refresh of the vulnerability database (cron, src/scheduled.ts): for each configured
// ecosystem, OSV's `all.zip` is streamed from VULNDB_SOURCE_URL into R2 (stageSource), then read back
// from R2 as a stream, one entry at a time, and imported in bounded batches (importStaged; incremental:
// only new or newer records are written). Failures are logged, never thrown: the cron goes on.
import { Unzip, UnzipInflate } from 'fflate';
import type { Env } from '../env';
import { concatBytes } from '../lib/bytes';
import { BATCH_BYTES, BATCH_RECORDS, ImportRun, isOsvRecord } from './import';
import { yieldToEventLoop } from '../lib/yielding';
import type { OsvRecord } from '../analysis/vulns/osv-types';

/** Ecosystems refreshed when VULNDB_ECOSYSTEMS is not set: the package URL types matching knows, and the distributions most images use. */
export const DEFAULT_ECOSYSTEMS = ['npm', 'PyPI', 'Maven', 'Go', 'NuGet', 'RubyGems', 'crates.io', 'Packagist', 'Hex', 'Pub', 'Debian', 'Alpine'];
/** D1 statements (and R2 calls) one refresh may make: an invocation may run about 1,000 queries. */
export const REFRESH_CALL_BUDGET = 900;
/** Wall time one refresh may take (a cron invocation has 15 minutes). */
export const REFRESH_TIME_BUDGET_MS = 10 * 60_000;
/** Compressed bytes inflated at once: OSV's JSON deflates about 4:1, so about 256 KB of records. */
const INFLATE_SLICE_BYTES = 64 * 1024;
/** R2 multipart part size when the source does not say its length (every part but the last the same size, at least 5 MiB). */
const PART_BYTES = 8 * 1024 * 1024;

export const stagingKey = (ecosystem: string) => `vulndb/staging/${ecosystem}/all.zip`;
const sourceUrl = (env: Env, ecosystem: string) => `${env.VULNDB_SOURCE_URL!.replace(/\/+$/, '')}/${encodeURIComponent(ecosystem)}/all.zip`;

/** What is left of a refresh's allowance; importStaged stops (resumably: the import is incremental) when it runs out. */
export interface Budget {
  calls: number;
  deadline: number;
}

export interface Staged {
  key: string;
  /** The source's ETag (else Last-Modified), when it gives one. */
  version: string | null;
  /** False when the source answered 304: the staged copy is still current. */
  fresh: boolean;
}

/** Fetches one ecosystem's all.zip into R2, streamed (never whole in memory), conditional on the staged copy's ETag. */
export async function stageSource(env: Env, ecosystem: string, budget?: Budget): Promise<Staged> {
  if (!env.VULNDB_SOURCE_URL) throw new Error('VULNDB_SOURCE_URL is not set');
  const url = sourceUrl(env, ecosystem);
  const key = stagingKey(ecosystem);
  const staged = await env.BUNDLES.head(key);
  const known = staged?.customMetadata?.sourceVersion;
  const res = await fetch(url, { headers: known && staged?.customMetadata?.sourceUrl === url ? { 'if-none-match': known } : {} });
  if (budget) budget.calls -= 2;
  if (res.status === 304 && known) return { key, version: known, fresh: false };
  if (!res.ok || !res.body) throw new Error(`${url} answered ${res.status}`);
  const version = res.headers.get('etag') ?? res.headers.get('last-modified');
  const customMetadata = { sourceUrl: url, sourceVersion: version ?? '', fetchedAt: new Date().toISOString() };
  const length = Number(res.headers.get('content-length'));
  if (Number.isSafeInteger(length) && length > 0) {
    await env.BUNDLES.put(key, res.body.pipeThrough(new FixedLengthStream(length)), { customMetadata });
    if (budget) budget.calls -= 1;
  } else {
    const parts = await putUnsized(env.BUNDLES, key, res.body, customMetadata);
    if (budget) budget.calls -= parts + 2;
  }
  return { key, version, fresh: true };
}

/** A body of unknown length into R2 by multipart upload, PART_BYTES at a time; answers the number of parts. */
async function putUnsized(bucket: R2Bucket, key: string, body: ReadableStream<Uint8Array>, customMetadata: Record<string, string>): Promise<number> {
  const upload = await bucket.createMultipartUpload(key, { customMetadata });
  const parts: R2UploadedPart[] = [];
  const buffer = new Uint8Array(PART_BYTES);
  let filled = 0;
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      for (let at = 0; at < chunk.byteLength;) {
        const n = Math.min(PART_BYTES - filled, chunk.byteLength - at);
        buffer.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === PART_BYTES) {
          parts.push(await upload.uploadPart(parts.length + 1, buffer.slice()));
          filled = 0;
        }
      }
    }
    if (filled || !parts.length) parts.push(await upload.uploadPart(parts.length + 1, buffer.slice(0, filled)));
    await upload.complete(parts);
    return parts.length;
  } catch (error) {
    await upload.abort().catch(() => {});
    throw error;
  }
}

export interface StagedImport {
  importId: string;
  records: number;
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** False when the budget ran out before the archive's end (the next run takes it up again). */
  complete: boolean;
}

/**
 * Imports a staged all.zip from R2: the object streams through fflate's Unzip, each `.json` entry is
 * parsed once inflated, and records are written BATCH_RECORDS at a time (bounded memory whatever the
 * archive's size). Entries that are not OSV records are counted as skipped.
 */
export async function importStaged(env: Env, key: string, options: { source?: string; version?: string | null; budget?: Budget } = {}): Promise<StagedImport> {
  const object = await env.BUNDLES.get(key);
  if (!object) throw new Error(`${key} is not in storage`);
  const run = await ImportRun.start(env.DB, options.source ?? key, options.version ?? null);
  const decoder = new TextDecoder();
  const texts: { text: string | null }[] = [];
  const tail = new Tail();
  let entries = 0;
  const unzip = new Unzip((entry) => {
    entries++;
    if (!entry.name.endsWith('.json')) return; // not started: fflate skips its data
    const slot: { text: string | null } = { text: null };
    texts.push(slot);
    const chunks: Uint8Array[] = [];
    entry.ondata = (error, chunk, final) => {
      if (error) throw error;
      chunks.push(chunk);
      if (final) slot.text = decoder.decode(concatBytes(chunks));
    };
    entry.start();
  });
  unzip.register(UnzipInflate);

  let batch: OsvRecord[] = [];
  let bytes = 0;
  let stopped = false;
  const overBudget = () => Boolean(options.budget && (options.budget.calls - run.queries <= 0 || Date.now() > options.budget.deadline));
  const write = async () => {
    await run.write(batch);
    batch = [];
    bytes = 0;
    stopped = overBudget();
  };
  /** Takes the inflated entries off the front, in archive order; writes whenever a batch is full. */
  const drain = async () => {
    while (!stopped && texts[0]?.text != null) {
      const text = texts.shift()!.text!;
      const record = parse(text);
      if (record) {
        batch.push(record);
        bytes += text.length;
      } else run.skip();
      if (batch.length >= BATCH_RECORDS || bytes >= BATCH_BYTES) await write();
    }
  };
  const reader = object.body.getReader();
  try {
    // Past the budget, what was read and not written is left for the next run (the import is incremental).
    while (!stopped) {
      const { done, value } = await reader.read();
      if (done) {
        unzip.push(new Uint8Array(0), true);
        checkArchiveEnd(tail.bytes(), entries, texts.some((t) => t.text === null));
        await drain();
        if (!stopped) {
          if (batch.length) await write();
          stopped = false; // everything was read and written: complete, even if the budget ends here
        }
        break;
      }
      tail.add(value);
      // A chunk of the stream can be megabytes, inflating to tens of MB of JSON: fed in slices, each
      // slice's records parsed and written, and the thread let go after each (issue 22, 50 ms). Not
      // yieldNow: the clock stands still between I/O, and a slice need not write anything.
      for (let at = 0; at < value.byteLength && !stopped; at += INFLATE_SLICE_BYTES) {
        unzip.push(value.subarray(at, at + INFLATE_SLICE_BYTES));
        await drain();
        await yieldToEventLoop();
      }
    }
    if (stopped) await reader.cancel();
    await run.finish(stopped ? 'budget' : null);
  } catch (error) {
    await reader.cancel().catch(() => {});
    await run.finish(String(error)).catch(() => {});
    throw error;
  } finally {
    if (options.budget) options.budget.calls -= run.queries;
  }
  const complete = !stopped;
  return { importId: run.id, ...run.totals, complete };
}

/** The last bytes of a stream: where a zip's end of central directory record is (22 bytes and a comment of at most 65,535). */
class Tail {
  private chunks: Uint8Array[] = [];
  private size = 0;
  static readonly BYTES = 22 + 65_535;

  add(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.size += chunk.byteLength;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.byteLength >= Tail.BYTES) this.size -= this.chunks.shift()!.byteLength;
  }

  bytes(): Uint8Array {
    return concatBytes(this.chunks);
  }
}

/**
 * A truncated archive, or something that is no zip at all (an error page), streams through Unzip
 * without a word: the end of central directory record must be there, count the entries seen (unless
 * zip64 says 0xFFFF), and no entry may be left unfinished.
 */
function checkArchiveEnd(tail: Uint8Array, entries: number, unfinished: boolean): void {
  for (let at = tail.byteLength - 22; at >= 0; at--) {
    if (tail[at] !== 0x50 || tail[at + 1] !== 0x4b || tail[at + 2] !== 0x05 || tail[at + 3] !== 0x06) continue;
    const total = tail[at + 10]! | (tail[at + 11]! << 8);
    if (unfinished || (total !== 0xffff && total !== entries)) throw new Error(`the archive is truncated: ${entries} entries read, ${total} listed`);
    return;
  }
  throw new Error('not a zip archive, or truncated: no end of central directory');
}

function parse(text: string): OsvRecord | null {
  try {
    const value: unknown = JSON.parse(text);
    return isOsvRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** Whether an import of this source at this version already ran to its end. */
async function importedCompletely(db: D1Database, source: string, version: string | null): Promise<boolean> {
  if (!version) return false;
  const row = await db.prepare('SELECT 1 AS done FROM vuln_imports WHERE source = ?1 AND source_version = ?2 AND finished_at IS NOT NULL AND error IS NULL LIMIT 1')
    .bind(source, version).first<{ done: number }>();
  return Boolean(row);
}

/** The ecosystems to refresh, starting at a different one each day so that a large one cannot starve the rest of the budget. */
export function ecosystemsFor(env: Env, now: Date): string[] {
  const list = env.VULNDB_ECOSYSTEMS ? env.VULNDB_ECOSYSTEMS.split(',').map((e) => e.trim()).filter(Boolean) : DEFAULT_ECOSYSTEMS;
  const start = Math.floor(now.getTime() / 86_400_000) % Math.max(list.length, 1);
  return [...list.slice(start), ...list.slice(0, start)];
}

const log = (level: 'info' | 'error', message: string, fields: Record<string, unknown>) =>
  (level === 'error' ? console.error : console.log)(JSON.stringify({ level, message, ...fields }));

/** The cron's part: every configured ecosystem staged and imported within the budget; failures logged, never thrown. */
export async function refreshVulnerabilityData(env: Env, now = new Date(), budget: Budget = { calls: REFRESH_CALL_BUDGET, deadline: Date.now() + REFRESH_TIME_BUDGET_MS }): Promise<void> {
  if (!env.VULNDB_SOURCE_URL) return;
  for (const ecosystem of ecosystemsFor(env, now)) {
    if (budget.calls <= 0 || Date.now() > budget.deadline) {
      log('info', 'vulnerability data refresh: budget spent, ecosystem left for the next run', { ecosystem });
      continue;
    }
    try {
      const staged = await stageSource(env, ecosystem, budget);
      const source = sourceUrl(env, ecosystem);
      if (!staged.fresh && await importedCompletely(env.DB, source, staged.version)) {
        log('info', 'vulnerability data unchanged at the source', { ecosystem, version: staged.version });
        continue;
      }
      const result = await importStaged(env, staged.key, { source, version: staged.version, budget });
      log('info', 'vulnerability data refreshed', { ecosystem, ...result });
    } catch (error) {
      log('error', 'vulnerability data refresh failed', { ecosystem, error: String(error) });
    }
  }
}
