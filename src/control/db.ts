import { sql, type SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import * as schema from './schema';

export type ControlDb = ReturnType<typeof controlDb>;

/** The control-plane database (D1) through drizzle. Cheap to create per request. */
export const controlDb = (d1: D1Database) => drizzle(d1, { schema });

// D1 binds at most 100 parameters per statement: lists a caller sends are passed as one JSON
// parameter, and many-row inserts are split.

/** `column IN (ids)` with the list bound as a single JSON parameter. */
export const inJsonList = (column: AnySQLiteColumn, ids: readonly string[]): SQL =>
  sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** Rows per insert statement: 30 rows of up to 3 columns stay under the parameter limit. */
export const ROWS_PER_INSERT = 30;

export function chunks<T>(items: readonly T[], size = ROWS_PER_INSERT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Whether a write failed on a UNIQUE or PRIMARY KEY constraint (a concurrent writer got there
 * first), optionally on the one whose message matches `detail`; drizzle wraps D1's error in `cause`.
 */
export function isUniqueViolation(error: unknown, detail?: RegExp): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const message = String((e as Error).message ?? e);
    if (/UNIQUE constraint failed|PRIMARY KEY constraint failed/i.test(message) && (!detail || detail.test(message))) return true;
  }
  return false;
}
