import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, ProjectParams } from '../../lib/schemas';
// Triage's access: reading is viewing the project, deciding is editing it (decisions.routes.ts).
import { edit, view } from '../decisions/decisions.routes';
import { bodyAtMost } from '../../middleware/body-limit';
import { MAX_VEX_BYTES, OptionalIdempotencyKeyHeader, VexDocument, VexExportParams, VexExportQuery, VexImportAnswer } from './vex.schemas';

const P = '/api/v1/project/{projectId}';
const tags = ['Decisions'];

export const importVex = defineRoute({
  operationId: 'importVex',
  method: 'post', path: `${P}/v1/vex`, tags, summary: 'Import a VEX document as decisions',
  description: [
    'Each statement becomes a decision with the document as its source (author, timestamp, document id): products and subcomponents are matched by package URL (with and without version and qualifiers), bom-ref, BOM-link or subject name against the project\'s current findings. A later document from the same source supersedes its earlier statements. Recorded as `vex.imported`; the affected portfolios are rescored once.',
    '400 naming the first problem of a document that is not valid (nothing is applied), or one over 8 MiB. A repeat with the same Idempotency-Key answers the first import.',
  ].join('\n\n'),
  access: edit, errors: [404, 409, 503],
  middleware: [bodyAtMost(MAX_VEX_BYTES, 'A VEX document')] as const,
  request: { params: ProjectParams, headers: OptionalIdempotencyKeyHeader, ...jsonBody(VexDocument) },
  responses: { 200: { description: 'What each statement did.', ...json(VexImportAnswer) } },
});

export const exportVex = defineRoute({
  operationId: 'exportVex',
  method: 'get', path: `${P}/v1/report/{compositionReportId}/vex`, tags, summary: 'A survey\'s vulnerabilities as VEX',
  description: 'Every advisory the composition report matched, each with its current decision (`in_triage` / `under_investigation` where none), as CycloneDX VEX 1.6 or OpenVEX 0.2.0. The CycloneDX document imported into a project that surveyed the same subject decides the same. 400 for a report of another type; 404 when no report has the id.',
  access: view, errors: [404, 503],
  request: { params: VexExportParams, query: VexExportQuery },
  responses: { 200: { description: 'The VEX document (an attachment).', content: { 'application/vnd.cyclonedx+json': { schema: VexDocument }, 'application/json': { schema: VexDocument } } } },
});
