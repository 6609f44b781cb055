// The daily refresh of the vulnerability database (ARCHITECTURE section 1, cron): for each configured
// ecosystem, OSV's `all.zip` is fetched from VULNDB_SOURCE_URL into R2 (staging), then read back as a
// stream, one entry at a time, and imported in bounded batches (incremental: only newer records are
// written). A source that cannot be reached is logged and skipped; the cron goes on.
import { Unzip, UnzipInflate } from 'fflate';
import type { Env } from '../env';
import { importRecords, isOsvRecord, IMPORT_BATCH } from './import';
import type { OsvRecord } from '../analysis/vulns/osv-types';

export const DEFAULT_ECOSYSTEMS = ['npm', 'PyPI', 'Maven', 'Go', 'NuGet', 'RubyGems', 'crates.io', 'Packagist', 'Debian', 'Alpine'];

export const stagingKey = (ecosystem: string) => `vulndb/staging/${ecosystem}/all.zip`;

/** Fetches one ecosystem's all.zip into R2, streamed (never whole in memory). */
export async function stageSource(env: Env, ecosystem: string): Promise<string> {
  const url = `${env.VULNDB_SOURCE_URL!.replace(/\/$/, '')}/${encodeURIComponent(ecosystem)}/all.zip`;
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`${url} answered ${res.status}`);
  const length = Number(res.headers.get('content-length'));
  const key = stagingKey(ecosystem);
  // R2 needs a known length for a stream: a FixedLengthStream when the source says it, else buffered.
  const body = Number.isSafeInteger(length) && length > 0 ? res.body.pipeThrough(new FixedLengthStream(length)) : await res.arrayBuffer();
  await env.BUNDLES.put(key, body);
  return key;
}

/** Imports a staged all.zip from R2: entries are read as the archive streams in, records imported IMPORT_BATCH at a time. */
export async function importStaged(env: Env, key: string, source = key): Promise<{ records: number; changed: number; skipped: number }> {
  const object = await env.BUNDLES.get(key);
  if (!object) throw new Error(`${key} is not in storage`);
  const importId = crypto.randomUUID();
  await env.DB.prepare('INSERT INTO vuln_imports (id, source, started_at) VALUES (?, ?, ?)').bind(importId, source, new Date().toISOString()).run();
  // Entries in archive order; an entry's text is there once its last byte has been inflated.
  const entries: { text: string | null }[] = [];
  const unzip = new Unzip((entry) => {
    if (!entry.name.endsWith('.json')) return;
    const slot: { text: string | null } = { text: null };
    entries.push(slot);
    const chunks: Uint8Array[] = [];
    entry.ondata = (error, chunk, final) => {
      if (error) throw error;
      chunks.push(chunk);
      if (final) slot.text = new TextDecoder().decode(concat(chunks));
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  let batch: OsvRecord[] = [];
  let records = 0;
  let changed = 0;
  let skipped = 0;
  const importBatch = async () => {
    changed = (await importRecords(env.DB, batch, source, importId)).changed;
    records += batch.length;
    batch = [];
  };
  /** Takes the finished entries off the front; imports a batch whenever one is full. */
  const drain = async () => {
    while (entries[0]?.text != null) {
      const record = parse(entries.shift()!.text!);
      if (record) batch.push(record);
      else skipped++;
      if (batch.length >= IMPORT_BATCH) await importBatch();
    }
  };
  for await (const chunk of object.body as unknown as AsyncIterable<Uint8Array>) {
    unzip.push(chunk);
    await drain();
  }
  unzip.push(new Uint8Array(0), true);
  await drain();
  if (batch.length) await importBatch();
  await env.DB.prepare('UPDATE vuln_imports SET finished_at = ?, records = ?, changed = ? WHERE id = ?').bind(new Date().toISOString(), records, changed, importId).run();
  return { records, changed, skipped };
}

function parse(text: string): OsvRecord | null {
  try {
    const value: unknown = JSON.parse(text);
    return isOsvRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The cron's part: every configured ecosystem staged and imported; failures logged, never thrown. */
export async function refreshVulnerabilityData(env: Env): Promise<void> {
  if (!env.VULNDB_SOURCE_URL) return;
  const ecosystems = env.VULNDB_ECOSYSTEMS ? env.VULNDB_ECOSYSTEMS.split(',').map((e) => e.trim()).filter(Boolean) : DEFAULT_ECOSYSTEMS;
  for (const ecosystem of ecosystems) {
    try {
      const key = await stageSource(env, ecosystem);
      const result = await importStaged(env, key, `${ecosystem}/all.zip`);
      console.log(JSON.stringify({ level: 'info', message: 'vulnerability data refreshed', ecosystem, ...result }));
    } catch (error) {
      console.error(JSON.stringify({ level: 'error', message: 'vulnerability data refresh failed', ecosystem, error: String(error) }));
    }
  }
}
