// Rendered documents of reports (spec 4.9 rule 4, 4.10 export, provenance, stale projections): render
// jobs, the work the render queue does for them, the latest document per report and format, and which
// documents are stale. Render jobs are REPORT steps labelled `render:<format>` under the report's own
// job (a survey's REPORT step, later a posture report), so a survey's steps stay its upload, analysis
// and reports (docs/decisions.md, "Rendered documents").
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { ANALYSIS_VERSION } from '../analysis/versions';
import { conflict } from '../lib/errors';
import type { JsonObject } from '../lib/json';
import { nowIso } from '../lib/ids';
import { DOCUMENT_FORMATS, type DocumentFormat } from '../render/model';
import { TEMPLATES } from '../render/templates';
import { changeJob, createJob, findJob, isFinished, POSTURE, REPORT_LABELS, requireJob, type JobRow } from './jobs';
import { retentionEnded } from './erasure';
import type { ProjectState } from './state';
import { record, requireReport, type ReportRow } from './reports';
import { jobs, renderWork, reportDocuments, reports } from './schema';
import { decisionMoments, type DecisionMoment } from './decisions';

export interface RenderMessage {
  projectId: string;
  reportId: string;
  jobId: string;
  format: DocumentFormat;
}

/** Queued work is sent again after this long without a start; a started render after RENDER_RUNNING_MS. */
export const RENDER_QUEUED_MS = 60_000;
export const RENDER_RUNNING_MS = 5 * 60_000;
/** Starts (deliveries, resends) before a render job fails with class `interrupted`. */
export const MAX_RENDER_STARTS = 4;

export const renderLabel = (format: DocumentFormat) => `render:${format}`;
export const documentBlobKey = (projectId: string, reportId: string, jobId: string, format: DocumentFormat) =>
  `projects/${projectId}/reports/${reportId}/documents/${jobId}.${format}`;

export type DocumentRow = typeof reportDocuments.$inferSelect;

/** The unfinished render jobs of a report (all formats, or one). */
function pendingRenders(state: ProjectState, reportId: string, format?: DocumentFormat): JobRow[] {
  const labels = (format ? [format] : DOCUMENT_FORMATS).map(renderLabel);
  return state.db.select().from(jobs)
    .where(and(eq(jobs.parentId, reportId), inArray(jobs.stepLabel, labels), sql`${jobs.status} IN ('PENDING', 'RUNNING')`)).all();
}

/**
 * Creates a render job per format under the report's job and sends them to the render queue. An
 * unfinished render of the same format is superseded (SKIPPED): the new one renders what is held now.
 * Answers format -> job id.
 */
export async function queueRenders(state: ProjectState, reportId: string, now = Date.now()): Promise<Record<DocumentFormat, string>> {
  const report = requireReport(state, reportId);
  const parent = requireJob(state.db, reportId);
  const expiresAt = now + RENDER_QUEUED_MS;
  const messages: RenderMessage[] = [];
  const changed = state.db.transaction(() => {
    const skipped: JobRow[] = [];
    for (const old of pendingRenders(state, reportId)) {
      skipped.push(changeJob(state.db, old, { status: 'SKIPPED', message: 'Superseded by a newer render of the same document.' }));
      state.db.delete(renderWork).where(eq(renderWork.jobId, old.id)).run();
    }
    const created: JobRow[] = DOCUMENT_FORMATS.map((format) => {
      const row = createJob(state.db, 'REPORT', {
        message: `Waiting to render the ${format.toUpperCase()} document.`, metadata: { report_id: reportId, report_type: report.type, format },
        parentId: parent.id, stepType: 'REPORT', stepLabel: renderLabel(format),
      });
      state.db.insert(renderWork).values({ jobId: row.id, reportId, format, expiresAt }).run();
      messages.push({ projectId: state.projectId, reportId, jobId: row.id, format });
      return row;
    });
    return [...skipped, ...created];
  });
  state.notify(changed);
  // The rows first: should the send fail, the alarm sends the work when it lapses.
  await state.wake(expiresAt);
  await state.env.RENDER_QUEUE.sendBatch(messages.map((body) => ({ body })))
    .catch((error) => console.error(`render: sending the render jobs of report ${reportId} failed, the alarm sends them again: ${String(error)}`));
  return Object.fromEntries(messages.map((m) => [m.format, m.jobId])) as Record<DocumentFormat, string>;
}

