// Data health (spec 4.12; ARCHITECTURE section 1): one run per survey with its outcome, failure class,
// CI run id and completeness against the subject's previous run of the same kind. The run's status,
// finish time and deletion are the survey's own (read through a join), so a survey changed by any
// path (upload failure, regenerate, delete) is reflected without a hook on every path.
import type { JsonObject } from '../lib/json';
import { and, asc, desc, eq, gt, isNull, lt, ne, or, sql, type SQL } from 'drizzle-orm';
import { invalidParameter } from '../lib/errors';
import { nowIso } from '../lib/ids';
import type { StoredCounts } from '../analysis/types';
import type { JobRow, JobStatus } from './jobs';
import type { ProjectState } from './state';
import { healthRuns, jobs } from './schema';

type RunRow = typeof healthRuns.$inferSelect;
export type RunOutcome = 'complete' | 'partial' | 'failed';

/** The CI run a survey names in its `jsonTags` (`ci_run_id`), if any. */
function ciRunIdOf(jsonTags: JsonObject | null): string | null {
  const value = jsonTags?.ci_run_id;
  return typeof value === 'string' && value.trim() ? value.trim() : typeof value === 'number' ? String(value) : null;
}

const named = (value: string | null | undefined) => (value?.trim() ? value.trim() : null);

/**
 * Records the run of a survey that was just created (start or regenerate). A regenerated survey
 * that reuses the old analysis (`reusedFrom`) carries the old run's subject, counts and outcome.
 */
export function runCreated(state: ProjectState, survey: JobRow, options: { idempotencyKey?: string; reusedFrom?: string } = {}): void {
  const reused = options.reusedFrom ? state.db.select().from(healthRuns).where(eq(healthRuns.id, options.reusedFrom)).get() : undefined;
  const copied = reused
    ? {
      subject: reused.subject, outcome: reused.outcome, components: reused.components, cryptoAssets: reused.cryptoAssets, observations: reused.observations,
      previousRunId: reused.previousRunId, previousComponents: reused.previousComponents, previousCryptoAssets: reused.previousCryptoAssets,
      previousObservations: reused.previousObservations, ciRunId: reused.ciRunId, finishedAt: nowIso(),
    }
    : {};
  state.db.insert(healthRuns).values({
    id: survey.id, subject: named(survey.target), surveyType: survey.type, status: survey.status, tag: survey.tag,
    ciRunId: ciRunIdOf(survey.jsonTags), idempotencyKey: options.idempotencyKey ?? null, createdAt: survey.createdAt, ...copied,
  }).onConflictDoNothing().run();
}

/** The analysis began (again): the run is RUNNING; a survey from before data health gets its run now. */
export function runRunning(state: ProjectState, survey: JobRow, uploadId: string | null): void {
  runCreated(state, survey);
  state.db.update(healthRuns).set({ status: 'RUNNING', ...(uploadId ? { uploadId } : {}) }).where(eq(healthRuns.id, survey.id)).run();
}

/** The analysis finished: counts, the subject's previous completed run of the same type, outcome. */
export function runCompleted(
  state: ProjectState, survey: JobRow,
  result: { subject: string; counts: StoredCounts; partial: boolean; tag?: string | null; ciRunId?: string | null },
): void {
  const previous = state.db.select({ run: healthRuns }).from(healthRuns).innerJoin(jobs, eq(jobs.id, healthRuns.id))
    .where(and(eq(healthRuns.subject, result.subject), eq(healthRuns.surveyType, survey.type), eq(jobs.status, 'COMPLETED'), isNull(jobs.deletedAt), ne(healthRuns.id, survey.id)))
    .orderBy(desc(healthRuns.finishedAt), desc(healthRuns.id)).limit(1).get()?.run;
  const run = state.db.select().from(healthRuns).where(eq(healthRuns.id, survey.id)).get();
  state.db.update(healthRuns).set({
    subject: result.subject, status: 'COMPLETED', outcome: result.partial ? 'partial' : 'complete', failureClass: null,
    components: result.counts.component, cryptoAssets: result.counts.crypto_asset, observations: result.counts.observation,
    previousRunId: previous?.id ?? null, previousComponents: previous?.components ?? null,
    previousCryptoAssets: previous?.cryptoAssets ?? null, previousObservations: previous?.observations ?? null,
    tag: run?.tag ?? named(result.tag), ciRunId: run?.ciRunId ?? named(result.ciRunId), finishedAt: nowIso(),
  }).where(eq(healthRuns.id, survey.id)).run();
}

