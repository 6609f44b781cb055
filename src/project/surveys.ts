// Surveys and jobs inside the project object (spec 4.8, 4.9): start, step status, regenerate,
// read, list with cursors, delete and restore.
import type { JsonObject } from '../lib/json';
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { ApiError, invalidParameter, invalidRequest, notFound } from '../lib/errors';
import {
  changeJob, CLIENT_STEP_TYPES, createSurvey, isSurvey, jobWithSteps, requireJob, requireSurvey, settleSurvey,
  skipSurvey, stepOf, stepsOf, SURVEY_TYPES, type JobAnswer, type JobRow, type JobStatus, type SurveyType,
} from './jobs';
import * as health from './health';
import { queueWork } from './leases';
import { retentionEnded } from './erasure';
import { bundleOf, queueReports } from './report-build';
import type { ProjectState } from './state';
import { jobs } from './schema';
import { assertRoomForSurvey, DEFAULT_PROJECT_STORE_MAX_BYTES } from './store-limit';

// Defined with the jobs (leases send it again); the queue consumers name it from here.
export type { AnalysisMessage } from './jobs';

export interface StartSurveyInput {
  idempotencyKey: string;
  jobType: SurveyType;
  tag?: string | null;
  jsonTags?: JsonObject | null;
  target?: string | null;
  notes?: string | null;
  /** The upload pass (its credential id) starting the survey: it may read the survey's CI outputs. Not part of the key's request. */
  startedBy?: string;
}

export interface StartSurveyAnswer {
  parent_id: string;
  submission_timestamp: string;
  sub_job_ids: Record<string, string>;
}

const subJobIds = (steps: JobRow[]) => Object.fromEntries(steps.map((s) => [s.stepLabel ?? s.id, s.id]));

/**
 * Starts a survey; a repeat of the key answers the first survey (`changed` false: nothing to record).
 * 409 `storage_full` once the project's store reached `storeMaxBytes` (src/project/store-limit.ts).
 */
export async function startSurvey(state: ProjectState, input: StartSurveyInput, storeMaxBytes = DEFAULT_PROJECT_STORE_MAX_BYTES): Promise<Changed<StartSurveyAnswer>> {
  const { idempotencyKey, startedBy, ...request } = input;
  const { answer, replayed } = await state.idempotency.runOnce('survey.start', idempotencyKey, request, async () => {
    await assertRoomForSurvey(state, storeMaxBytes);
    const { survey, steps } = createSurvey(state.db, { ...request, ...(startedBy ? { metadata: { started_by: { kind: 'upload_pass', credential_id: startedBy } } } : {}) });
    health.runCreated(state, survey, { idempotencyKey });
    state.notify([survey, ...steps]);
    return { parent_id: survey.id, submission_timestamp: survey.createdAt, sub_job_ids: subJobIds(steps) };
  });
  return { answer, changed: !replayed };
}

export function getSurvey(state: ProjectState, surveyId: string): JobAnswer {
  return jobWithSteps(state.db, requireSurvey(state.db, surveyId));
}

export function getJob(state: ProjectState, jobId: string): JobAnswer {
  return jobWithSteps(state.db, requireJob(state.db, jobId));
}

export interface StepStatusInput {
  idempotencyKey?: string;
  surveyId: string;
  subJobId: string;
  status: JobStatus;
  progress?: number;
  message?: string | null;
  metadata?: JsonObject;
  analyzeStats?: JsonObject;
}

/** Merges a step's reported status, progress, message and metadata; settles the survey. */
export async function reportStepStatus(state: ProjectState, input: StepStatusInput): Promise<void> {
  const { idempotencyKey, ...request } = input;
  const apply = () => {
    const survey = state.db.select().from(jobs).where(eq(jobs.id, request.surveyId)).get();
    if (!survey || !isSurvey(survey)) throw notFound('No survey with this id exists in the project.');
    const step = state.db.select().from(jobs).where(and(eq(jobs.id, request.subJobId), eq(jobs.parentId, survey.id))).get();
    if (!step) throw invalidRequest('subJobId is not a step of this survey.');
    if (!CLIENT_STEP_TYPES.includes(step.stepType ?? '')) {
      throw invalidRequest(`The ${step.stepLabel ?? step.stepType?.toLowerCase()} step is run by the service; a client reports only on its upload step.`);
    }
    if (request.analyzeStats && request.metadata && 'analyzeStats' in request.metadata) {
      throw invalidRequest('Send analyzeStats either at the top level or inside metadata, not both.');
    }
    const metadata = { ...(request.metadata ?? {}), ...(request.analyzeStats ? { analyzeStats: request.analyzeStats } : {}) };
    const changed = changeJob(state.db, step, {
      status: request.status, progress: request.progress, message: request.message,
      metadata: Object.keys(metadata).length ? metadata : undefined,
    });
    state.notify([changed, settleSurvey(state.db, survey.id)]);
    return null;
  };
  if (idempotencyKey) await state.idempotency.run('survey.status', idempotencyKey, request, apply);
  else apply();
}

