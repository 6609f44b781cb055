// Data-health resolve (spec 4.12 rule 1): what a reference someone holds (a run or step id from a
// job, an upload id or idempotency key from the CLI's output, a tag, a CI run id) points at.
import { and, desc, eq, isNotNull } from 'drizzle-orm';
import { invalidParameter, notFound } from '../lib/errors';
import { findJob, isSurvey } from './jobs';
import type { ProjectState } from './state';
import { bundles, healthRuns, idempotencyKeys, uploads } from './schema';

export type ResolveMatch = 'run_id' | 'step_id' | 'upload_id' | 'idempotency_key' | 'tag' | 'ci_run_id';

export interface ResolveAnswer {
  kind: 'run' | 'step' | 'subject';
  matched: ResolveMatch;
  run_id?: string;
  step_id?: string;
  subject?: string;
  deep_link: string;
}

/** Dashboard paths (relative to the dashboard's address) for a run, a step of a run, a subject. */
export const deepLinks = {
  run: (projectId: string, runId: string) => `/projects/${projectId}/data-health/runs/${runId}`,
  step: (projectId: string, runId: string, stepId: string) => `/projects/${projectId}/data-health/runs/${runId}?step=${stepId}`,
  subject: (projectId: string, subject: string) => `/projects/${projectId}/data-health/subjects/${encodeURIComponent(subject)}`,
};

/** The survey an idempotent answer names: a survey start or regenerate, an upload init or complete. */
function surveyOfAnswer(state: ProjectState, stored: unknown): string | null {
  // Answers are stored wrapped as `{ value }` (src/project/idempotency.ts).
  const answer = stored && typeof stored === 'object' && 'value' in stored ? (stored as { value: unknown }).value : stored;
  if (!answer || typeof answer !== 'object') return null;
  const fields = answer as Record<string, unknown>;
  for (const field of ['parent_id', 'jobId', 'surveyId']) {
    const id = fields[field];
    if (typeof id === 'string') {
      const job = findJob(state.db, id);
      if (job && isSurvey(job)) return job.id;
    }
  }
  if (typeof fields.bundleId === 'string') {
    return state.db.select({ surveyId: bundles.surveyId }).from(bundles).where(eq(bundles.id, fields.bundleId)).get()?.surveyId ?? null;
  }
  return null;
}

const asRun = (state: ProjectState, matched: ResolveMatch, runId: string): ResolveAnswer =>
  ({ kind: 'run', matched, run_id: runId, deep_link: deepLinks.run(state.projectId, runId) });

/** Tries `ref` as a run id, a step id, an upload id, an idempotency key, a subject tag, then a CI run id; the first match wins. */
export function resolveRef(state: ProjectState, rawRef: string): ResolveAnswer {
  const ref = rawRef.trim();
  if (!ref) throw invalidParameter('ref', 'ref is required and must not be blank.');

  const job = findJob(state.db, ref);
  if (job && isSurvey(job)) return asRun(state, 'run_id', job.id);
  if (job?.parentId) {
    const survey = findJob(state.db, job.parentId);
    if (survey && isSurvey(survey)) {
      return { kind: 'step', matched: 'step_id', run_id: survey.id, step_id: job.id, deep_link: deepLinks.step(state.projectId, survey.id, job.id) };
    }
  }

  const upload = state.db.select({ surveyId: uploads.surveyId }).from(uploads).where(eq(uploads.uploadId, ref)).get();
  if (upload) return asRun(state, 'upload_id', upload.surveyId);

  const keyed = state.db.select({ answer: idempotencyKeys.answer }).from(idempotencyKeys).where(eq(idempotencyKeys.key, ref)).orderBy(idempotencyKeys.createdAt).all();
  for (const { answer } of keyed) {
    const surveyId = surveyOfAnswer(state, answer);
    if (surveyId) return asRun(state, 'idempotency_key', surveyId);
  }
  const keyedRun = state.db.select({ id: healthRuns.id }).from(healthRuns).where(eq(healthRuns.idempotencyKey, ref)).get();
  if (keyedRun) return asRun(state, 'idempotency_key', keyedRun.id);

  // A tag names a subject when one of its runs has found the subject; otherwise its latest run.
  const tagged = state.db.select({ subject: healthRuns.subject }).from(healthRuns)
    .where(and(eq(healthRuns.tag, ref), isNotNull(healthRuns.subject))).orderBy(desc(healthRuns.createdAt), desc(healthRuns.id)).get();
  if (tagged?.subject) return { kind: 'subject', matched: 'tag', subject: tagged.subject, deep_link: deepLinks.subject(state.projectId, tagged.subject) };
  const taggedRun = state.db.select({ id: healthRuns.id }).from(healthRuns).where(eq(healthRuns.tag, ref)).orderBy(desc(healthRuns.createdAt), desc(healthRuns.id)).get();
  if (taggedRun) return asRun(state, 'tag', taggedRun.id);

  const ci = state.db.select({ id: healthRuns.id }).from(healthRuns).where(eq(healthRuns.ciRunId, ref)).orderBy(desc(healthRuns.createdAt), desc(healthRuns.id)).get();
  if (ci) return asRun(state, 'ci_run_id', ci.id);

  throw notFound('Nothing in this project matches ref (tried run id, step id, upload id, idempotency key, tag and CI run id).');
}
