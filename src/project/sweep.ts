// Nothing stays RUNNING for ever: a survey with no change of any kind (status, progress, message)
// for a day is abandoned — a client that went away mid-upload, a step a client marked done without
// an upload, an analysis whose messages were lost. The object's alarm fails it with class
// `abandoned` and aborts its unfinished R2 multipart upload.
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Env } from '../env';
import { changeJob, isFinished, settleSurvey, stepsOf, type JobRow, type ProjectDb } from './jobs';
import type { ProjectState } from './state';
import { jobs, uploads } from './schema';

export const ABANDONED_AFTER_MS = 24 * 60 * 60_000;

const lastChange = (row: JobRow) => Date.parse(row.updatedAt ?? row.finishedAt ?? row.startedAt ?? row.createdAt);

/**
 * Fails every unfinished survey whose latest change (its own or a step's) is older than
 * ABANDONED_AFTER_MS. Answers when the next survey could become abandoned (ms since epoch), or null.
 */
export async function sweepAbandoned(state: ProjectState, now = Date.now()): Promise<number | null> {
  const open = state.db.select().from(jobs)
    .where(and(isNull(jobs.parentId), inArray(jobs.status, ['PENDING', 'RUNNING']), sql`${jobs.type} IN ('INVENTORY_SURVEY', 'RUNTIME_SURVEY')`))
    .all();
  let next: number | null = null;
  for (const survey of open) {
    const steps = stepsOf(state.db, survey.id);
    const latest = Math.max(lastChange(survey), ...steps.map(lastChange));
    if (now - latest < ABANDONED_AFTER_MS) {
      next = Math.min(next ?? Infinity, latest + ABANDONED_AFTER_MS);
      continue;
    }
    const message = `Abandoned: nothing happened for ${ABANDONED_AFTER_MS / 3_600_000} hours (an upload that never completed, or an analysis that was lost). Upload again or regenerate.`;
    const failed = steps.filter((step) => !isFinished(step.status)).map((step) => changeJob(state.db, step, { status: 'FAILED', failureClass: 'abandoned', message }));
    state.notify([...failed, settleSurvey(state.db, survey.id)]);
    await abortUploads(state, survey.id);
  }
  return next;
}

/** Aborts the survey's R2 multipart uploads that never completed, so no part outlives it. */
export async function abortUploads(state: ProjectState, surveyId: string): Promise<void> {
  const started = state.db.select().from(uploads).where(and(eq(uploads.surveyId, surveyId), eq(uploads.status, 'started'))).all();
  for (const upload of started) await abortUpload(state.env, state.db, upload);
}

/** Aborts one R2 multipart upload that never completed and marks it failed (one already completed, aborted or expired: nothing to abort). */
export async function abortUpload(env: Env, db: ProjectDb, upload: { blobKey: string; uploadId: string }): Promise<void> {
  await env.BUNDLES.resumeMultipartUpload(upload.blobKey, upload.uploadId).abort().catch(() => undefined);
  db.update(uploads).set({ status: 'failed' }).where(eq(uploads.uploadId, upload.uploadId)).run();
}
