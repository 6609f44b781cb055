// Report operations shared by the HTTP handlers and the MCP tools: the report's record, a rendered
// document's row, a document's provenance (assembled from both), and regenerating a report (the new
// version asked of the project object, then recorded as `report.regenerated`).
import { recordChange, type Changer } from '../../control/changes';
import type { Env } from '../../env';
import { notFound } from '../../lib/errors';
import type { JsonObject } from '../../lib/json';
import { withProject } from '../../project/client';
import type { DocumentRow } from '../../project/documents';
import type { JobRow } from '../../project/jobs';
import { projectStoreMaxBytes } from '../../project/store-limit';
import type { ReportRow } from '../../project/reports';
import type { Changed } from '../../project/surveys';
import type { DocumentFormat } from '../../render/model';
import { TEMPLATES } from '../../render/templates';
import type { EXPORT_FORMATS } from './reports.schemas';

export interface ReportRecord {
  report: ReportRow;
  survey: JobRow;
}

export const recordOf = (env: Env, projectId: string, reportId: string) =>
  withProject<ReportRecord>(env, projectId, (stub) => stub.reportRecord(reportId));

/** The latest rendered document of a format, or 404 while none was rendered. */
export async function renderedOf(env: Env, projectId: string, reportId: string, format: DocumentFormat, what: 'document' | 'provenance' = 'document'): Promise<DocumentRow> {
  const row = await withProject<DocumentRow | null>(env, projectId, (stub) => stub.reportDocument({ reportId, format }));
  if (!row) {
    throw notFound(what === 'document'
      ? `The ${format} document of this report has not been produced yet; its render job is listed under the report's job.`
      : `No provenance was recorded for the ${format} document of this report: it has not been rendered yet.`);
  }
  return row;
}

/** Where a document of the report came from: its report, survey, bundle and input versions, and (rendered formats) its rendering. */
export async function exportProvenance(env: Env, projectId: string, reportId: string, format: (typeof EXPORT_FORMATS)[number]): Promise<JsonObject> {
  const { report, survey } = await recordOf(env, projectId, reportId);
  const p = report.provenance as JsonObject;
  const base = {
    format, report: { id: report.id, type: report.type, subject: report.subject, produced_at: report.producedAt },
    survey: { id: survey.id, type: survey.type, tag: survey.tag }, bundle: p.bundle ?? null,
    versions: { analysis: p.analysis, classification: p.classification, vulnerability_data: p.vulnerability_data ?? {} },
    analysis_source: { survey_id: report.sourceSurveyId, attempt: report.sourceAttempt },
  };
  if (format === 'json') return { ...base, rendered_at: report.producedAt, duration_ms: null, bytes: null, render_job_id: null };
  const rendered = await renderedOf(env, projectId, reportId, format, 'provenance');
  const versions = (rendered.provenance.versions ?? {}) as JsonObject;
  return {
    ...base,
    versions: { ...base.versions, template: { format, version: rendered.templateVersion }, renderer: String(versions.renderer ?? TEMPLATES[format].library) },
    rendered_at: rendered.renderedAt, duration_ms: rendered.durationMs, bytes: rendered.bytes, render_job_id: rendered.jobId,
  };
}

/**
 * Asks for a new version of the report (a survey's: a new survey reusing the analysis) and records
 * `report.regenerated`; a repeat of an Idempotency-Key answers the first answer and records nothing.
 */
export async function regenerateReport(env: Env, by: Changer, input: { reportId: string; idempotencyKey?: string }): Promise<{ job_id: string; supersedes: string }> {
  const { answer, changed } = await withProject<Changed<{ job_id: string; supersedes: string }>>(env, by.projectId, (stub) => stub.regenerateReport(input, projectStoreMaxBytes(env)));
  if (changed) await recordChange(env, by, 'report.regenerated', { reportId: input.reportId, surveyId: answer.job_id, supersedes: answer.supersedes });
  return answer;
}
