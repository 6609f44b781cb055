// The render queue's consumer (spec 4.9 rule 4): one message per render job (a report and a format).
// It reads the stored report (summary and entries from the project object), lays it out
// (src/render/report-model.ts), loads that format's renderer only now (pdf-lib, exceljs and pptxgenjs
// stay out of the request path), writes the document to R2 and records it with its provenance. A
// failure is retried with a growing delay; after the last retry the dead-letter consumer fails the job.
import { z } from 'zod';
import { ANALYSIS_VERSION, CLASSIFICATION_VERSION } from '../analysis/versions';
import type { Env } from '../env';
import type { JsonObject } from '../lib/json';
import { withProjectWork } from '../project/client';
import { documentBlobKey, type RenderStart } from '../project/documents';
import { DOCUMENT_FORMATS, type DocumentFormat, type RenderModel } from '../render/model';
import { reportModel } from '../render/report-model';
import { TEMPLATES } from '../render/templates';
import { BlobWriter } from '../reports/blob-writer';
import { consumeEach } from './consume';
import { sectionEntries } from './reports';

export const RENDER_QUEUE = 'posture-render';
export const RENDER_DLQ = 'posture-render-dlq';

export const RenderMessageSchema = z.object({
  projectId: z.uuid(),
  reportId: z.string().min(1),
  jobId: z.string().min(1),
  format: z.enum(DOCUMENT_FORMATS),
});
type RenderMessage = z.infer<typeof RenderMessageSchema>;

/** A renderer answers the whole file, or text chunks written to R2 as they come. */
type Rendered = Uint8Array | Iterable<string>;

/** Each format's renderer, imported on first use. */
const RENDERERS: Record<DocumentFormat, () => Promise<(model: RenderModel) => Rendered | Promise<Rendered>>> = {
  pdf: async () => (await import('../render/pdf')).renderPdf,
  xlsx: async () => (await import('../render/xlsx')).renderXlsx,
  pptx: async () => (await import('../render/pptx')).renderPptx,
  html: async () => (await import('../render/html')).renderHtml,
  csv: async () => (await import('../render/csv')).renderCsv,
};

/** Renders a model in a format and counts the document's bytes, storing nothing (the local render route). */
export async function renderedBytes(format: DocumentFormat, model: RenderModel): Promise<number> {
  const rendered = await (await RENDERERS[format]())(model);
  if (rendered instanceof Uint8Array) return rendered.byteLength;
  const encoder = new TextEncoder();
  let bytes = 0;
  for (const chunk of rendered) bytes += encoder.encode(chunk).byteLength;
  return bytes;
}

/** Every entry of every list section of the report, from the project object's index. */
async function entriesOf(env: Env, projectId: string, reportId: string, sections: string[]): Promise<Map<string, JsonObject[]>> {
  const entries = new Map<string, JsonObject[]>();
  for (const section of sections) {
    const list: JsonObject[] = [];
    for await (const entry of sectionEntries(env, projectId, reportId, section)) list.push(entry);
    entries.set(section, list);
  }
  return entries;
}

async function projectName(env: Env, projectId: string): Promise<string> {
  const row = await env.DB.prepare('SELECT name FROM projects WHERE id = ?').bind(projectId).first<{ name: string }>();
  return row?.name ?? projectId;
}

/** Writes the rendered document to R2; answers its size in bytes. */
async function store(env: Env, key: string, contentType: string, rendered: Rendered): Promise<number> {
  if (rendered instanceof Uint8Array) {
    await env.BUNDLES.put(key, rendered, { httpMetadata: { contentType } });
    return rendered.byteLength;
  }
  const writer = new BlobWriter(env.BUNDLES, key, contentType);
  try {
    for (const chunk of rendered) await writer.write(chunk);
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return writer.size;
}

/** Renders one document; returns when done with (ack), throws when the message should be retried. */
export async function renderDocument(env: Env, message: RenderMessage): Promise<void> {
  const start = await withProjectWork<RenderStart>(env, message.projectId, (stub) => stub.beginRender({ jobId: message.jobId }));
  if (!start.run || !start.report || !start.survey) return;
  const started = Date.now();
  const report = start.report;
  const sections = ((report.summary.sections ?? []) as JsonObject[]).filter((s) => s.kind === 'list').map((s) => String(s.name));
  const model = reportModel({
    report: { id: report.id, type: report.type, subject: report.subject, producedAt: report.producedAt, summary: report.summary },
    project: { id: message.projectId, name: await projectName(env, message.projectId) },
    survey: start.survey,
    entries: await entriesOf(env, message.projectId, report.id, sections),
  });
  const template = TEMPLATES[message.format];
  const render = await RENDERERS[message.format]();
  const key = documentBlobKey(message.projectId, report.id, message.jobId, message.format);
  const bytes = await store(env, key, template.contentType, await render(model));
  const durationMs = Date.now() - started;
  const provenance = report.provenance as JsonObject;
  await withProjectWork(env, message.projectId, (stub) => stub.finishRender({
    jobId: message.jobId, attempt: start.attempt!, blobKey: key, bytes, durationMs,
    provenance: {
      format: message.format,
      report: { id: report.id, type: report.type, produced_at: report.producedAt },
      // The provenance's survey has the JSON export's shape (its id, type and tag).
      survey: { id: start.survey!.id, type: start.survey!.type, tag: start.survey!.tag },
      bundle: provenance.bundle ?? null,
      source: provenance.source ?? null,
      versions: {
        analysis: String(provenance.analysis ?? ANALYSIS_VERSION),
        classification: String(provenance.classification ?? CLASSIFICATION_VERSION),
        vulnerability_data: provenance.vulnerability_data ?? null,
        template: { format: message.format, version: template.version },
        renderer: template.library,
      },
      rendered_at: new Date().toISOString(),
      duration_ms: durationMs,
      bytes,
    },
  }));
}

export async function consumeRender(batch: MessageBatch, env: Env): Promise<void> {
  await consumeEach(batch, {
    name: 'render', schema: RenderMessageSchema,
    handle: (body) => renderDocument(env, body),
    describe: (body) => `render job ${body.jobId}`,
    onRetry: (body, { error, delaySeconds }) => withProjectWork(env, body.projectId, (stub) => stub.noteRenderRetry({ jobId: body.jobId, error, delaySeconds })),
  });
}

/** After the last retry: the render job fails (class `internal`), so it never stays RUNNING. */
export async function consumeRenderDeadLetters(batch: MessageBatch, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = RenderMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      message.ack();
      continue;
    }
    try {
      await withProjectWork(env, parsed.data.projectId, (stub) => stub.failRender({
        jobId: parsed.data.jobId, failureClass: 'internal', message: 'The document could not be rendered after retries; render the report again.',
      }));
      message.ack();
    } catch (error) {
      console.error(`render-dlq: could not fail job ${parsed.data.jobId}:`, error);
      message.retry({ delaySeconds: 30 });
    }
  }
}
