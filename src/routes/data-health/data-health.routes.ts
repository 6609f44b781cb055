import { defineRoute } from '../../lib/openapi';
import type { Access } from '../../middleware/auth';
import { json, ProjectParams } from '../../lib/schemas';
import { HealthRunPage, HealthRunQuery, HealthSummary, ResolveAnswer, ResolveQuery } from './data-health.schemas';

const P = '/api/v1/project/{projectId}';
const tags = ['Data health'];
const access: Access = { creds: 'any', permissions: ['project:portfolio:view'] };

export const resolve = defineRoute({
  operationId: 'resolveDataHealthRef',
  method: 'get', path: `${P}/v1/data-health/resolve`, tags, summary: 'Resolve a reference',
  description: 'Tries `ref` as a run id, a step id, an upload id, an idempotency key, a subject tag, then a CI run id, in that order; the first match wins.',
  access, errors: [404, 503],
  request: { params: ProjectParams, query: ResolveQuery },
  responses: { 200: { description: 'What the reference points at.', ...json(ResolveAnswer) } },
});

export const listRuns = defineRoute({
  operationId: 'listDataHealthRuns',
  method: 'get', path: `${P}/v1/data-health/run`, tags, summary: 'List data-health runs',
  description: 'One run per survey, newest first by default, with its outcome, failure class, CI run id and completeness against the subject\'s previous run. Runs of deleted surveys only with `showDeleted=true`.',
  access, errors: [503],
  request: { params: ProjectParams, query: HealthRunQuery },
  responses: { 200: { description: 'A page of runs.', ...json(HealthRunPage) } },
});

export const summary = defineRoute({
  operationId: 'getDataHealthSummary',
  method: 'get', path: `${P}/v1/data-health/summary`, tags, summary: 'Data health by subject',
  description: 'One row per subject with a finished run: when it was last analysed, which kinds of evidence have run, and its latest finished run\'s outcome and completeness.',
  access, errors: [503],
  request: { params: ProjectParams },
  responses: { 200: { description: 'The summary.', ...json(HealthSummary) } },
});