/** POST render: the job must be a completed report, a survey's or a posture report (404 unknown, 409 anything else). */
export async function renderAgain(state: ProjectState, jobId: string): Promise<Record<DocumentFormat, string>> {
  const job = requireJob(state.db, jobId);
  const isReportJob = job.stepType === 'REPORT' && REPORT_LABELS.includes(job.stepLabel ?? '');
  const held = isReportJob && job.status === 'COMPLETED' && state.db.select({ id: reports.id, surveyId: reports.surveyId }).from(reports).where(eq(reports.id, jobId)).get();
  if (!held) throw conflict('Only a completed report can be rendered: this job is not a report, or its report is not produced yet.');
  if (retentionEnded(findJob(state.db, held.surveyId))) throw conflict('The report\'s survey was deleted and its retention period ended: its documents were erased and are no longer produced.');
  return queueRenders(state, jobId);
}

export interface RenderStart {
  run: boolean;
  attempt?: number;
  report?: ReportRow;
  survey?: { id: string; type: string; tag: string | null; target: string | null };
}

/** The consumer starts a render: the job runs (or the delivery is a stale duplicate: `run: false`). */
export function beginRender(state: ProjectState, input: { jobId: string }, now = Date.now()): RenderStart {
  const job = findJob(state.db, input.jobId);
  const work = state.db.select().from(renderWork).where(eq(renderWork.jobId, input.jobId)).get();
  if (!job || isFinished(job.status) || !work) return { run: false };
  const attempt = work.attempts + 1;
  if (attempt > MAX_RENDER_STARTS) {
    failInterrupted(state, job.id, work.attempts);
    return { run: false };
  }
  state.db.update(renderWork).set({ attempts: attempt, expiresAt: now + RENDER_RUNNING_MS }).where(eq(renderWork.jobId, job.id)).run();
  const running = changeJob(state.db, job, { status: 'RUNNING', message: `Rendering the ${String(job.metadata.format).toUpperCase()} document.`, metadata: { attempt } });
  state.notify([running]);
  const { report, survey } = record(state, work.reportId);
  return { run: true, attempt, report, survey: { id: survey.id, type: survey.type, tag: survey.tag, target: survey.target ?? null } };
}

export interface FinishedRender {
  jobId: string;
  attempt: number;
  blobKey: string;
  bytes: number;
  durationMs: number;
  provenance: JsonObject;
}

/**
 * The document is in R2: it becomes the report's document of that format (the one it replaces is
 * deleted from R2), and the job completes. False when the attempt no longer holds the job.
 */
export async function finishRender(state: ProjectState, input: FinishedRender): Promise<boolean> {
  const job = findJob(state.db, input.jobId);
  const work = state.db.select().from(renderWork).where(eq(renderWork.jobId, input.jobId)).get();
  if (!job || isFinished(job.status) || !work || work.attempts !== input.attempt) return false;
  const format = work.format as DocumentFormat;
  const previous = state.db.select().from(reportDocuments).where(and(eq(reportDocuments.reportId, work.reportId), eq(reportDocuments.format, format))).get();
  const row: DocumentRow = {
    reportId: work.reportId, format, jobId: job.id, blobKey: input.blobKey, bytes: input.bytes, renderedAt: nowIso(), durationMs: input.durationMs,
    templateVersion: TEMPLATES[format].version, analysisVersion: String((requireReport(state, work.reportId).provenance.analysis as string | undefined) ?? ANALYSIS_VERSION),
    provenance: input.provenance,
  };
  const done = state.db.transaction(() => {
    state.db.insert(reportDocuments).values(row).onConflictDoUpdate({ target: [reportDocuments.reportId, reportDocuments.format], set: row }).run();
    state.db.delete(renderWork).where(eq(renderWork.jobId, job.id)).run();
    return changeJob(state.db, job, {
      status: 'COMPLETED', message: `The ${format.toUpperCase()} document is ready (${input.bytes} bytes in ${input.durationMs} ms).`,
      metadata: { bytes: input.bytes, duration_ms: input.durationMs },
    });
  });
  state.notify([done]);
  if (previous && previous.blobKey !== row.blobKey) {
    await state.env.BUNDLES.delete(previous.blobKey).catch((error) => console.error(`render: could not delete the replaced document ${previous.blobKey}: ${String(error)}`));
  }
  return true;
}