export interface RegenerateInput {
  idempotencyKey: string;
  surveyId: string;
  skipAnalyze: boolean;
}

export interface RegenerateAnswer extends StartSurveyAnswer {
  supersedes: string;
}

/** What the route answers, and whether this call made it (a repeat records no activity). */
export interface Changed<T> {
  answer: T;
  changed: boolean;
}

/**
 * A new survey over the upload the old one already has: the old survey and its unfinished steps
 * become SKIPPED. With `skipAnalyze` the analysis is not repeated (only reports are produced again).
 */
export async function regenerateSurvey(state: ProjectState, input: RegenerateInput, storeMaxBytes = DEFAULT_PROJECT_STORE_MAX_BYTES): Promise<Changed<RegenerateAnswer>> {
  const { idempotencyKey, ...request } = input;
  const { answer, replayed } = await state.idempotency.runOnce('survey.regenerate', idempotencyKey, request, async () => {
    await assertRoomForSurvey(state, storeMaxBytes);
    const old = requireSurvey(state.db, request.surveyId);
    if (retentionEnded(old)) throw invalidRequest('The survey was deleted and its retention period ended: its upload was erased, so it cannot run again.');
    const bundle = bundleOf(state, old);
    if (!bundle) throw invalidRequest('The survey has no completed upload to run again from.');
    const { survey, steps } = createSurvey(state.db, {
      jobType: old.type as SurveyType, tag: old.tag, jsonTags: old.jsonTags, target: old.target, notes: old.notes,
      supersedes: old.id, metadata: { bundleId: bundle.id, regeneratedFrom: old.id },
    });
    health.runCreated(state, survey, { reusedFrom: request.skipAnalyze ? old.id : undefined });
    const skipped = skipSurvey(state.db, old.id, survey.id);
    const upload = changeJob(state.db, stepOf(state.db, survey.id, 'UPLOAD'), {
      status: 'COMPLETED', message: `Reusing bundle ${bundle.id}.`, metadata: { bundleId: bundle.id, reused: true },
    });
    const analyze = stepOf(state.db, survey.id, 'ANALYZE');
    const analyzed = request.skipAnalyze
      ? changeJob(state.db, analyze, { status: 'SKIPPED', message: `Analysis reused from survey ${old.id}.` })
      : analyze;
    if (request.skipAnalyze) {
      const reused = reuseAnalysis(state, old, survey);
      state.notify([...skipped, upload, analyzed, ...reused, settleSurvey(state.db, survey.id) ?? survey]);
      if (!reused.length) await queueReports(state, survey.id);
    } else {
      try {
        await queueWork(state, analyze, { projectId: state.projectId, surveyId: survey.id, bundleId: bundle.id, blobKey: bundle.blobKey });
      } catch (error) {
        // Nothing would ever analyse it: fail the new survey now rather than leave it PENDING.
        const failed = changeJob(state.db, analyzed, { status: 'FAILED', failureClass: 'internal', message: 'The analysis could not be queued; regenerate again.' });
        state.notify([...skipped, upload, failed, settleSurvey(state.db, survey.id)]);
        console.error(JSON.stringify({ level: 'error', message: 'analysis queue send failed', surveyId: survey.id, error: String(error) }));
        throw new ApiError('try_again', 'The analysis could not be queued; retry in a few seconds.', { headers: { 'Retry-After': '5' } });
      }
      state.notify([...skipped, upload, analyzed, ...steps, settleSurvey(state.db, survey.id) ?? survey]);
    }
    return { parent_id: survey.id, supersedes: old.id, submission_timestamp: survey.createdAt, sub_job_ids: subJobIds(steps) };
  });
  return { answer, changed: !replayed };
}

/**
 * A survey regenerated with `skipAnalyze` builds its reports from the analysis the old survey used.
 * Without one (its analysis failed or never ran) the reports fail at once, saying what to do; the
 * failed REPORT steps are answered (none when the reports were queued instead).
 */
function reuseAnalysis(state: ProjectState, old: JobRow, survey: JobRow): JobRow[] {
  const source = old.metadata.analysis_source;
  if (source && typeof old.metadata.subject === 'string') {
    changeJob(state.db, survey, { metadata: { analysis_source: source, subject: old.metadata.subject } });
    return [];
  }
  const message = 'The survey this one regenerates has no finished analysis to reuse; regenerate with {"skipAnalyze": false} to analyse the upload again.';
  return stepsOf(state.db, survey.id).filter((s) => s.stepType === 'REPORT')
    .map((s) => changeJob(state.db, s, { status: 'FAILED', failureClass: 'no_analysis', message }));
}

export interface JobQuery {
  jobTypes?: string[];
  status?: JobStatus;
  limit: number;
  sortDir: 'asc' | 'desc';
  after?: string;
  before?: string;
  /** Undefined when not asked: false, except that a `jobType` filter then leaves out analysis steps (which carry the survey's type). */
  topLevel?: boolean;
  showDeleted: boolean;
  /** Only the jobs directly under this one (a survey's steps, a report's render jobs). */
  parentId?: string;
}

