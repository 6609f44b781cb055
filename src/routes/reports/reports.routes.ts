import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/openapi';
import { json, ProjectParams } from '../../lib/schemas';
import { OptionalIdempotencyKeyHeader } from '../surveys/surveys.schemas';
import {
  CompareQuery, Comparison, ExportList, ExportParams, Provenance, RegenerateReportAnswer, RenderAnswer, ReportParams, ReportSummary, SearchMatches,
  SearchQuery, SectionPage, SectionParams, SectionQuery, StaleDocuments, StaleQuery,
} from './reports.schemas';

const P = '/api/v1/project/{projectId}';
const tags = ['Reports'];

// Registered before `{jobId}` routes, so `compare` is never read as a report id.
export const compareReports = defineRoute({
  operationId: 'compareReports',
  method: 'get', path: `${P}/v1/report/compare`, tags, summary: 'Compare two reports',
  description: 'Finding by finding across all sections (a finding is identified by its `key`): what was added, removed, moved to another section (with `from` and `to`), and how many stayed. Both reports must be of one type.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [404, 503],
  request: { params: ProjectParams, query: CompareQuery },
  responses: { 200: { description: 'The comparison.', ...json(Comparison) } },
});

export const fullReport = defineRoute({
  operationId: 'getReport',
  method: 'get', path: `${P}/v1/report/{jobId}`, tags, summary: 'The full report',
  description: 'The whole report document, streamed. `cbom` and `composition` reports are CycloneDX 1.6 documents (a CBOM; an SBOM with `vulnerabilities`); `pqc-inventory` is `{type, subject, survey_id, produced_at, overview, sections}`. `jobId` is the survey\'s REPORT step id.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [404, 503],
  request: { params: ReportParams },
  responses: { 200: { description: 'The report document.', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } } },
});

export const exportList = defineRoute({
  operationId: 'listReportExports',
  method: 'get', path: `${P}/v1/report/{jobId}/export`, tags, summary: 'Formats ready to download',
  description: '`json` is always present; the rendered formats appear once produced.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [404, 503],
  request: { params: ReportParams },
  responses: { 200: { description: 'The formats.', ...json(ExportList) } },
});

const binary = { schema: z.string().openapi({ format: 'binary' }) };

export const exportDocument = defineRoute({
  operationId: 'exportReport',
  method: 'get', path: `${P}/v1/report/{jobId}/export/{format}`, tags, summary: 'Download a report document',
  description: '`json` answers `{data: <report>}`; other formats are attachments named `report.<format>` with their content type, streamed; 404 until produced.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [404, 503],
  request: { params: ExportParams },
  responses: {
    200: {
      description: 'The document.',
      content: {
        'application/json': { schema: z.object({ data: z.record(z.string(), z.unknown()) }) },
        'application/pdf': binary,
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': binary,
        'application/vnd.openxmlformats-officedocument.presentationml.presentation': binary,
        'text/html': { schema: z.string() },
        'text/csv': { schema: z.string() },
      },
    },
  },
});

export const renderReport = defineRoute({
  operationId: 'renderReport',
  method: 'post', path: `${P}/v1/report/{jobId}/render`, tags, summary: 'Render a report\'s documents again',
  description: 'Renders the PDF, XLSX, PPTX, HTML and CSV documents again from the report already held: no new upload, analysis or report version. Each format is a render job (a REPORT step labelled `render:<format>` under the report\'s job). 409 when the job is not a completed report.',
  access: { creds: 'any', permissions: ['project:edit'] }, errors: [404, 409, 503],
  request: { params: ReportParams },
  responses: { 202: { description: 'The render jobs.', ...json(RenderAnswer) } },
});

export const staleProjections = defineRoute({
  operationId: 'listStaleProjections',
  method: 'get', path: `${P}/v1/projection/stale`, tags, summary: 'Rendered documents whose inputs moved on',
  description: 'The latest rendered document per survey, report type and format whose inputs have moved on: a newer analysis logic, another template version (the current one, or the one `templateVersions` names), or a source survey replaced by a regenerated one. An empty list means everything is current.',
  access: { creds: 'any', permissions: ['project:admin'] }, errors: [404, 503],
  request: { params: ProjectParams, query: StaleQuery },
  responses: { 200: { description: 'The stale documents.', ...json(StaleDocuments) } },
});

export const exportProvenance = defineRoute({
  operationId: 'getExportProvenance',
  method: 'get', path: `${P}/v1/report/{jobId}/export/{format}/provenance`, tags, summary: 'Provenance of a report document',
  description: 'The report and survey it came from, the uploaded bundle (with its SHA-256), the versions of every input (analysis logic, classification table, vulnerability data), and when it was rendered.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [404, 503],
  request: { params: ExportParams },
  responses: { 200: { description: 'The provenance record.', ...json(Provenance) } },
});

export const searchReport = defineRoute({
  operationId: 'searchReport',
  method: 'get', path: `${P}/v1/report/{jobId}/search`, tags, summary: 'Search a report',
  description: 'Entries whose package URL, name or explanation contains `query`, ignoring case, across every section; at most 200, each marked with its `section`.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [404, 503],
  request: { params: ReportParams, query: SearchQuery },
  responses: { 200: { description: 'The matches.', ...json(SearchMatches) } },
});

export const reportSection = defineRoute({
  operationId: 'getReportSection',
  method: 'get', path: `${P}/v1/report/{jobId}/section/{section}`, tags, summary: 'A page of a report section',
  description: 'A list section answers a page of entries with the section\'s `total` inside `pagination`; a section that is not a list (such as `overview`) is answered whole, without the page wrapper.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [404, 503],
  request: { params: SectionParams, query: SectionQuery },
  responses: { 200: { description: 'The section.', ...json(SectionPage) } },
});

export const reportSummary = defineRoute({
  operationId: 'getReportSummary',
  method: 'get', path: `${P}/v1/report/{jobId}/summary`, tags, summary: 'A report\'s summary',
  description: 'Headline figures, the source survey\'s id, type and tag, when the report was produced, and its sections.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [404, 503],
  request: { params: ReportParams },
  responses: { 200: { description: 'The summary.', ...json(ReportSummary) } },
});

export const regenerateReport = defineRoute({
  operationId: 'regenerateReport',
  method: 'post', path: `${P}/v1/report/{jobId}/regenerate`, tags, summary: 'Regenerate a report',
  description: 'A new version under the current report version: for a survey\'s report, a new survey that reuses the analysis (no new upload) and builds the reports again. The old version stays readable. 409 while a new version is being produced or once one is ready; allowed again after it failed or waited more than 30 minutes to start. 409 `storage_full` when the project\'s stored data reached its limit: the message names the limit and what frees space.',
  access: { creds: 'any', permissions: ['project:edit'] }, errors: [404, 409, 503],
  request: { params: ReportParams, headers: OptionalIdempotencyKeyHeader },
  responses: { 202: { description: 'The job to follow.', ...json(RegenerateReportAnswer) } },
});
