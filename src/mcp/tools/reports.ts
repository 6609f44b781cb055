// Survey reports: summary, a section page, search, compare two, where the exports are and where each
// came from, the documents whose inputs moved on, render again and regenerate.
import { z } from 'zod';
import { apiBaseUrl } from '../oauth';
import { recordChange } from '../../control/changes';
import type { JsonObject } from '../../lib/json';
import { withProject } from '../../project/client';
import type { DocumentFormat } from '../../render/model';
import { EXPORT_FORMATS } from '../../routes/reports/reports.schemas';
import { exportProvenance, regenerateReport } from '../../routes/reports/reports.service';
import { changerOn, onProject } from '../context';
import type { ToolRegistry } from './registry';
import { limit, offset, projectId, uuid } from './common';

const ReportInput = z.object({ projectId, reportId: uuid('The report id: `id` of a survey\'s step whose `step_type` is REPORT (getJob lists a survey\'s steps).') });

export function registerReportTools({ tool }: ToolRegistry): void {
  tool('getReportSummary', {
    title: 'Report summary',
    description: 'A report\'s type, headline figures (pqc-inventory: entries per section red/yellow/transition/green/unclassified, CNSA 2.0 view, nearest deadline; composition: vulnerable components, advisories, fixable) and its `sections` with their totals (a section\'s `name` is what getReportSection takes).',
    input: ReportInput, scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, reportId }, context) => {
    await onProject(context, project, ['project:view']);
    return withProject<JsonObject>(context.env, project, (stub) => stub.reportSummary(reportId));
  });

  tool('getReportSection', {
    title: 'A page of a report section',
    description: 'Entries of one section (e.g. red, yellow, vulnerable), most important first, paged with offset and limit.',
    input: ReportInput.extend({ section: z.string().min(1).max(64).describe('A section: `name` of one of the summary\'s `sections`, e.g. red.'), offset, limit: limit(100) }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, reportId, section, offset: skip, limit: take }, context) => {
    await onProject(context, project, ['project:view']);
    return withProject<JsonObject>(context.env, project, (stub) => stub.reportSection({ reportId, section, offset: skip, limit: take }));
  });

  tool('searchReport', {
    title: 'Search a report',
    description: 'Entries whose name, package URL, advisory or explanation contains the words, e.g. "rsa" or "log4j".',
    input: ReportInput.extend({ query: z.string().trim().min(1).max(200) }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, reportId, query }, context) => {
    await onProject(context, project, ['project:view']);
    return withProject<JsonObject[]>(context.env, project, (stub) => stub.searchReport({ reportId, query }));
  });

  tool('compareReports', {
    title: 'What changed between two reports',
    description: 'Entries added, removed and changed from one report (from, the baseline) to another of the same type (to): what changed since the last survey.',
    input: z.object({ projectId, from: uuid('The baseline report: `id` of a REPORT step of the older survey (getJob).'), to: uuid('The newer report: `id` of a REPORT step of the newer survey, of the same type.') }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, from, to }, context) => {
    await onProject(context, project, ['project:view']);
    return withProject<JsonObject>(context.env, project, (stub) => stub.compareReports({ from, to }));
  });

  tool('listReportExports', {
    title: 'Links to a report\'s documents',
    description: 'The formats a report can be downloaded in (json, and pdf, xlsx, pptx, html, csv once rendered), each with its `format` (the format getExportProvenance takes), the API address of the document and of its provenance; downloading needs an API token (createApiToken).',
    input: ReportInput, scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, reportId }, context) => {
    await onProject(context, project, ['project:view']);
    const formats = await withProject<('json' | DocumentFormat)[]>(context.env, project, (stub) => stub.reportExports(reportId));
    const base = `${apiBaseUrl(context.env)}/api/v1/project/${project}/v1/report/${reportId}`;
    return { formats: formats.map((format) => ({ format, url: `${base}/export/${format}`, provenance: `${base}/export/${format}/provenance` })) };
  });

  tool('renderReport', {
    title: 'Render a report\'s documents again',
    description: 'Starts five render jobs (pdf, xlsx, pptx, html, csv) for a completed report, from the results already held. Answers `renderSubJobIds`: format to job id, the jobId waitForJob follows.',
    input: ReportInput, scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, reportId }, context) => {
    const by = await changerOn(context, project, ['project:edit']);
    const renderSubJobIds = await withProject<Record<DocumentFormat, string>>(context.env, project, (stub) => stub.renderReport(reportId));
    await recordChange(context.env, by, 'report.rendered', { reportId, renderSubJobIds });
    return { renderSubJobIds };
  });

  tool('getExportProvenance', {
    title: 'Where a report document came from',
    description: 'The provenance of one of a report\'s documents: the report and survey, the uploaded bundle (with its SHA-256), the versions of every input (analysis logic, classification table, vulnerability data, template and renderer) and, for a rendered format, when and by which render job (`render_job_id`) it was rendered. 404 until that format was rendered.',
    input: ReportInput.extend({ format: z.enum(EXPORT_FORMATS).describe('json, or a rendered format: pdf, xlsx, pptx, html, csv (listReportExports lists those produced).') }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, reportId, format }, context) => {
    await onProject(context, project, ['project:view']);
    return exportProvenance(context.env, project, reportId, format);
  });

  tool('listStaleProjections', {
    title: 'Documents whose inputs moved on',
    description: 'The latest rendered document per survey, report type and format whose inputs have moved on (newer analysis logic, another template version, or a source survey replaced by a regenerated one), each with `reasons`, `survey_id`, `report_id` (the reportId renderReport and regenerateReport take) and `format`. An empty list means everything is current. Needs project:admin, which only the change scope lets through.',
    input: z.object({
      projectId,
      parentId: uuid('Only this survey and the surveys that regenerated it: a survey\'s `id` in listJobs.').optional(),
      templateVersions: z.record(z.string().max(16), z.union([z.string().max(64), z.number()]))
        .optional().describe('Format to template version, e.g. {"pdf": "2"}: what would be stale under those versions.'),
    }),
    scope: 'project:write', readOnly: true,
  }, async ({ projectId: project, parentId, templateVersions }, context) => {
    await onProject(context, project, ['project:admin']);
    const versions = templateVersions && Object.fromEntries(Object.entries(templateVersions).map(([format, version]) => [format, String(version)]));
    return withProject<JsonObject[]>(context.env, project, (stub) => stub.staleDocuments({ parentId, templateVersions: versions }));
  });

  tool('regenerateReport', {
    title: 'Regenerate a report',
    description: 'A new version of the report: for a survey\'s report, a new survey that reuses the analysis (no new upload) and builds the reports again; a posture report is rebuilt from the same data as of the same date. The old version stays readable. Answers `job_id`, the job to follow (waitForJob; for a survey\'s report the new survey, whose REPORT steps are the new reports) and `supersedes`. 409 while a new version is being produced or once one is ready.',
    input: ReportInput.extend({
      idempotencyKey: z.string().trim().min(1).max(255).optional().describe('Any text naming this request: for a survey\'s report a repeat with the same key answers the first answer.'),
    }),
    scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, reportId, idempotencyKey }, context) =>
    regenerateReport(context.env, await changerOn(context, project, ['project:edit']), { reportId, idempotencyKey }));
}
