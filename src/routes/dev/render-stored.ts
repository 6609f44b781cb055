// What `npm run bench:render` measures at sizes no survey here reaches in reasonable time (issue 22: a
// report of 200,000 or 1,000,000 entries): a synthetic pqc-inventory report (src/render/sample.ts's
// stored-like entries) written straight into the project's report entries through the object's
// dev-only `devSql`, a slice per call, then rendered by the render queue's own code
// (renderStoredReport: the entries read page by page from the object, the document written to R2).
import type { Env } from '../../env';
import type { JsonObject } from '../../lib/json';
import { withProjectWork } from '../../project/client';
import type { DevSqlAnswer, SqlValue } from '../../project/dev-sql';
import { renderStoredReport } from '../../queues/render';
import type { DocumentFormat } from '../../render/model';
import type { StoredReport } from '../../render/report-model';
import { samplePqcEntry, samplePqcSection } from '../../render/sample';

const SECTIONS = ['red', 'yellow', 'transition', 'green', 'unclassified'];
/** Rows per devSql batch: one transaction each. */
const BATCH_ROWS = 5_000;

/** The bench's report of `entries` entries: its id and the summary the render queue reads (section totals). */
export function benchReport(entries: number): StoredReport {
  const totals = new Map(SECTIONS.map((name) => [name, 0]));
  for (let i = 0; i < entries; i++) totals.set(samplePqcSection(i), totals.get(samplePqcSection(i))! + 1);
  return {
    id: `bench-render-${entries}`, type: 'pqc-inventory', subject: 'bench-render', producedAt: '2026-11-24T10:15:00.000Z',
    summary: { headline: {}, sections: SECTIONS.map((name) => ({ name, kind: 'list', total: totals.get(name)! })) },
  };
}

/** Writes entries `from` to `from + count` of the bench report of `entries` entries; positions count per section as the report queue counts them. */
export async function seedBenchReport(env: Env, projectId: string, entries: number, from: number, count: number): Promise<{ written: number; ms: number }> {
  const started = performance.now();
  const reportId = benchReport(entries).id;
  // A section's position is the entry's rank among the earlier entries of its section.
  const positions = new Map(SECTIONS.map((name) => [name, 0]));
  for (let i = 0; i < from; i++) positions.set(samplePqcSection(i), positions.get(samplePqcSection(i))! + 1);
  const end = Math.min(entries, from + count);
  const batches: { sql: string; rows: SqlValue[][] }[][] = [];
  let rows: SqlValue[][] = [];
  for (let i = from; i < end; i++) {
    const entry = samplePqcEntry(i);
    const section = String(entry.section);
    const position = positions.get(section)! + 1;
    positions.set(section, position);
    const { section: _, ...data } = entry as JsonObject;
    rows.push([reportId, section, position, `asset-${i}`, null, String(entry.name), String(entry.explanation), JSON.stringify(data)]);
    if (rows.length === BATCH_ROWS || i === end - 1) {
      batches.push([{ sql: 'INSERT OR REPLACE INTO report_entries (report_id, section, position, key, purl, name, explanation, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', rows }]);
      rows = [];
    }
  }
  if (batches.length) await withProjectWork<DevSqlAnswer>(env, projectId, (stub) => stub.devSql({ batches }));
  return { written: Math.max(0, end - from), ms: performance.now() - started };
}

/** Renders the bench report of `entries` entries (seeded first) as the render queue renders a stored report; the document is deleted again. */
export async function renderBenchReport(env: Env, projectId: string, entries: number, format: DocumentFormat): Promise<{ ms: number; bytes: number }> {
  const key = `bench/render-stored/${crypto.randomUUID()}.${format}`;
  const started = performance.now();
  const bytes = await renderStoredReport(env, {
    projectId, format, key, report: benchReport(entries),
    survey: { id: null, tag: null, type: 'INVENTORY_SURVEY', target: 'bench-render' },
  });
  const ms = performance.now() - started;
  await env.BUNDLES.delete(key);
  return { ms, bytes };
}
