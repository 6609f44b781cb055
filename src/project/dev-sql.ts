// The development routes' one way into a project object's SQLite (src/routes/dev/: benchmark data, the
// analysis floor). Generic on purpose: what the benchmarks write is theirs, kept beside the dev routes,
// so the object itself holds no benchmark code. The object refuses it unless the instance enables the
// dev routes (a DEV_SECRET, as `.dev.vars` sets one).
import type { ProjectState } from './state';
import { ensureImplicit } from './portfolios';
import { requestScoring } from './scoring-store';

export type SqlValue = string | number | null;
export type SqlRow = Record<string, SqlValue>;

/** One statement, run once per parameter row (once without parameters when `rows` is left out). */
export interface DevStatement {
  sql: string;
  rows?: SqlValue[][];
}

export interface DevSqlInput {
  /** Each batch runs in one transaction, timed. */
  batches: DevStatement[][];
  /** Ring the object's alarm after the call: it deletes what the statements queued in `content_purges`. */
  wake?: boolean;
  /** Then every portfolio (the built-in one created when missing) is asked to be scored, as a completed survey asks. */
  scoreEveryPortfolio?: boolean;
}

export interface DevSqlAnswer {
  /** Per batch: how long its transaction took, and what each statement answered (every run's rows, in order). */
  batches: { ms: number; rows: SqlRow[][] }[];
  /** The portfolios asked to be scored. */
  portfolios: string[];
}

export async function runDevSql(state: ProjectState, input: DevSqlInput): Promise<DevSqlAnswer> {
  const batches = input.batches.map((batch) => {
    const rows: SqlRow[][] = batch.map(() => []);
    const started = performance.now();
    state.db.transaction(() => {
      batch.forEach((statement, i) => {
        for (const params of statement.rows ?? [[]]) rows[i]!.push(...state.sql.exec<SqlRow>(statement.sql, ...params).toArray());
      });
    });
    return { ms: performance.now() - started, rows };
  });
  if (input.wake) state.wakeSoon();
  let portfolios: string[] = [];
  if (input.scoreEveryPortfolio) {
    ensureImplicit(state);
    portfolios = state.sql.exec<{ id: string }>('SELECT id FROM portfolios WHERE deleted_at IS NULL').toArray().map((p) => p.id);
    await requestScoring(state, portfolios, 'survey');
  }
  return { batches, portfolios };
}