export function runFailed(state: ProjectState, survey: JobRow, failureClass: string): void {
  runCreated(state, survey);
  state.db.update(healthRuns).set({ status: 'FAILED', outcome: 'failed', failureClass, finishedAt: nowIso() }).where(eq(healthRuns.id, survey.id)).run();
}

export interface Completeness {
  components: number | null;
  crypto_assets: number | null;
  observations: number | null;
  previous_run_id: string | null;
  previous_components: number | null;
  previous_crypto_assets: number | null;
  previous_observations: number | null;
  /** Items found now over items found by the previous run; null without a previous run (or one that found nothing). */
  ratio: number | null;
}

export interface HealthRunAnswer {
  id: string;
  subject: string | null;
  survey_type: string;
  status: JobStatus;
  outcome: RunOutcome | null;
  failure_class: string | null;
  ci_run_id: string | null;
  tag: string | null;
  created_at: string;
  finished_at: string | null;
  deleted_at: string | null;
  completeness: Completeness;
}

const total = (...values: (number | null)[]) => values.reduce<number>((sum, v) => sum + (v ?? 0), 0);

export function completenessOf(run: RunRow): Completeness {
  const before = total(run.previousComponents, run.previousCryptoAssets, run.previousObservations);
  const counted = run.components !== null;
  return {
    components: run.components, crypto_assets: run.cryptoAssets, observations: run.observations, previous_run_id: run.previousRunId,
    previous_components: run.previousComponents, previous_crypto_assets: run.previousCryptoAssets, previous_observations: run.previousObservations,
    ratio: counted && run.previousRunId && before > 0 ? Math.round((total(run.components, run.cryptoAssets, run.observations) / before) * 10_000) / 10_000 : null,
  };
}

interface JoinedRun {
  run: RunRow;
  status: JobStatus;
  failureClass: string | null;
  finishedAt: string | null;
  deletedAt: string | null;
}

/** The answer shape; the outcome follows the survey (a survey failed at upload is a failed run too). */
export function runAnswer({ run, status, failureClass, finishedAt, deletedAt }: JoinedRun): HealthRunAnswer {
  const outcome: RunOutcome | null = status === 'FAILED' ? 'failed' : status === 'COMPLETED' ? (run.outcome === 'partial' ? 'partial' : 'complete') : null;
  return {
    id: run.id, subject: run.subject, survey_type: run.surveyType, status, outcome,
    failure_class: status === 'FAILED' ? (failureClass ?? run.failureClass) : null,
    ci_run_id: run.ciRunId, tag: run.tag, created_at: run.createdAt, finished_at: finishedAt, deleted_at: deletedAt,
    completeness: completenessOf(run),
  };
}

const joined = (state: ProjectState) =>
  state.db.select({ run: healthRuns, status: jobs.status, failureClass: jobs.failureClass, finishedAt: jobs.finishedAt, deletedAt: jobs.deletedAt })
    .from(healthRuns).innerJoin(jobs, eq(jobs.id, healthRuns.id));

export function findRun(state: ProjectState, id: string): HealthRunAnswer | null {
  const row = joined(state).where(eq(healthRuns.id, id)).get();
  return row ? runAnswer(row) : null;
}

export interface RunQuery {
  subject?: string;
  status?: JobStatus;
  showDeleted: boolean;
  limit: number;
  sortDir: 'asc' | 'desc';
  after?: string;
  before?: string;
}

export interface RunPage {
  runs: HealthRunAnswer[];
  pagination: { firstId: string | null; lastId: string | null; hasMore: boolean; total: number };
}

