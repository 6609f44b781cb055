// Jobs and surveys (spec part 2 "Jobs and surveys", part 3; ARCHITECTURE section 4): the rows, the
// transitions, and the answer shape. Plain functions over the project's database, called by the
// project Durable Object.
import type { JsonObject } from '../lib/json';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import { ApiError, invalidRequest, notFound } from '../lib/errors';
import { newOrderedId, nowIso } from '../lib/ids';
import * as schema from './schema';
import { jobs } from './schema';
import { REPORT_TYPES, type ReportType } from '../reports/report-types';

export type ProjectDb = DrizzleSqliteDODatabase<typeof schema>;
export type JobRow = typeof jobs.$inferSelect;

export const JOB_TYPES = ['INVENTORY_SURVEY', 'RUNTIME_SURVEY', 'REPORT', 'UPLOAD', 'INSTANCE_STARTUP', 'PORTFOLIO_SNAPSHOT', 'PORTFOLIO_BACKFILL'] as const;
export type JobType = (typeof JOB_TYPES)[number];
export const SURVEY_TYPES = ['INVENTORY_SURVEY', 'RUNTIME_SURVEY'] as const;
export type SurveyType = (typeof SURVEY_TYPES)[number];
export const JOB_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'SKIPPED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

const FINISHED = new Set<string>(['COMPLETED', 'FAILED', 'SKIPPED']);
export const isFinished = (status: string) => FINISHED.has(status);
export const isSurvey = (row: Pick<JobRow, 'type' | 'parentId'>) => !row.parentId && (SURVEY_TYPES as readonly string[]).includes(row.type);

/** The analysis queue's message: one survey's bundle to read. */
export interface AnalysisMessage {
  projectId: string;
  surveyId: string;
  bundleId: string;
  blobKey: string;
  /** `report` builds the survey's reports from its finished analysis; absent, the bundle is analysed. */
  phase?: 'report';
}

/** The reports each survey type produces, one REPORT step each (ARCHITECTURE section 5). */
export const SURVEY_REPORTS = {
  INVENTORY_SURVEY: ['pqc-inventory', 'cbom', 'composition'],
  RUNTIME_SURVEY: ['pqc-inventory', 'cbom'],
} as const satisfies Record<SurveyType, readonly string[]>;
export { REPORT_TYPES, type ReportType };
/** The type (and job label) of a portfolio's posture report (src/project/posture.ts). */
export const POSTURE = 'posture';
/** The job labels of reports: a survey's REPORT steps and posture reports (not their render jobs). */
export const REPORT_LABELS: readonly string[] = [...REPORT_TYPES, POSTURE];

/** A survey's steps in the order they run: the client's upload, the service's analysis, then its reports. */
export function surveySteps(type: SurveyType): { stepType: string; stepLabel: string }[] {
  return [
    { stepType: 'UPLOAD', stepLabel: 'upload' },
    { stepType: 'ANALYZE', stepLabel: 'analyze' },
    ...SURVEY_REPORTS[type].map((label) => ({ stepType: 'REPORT', stepLabel: label })),
  ];
}

/**
 * Steps the client runs and reports on (spec 4.8 status report): the upload. The analysis and the
 * reports are the service's own, and their status follows what the service did.
 */
export const CLIENT_STEP_TYPES: readonly string[] = ['UPLOAD'];

export interface JobAnswer {
  id: string;
  type: string;
  status: JobStatus;
  progress: number;
  message: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  metadata: JsonObject;
  parent_id: string | null;
  step_type?: string;
  step_label?: string;
  tag?: string | null;
  target?: string | null;
  notes?: string | null;
  json_tags?: JsonObject | null;
  deleted_at?: string | null;
  supersedes?: string | null;
  failure_class?: string | null;
  steps?: StepAnswer[];
}

/** A step in a survey's `steps` (the same fields, never steps of its own). */
export type StepAnswer = Omit<JobAnswer, 'steps'>;

/** The get-job shape: a survey carries its steps, a step its type and label. */
export function jobAnswer(row: JobRow, steps?: JobRow[]): JobAnswer {
  const answer: JobAnswer = {
    id: row.id,
    type: row.type,
    status: row.status,
    progress: row.progress,
    message: row.message,
    created_at: row.createdAt,
    started_at: row.startedAt,
    finished_at: row.finishedAt,
    metadata: row.metadata,
    parent_id: row.parentId,
  };
  if (row.stepType) {
    answer.step_type = row.stepType;
    answer.step_label = row.stepLabel ?? row.stepType.toLowerCase();
  }
  if (isSurvey(row)) {
    Object.assign(answer, {
      tag: row.tag, target: row.target, notes: row.notes, json_tags: row.jsonTags,
      deleted_at: row.deletedAt, supersedes: row.supersedes, failure_class: row.failureClass,
      steps: (steps ?? []).map((step) => jobAnswer(step)),
    });
  } else {
    if (row.failureClass) answer.failure_class = row.failureClass;
    // A daily snapshot lists its posture reports as its steps, as a survey lists its own.
    if (row.type === 'PORTFOLIO_SNAPSHOT') answer.steps = (steps ?? []).map((step) => jobAnswer(step));
  }
  return answer;
}

