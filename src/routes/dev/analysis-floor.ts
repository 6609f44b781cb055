// The floor `npm run bench:analysis` measures the analysis against, in the same runtime: `JSON.parse` of
// a CycloneDX body, then one bulk insert of its components into the project's SQLite (in one
// transaction, timed inside the object), deleted again. The object runs the statements through its
// dev-only `devSql` (src/project/dev-sql.ts).
import type { Env } from '../../env';
import { withProjectWork } from '../../project/client';
import type { DevSqlAnswer } from '../../project/dev-sql';

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