/** Runs newest first (or oldest), filtered, keyset-paged by (created_at, id) like the job list. */
export function listRuns(state: ProjectState, query: RunQuery): RunPage {
  if (query.after && query.before) throw invalidParameter('before', 'Pass after or before, never both.');
  const filters: SQL[] = [];
  if (query.subject) filters.push(eq(healthRuns.subject, query.subject));
  if (query.status) filters.push(eq(jobs.status, query.status));
  if (!query.showDeleted) filters.push(isNull(jobs.deletedAt));
  const where = filters.length ? and(...filters) : undefined;
  const count = state.db.select({ n: sql<number>`count(*)` }).from(healthRuns).innerJoin(jobs, eq(jobs.id, healthRuns.id)).where(where).get()!.n;

  const cursorId = query.after ?? query.before;
  const backwards = Boolean(query.before);
  const scanDesc = (query.sortDir === 'desc') !== backwards;
  const page: SQL[] = where ? [where] : [];
  if (cursorId) {
    const cursor = state.db.select({ createdAt: healthRuns.createdAt, id: healthRuns.id }).from(healthRuns).where(eq(healthRuns.id, cursorId)).get();
    if (!cursor) throw invalidParameter(query.after ? 'after' : 'before', 'The cursor names no data-health run.');
    page.push(scanDesc
      ? or(lt(healthRuns.createdAt, cursor.createdAt), and(eq(healthRuns.createdAt, cursor.createdAt), lt(healthRuns.id, cursor.id)))!
      : or(gt(healthRuns.createdAt, cursor.createdAt), and(eq(healthRuns.createdAt, cursor.createdAt), gt(healthRuns.id, cursor.id)))!);
  }
  const order = scanDesc ? [desc(healthRuns.createdAt), desc(healthRuns.id)] : [asc(healthRuns.createdAt), asc(healthRuns.id)];
  const rows = joined(state).where(page.length ? and(...page) : undefined).orderBy(...order).limit(query.limit + 1).all();
  const hasMore = rows.length > query.limit;
  const kept = rows.slice(0, query.limit);
  if (backwards) kept.reverse();
  const runs = kept.map(runAnswer);
  return { runs, pagination: { firstId: runs[0]?.id ?? null, lastId: runs.at(-1)?.id ?? null, hasMore, total: count } };
}

export const EVIDENCE: Record<string, string> = { INVENTORY_SURVEY: 'inventory', RUNTIME_SURVEY: 'runtime' };

export interface SubjectHealth {
  subject: string;
  last_analyzed_at: string | null;
  evidence: string[];
  latest_outcome: RunOutcome | null;
  latest_run_id: string;
  latest_status: JobStatus;
  completeness: Completeness;
}

/**
 * One row per subject with a finished run (deleted surveys left out): when it was last analysed,
 * which kinds of evidence have completed, and its latest finished run's outcome and completeness.
 */
export function summary(state: ProjectState): { subjects: SubjectHealth[]; generated_at: string } {
  const finished = and(sql`${healthRuns.subject} IS NOT NULL`, isNull(jobs.deletedAt), sql`${jobs.status} IN ('COMPLETED', 'FAILED')`);
  const latest = joined(state)
    .where(and(finished, sql`NOT EXISTS (SELECT 1 FROM health_runs n JOIN jobs nj ON nj.id = n.id
      WHERE n.subject = ${healthRuns.subject} AND nj.deleted_at IS NULL AND nj.status IN ('COMPLETED', 'FAILED')
      AND (n.created_at > ${healthRuns.createdAt} OR (n.created_at = ${healthRuns.createdAt} AND n.id > ${healthRuns.id})))`))
    .orderBy(asc(healthRuns.subject)).all();
  const completed = state.db.select({ subject: healthRuns.subject, surveyType: healthRuns.surveyType, at: sql<string>`max(${jobs.finishedAt})` })
    .from(healthRuns).innerJoin(jobs, eq(jobs.id, healthRuns.id))
    .where(and(finished, eq(jobs.status, 'COMPLETED'))).groupBy(healthRuns.subject, healthRuns.surveyType).all();
  const bySubject = new Map<string, { at: string | null; evidence: string[] }>();
  for (const row of completed) {
    const entry = bySubject.get(row.subject!) ?? { at: null, evidence: [] };
    entry.evidence.push(EVIDENCE[row.surveyType] ?? row.surveyType.toLowerCase());
    if (!entry.at || row.at > entry.at) entry.at = row.at;
    bySubject.set(row.subject!, entry);
  }
  const subjects = latest.map((row) => {
    const answer = runAnswer(row);
    const seen = bySubject.get(row.run.subject!);
    return {
      subject: row.run.subject!, last_analyzed_at: seen?.at ?? null, evidence: (seen?.evidence ?? []).sort(),
      latest_outcome: answer.outcome, latest_run_id: answer.id, latest_status: answer.status, completeness: answer.completeness,
    };
  });
  return { subjects, generated_at: nowIso() };
}
