// Importing OSV records into D1, incrementally: a record is written only when its `modified` is newer
// than the stored one, and its package rows are then derived from it in SQL (statements.json, which
// `npm run vulndb:import` runs too). Used by the daily refresh, tests and anyone holding records.
import type { OsvRecord } from '../analysis/vulns/osv-types';
import sql from './statements.json';

/** A record whose JSON is larger is skipped: a D1 row holds at most 2 MB. */
export const MAX_RECORD_BYTES = 1_900_000;
/**
 * Records read before they are compared with what is stored and written (one D1 batch), and their
 * bytes. 2 MB, not more: the binding serializes a batch's parameters on the Worker's thread, and 8 MB
 * held it for 90 to 150 ms (`npm run bench:vulndb`; issue 22's rule is 50 ms).
 */
export const BATCH_RECORDS = 2000;
export const BATCH_BYTES = 2_000_000;
/** Bytes of records bound to one upsert statement (one JSON parameter, under D1's 2 MB per value). */
export const UPSERT_BYTES = 900_000;

export interface ImportCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** Whether a parsed JSON value has what an OSV record must have to be stored. */
export function isOsvRecord(value: unknown): value is OsvRecord {
  const r = value as OsvRecord | null;
  return Boolean(r && typeof r === 'object' && !Array.isArray(r) && typeof r.id === 'string' && r.id && typeof r.modified === 'string' && r.modified
    && (r.affected === undefined || Array.isArray(r.affected)));
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9})\d*)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * `modified` as a fixed-width UTC key (`YYYY-MM-DDTHH:MM:SS.fffffffffZ`) so that text order is time
 * order: sources write the same instant as `...:00Z`, `...:00.000Z` or `...:00.123456Z`.
 */
export function modifiedKey(modified: string): string {
  const m = TIMESTAMP.exec(modified.trim());
  if (!m) {
    const t = Date.parse(modified);
    return Number.isNaN(t) ? modified : new Date(t).toISOString().replace('Z', '000000Z');
  }
  const fraction = (m[3] ?? '').padEnd(9, '0');
  const zone = m[4] ?? 'Z';
  if (zone === 'Z' || zone === 'z' || /^[+-]00:?00$/.test(zone)) return `${m[1]}T${m[2]}.${fraction}Z`;
  const utc = new Date(Date.parse(`${m[1]}T${m[2]}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`)).toISOString();
  return `${utc.slice(0, 19)}.${fraction}Z`;
}

/** A random positive integer naming one write (batch): its records' package rows are derived by it. */
export function newWriteId(): number {
  const [hi, lo] = crypto.getRandomValues(new Uint32Array(2));
  return (hi! & 0x1fffff) * 2 ** 32 + lo! + 1;
}

interface Prepared {
  id: string;
  key: string;
  /** `[modifiedKey, record]` as JSON: one element of the upsert's parameter. */
  json: string;
  bytes: number;
}

const encoder = new TextEncoder();

/**
 * One import: its `vuln_imports` row and counts. Records are compared with what is stored a batch at
 * a time (one read), and only new or newer ones are sent, with the batch's package rows and counts, in
 * one `db.batch` (one transaction). `queries` counts D1 statements, for the refresh's budget.
 */
export class ImportRun {
  readonly totals = { records: 0, inserted: 0, updated: 0, unchanged: 0, skipped: 0 };
  queries = 0;
  private pending = { records: 0, inserted: 0, updated: 0, unchanged: 0, skipped: 0 };

  private constructor(readonly db: D1Database, readonly id: string, readonly source: string) {}

  static async start(db: D1Database, source: string, sourceVersion: string | null = null): Promise<ImportRun> {
    const run = new ImportRun(db, crypto.randomUUID(), source);
    await db.prepare(sql.startImport).bind(run.id, source, new Date().toISOString(), sourceVersion).run();
    run.queries++;
    return run;
  }

  /** Counts entries that were not OSV records; stored with the next write. */
  skip(count = 1): void {
    this.totals.skipped += count;
    this.pending.skipped += count;
  }

