// Reports (spec 4.10): thin handlers over the project object's report index and R2 documents.
import { recordActivity } from '../../control/activity';
import { controlDb } from '../../control/db';
import { invalidParameter, notFound } from '../../lib/errors';
import type { JsonObject } from '../../lib/json';
import { changerOf } from '../../control/changes';
import { createRouter } from '../../lib/router';
import { withProject } from '../../project/client';
import { retentionEnded } from '../../project/erasure';
import type { DocumentFormat } from '../../render/model';
import { TEMPLATES } from '../../render/templates';
import type { Env } from '../../env';
import * as routes from './reports.routes';
import { exportProvenance, recordOf, regenerateReport, renderedOf, type ReportRecord } from './reports.service';

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
    return c.json(await exportProvenance(c.env, projectId, jobId, format) as never, 200);
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
    return c.json(await regenerateReport(c.env, changerOf(c.var, projectId), { reportId: jobId, idempotencyKey: c.req.valid('header')['idempotency-key'] }), 202);
  });
