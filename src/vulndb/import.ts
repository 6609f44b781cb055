// Importing OSV records into D1, incrementally (a record is replaced only when its `modified` is
// newer). Used by the daily refresh and tests; `npm run vulndb:import` runs the same statements.
import type { OsvRecord } from '../analysis/vulns/osv-types';
import sql from './statements.json';

/** Records per D1 batch (three statements each; a batch runs as one transaction). */
export const IMPORT_BATCH = 100;

/** The (base ecosystem, ecosystem, name) of every package a record's `affected` names, once each. */
export function packagesOfRecord(record: OsvRecord): [string, string, string][] {
  const seen = new Map<string, [string, string, string]>();
  for (const affected of record.affected ?? []) {
    const { ecosystem, name } = affected.package ?? {};
    if (!ecosystem || !name) continue;
    seen.set(`${ecosystem}\u0000${name}`, [ecosystem.split(':')[0]!, ecosystem, name]);
  }
  return [...seen.values()];
}

/** Whether a parsed JSON value has the fields an OSV record must have. */
export function isOsvRecord(value: unknown): value is OsvRecord {
  const r = value as OsvRecord | null;
  return Boolean(r && typeof r.id === 'string' && r.id && typeof r.modified === 'string');
}

export interface ImportResult {
  importId: string;
  records: number;
  /** Records inserted or replaced by a newer version. */
  changed: number;
}

/** Imports records in batches; answers how many of them were new or newer than what D1 held. */
export async function importRecords(db: D1Database, records: OsvRecord[], source: string, importId: string = crypto.randomUUID()): Promise<ImportResult> {
  for (let i = 0; i < records.length; i += IMPORT_BATCH) {
    const statements = records.slice(i, i + IMPORT_BATCH).flatMap((r) => [
      db.prepare(sql.upsertRecord).bind(r.id, r.modified, r.published ?? null, r.withdrawn ?? null, JSON.stringify(r), source, importId),
      db.prepare(sql.clearPackages).bind(r.id, importId),
      db.prepare(sql.insertPackages).bind(r.id, importId, JSON.stringify(packagesOfRecord(r))),
    ]);
    await db.batch(statements);
  }
  const changed = await db.prepare('SELECT count(*) AS n FROM vuln_records WHERE import_id = ?').bind(importId).first<number>('n');
  return { importId, records: records.length, changed: changed ?? 0 };
}
