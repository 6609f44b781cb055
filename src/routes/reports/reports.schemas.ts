import { z } from '@hono/zod-openapi';
import { limitQuery, Pagination, ProjectParams, uuidParam } from '../../lib/schemas';

export const ReportParams = ProjectParams.extend({ jobId: uuidParam('jobId') });

export const EXPORT_FORMATS = ['json', 'pdf', 'xlsx', 'csv', 'html', 'pptx'] as const;
export const ExportParams = ReportParams.extend({
  format: z.enum(EXPORT_FORMATS, { error: `format is one of ${EXPORT_FORMATS.join(', ')}.` }).openapi({ param: { name: 'format', in: 'path' }, example: 'json' }),
});
export const SectionParams = ReportParams.extend({
  section: z.string().min(1).max(64).openapi({ param: { name: 'section', in: 'path' }, example: 'red' }),
});

export const SectionQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0).openapi({ param: { name: 'offset', in: 'query' }, example: 0 }),
  limit: limitQuery,
});
export const SearchQuery = z.object({
  query: z.string({ error: 'query is required.' }).trim().min(1, { error: 'query must not be empty.' }).max(200)
    .openapi({ param: { name: 'query', in: 'query' }, example: 'rsa' }),
});
export const CompareQuery = z.object({
  from: uuidParam('from').openapi({ param: { name: 'from', in: 'query' }, description: 'The baseline report.' }),
  to: uuidParam('to').openapi({ param: { name: 'to', in: 'query' } }),
});

const Entry = z.record(z.string(), z.unknown()).openapi('ReportEntry', {
  description: 'One finding: `key` identifies it across reports, `section` says where it sits; the other fields depend on the report type (pqc-inventory: name, assetType, primitive, explanation, deadline, replacement, cnsa2, occurrences; composition: advisory_id, aliases, severity, purl, version, fixed_version, fix_version; cbom: a CycloneDX component).',
});

export const ReportSummary = z.object({
  report_id: z.uuid(),
  type: z.enum(['pqc-inventory', 'cbom', 'composition']),
  subject: z.string(),
  produced_at: z.string(),
  survey: z.object({ id: z.uuid(), type: z.string(), tag: z.string().nullable() }),
  headline: z.record(z.string(), z.unknown()).openapi({ description: 'pqc-inventory: `sections` (entries per section), `cnsa2`, `nearest_deadline`, `changes`; composition: `components`, `vulnerable_components`, `advisories`, `fixable`, `severities`, `changes`; cbom: `asset_types`.' }),
  sections: z.array(z.object({ name: z.string(), kind: z.enum(['list', 'object']), total: z.number().int().optional() })),
}).openapi('ReportSummary');

export const SectionPage = z.union([
  z.object({ section: z.string(), entries: z.array(Entry), offset: z.number().int(), limit: z.number().int(), pagination: Pagination }),
  z.record(z.string(), z.unknown()).openapi({ description: 'A section that is not a list (such as `overview`), whole.' }),
]).openapi('ReportSectionPage');

export const SearchMatches = z.array(Entry).openapi('ReportSearchMatches');

const Brief = z.object({ key: z.string(), name: z.string(), purl: z.string().nullable(), section: z.string() });
export const Comparison = z.object({
  type: z.string(),
  from: z.object({ report_id: z.uuid(), survey_id: z.uuid(), produced_at: z.string() }),
  to: z.object({ report_id: z.uuid(), survey_id: z.uuid(), produced_at: z.string() }),
  added: z.array(Brief),
  removed: z.array(Brief),
  moved: z.array(z.object({ key: z.string(), name: z.string(), purl: z.string().nullable(), from: z.string(), to: z.string() })),
  unchanged: z.number().int(),
}).openapi('ReportComparison');

export const ExportList = z.object({ formats: z.array(z.enum(EXPORT_FORMATS)) }).openapi('ReportExports');

export const Provenance = z.object({
  format: z.enum(EXPORT_FORMATS),
  report: z.object({ id: z.uuid(), type: z.string(), subject: z.string(), produced_at: z.string() }),
  survey: z.object({ id: z.uuid(), type: z.string(), tag: z.string().nullable() }),
  bundle: z.object({ id: z.string(), sha256: z.string() }).nullable(),
  versions: z.object({
    analysis: z.string(), classification: z.string(), vulnerability_data: z.record(z.string(), z.unknown()),
    template: z.object({ format: z.string(), version: z.string() }).optional().openapi({ description: 'The template of the rendered format (absent for `json`).' }),
    renderer: z.string().optional().openapi({ description: 'The library that wrote the format and its version, or `built-in`.', example: 'pdf-lib 1.17.1' }),
  }),
  analysis_source: z.object({ survey_id: z.uuid(), attempt: z.number().int() }),
  rendered_at: z.string().openapi({ description: 'When the document was rendered (for `json`, when the report was produced).' }),
  duration_ms: z.number().int().nullable().openapi({ description: 'How long rendering took (null for `json`, written as the report was built).' }),
  bytes: z.number().int().nullable(),
  render_job_id: z.uuid().nullable().openapi({ description: 'The render job that wrote the document (null for `json`).' }),
}).openapi('ReportProvenance');

export const RegenerateReportAnswer = z.object({
  job_id: z.uuid().openapi({ description: 'The job to follow: for a survey\'s report, the new survey.' }),
  supersedes: z.uuid().openapi({ description: 'What it replaces: the survey the report came from.' }),
}).openapi('RegenerateReportAnswer');

export const RenderAnswer = z.object({
  renderSubJobIds: z.record(z.enum(['pdf', 'xlsx', 'pptx', 'html', 'csv']), z.uuid())
    .openapi({ description: 'The render job of each format (REPORT steps labelled `render:<format>` under the report\'s job).' }),
}).openapi('RenderAnswer');

export const StaleQuery = z.object({
  parentId: z.uuid({ error: 'parentId must be a survey id (UUID).' }).optional()
    .openapi({ param: { name: 'parentId', in: 'query' }, description: 'Only this survey and the surveys that regenerated it.' }),
  templateVersions: z.string().optional().openapi({
    param: { name: 'templateVersions', in: 'query' },
    description: 'A JSON object of format -> template version, to ask what would be stale under those versions (400 when not valid JSON).',
    example: '{"pdf":"2"}',
  }),
});

const StaleReason = z.object({
  reason: z.enum(['analysis_version', 'template_version', 'source_replaced', 'decision_changed']),
  rendered_with: z.string().optional(),
  current: z.string().optional(),
  replaced_by: z.uuid().optional().openapi({ description: 'The regenerated survey that replaced the source survey.' }),
  decided_at: z.string().optional().openapi({ description: 'The last change of a decision about the report\'s findings after the document was rendered (a new version, or an acceptance that ended).' }),
});

export const StaleDocuments = z.array(z.object({
  survey_id: z.uuid(),
  report_id: z.uuid(),
  report_type: z.string(),
  format: z.enum(['pdf', 'xlsx', 'pptx', 'html', 'csv']),
  job_id: z.uuid().openapi({ description: 'The render job that wrote the document.' }),
  rendered_at: z.string(),
  reasons: z.array(StaleReason).openapi({ description: 'What changed since the document was made.' }),
}).openapi('StaleDocument'));