export interface JobPage {
  jobs: JobAnswer[];
  pagination: { firstId: string | null; lastId: string | null; hasMore: boolean; total: number };
}

/** Jobs newest first (or oldest), filtered, keyset-paged by (created_at, id). */
export function listJobs(state: ProjectState, query: JobQuery): JobPage {
  if (query.after && query.before) throw invalidParameter('before', 'Pass after or before, never both.');
  const filters: SQL[] = [];
  if (query.jobTypes?.length) {
    filters.push(inArray(jobs.type, query.jobTypes));
    // `jobType=INVENTORY_SURVEY` lists surveys; their analysis steps (of the same type) only when asked for.
    if (query.topLevel === undefined) filters.push(sql`NOT (${jobs.parentId} IS NOT NULL AND ${inArray(jobs.type, [...SURVEY_TYPES])})`);
  }
  if (query.status) filters.push(eq(jobs.status, query.status));
  if (query.topLevel) filters.push(isNull(jobs.parentId));
  if (query.parentId) filters.push(eq(jobs.parentId, query.parentId));
  if (!query.showDeleted) {
    // A deleted survey hides with its steps, and with the render jobs under its report steps.
    filters.push(isNull(jobs.deletedAt));
    filters.push(sql`(${jobs.parentId} IS NULL OR ${jobs.parentId} NOT IN (SELECT id FROM jobs WHERE deleted_at IS NOT NULL
      OR parent_id IN (SELECT id FROM jobs WHERE deleted_at IS NOT NULL)))`);
  }
  const where = filters.length ? and(...filters) : undefined;
  const total = state.db.select({ n: sql<number>`count(*)` }).from(jobs).where(where).get()!.n;

  const cursorId = query.after ?? query.before;
  const backwards = Boolean(query.before);
  const scanDesc = (query.sortDir === 'desc') !== backwards;
  const page: SQL[] = where ? [where] : [];
  if (cursorId) {
    const cursor = state.db.select({ createdAt: jobs.createdAt, id: jobs.id }).from(jobs).where(eq(jobs.id, cursorId)).get();
    if (!cursor) throw invalidParameter(query.after ? 'after' : 'before', 'The cursor names no job.');
    const beyond = scanDesc
      ? or(lt(jobs.createdAt, cursor.createdAt), and(eq(jobs.createdAt, cursor.createdAt), lt(jobs.id, cursor.id)))
      : or(gt(jobs.createdAt, cursor.createdAt), and(eq(jobs.createdAt, cursor.createdAt), gt(jobs.id, cursor.id)));
    page.push(beyond!);
  }
  const order = scanDesc ? [desc(jobs.createdAt), desc(jobs.id)] : [asc(jobs.createdAt), asc(jobs.id)];
  const rows = state.db.select().from(jobs).where(page.length ? and(...page) : undefined).orderBy(...order).limit(query.limit + 1).all();
  const hasMore = rows.length > query.limit;
  const kept = rows.slice(0, query.limit);
  if (backwards) kept.reverse();
  const answers = kept.map((row) => jobWithSteps(state.db, row));
  return { jobs: answers, pagination: { firstId: answers[0]?.id ?? null, lastId: answers.at(-1)?.id ?? null, hasMore, total } };
}

function surveyForDeletion(state: ProjectState, jobId: string): JobRow {
  const row = requireJob(state.db, jobId);
  if (!isSurvey(row)) throw invalidRequest('Only a survey can be deleted or restored, not a step or another type of job.');
  return row;
}

/** Sets or clears a survey's `deleted_at`; doing what is already done changes nothing. */
function setDeleted(state: ProjectState, jobId: string, deleted: boolean): Changed<JobAnswer> {
  const row = surveyForDeletion(state, jobId);
  if (Boolean(row.deletedAt) === deleted) return { answer: jobWithSteps(state.db, row), changed: false };
  // Like a project after its retention (docs/decisions.md, "Retention and erasure (issue 12)").
  if (!deleted && retentionEnded(row)) throw notFound('The survey\'s retention period has ended and its files were erased; it can no longer be restored.');
  const deletedAt = deleted ? new Date().toISOString() : null;
  state.db.update(jobs).set({ deletedAt, seq: row.seq + 1 }).where(eq(jobs.id, row.id)).run();
  const updated = { ...row, deletedAt, seq: row.seq + 1 };
  state.notify([updated]);
  return { answer: jobWithSteps(state.db, updated), changed: true };
}

/** Hides a survey (and its steps) from the default job list; deleting it again changes nothing. */
export const deleteSurvey = (state: ProjectState, jobId: string) => setDeleted(state, jobId, true);

export const restoreSurvey = (state: ProjectState, jobId: string) => setDeleted(state, jobId, false);

