// How large a project object's SQLite may grow (docs/scaling.md). Cloudflare keeps at most 10 GB in
// one Durable Object, and a write past that fails: a survey half written, a report that never
// completes. So the object refuses to start new surveys once its store reaches a lower limit, with an
// error that names the limit and what frees space, and the surveys already under way finish in the
// room left above it.
import type { Env } from '../env';
import { positiveIntegerSetting } from '../lib/settings';
import { ApiError } from '../lib/errors';
import { organizationRetentionDays } from './erasure';
import type { ProjectState } from './state';

/**
 * 9 GB: Cloudflare's 10 GB per object less 1 GB for the work already under way when the limit is
 * reached (a 150,000-component survey stores about 70 MB; see docs/scaling.md).
 */
export const DEFAULT_PROJECT_STORE_MAX_BYTES = 9_000_000_000;

/** `PROJECT_STORE_MAX_BYTES`, else the default. */
export function projectStoreMaxBytes(env: Pick<Env, 'PROJECT_STORE_MAX_BYTES'>): number {
  return positiveIntegerSetting(env.PROJECT_STORE_MAX_BYTES, DEFAULT_PROJECT_STORE_MAX_BYTES);
}

const gigabytes = (bytes: number) => `${(bytes / 1e9).toFixed(bytes < 1e8 ? 4 : 2)} GB`;

/**
 * 409 `storage_full` when the project's store has reached `maxBytes`: called where a new survey
 * would start (survey start, upload start without a survey, regenerate), before anything is written.
 */
export async function assertRoomForSurvey(state: ProjectState, maxBytes: number): Promise<void> {
  const size = state.sql.databaseSize;
  if (size < maxBytes) return;
  const days = await organizationRetentionDays(state).catch(() => null);
  const retention = days === null ? 'the organization\'s retention period' : `the organization's retention period (${days} day${days === 1 ? '' : 's'})`;
  throw new ApiError('storage_full', [
    `The project's stored data (${gigabytes(size)}) has reached its limit of ${gigabytes(maxBytes)} (PROJECT_STORE_MAX_BYTES; one project holds at most 10 GB), so it starts no new surveys.`,
    `Delete the surveys you no longer need (DELETE /api/v1/project/{projectId}/v1/survey/{surveyId}): their report entries and files are erased once ${retention} has passed since the deletion, which frees the space; a shorter retentionDays frees it sooner.`,
  ].join(' '));
}

/** One table's share of a store: its rows and the bytes of their values (indexes and pages aside). */
export interface TableFigures {
  rows: number;
  bytes: number;
}

/**
 * Every table of an SQLite store (a project object's, or D1's through `all`) with its rows and the
 * bytes its values take: what `npm run bench:growth` reads to measure growth per survey. Reads every
 * row, so for benches and operators, never on a request path.
 */
export async function tableFigures(all: (query: string) => Promise<Record<string, unknown>[]>): Promise<Record<string, TableFigures>> {
  const tables = await all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' AND name NOT LIKE '__drizzle%' ORDER BY name");
  const figures: Record<string, TableFigures> = {};
  for (const { name } of tables as { name: string }[]) {
    const columns = (await all(`SELECT name FROM pragma_table_info('${name}')`)) as { name: string }[];
    const bytes = columns.map((c) => `IFNULL(length(CAST("${c.name}" AS BLOB)), 0)`).join(' + ') || '0';
    const [row] = (await all(`SELECT count(*) AS n, IFNULL(sum(${bytes}), 0) AS b FROM "${name}"`)) as { n: number; b: number }[];
    figures[name] = { rows: Number(row?.n ?? 0), bytes: Number(row?.b ?? 0) };
  }
  return figures;
}
