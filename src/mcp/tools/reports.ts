// Survey reports: summary, a section page, search, compare two, where the exports are, and render again.
import { z } from 'zod';
import { apiBaseUrl } from '../oauth';
import type { JsonObject } from '../../lib/json';
import { withProject } from '../../project/client';
import type { DocumentFormat } from '../../render/model';
import { onProject, recordFor } from '../context';
import type { ToolRegistry } from '../server';
import { limit, offset, projectId, uuid } from './common';

const ReportInput = z.object({ projectId, reportId: uuid('The report id: a REPORT step of a survey (getJob lists a survey\'s reports).') });

export function registerReportTools({ tool }: ToolRegistry): void {
  tool('getReportSummary', {
    title: 'Report summary',
    description: 'A report\'s type, headline figures (pqc-inventory: entries per section red/yellow/transition/green/unclassified, CNSA 2.0 view, nearest deadline; composition: vulnerable components, advisories, fixable) and its sections with their totals.',
    input: ReportInput, scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, reportId }, context) => {
    await onProject(context, project, ['project:view']);
    return withProject<JsonObject>(context.env, project, (stub) => stub.reportSummary(reportId));
  });

  tool('getReportSection', {
    title: 'A page of a report section',
    description: 'Entries of one section (e.g. red, yellow, vulnerable), most important first, paged with offset and limit.',
    input: ReportInput.extend({ section: z.string().min(1).max(64).describe('A section name from the summary, e.g. red.'), offset, limit: limit(100) }),
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
    input: z.object({ projectId, from: uuid('The baseline report.'), to: uuid('The newer report.') }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, from, to }, context) => {
    await onProject(context, project, ['project:view']);
    return withProject<JsonObject>(context.env, project, (stub) => stub.compareReports({ from, to }));
  });

  tool('listReportExports', {
    title: 'Links to a report\'s documents',
    description: 'The formats a report can be downloaded in (json, and pdf, xlsx, pptx, html, csv once rendered), with the API address of each; downloading needs an API token (createApiToken).',
    input: ReportInput, scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, reportId }, context) => {
    await onProject(context, project, ['project:view']);
    const formats = await withProject<('json' | DocumentFormat)[]>(context.env, project, (stub) => stub.reportExports(reportId));
    const base = `${apiBaseUrl(context.env)}/api/v1/project/${project}/v1/report/${reportId}`;
    return { formats: formats.map((format) => ({ format, url: `${base}/export/${format}`, provenance: `${base}/export/${format}/provenance` })) };
  });

  tool('renderReport', {
    title: 'Render a report\'s documents again',
    description: 'Starts five render jobs (pdf, xlsx, pptx, html, csv) for a completed report; answers their job ids (waitForJob follows them).',
    input: ReportInput, scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, reportId }, context) => {
    const principal = await onProject(context, project, ['project:edit']);
    const renderSubJobIds = await withProject<Record<DocumentFormat, string>>(context.env, project, (stub) => stub.renderReport(reportId));
    await recordFor(context, principal, 'report.rendered', { reportId, renderSubJobIds });
    return { renderSubJobIds };
  });
}
