// The render queue's consumer (spec 4.9 rule 4): one message per render job (a report and a format).
// It reads the stored report (summary and entries from the project object), lays it out
// (src/render/report-model.ts), loads that format's renderer only now (pdf-lib, exceljs and pptxgenjs
// stay out of the request path), writes the document to R2 and records it with its provenance. A
// failure is retried with a growing delay; after the last retry the dead-letter consumer fails the job.
// A report of more than RENDER_HELD_ENTRIES entries is never held whole: the CSV and XLSX read its
// entries page by page as they write them to R2 in parts, and the PDF, PPTX and HTML get a digest (each
// group's first entries and the counts), which they say is one (docs/decisions.md, issue 22).
import { z } from 'zod';
import { ANALYSIS_VERSION, CLASSIFICATION_VERSION } from '../analysis/versions';
import type { Env } from '../env';
import type { JsonObject } from '../lib/json';
import { withProjectWork } from '../project/client';
import { documentBlobKey, type RenderStart } from '../project/documents';
import { positiveIntegerSetting } from '../lib/settings';
import { DOCUMENT_FORMATS, type DocumentFormat, type RenderModel } from '../render/model';
import { reportModel, sectionDigest, streamedSection, type LaidOutSection, type StoredReport } from '../render/report-model';
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

/** A renderer answers the whole file, or chunks (text or bytes) written to R2 as they come. */
type Rendered = Uint8Array | Iterable<string> | AsyncIterable<string | Uint8Array>;

interface RenderSettings {
  /** The rows an XLSX sheet may have, its header included (unset: Excel's limit). */
  sheetRows?: number;
}

/** Each format's renderer, imported on first use; CSV and XLSX read a large section's rows as they write them. */
const RENDERERS: Record<DocumentFormat, () => Promise<(model: RenderModel, settings: RenderSettings) => Rendered | Promise<Rendered>>> = {
  pdf: async () => {
    const { renderPdf } = await import('../render/pdf');
    return (model) => renderPdf(model);
  },
  xlsx: async () => {
    const { streamXlsx } = await import('../render/xlsx');
    return (model, settings) => streamXlsx(model, { sheetRows: settings.sheetRows });
  },
  pptx: async () => (await import('../render/pptx')).renderPptx,
  html: async () => (await import('../render/html')).renderHtml,
  csv: async () => (await import('../render/csv')).streamCsv,
};

/** Reports with more entries than this (all list sections together) are rendered as they are read. */
export const DEFAULT_RENDER_HELD_ENTRIES = 20_000;
/** The formats that show a sample of a large section (each group's first entries) and point to the others for the rest. */
const SAMPLING: ReadonlySet<DocumentFormat> = new Set(['pdf', 'pptx', 'html']);

function settingsOf(env: Env): RenderSettings & { heldEntries: number } {
  return {
    heldEntries: positiveIntegerSetting(env.RENDER_HELD_ENTRIES, DEFAULT_RENDER_HELD_ENTRIES),
    // A sheet has room for its header, an entry and the row saying what was left out.
    sheetRows: env.XLSX_SHEET_ROWS ? Math.max(3, positiveIntegerSetting(env.XLSX_SHEET_ROWS, 3)) : undefined,
  };
}

/** Renders a model in a format and counts the document's bytes, storing nothing (the local render route). */
export async function renderedBytes(format: DocumentFormat, model: RenderModel): Promise<number> {
  const rendered = await (await RENDERERS[format]())(model, {});
  if (rendered instanceof Uint8Array) return rendered.byteLength;
  const encoder = new TextEncoder();
  let bytes = 0;
  for await (const chunk of rendered) bytes += typeof chunk === 'string' ? encoder.encode(chunk).byteLength : chunk.byteLength;
  return bytes;
}

/**
 * Each list section's entries as the format needs them. A report of at most `heldEntries` entries: every
 * entry, held (laid out grouped, the most important first). A larger one, a section at a time as it is
 * read: for CSV and XLSX its rows read again page by page as they are written (in stored order); for
 * the PDF, PPTX and HTML its digest.
 */
async function sectionsOf(env: Env, projectId: string, report: StoredReport, format: DocumentFormat, heldEntries: number): Promise<Map<string, JsonObject[] | LaidOutSection>> {
  const listed = ((report.summary.sections ?? []) as JsonObject[]).filter((s) => s.kind === 'list').map((s) => ({ name: String(s.name), total: Number(s.total ?? 0) }));
  const held = listed.reduce((sum, s) => sum + s.total, 0) <= heldEntries;
  const sections = new Map<string, JsonObject[] | LaidOutSection>();
  for (const { name, total } of listed) {
    const read = () => sectionEntries(env, projectId, report.id, name);
    if (held) {
      const list: JsonObject[] = [];
      for await (const entry of read()) list.push(entry);
      sections.set(name, list);
    } else if (SAMPLING.has(format)) sections.set(name, await sectionDigest(report.type, name, read()));
    else sections.set(name, streamedSection(report.type, name, total, read));
  }
  return sections;
}

export interface StoredRender {
  projectId: string;
  report: StoredReport;
  survey: RenderModel['survey'];
  format: DocumentFormat;
  /** Where in R2 the document goes. */
  key: string;
}

/** Lays out a stored report for a format, renders it and writes it to R2; answers the document's size in bytes. */
export async function renderStoredReport(env: Env, input: StoredRender): Promise<number> {
  const settings = settingsOf(env);
  const model = reportModel({
    report: input.report,
    project: { id: input.projectId, name: await projectName(env, input.projectId) },
    survey: input.survey,
    entries: await sectionsOf(env, input.projectId, input.report, input.format, settings.heldEntries),
  });
  const render = await RENDERERS[input.format]();
  return store(env, input.key, TEMPLATES[input.format].contentType, await render(model, settings));
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
    for await (const chunk of rendered) await writer.write(chunk);
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
  const key = documentBlobKey(message.projectId, report.id, message.jobId, message.format);
  const bytes = await renderStoredReport(env, {
    projectId: message.projectId, format: message.format, key, survey: start.survey,
    report: { id: report.id, type: report.type, subject: report.subject, producedAt: report.producedAt, summary: report.summary },
  });
  const template = TEMPLATES[message.format];
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