export function findJob(db: ProjectDb, id: string): JobRow | undefined {
  return db.select().from(jobs).where(eq(jobs.id, id)).get();
}

export function requireJob(db: ProjectDb, id: string): JobRow {
  const row = findJob(db, id);
  if (!row) throw notFound('No job with this id exists in the project.');
  return row;
}

// Steps in the order they run (upload, analyze, then the reports in their fixed order), whatever their ids.
const STEP_ORDER = sql`CASE ${jobs.stepType} WHEN 'UPLOAD' THEN 0 WHEN 'ANALYZE' THEN 1 ELSE 2 END`;
const REPORT_ORDER = sql`CASE ${jobs.stepLabel} WHEN 'pqc-inventory' THEN 0 WHEN 'cbom' THEN 1 WHEN 'composition' THEN 2 ELSE 3 END`;

export function stepsOf(db: ProjectDb, surveyId: string): JobRow[] {
  return db.select().from(jobs).where(eq(jobs.parentId, surveyId)).orderBy(STEP_ORDER, REPORT_ORDER, asc(jobs.createdAt), asc(jobs.id)).all();
}

/** A job with its steps when it is a survey, in the answer shape. */
export function jobWithSteps(db: ProjectDb, row: JobRow): JobAnswer {
  return jobAnswer(row, isSurvey(row) || row.type === 'PORTFOLIO_SNAPSHOT' ? stepsOf(db, row.id) : undefined);
}

export interface NewSurvey {
  jobType: SurveyType;
  tag?: string | null;
  jsonTags?: JsonObject | null;
  target?: string | null;
  notes?: string | null;
  supersedes?: string | null;
  metadata?: JsonObject;
}

/** A survey (PENDING) with its steps. Ids are time-ordered, so job cursors follow creation. */
export function createSurvey(db: ProjectDb, input: NewSurvey): { survey: JobRow; steps: JobRow[] } {
  const now = nowIso();
  const survey: JobRow = {
    id: newOrderedId(), type: input.jobType, status: 'PENDING', progress: 0, message: null, createdAt: now,
    startedAt: null, finishedAt: null, metadata: input.metadata ?? {}, parentId: null, stepType: null, stepLabel: null,
    tag: input.tag ?? null, target: input.target ?? null, notes: input.notes ?? null, jsonTags: input.jsonTags ?? null,
    deletedAt: null, supersedes: input.supersedes ?? null, failureClass: null, seq: 1, updatedAt: now,
  };
  // A step's type is one of the specification's job types: UPLOAD for the upload, the survey's own
  // type for its analysis (there is no ANALYZE job type), REPORT for its reports; `step_type` tells them apart.
  const steps: JobRow[] = surveySteps(input.jobType).map((step) => ({
    ...survey, id: newOrderedId(), type: step.stepType === 'ANALYZE' ? input.jobType : step.stepType, parentId: survey.id, stepType: step.stepType, stepLabel: step.stepLabel,
    tag: null, target: null, notes: null, jsonTags: null, supersedes: null, metadata: {},
  }));
  // One row per statement: a job row has 22 columns and SQLite binds at most 100 variables per statement.
  for (const row of [survey, ...steps]) db.insert(jobs).values(row).run();
  return { survey, steps };
}

/** A job other than a survey (INSTANCE_STARTUP, a snapshot, a render or posture report step, ...). */
export function createJob(
  db: ProjectDb, type: JobType,
  input: { status?: JobStatus; message?: string; metadata?: JsonObject; parentId?: string | null; stepType?: string; stepLabel?: string; target?: string; supersedes?: string | null } = {},
): JobRow {
  const now = nowIso();
  const row: JobRow = {
    id: newOrderedId(), type, status: input.status ?? 'PENDING', progress: 0, message: input.message ?? null, createdAt: now,
    startedAt: input.status === 'RUNNING' ? now : null, finishedAt: null, metadata: input.metadata ?? {}, parentId: input.parentId ?? null,
    stepType: input.stepType ?? null, stepLabel: input.stepLabel ?? null, tag: null, target: input.target ?? null, notes: null, jsonTags: null, deletedAt: null,
    supersedes: input.supersedes ?? null, failureClass: null, seq: 1, updatedAt: now,
  };
  db.insert(jobs).values(row).run();
  return row;
}

export interface JobChange {
  status?: JobStatus;
  progress?: number;
  message?: string | null;
  metadata?: JsonObject;
  failureClass?: string | null;
}

/** A job's merged metadata stays under this (a Durable Object row holds at most 2 MB). */
export const JOB_METADATA_MAX_CHARS = 256 * 1024;

