// What the project object erases when retention says so (docs/retention.md, docs/decisions.md
// "Retention and erasure (issue 12)"):
// - a purged project: its unfinished uploads are aborted, every R2 object under `projects/{id}/` is
//   deleted (a bounded slice per call, driven by the daily cron: src/control/erasures.ts), then the
//   object's own storage;
// - a deleted survey whose retention ended: its bundle (unless a survey still in retention uses it),
//   its reports' full documents and rendered documents, and its reports' entries (most of what a
//   survey adds to the object's SQLite: this is what frees a full store, src/project/store-limit.ts),
//   a bounded slice per alarm ring;
// - a person who belongs to no organization any more: the email in their criticality ratings.
import { eq, inArray, sql } from 'drizzle-orm';
import type { Env } from '../env';
import { nowIso } from '../lib/ids';
import { changeJob, findJob, type JobRow, type ProjectDb } from './jobs';
import type { ProjectState } from './state';
import { bundles, renderWork, reportDocuments, reports, stepLeases, uploads } from './schema';
import { abortUpload, abortUploads } from './sweep';

/** Keys per R2 `delete` call (the binding's limit) and per `list` page. */
export const R2_DELETE_BATCH = 1_000;
/** Objects one `eraseSlice` call deletes at most (R2 calls stay well inside one invocation's limits). */
export const ERASE_SLICE_KEYS = 10_000;
/** Unfinished uploads one call aborts at most. */
const ABORTS_PER_CALL = 50;

const DAY_MS = 86_400_000;

/** Where every R2 object of a project lies: bundles, report documents, rendered documents. */
export const projectPrefix = (projectId: string) => `projects/${projectId}/`;
/** A report's full document and every rendering of it (replaced ones a failed delete left behind too). */
const reportPrefix = (projectId: string, reportId: string) => `projects/${projectId}/reports/${reportId}/`;

/** An allowance of R2 calls, shared by the steps of one call or one alarm ring. */
export class CallBudget {
  constructor(public left: number) {}

  take(n = 1): boolean {
    if (this.left < n) return false;
    this.left -= n;
    return true;
  }
}

/**
 * Deletes the objects under `prefix`, `batch` keys per list and delete, until none is left or the
 * budget (calls) or `maxKeys` runs out. Answers how many were deleted and whether any may remain.
 */
export async function deleteUnder(
  bucket: R2Bucket, prefix: string, options: { budget: CallBudget; maxKeys?: number; batch?: number },
): Promise<{ deleted: number; more: boolean }> {
  const batch = Math.min(options.batch ?? R2_DELETE_BATCH, R2_DELETE_BATCH);
  let deleted = 0;
  for (;;) {
    const room = (options.maxKeys ?? Infinity) - deleted;
    if (room <= 0 || !options.budget.take(2)) return { deleted, more: true };
    // Always the first page: what was deleted is gone from the listing (R2 lists are strongly consistent).
    const page = await bucket.list({ prefix, limit: Math.min(batch, room) });
    if (page.objects.length) await bucket.delete(page.objects.map((o) => o.key));
    deleted += page.objects.length;
    if (!page.truncated) return { deleted, more: false };
  }
}

/** Aborts up to `limit` R2 multipart uploads that never completed; answers whether more are left. */
export async function abortStartedUploads(env: Env, db: ProjectDb, limit = ABORTS_PER_CALL): Promise<boolean> {
  const started = db.select().from(uploads).where(eq(uploads.status, 'started')).limit(limit + 1).all();
  for (const upload of started.slice(0, limit)) await abortUpload(env, db, upload);
  return started.length > limit;
}

/** Replaces the email of these people's criticality ratings with null; answers the ratings changed. */
export function forgetRaters(sqlStorage: SqlStorage, userIds: string[]): number {
  if (!userIds.length) return 0;
  const cursor = sqlStorage.exec(
    `UPDATE criticality_ratings SET rater = json_set(rater, '$.email', NULL)
     WHERE json_extract(rater, '$.id') IN (SELECT value FROM json_each(?)) AND json_extract(rater, '$.email') IS NOT NULL`,
    JSON.stringify(userIds),
  );
  return cursor.rowsWritten;
}

// ---- deleted surveys ----

/** R2 calls one alarm ring spends on deleted surveys whose retention ended. */
export const SURVEY_ERASE_CALLS = 60;
/** Report entries one alarm ring deletes at most (as content purges do), so the object answers between rings. */
export const ENTRY_ERASE_ROWS = 2_000;

/** The survey's retention ended: its files are (being) erased; restore, regenerate and render refuse. */
export const retentionEnded = (survey: Pick<JobRow, 'metadata'> | undefined) => typeof survey?.metadata.retentionEndedAt === 'string';

/** The organization's `retentionDays` for this project; null when the project is gone from the control plane. */
export async function organizationRetentionDays(state: ProjectState): Promise<number | null> {
  const row = await state.env.DB
    .prepare('SELECT o.retention_days AS days FROM projects p JOIN organizations o ON o.id = p.org_id WHERE p.id = ?1')
    .bind(state.projectId).first<{ days: number }>();
  return row ? Number(row.days) : null;
}

/** Deleted surveys whose files are not erased yet, oldest deletion first. */
function pendingDeletedSurveys(state: ProjectState): { id: string; deleted_at: string }[] {
  return state.sql.exec<{ id: string; deleted_at: string }>(
    `SELECT id, deleted_at FROM jobs WHERE parent_id IS NULL AND deleted_at IS NOT NULL
     AND IFNULL(json_extract(metadata, '$.filesErased'), 0) = 0 ORDER BY deleted_at, id`,
  ).toArray();
}

