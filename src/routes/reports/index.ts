// Reports (spec 4.10): thin handlers over the project object's report index and R2 documents.
import { recordActivity } from '../../control/activity';
import { controlDb } from '../../control/db';
import { invalidParameter, notFound } from '../../lib/errors';
import type { JsonObject } from '../../lib/json';
import { createRouter } from '../../lib/router';
import { withProject } from '../../project/client';
import type { JobRow } from '../../project/jobs';
import type { ReportRow } from '../../project/reports';
import type { Changed } from '../../project/surveys';
import type { DocumentRow } from '../../project/documents';
import { retentionEnded } from '../../project/erasure';
import type { DocumentFormat } from '../../render/model';
import { TEMPLATES } from '../../render/templates';
import type { Env } from '../../env';
import * as routes from './reports.routes';

interface ReportRecord {
  report: ReportRow;
  survey: JobRow;
}

const recordOf = (env: Env, projectId: string, reportId: string) =>
  withProject<ReportRecord>(env, projectId, (stub) => stub.reportRecord(reportId));

/** The stored document, or 404 when it is gone from storage (its survey's or its project's retention ended). */
async function documentOf(env: Env, record: ReportRecord): Promise<R2ObjectBody> {
  if (retentionEnded(record.survey)) throw notFound('The report\'s data was removed: its survey was deleted and its retention period ended.');
  const object = await env.BUNDLES.get(record.report.blobKey);
  if (!object) throw notFound('The report\'s document is no longer stored.');
  return object;
}

/** Wraps a stored JSON document as `{"data": ...}` without reading it whole. */
function wrapped(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  void (async () => {
    const writer = writable.getWriter();
    try {
      await writer.write(encoder.encode('{"data":'));
      for await (const chunk of body) await writer.write(chunk);
      await writer.write(encoder.encode('}'));
      await writer.close();
    } catch (error) {
      await writer.abort(error).catch(() => undefined);
    }
  })();
  return readable;
}

/** The latest rendered document of a format, or 404 while none was rendered. */
async function renderedOf(env: Env, projectId: string, reportId: string, format: DocumentFormat, what: 'document' | 'provenance' = 'document'): Promise<DocumentRow> {
  const row = await withProject<DocumentRow | null>(env, projectId, (stub) => stub.reportDocument({ reportId, format }));
  if (!row) {
    throw notFound(what === 'document'
      ? `The ${format} document of this report has not been produced yet; its render job is listed under the report's job.`
      : `No provenance was recorded for the ${format} document of this report: it has not been rendered yet.`);
  }
  return row;
}

/** The `templateVersions` query: a JSON object of format -> version (400 otherwise). */
function templateVersionMap(raw: string | undefined): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidParameter('templateVersions', 'templateVersions must be valid JSON: an object of format to template version, such as {"pdf":"2"}.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidParameter('templateVersions', 'templateVersions must be a JSON object of format to template version, such as {"pdf":"2"}.');
  }
  return Object.fromEntries(Object.entries(parsed).map(([format, version]) => [format, String(version)]));
}