const ALLOWED: Record<string, readonly string[]> = {
  PENDING: ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'SKIPPED'],
  RUNNING: ['RUNNING', 'COMPLETED', 'FAILED', 'SKIPPED'],
};

/**
 * Applies a change to a job: PENDING -> RUNNING -> COMPLETED or FAILED, unfinished -> SKIPPED;
 * nothing leaves a finished state (409). Metadata is merged; progress never goes down.
 */
export function changeJob(db: ProjectDb, row: JobRow, change: JobChange): JobRow {
  if (change.status && change.status !== row.status && !(ALLOWED[row.status] ?? []).includes(change.status)) {
    throw new ApiError('conflict', `The job is ${row.status}; it cannot become ${change.status}.`);
  }
  const now = nowIso();
  const status = change.status ?? row.status;
  const metadata = change.metadata ? { ...row.metadata, ...change.metadata } : row.metadata;
  // Merged reports must stay storable: a job row is bounded, whatever the number of reports.
  if (change.metadata && JSON.stringify(metadata).length > JOB_METADATA_MAX_CHARS) {
    throw new ApiError('invalid_request', `The job's metadata would grow past ${JOB_METADATA_MAX_CHARS / 1024} KiB; send less.`);
  }
  const next: JobRow = {
    ...row,
    status,
    progress: status === 'COMPLETED' ? 100 : Math.max(row.progress, change.progress ?? row.progress),
    message: change.message !== undefined ? change.message : row.message,
    metadata,
    failureClass: change.failureClass !== undefined ? change.failureClass : row.failureClass,
    startedAt: row.startedAt ?? (status !== 'PENDING' && status !== 'SKIPPED' ? now : null),
    finishedAt: isFinished(status) ? (row.finishedAt ?? now) : null,
    seq: row.seq + 1,
    updatedAt: now,
  };
  db.update(jobs).set(next).where(eq(jobs.id, row.id)).run();
  return next;
}

/**
 * The survey's status from its steps: FAILED when a step failed, COMPLETED when every step
 * completed, RUNNING once one started. Returns the survey row when it changed.
 */
export function settleSurvey(db: ProjectDb, surveyId: string): JobRow | null {
  const survey = requireJob(db, surveyId);
  if (isFinished(survey.status)) return null;
  const steps = stepsOf(db, surveyId).filter((s) => s.status !== 'SKIPPED');
  const failed = steps.find((s) => s.status === 'FAILED');
  const done = steps.filter((s) => s.status === 'COMPLETED').length;
  const progress = steps.length ? Math.floor((100 * done) / steps.length) : 0;
  let change: JobChange | null = null;
  if (failed) {
    // What was still to run after a failed step never will: its steps end SKIPPED with the survey.
    for (const step of steps) if (!isFinished(step.status)) changeJob(db, step, { status: 'SKIPPED', message: `Not run: the ${failed.stepLabel ?? 'previous'} step failed.` });
    change = { status: 'FAILED', message: failed.message, failureClass: failed.failureClass };
  }
  else if (steps.length && done === steps.length) change = { status: 'COMPLETED', message: null };
  else if (steps.some((s) => s.status !== 'PENDING') && survey.status === 'PENDING') change = { status: 'RUNNING', progress };
  else if (progress > survey.progress) change = { progress };
  return change ? changeJob(db, survey, change) : null;
}

/** Marks a survey and its unfinished steps SKIPPED (superseded by a regenerated survey). */
export function skipSurvey(db: ProjectDb, surveyId: string, supersededBy: string): JobRow[] {
  const changed: JobRow[] = [];
  const survey = requireJob(db, surveyId);
  for (const step of stepsOf(db, surveyId)) {
    if (!isFinished(step.status)) changed.push(changeJob(db, step, { status: 'SKIPPED', message: `Superseded by survey ${supersededBy}.` }));
  }
  if (!isFinished(survey.status)) changed.push(changeJob(db, survey, { status: 'SKIPPED', message: `Superseded by survey ${supersededBy}.` }));
  return changed;
}

/** The survey of a job id: itself when it is a survey, else 400 (a step or another type). */
export function requireSurvey(db: ProjectDb, id: string): JobRow {
  const row = requireJob(db, id);
  if (!isSurvey(row)) throw invalidRequest('This job is not a survey (a step, or another type of job).');
  return row;
}

export function jobsByIds(db: ProjectDb, ids: string[]): JobRow[] {
  return ids.length ? db.select().from(jobs).where(inArray(jobs.id, ids)).all() : [];
}

export function stepOf(db: ProjectDb, surveyId: string, stepType: string): JobRow {
  const step = db.select().from(jobs).where(and(eq(jobs.parentId, surveyId), eq(jobs.stepType, stepType))).get();
  if (!step) throw notFound(`The survey has no ${stepType.toLowerCase()} step.`);
  return step;
}