/**
 * Erases the files of deleted surveys whose retention ended (deleted longer than the organization's
 * `retentionDays` ago), within `calls` R2 calls. Answers when to look again (ms since the epoch):
 * soon while work is left, else when the next deleted survey's retention ends, at most a day away
 * (the retention may change meanwhile); null when no deleted survey waits.
 */
export async function eraseExpiredSurveys(state: ProjectState, now = Date.now(), calls = SURVEY_ERASE_CALLS): Promise<number | null> {
  const pending = pendingDeletedSurveys(state);
  if (!pending.length) return null;
  const earliest = Date.parse(pending[0]!.deleted_at);
  // The shortest retention is one day: nothing can have expired before that.
  if (earliest + DAY_MS > now) return earliest + DAY_MS;
  let days: number | null;
  try {
    days = await organizationRetentionDays(state);
  } catch (error) {
    console.error(JSON.stringify({ level: 'error', message: 'survey retention: the organization\'s retention could not be read', projectId: state.projectId, error: String(error) }));
    return now + 60 * 60_000;
  }
  // Purged from the control plane: the project's own erasure takes everything.
  if (days === null) return null;
  const cutoff = now - days * DAY_MS;
  const budget = new CallBudget(calls);
  let waiting: number | null = null;
  for (const { id, deleted_at: deletedAt } of pending) {
    const at = Date.parse(deletedAt);
    if (at > cutoff) {
      waiting = Math.min(waiting ?? Infinity, at + days * DAY_MS);
      break;
    }
    const outcome = await eraseSurveyFiles(state, id, budget);
    if (outcome === 'more') return now + 5;
    // Work of the survey still running (an analysis, a report, a rendering): look again later.
    if (outcome === 'busy') waiting = Math.min(waiting ?? Infinity, now + 60 * 60_000);
  }
  return waiting === null ? null : Math.min(waiting, now + DAY_MS);
}

type SurveyErasure = 'done' | 'more' | 'busy';

/** Deletes up to ENTRY_ERASE_ROWS entries of these reports; answers whether none is left. */
function eraseReportEntries(state: ProjectState, reportIds: string[], limit = ENTRY_ERASE_ROWS): boolean {
  const ids = JSON.stringify(reportIds);
  state.sql.exec(
    'DELETE FROM report_entries WHERE rowid IN (SELECT rowid FROM report_entries WHERE report_id IN (SELECT value FROM json_each(?)) LIMIT ?)',
    ids, limit,
  );
  return state.sql.exec('SELECT 1 FROM report_entries WHERE report_id IN (SELECT value FROM json_each(?)) LIMIT 1', ids).toArray().length === 0;
}

/** Erases one expired deleted survey's files, as far as the budget goes (a later ring finishes it). */
async function eraseSurveyFiles(state: ProjectState, surveyId: string, budget: CallBudget): Promise<SurveyErasure> {
  let survey = findJob(state.db, surveyId);
  if (!survey?.deletedAt) return 'done';
  const reportIds = state.db.select({ id: reports.id }).from(reports).where(eq(reports.surveyId, surveyId)).all().map((r) => r.id);
  const leased = state.db.select({ id: stepLeases.stepId }).from(stepLeases).where(eq(stepLeases.surveyId, surveyId)).get();
  const rendering = reportIds.length && state.db.select({ id: renderWork.jobId }).from(renderWork).where(inArray(renderWork.reportId, reportIds)).get();
  if (leased || rendering) return 'busy';
  if (!retentionEnded(survey)) {
    // From here on the survey can no longer be restored, regenerated or rendered.
    survey = changeJob(state.db, survey, { metadata: { retentionEndedAt: nowIso() } });
    state.notify([survey]);
  }
  await abortUploads(state, surveyId);
  for (const reportId of reportIds) {
    const { more } = await deleteUnder(state.env.BUNDLES, reportPrefix(state.projectId, reportId), { budget });
    if (more) return 'more';
  }
  if (reportIds.length) state.db.delete(reportDocuments).where(inArray(reportDocuments.reportId, reportIds)).run();
  if (reportIds.length && !eraseReportEntries(state, reportIds)) return 'more';
  // Its own upload, and the upload it was regenerated from: each goes once no survey still in
  // retention (deleted or not) runs from it.
  const reused = typeof survey.metadata.bundleId === 'string' ? survey.metadata.bundleId : null;
  const candidates = state.db.select().from(bundles)
    .where(reused ? sql`${bundles.surveyId} = ${surveyId} OR ${bundles.id} = ${reused}` : eq(bundles.surveyId, surveyId)).all();
  for (const bundle of candidates) {
    const stillUsed = state.sql.exec(
      `SELECT 1 FROM jobs WHERE parent_id IS NULL AND id <> ? AND (id = ? OR json_extract(metadata, '$.bundleId') = ?)
       AND json_extract(metadata, '$.retentionEndedAt') IS NULL LIMIT 1`,
      surveyId, bundle.surveyId, bundle.id,
    ).toArray().length > 0;
    if (stillUsed) continue;
    if (!budget.take()) return 'more';
    await state.env.BUNDLES.delete(bundle.blobKey);
    state.db.delete(bundles).where(eq(bundles.id, bundle.id)).run();
  }
  state.notify([changeJob(state.db, survey, { metadata: { filesErased: true } })]);
  return 'done';
}
