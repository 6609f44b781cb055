// The floors `npm run bench:analysis` measures a survey against, in the same runtime, each written in
// one transaction timed inside the project object and deleted again (through its dev-only `devSql`,
// src/project/dev-sql.ts):
// - of the document: `JSON.parse` of a CycloneDX body, then one bulk insert of its components;
// - of a survey (issue 22, "the analysis against its floor"): the very rows its analysis wrote (items,
//   findings, dependencies: every content row of its attempt) in one bulk insert, with the table's
//   indexes; and for each of its reports, the report's entries alone in one bulk insert.
import type { Env } from '../../env';
import { withProjectWork } from '../../project/client';
import type { DevSqlAnswer, DevSqlInput, SqlRow } from '../../project/dev-sql';

const FLOOR_SURVEY = 'bench-floor';

export async function measureAnalysisFloor(env: Env, projectId: string, text: string): Promise<{ rows: number; parseMs: number; insertMs: number }> {
  const started = performance.now();
  const document = JSON.parse(text) as { components?: Record<string, unknown>[] };
  const rows = (document.components ?? []).map((raw, i) => [String(raw['bom-ref'] ?? raw.purl ?? i), String(raw.name ?? ''), JSON.stringify(raw)]);
  const parseMs = performance.now() - started;
  const answer = await withProjectWork<DevSqlAnswer>(env, projectId, (stub) => stub.devSql({
    batches: [
      [{ sql: 'INSERT OR REPLACE INTO contents (survey_id, attempt, kind, key, name, data) VALUES (?, 0, ?, ?, ?, ?)', rows: rows.map((row) => [FLOOR_SURVEY, 'component', ...row]) }],
      [{ sql: 'DELETE FROM contents WHERE survey_id = ?', rows: [[FLOOR_SURVEY]] }],
    ],
  }));
  return { rows: rows.length, parseMs, insertMs: answer.batches[0]!.ms };
}

/** What a survey's steps are measured against: its content rows, and each report's entries, each written again in one transaction. */
export interface SurveyFloor {
  contents: { rows: number; ms: number };
  reports: { type: string; rows: number; ms: number }[];
}

const CONTENT_COLUMNS = ['kind', 'key', 'purl', 'name', 'version', 'data'];
const ENTRY_COLUMNS = ['section', 'position', 'key', 'purl', 'name', 'explanation', 'data', 'terms'];

export async function measureSurveyFloor(env: Env, projectId: string, surveyId: string): Promise<SurveyFloor> {
  const sql = (batches: DevSqlInput['batches']) => withProjectWork<DevSqlAnswer>(env, projectId, (stub) => stub.devSql({ batches }));
  const read = await sql([[
    { sql: `SELECT ${CONTENT_COLUMNS.join(', ')} FROM contents WHERE survey_id = ? AND attempt = (SELECT max(attempt) FROM contents WHERE survey_id = ?)`, rows: [[surveyId, surveyId]] },
    { sql: 'SELECT id, type FROM reports WHERE survey_id = ? ORDER BY id', rows: [[surveyId]] },
  ]]);
  const [contentRows, reportRows] = read.batches[0]!.rows as [SqlRow[], SqlRow[]];
  const values = (row: SqlRow, columns: string[]) => columns.map((column) => row[column] ?? null);
  const insertContents = `INSERT INTO contents (survey_id, attempt, ${CONTENT_COLUMNS.join(', ')}) VALUES (?, 0, ${CONTENT_COLUMNS.map(() => '?').join(', ')})`;
  const written = await sql([
    [{ sql: insertContents, rows: contentRows.map((row) => [FLOOR_SURVEY, ...values(row, CONTENT_COLUMNS)]) }],
    [{ sql: 'DELETE FROM contents WHERE survey_id = ?', rows: [[FLOOR_SURVEY]] }],
  ]);
  const reports: SurveyFloor['reports'] = [];
  for (const report of reportRows) {
    const entries = (await sql([[{ sql: `SELECT ${ENTRY_COLUMNS.join(', ')} FROM report_entries WHERE report_id = ?`, rows: [[report.id!]] }]])).batches[0]!.rows[0]!;
    const insertEntries = `INSERT INTO report_entries (report_id, ${ENTRY_COLUMNS.join(', ')}) VALUES (?, ${ENTRY_COLUMNS.map(() => '?').join(', ')})`;
    const answer = await sql([
      [{ sql: insertEntries, rows: entries.map((row) => [FLOOR_SURVEY, ...values(row, ENTRY_COLUMNS)]) }],
      [{ sql: 'DELETE FROM report_entries WHERE report_id = ?', rows: [[FLOOR_SURVEY]] }],
    ]);
    reports.push({ type: String(report.type), rows: entries.length, ms: answer.batches[0]!.ms });
  }
  return { contents: { rows: contentRows.length, ms: written.batches[0]!.ms }, reports };
}