/** Fails a render job (a document the renderer cannot produce, or retries used up); with `attempt`, only if that attempt holds it. */
export function failRender(state: ProjectState, input: { jobId: string; attempt?: number; failureClass: string; message: string }): { failed: boolean } {
  const job = findJob(state.db, input.jobId);
  const work = state.db.select().from(renderWork).where(eq(renderWork.jobId, input.jobId)).get();
  if (!job || isFinished(job.status)) return { failed: false };
  if (input.attempt !== undefined && work?.attempts !== input.attempt) return { failed: false };
  state.db.delete(renderWork).where(eq(renderWork.jobId, input.jobId)).run();
  state.notify([changeJob(state.db, job, { status: 'FAILED', failureClass: input.failureClass, message: input.message })]);
  return { failed: true };
}

/** A render started MAX_RENDER_STARTS times without finishing (the consumer died or lost it each time). */
function failInterrupted(state: ProjectState, jobId: string, starts: number): void {
  failRender(state, { jobId, failureClass: 'interrupted', message: `Rendering was started ${starts} times and never finished; render the report again.` });
}

/** The queue will deliver the job again in `delaySeconds`: its time waits for that. */
export function noteRenderRetry(state: ProjectState, input: { jobId: string; error: string; delaySeconds: number }, now = Date.now()): void {
  const job = findJob(state.db, input.jobId);
  if (!job || isFinished(job.status)) return;
  state.db.update(renderWork).set({ expiresAt: now + input.delaySeconds * 1000 + RENDER_QUEUED_MS }).where(eq(renderWork.jobId, input.jobId)).run();
  state.notify([changeJob(state.db, job, { message: `Rendering failed (${input.error}); trying again in ${input.delaySeconds} s.` })]);
}

/** The alarm's part: lapsed render work is sent again, or fails after MAX_RENDER_STARTS. Answers the next lapse, or null. */
export async function expireRenders(state: ProjectState, now = Date.now()): Promise<number | null> {
  for (const work of state.db.select().from(renderWork).where(lte(renderWork.expiresAt, now)).all()) {
    const job = findJob(state.db, work.jobId);
    if (!job || isFinished(job.status)) {
      state.db.delete(renderWork).where(eq(renderWork.jobId, work.jobId)).run();
      continue;
    }
    if (work.attempts >= MAX_RENDER_STARTS) {
      failInterrupted(state, job.id, work.attempts);
      continue;
    }
    state.db.update(renderWork).set({ expiresAt: now + RENDER_RUNNING_MS }).where(eq(renderWork.jobId, work.jobId)).run();
    const message: RenderMessage = { projectId: state.projectId, reportId: work.reportId, jobId: work.jobId, format: work.format as DocumentFormat };
    await state.env.RENDER_QUEUE.send(message).catch((error) => console.error(`render: resend of ${work.jobId} failed: ${String(error)}`));
  }
  return state.db.select({ at: sql<number | null>`min(${renderWork.expiresAt})` }).from(renderWork).get()?.at ?? null;
}

/** The formats ready to download: `json` always (spec 4.10 rule 3), then those rendered, in the usual order. */
export function exportFormats(state: ProjectState, reportId: string): string[] {
  const report = requireReport(state, reportId);
  // Its survey's retention ended: the renderings were erased (and `json` answers 404 saying so).
  if (retentionEnded(findJob(state.db, report.surveyId))) return ['json'];
  const rendered = new Set(state.db.select({ format: reportDocuments.format }).from(reportDocuments).where(eq(reportDocuments.reportId, reportId)).all().map((r) => r.format));
  return ['json', ...DOCUMENT_FORMATS.filter((f) => rendered.has(f))];
}

/** The latest document of a format, or undefined while none was rendered. */
export function documentOf(state: ProjectState, reportId: string, format: DocumentFormat): DocumentRow | undefined {
  return state.db.select().from(reportDocuments).where(and(eq(reportDocuments.reportId, reportId), eq(reportDocuments.format, format))).get();
}

export interface StaleReason {
  reason: 'analysis_version' | 'template_version' | 'source_replaced' | 'decision_changed';
  rendered_with?: string;
  current?: string;
  replaced_by?: string;
  decided_at?: string;
}

