// Deleting content rows nothing points at any more (a subject's previous contents, an attempt that
// was replaced or failed) a slice at a time from the object's alarm, so a large deletion never holds
// the object: other requests are answered between slices. A set still visible is never deleted: one a
// subject's pointer points at, or the base a layer stands on (src/project/content-layers.ts).
import { and, asc, eq } from 'drizzle-orm';
import { nowIso } from '../lib/ids';
import { baseOf } from './content-layers';
import type { ProjectState } from './state';
import { contentPurges } from './schema';

/** Rows deleted per alarm run. */
export const PURGE_SLICE_ROWS = 2_000;

/** Queues an attempt's rows (of one kind, or `*` for all) for deletion by the alarm. */
export function queuePurge(state: ProjectState, surveyId: string, attempt: number, kind: string): void {
  state.db.insert(contentPurges).values({ surveyId, attempt, kind, queuedAt: nowIso() }).onConflictDoNothing().run();
  state.wakeSoon();
}

/**
 * The kinds of an attempt's rows still visible: a subject's pointer points at them, or a layer (of a
 * current set, or of an attempt still staging) stands on them. Their purge is dropped; it is queued
 * again when the last layer on them goes.
 */
function visibleKinds(state: ProjectState, surveyId: string, attempt: number): string[] {
  return state.sql.exec<{ kind: string }>(
    `SELECT kind FROM subject_contents WHERE survey_id = ?1 AND attempt = ?2
     UNION SELECT kind FROM content_layers WHERE base_survey_id = ?1 AND base_attempt = ?2`, surveyId, attempt,
  ).toArray().map((r) => r.kind);
}

/** A purged set's layer rows go with its rows; the bases they stood on are queued for deletion in turn. */
function dropLayers(state: ProjectState, surveyId: string, attempt: number, kind: string, kept: string[]): void {
  const layers = state.sql.exec<{ kind: string }>('SELECT kind FROM content_layers WHERE survey_id = ? AND attempt = ?', surveyId, attempt).toArray();
  for (const layer of layers) {
    if ((kind !== '*' && layer.kind !== kind) || kept.includes(layer.kind)) continue;
    const base = baseOf(state, { survey_id: surveyId, attempt }, layer.kind)!;
    state.sql.exec('DELETE FROM content_layers WHERE survey_id = ? AND attempt = ? AND kind = ?', surveyId, attempt, layer.kind);
    queuePurge(state, base.survey_id, base.attempt, layer.kind);
  }
}

/** Deletes up to `limit` queued rows; answers whether more remain. */
export function purgeSlice(state: ProjectState, limit = PURGE_SLICE_ROWS): boolean {
  let budget = limit;
  for (;;) {
    const purge = state.db.select().from(contentPurges).orderBy(asc(contentPurges.queuedAt)).limit(1).get();
    if (!purge) return false;
    if (budget <= 0) return true;
    const kept = JSON.stringify(visibleKinds(state, purge.surveyId, purge.attempt));
    const set = `survey_id = ?1 AND attempt = ?2 AND (?3 = '*' OR kind = ?3) AND kind NOT IN (SELECT value FROM json_each(?4))`;
    // A layered set's removed keys first (a table without rowids), then its rows.
    const deletions = [
      `DELETE FROM content_removals WHERE ${set} AND key IN (SELECT key FROM content_removals WHERE ${set} LIMIT ?5)`,
      `DELETE FROM contents WHERE rowid IN (SELECT rowid FROM contents WHERE ${set} LIMIT ?5)`,
    ];
    for (const deletion of deletions) {
      if (budget <= 0) break;
      state.sql.exec(deletion, purge.surveyId, purge.attempt, purge.kind, kept, budget);
      budget -= Number(state.sql.exec('SELECT changes() AS n').one().n);
    }
    // Fewer than asked for: nothing of this purge is left.
    if (budget > 0) {
      dropLayers(state, purge.surveyId, purge.attempt, purge.kind, JSON.parse(kept) as string[]);
      state.db.delete(contentPurges)
        .where(and(eq(contentPurges.surveyId, purge.surveyId), eq(contentPurges.attempt, purge.attempt), eq(contentPurges.kind, purge.kind))).run();
    }
  }
}
