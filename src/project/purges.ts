// Deleting content rows nothing points at any more (a subject's previous contents, an attempt that
// was replaced or failed) a slice at a time from the object's alarm, so a large deletion never holds
// the object: other requests are answered between slices.
import { and, asc, eq, sql } from 'drizzle-orm';
import { nowIso } from '../lib/ids';
import type { ProjectState } from './state';
import { contentPurges, contents } from './schema';

/** Rows deleted per alarm run. */
export const PURGE_SLICE_ROWS = 2_000;

/** Queues an attempt's rows (of one kind, or `*` for all) for deletion by the alarm. */
export function queuePurge(state: ProjectState, surveyId: string, attempt: number, kind: string): void {
  state.db.insert(contentPurges).values({ surveyId, attempt, kind, queuedAt: nowIso() }).onConflictDoNothing().run();
  state.wakeSoon();
}

/** Deletes up to `limit` queued rows; answers whether more remain. */
export function purgeSlice(state: ProjectState, limit = PURGE_SLICE_ROWS): boolean {
  let budget = limit;
  for (;;) {
    const purge = state.db.select().from(contentPurges).orderBy(asc(contentPurges.queuedAt)).limit(1).get();
    if (!purge) return false;
    if (budget <= 0) return true;
    const kind = purge.kind === '*' ? undefined : eq(contents.kind, purge.kind);
    const match = and(eq(contents.surveyId, purge.surveyId), eq(contents.attempt, purge.attempt), kind);
    state.db.run(sql`DELETE FROM contents WHERE rowid IN (SELECT rowid FROM ${contents} WHERE ${match} LIMIT ${budget})`);
    const removed = Number(state.db.get<{ n: number }>(sql`SELECT changes() AS n`).n);
    budget -= removed;
    // Fewer than asked for: nothing of this purge is left.
    if (budget > 0) {
      state.db.delete(contentPurges)
        .where(and(eq(contentPurges.surveyId, purge.surveyId), eq(contentPurges.attempt, purge.attempt), eq(contentPurges.kind, purge.kind))).run();
    }
  }
}