/** The finding type a report's entries are decided by (the CBOM and posture reports carry no decisions). */
const DECIDED_TYPE: Record<string, DecisionMoment['type'] | undefined> = { composition: 'vulnerability', 'pqc-inventory': 'crypto' };

/** The last moment after `renderedAt` a decision changed what the report's findings show, or null. */
function decisionChangedAfter(moments: DecisionMoment[], report: ReportRow, renderedAt: string): string | null {
  const type = DECIDED_TYPE[report.type];
  let last: string | null = null;
  for (const m of moments) {
    if (m.type === type && (m.subject === null || m.subject === report.subject) && m.at > renderedAt && (!last || m.at > last)) last = m.at;
  }
  return last;
}

/** The surveys of `parentId` and of every survey that regenerated it, transitively. */
function surveyLineage(state: ProjectState, parentId: string): Set<string> {
  const lineage = new Set([parentId]);
  for (let frontier = [parentId]; frontier.length;) {
    const next = state.db.select({ id: jobs.id }).from(jobs).where(inArray(jobs.supersedes, frontier)).all().map((r) => r.id).filter((id) => !lineage.has(id));
    next.forEach((id) => lineage.add(id));
    frontier = next;
  }
  return lineage;
}

/**
 * The latest document per survey, report type and format whose inputs have moved on: the analysis
 * logic is newer than the one its report came from, its template version differs from the current one
 * (or from `templateVersions[format]`, to ask "what if"), or its survey (or the survey whose analysis
 * the report reused) was replaced by a regenerated survey that completed, or (a posture report) a
 * regenerated version of the report itself completed.
 */
export function staleDocuments(state: ProjectState, query: { parentId?: string; templateVersions?: Record<string, string> }): JsonObject[] {
  const lineage = query.parentId ? surveyLineage(state, query.parentId) : null;
  const rows = state.db.select({ document: reportDocuments, report: reports })
    .from(reportDocuments).innerJoin(reports, eq(reports.id, reportDocuments.reportId))
    .innerJoin(jobs, eq(jobs.id, reports.surveyId))
    .where(sql`${jobs.deletedAt} IS NULL`)
    .orderBy(reports.surveyId, reports.type, reportDocuments.format).all()
    .filter((r) => !lineage || lineage.has(r.report.surveyId));
  const replacedBy = (surveyId: string) => state.db.select({ id: jobs.id }).from(jobs)
    .where(and(eq(jobs.supersedes, surveyId), eq(jobs.status, 'COMPLETED'), sql`${jobs.deletedAt} IS NULL`)).orderBy(jobs.id).all().at(-1)?.id;
  // A posture report is replaced by its regenerated version, a survey's report by its survey's (or by
  // the survey whose analysis it reused; a regenerated survey replacing that very source is no news).
  const surveyReplaced = (report: ReportRow) => {
    const sourceReplaced = report.sourceSurveyId !== report.surveyId ? replacedBy(report.sourceSurveyId) : undefined;
    return replacedBy(report.surveyId) ?? (sourceReplaced !== report.surveyId ? sourceReplaced : undefined);
  };
  const moments = decisionMoments(state);
  const stale: JsonObject[] = [];
  for (const { document, report } of rows) {
    const reasons: StaleReason[] = [];
    if (document.analysisVersion !== ANALYSIS_VERSION) reasons.push({ reason: 'analysis_version', rendered_with: document.analysisVersion, current: ANALYSIS_VERSION });
    const template = query.templateVersions?.[document.format] ?? TEMPLATES[document.format as DocumentFormat]?.version;
    if (template !== undefined && document.templateVersion !== template) reasons.push({ reason: 'template_version', rendered_with: document.templateVersion, current: String(template) });
    const replaced = report.type === POSTURE ? replacedBy(report.id) : surveyReplaced(report);
    if (replaced) reasons.push({ reason: 'source_replaced', replaced_by: replaced });
    // Reports show decisions as they are read; a rendered document shows them as they were.
    const decidedAt = decisionChangedAfter(moments, report, document.renderedAt);
    if (decidedAt) reasons.push({ reason: 'decision_changed', decided_at: decidedAt });
    if (!reasons.length) continue;
    stale.push({
      survey_id: report.surveyId, report_id: report.id, report_type: report.type, format: document.format,
      job_id: document.jobId, rendered_at: document.renderedAt, reasons: reasons as unknown as JsonObject[],
    });
  }
  return stale;
}