export const reportsRouter = createRouter()
  .openapi(routes.compareReports, async (c) => {
    const { projectId } = c.req.valid('param');
    const { from, to } = c.req.valid('query');
    const comparison = await withProject<JsonObject>(c.env, projectId, (stub) => stub.compareReports({ from, to }));
    return c.json(comparison as never, 200);
  })
  .openapi(routes.fullReport, async (c) => {
    const { projectId, jobId } = c.req.valid('param');
    const object = await documentOf(c.env, await recordOf(c.env, projectId, jobId));
    return new Response(object.body, { headers: { 'content-type': 'application/json', 'content-length': String(object.size) } }) as never;
  })
  .openapi(routes.exportList, async (c) => {
    const { projectId, jobId } = c.req.valid('param');
    const formats = await withProject<('json' | DocumentFormat)[]>(c.env, projectId, (stub) => stub.reportExports(jobId));
    return c.json({ formats }, 200);
  })
  .openapi(routes.exportDocument, async (c) => {
    const { projectId, jobId, format } = c.req.valid('param');
    if (format === 'json') {
      const object = await documentOf(c.env, await recordOf(c.env, projectId, jobId));
      return new Response(wrapped(object.body), { headers: { 'content-type': 'application/json' } }) as never;
    }
    const rendered = await renderedOf(c.env, projectId, jobId, format);
    const object = await c.env.BUNDLES.get(rendered.blobKey);
    if (!object) throw notFound(`The ${format} document of this report is no longer stored; render the report again.`);
    return new Response(object.body, {
      headers: {
        'content-type': TEMPLATES[format].contentType, 'content-length': String(object.size),
        'content-disposition': `attachment; filename="report.${format}"`, 'x-content-type-options': 'nosniff',
      },
    }) as never;
  })
  .openapi(routes.exportProvenance, async (c) => {
    const { projectId, jobId, format } = c.req.valid('param');
    const { report, survey } = await recordOf(c.env, projectId, jobId);
    const p = report.provenance as JsonObject;
    const base = {
      format, report: { id: report.id, type: report.type, subject: report.subject, produced_at: report.producedAt },
      survey: { id: survey.id, type: survey.type, tag: survey.tag }, bundle: p.bundle ?? null,
      versions: { analysis: p.analysis, classification: p.classification, vulnerability_data: p.vulnerability_data ?? {} },
      analysis_source: { survey_id: report.sourceSurveyId, attempt: report.sourceAttempt },
    };
    if (format === 'json') return c.json({ ...base, rendered_at: report.producedAt, duration_ms: null, bytes: null, render_job_id: null }, 200);
    const rendered = await renderedOf(c.env, projectId, jobId, format, 'provenance');
    const versions = (rendered.provenance.versions ?? {}) as JsonObject;
    return c.json({
      ...base,
      versions: { ...base.versions, template: { format, version: rendered.templateVersion }, renderer: String(versions.renderer ?? TEMPLATES[format].library) },
      rendered_at: rendered.renderedAt, duration_ms: rendered.durationMs, bytes: rendered.bytes, render_job_id: rendered.jobId,
    }, 200);
  })
  .openapi(routes.renderReport, async (c) => {
    const { projectId, jobId } = c.req.valid('param');
    const renderSubJobIds = await withProject<Record<DocumentFormat, string>>(c.env, projectId, (stub) => stub.renderReport(jobId));
    await recordActivity(controlDb(c.env.DB), {
      orgId: c.var.principal.orgId, projectId, actor: c.var.principal, action: 'report.rendered',
      data: { reportId: jobId, renderSubJobIds }, traceId: c.var.requestId,
    });
    return c.json({ renderSubJobIds }, 202);
  })
  .openapi(routes.staleProjections, async (c) => {
    const { projectId } = c.req.valid('param');
    const { parentId, templateVersions } = c.req.valid('query');
    const stale = await withProject<JsonObject[]>(c.env, projectId, (stub) => stub.staleDocuments({ parentId, templateVersions: templateVersionMap(templateVersions) }));
    return c.json(stale as never, 200);
  })
  .openapi(routes.searchReport, async (c) => {
    const { projectId, jobId } = c.req.valid('param');
    const { query } = c.req.valid('query');
    return c.json(await withProject<JsonObject[]>(c.env, projectId, (stub) => stub.searchReport({ reportId: jobId, query })), 200);
  })
  .openapi(routes.reportSection, async (c) => {
    const { projectId, jobId, section } = c.req.valid('param');
    const { offset, limit } = c.req.valid('query');
    return c.json(await withProject<JsonObject>(c.env, projectId, (stub) => stub.reportSection({ reportId: jobId, section, offset, limit })), 200);
  })
  .openapi(routes.reportSummary, async (c) => {
    const { projectId, jobId } = c.req.valid('param');
    const summary = await withProject<JsonObject>(c.env, projectId, (stub) => stub.reportSummary(jobId));
    return c.json(summary as never, 200);
  })
  .openapi(routes.regenerateReport, async (c) => {
    const { projectId, jobId } = c.req.valid('param');
    const { answer, changed } = await withProject<Changed<{ job_id: string; supersedes: string }>>(c.env, projectId, (stub) =>
      stub.regenerateReport({ reportId: jobId, idempotencyKey: c.req.valid('header')['idempotency-key'] }));
    // A repeat of an Idempotency-Key answers the first answer and records nothing.
    if (changed) {
      await recordActivity(controlDb(c.env.DB), {
        orgId: c.var.principal.orgId, projectId, actor: c.var.principal, action: 'report.regenerated',
        data: { reportId: jobId, surveyId: answer.job_id, supersedes: answer.supersedes }, traceId: c.var.requestId,
      });
    }
    return c.json(answer, 202);
  });