  /** Writes what is new or newer among the records; answers what became of them. */
  async write(records: OsvRecord[]): Promise<ImportCounts> {
    const counts: ImportCounts = { inserted: 0, updated: 0, unchanged: 0 };
    let batch: Prepared[] = [];
    let bytes = 0;
    const flush = async () => {
      const c = await this.writeBatch(batch);
      counts.inserted += c.inserted;
      counts.updated += c.updated;
      counts.unchanged += c.unchanged;
      batch = [];
      bytes = 0;
    };
    for (const record of records) {
      if (!isOsvRecord(record)) {
        this.skip();
        continue;
      }
      const key = modifiedKey(record.modified);
      const json = JSON.stringify([key, record]);
      const size = encoder.encode(json).byteLength;
      if (size > MAX_RECORD_BYTES) {
        console.warn(JSON.stringify({ level: 'warn', message: 'vulnerability record too large to store; skipped', id: record.id, bytes: size }));
        this.skip();
        continue;
      }
      if (batch.length >= BATCH_RECORDS || bytes + size > BATCH_BYTES) await flush();
      batch.push({ id: record.id, key, json, bytes: size });
      bytes += size;
    }
    if (batch.length) await flush();
    return counts;
  }

  /** Stores the counts not yet written and closes the import (with the reason when it stopped early). */
  async finish(error: string | null = null): Promise<void> {
    await this.db.batch([this.addCounts(), this.db.prepare(sql.finishImport).bind(this.id, new Date().toISOString(), error)]);
    this.queries += 2;
  }

  private async writeBatch(prepared: Prepared[]): Promise<ImportCounts> {
    // Within one batch the newest version of an id wins; the others count as unchanged.
    const byId = new Map<string, Prepared>();
    let duplicates = 0;
    for (const p of prepared) {
      const seen = byId.get(p.id);
      if (seen) duplicates++;
      if (!seen || p.key > seen.key) byId.set(p.id, p);
    }
    const { results } = await this.db.prepare('SELECT id, modified FROM vuln_records WHERE id IN (SELECT value FROM json_each(?1))')
      .bind(JSON.stringify([...byId.keys()])).all<{ id: string; modified: string }>();
    this.queries++;
    const stored = new Map(results.map((r) => [r.id, r.modified]));
    const counts: ImportCounts = { inserted: 0, updated: 0, unchanged: duplicates };
    const changed: Prepared[] = [];
    for (const p of byId.values()) {
      const modified = stored.get(p.id);
      if (modified === undefined) counts.inserted++;
      else if (p.key > modified) counts.updated++;
      else {
        counts.unchanged++;
        continue;
      }
      changed.push(p);
    }
    this.pending.records += prepared.length;
    this.pending.inserted += counts.inserted;
    this.pending.updated += counts.updated;
    this.pending.unchanged += counts.unchanged;
    this.totals.records += prepared.length;
    this.totals.inserted += counts.inserted;
    this.totals.updated += counts.updated;
    this.totals.unchanged += counts.unchanged;
    if (!changed.length) return counts; // counts are stored with the next write, or when the import finishes

    const writeId = newWriteId();
    const statements: D1PreparedStatement[] = [];
    let chunk: string[] = [];
    let bytes = 0;
    const upsert = () => {
      statements.push(this.db.prepare(sql.upsertRecords).bind(`[${chunk.join(',')}]`, this.source, this.id, writeId));
      chunk = [];
      bytes = 0;
    };
    for (const p of changed) {
      if (chunk.length && bytes + p.bytes > UPSERT_BYTES) upsert();
      chunk.push(p.json);
      bytes += p.bytes;
    }
    upsert();
    statements.push(this.db.prepare(sql.clearPackages).bind(writeId), this.db.prepare(sql.insertPackages).bind(writeId), this.addCounts());
    await this.db.batch(statements);
    this.queries += statements.length;
    return counts;
  }

  /** The statement adding the pending counts to the import's row (and then forgetting them). */
  private addCounts(): D1PreparedStatement {
    const p = this.pending;
    this.pending = { records: 0, inserted: 0, updated: 0, unchanged: 0, skipped: 0 };
    return this.db.prepare(sql.addCounts).bind(this.id, p.records, p.inserted, p.updated, p.unchanged, p.skipped, new Date().toISOString());
  }
}

/** Imports records as one import run (recorded in `vuln_imports`); answers what became of them. */
export async function importRecords(db: D1Database, records: OsvRecord[], source: string): Promise<ImportCounts> {
  const run = await ImportRun.start(db, source);
  try {
    const counts = await run.write(records);
    await run.finish();
    return counts;
  } catch (error) {
    await run.finish(String(error)).catch(() => {});
    throw error;
  }
}
