import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, ProjectParams } from '../../lib/schemas';
import type { Access } from '../../middleware/auth';
import { CreateDecision, Decision, DecisionHistory, DecisionListQuery, DecisionPage, DecisionParams, OptionalIdempotencyKeyHeader, TriagePage, TriageQuery, UpdateDecision } from './decisions.schemas';

const P = '/api/v1/project/{projectId}';
const tags = ['Decisions'];
// The specification's permission list is closed: reading decisions is viewing the project, deciding is editing it.
export const view: Access = { creds: 'any', permissions: ['project:view'] };
export const edit: Access = { creds: 'any', permissions: ['project:view', 'project:edit'] };

export const listDecisions = defineRoute({
  operationId: 'listDecisions',
  method: 'get', path: `${P}/v1/decision`, tags, summary: 'List decisions about findings',
  description: 'The current version of each decision, newest first, filtered by state, finding type, advisory, package (its version ignored), algorithm or subject. Withdrawn decisions are listed only with `state=withdrawn`.',
  access: view, errors: [400, 404, 503],
  request: { params: ProjectParams, query: DecisionListQuery },
  responses: { 200: { description: 'A page of decisions.', ...json(DecisionPage) } },
});

export const createDecision = defineRoute({
  operationId: 'createDecision',
  method: 'post', path: `${P}/v1/decision`, tags, summary: 'Decide what a finding means',
  description: 'A decision about a vulnerability (an advisory or alias, optionally in one package at a version or VERS range) or a cryptographic finding (an algorithm or an asset), for one subject or every subject. `justification` is required for `not_affected`; `expires` is for accepted cryptographic findings only and lies in the future. Recorded as `finding.decided`. A repeat with the same Idempotency-Key answers the same decision.',
  access: edit, errors: [400, 404, 409, 415, 503],
  request: { params: ProjectParams, headers: OptionalIdempotencyKeyHeader, ...jsonBody(CreateDecision) },
  responses: { 201: { description: 'The decision, version 1.', ...json(Decision) } },
});

export const getDecision = defineRoute({
  operationId: 'getDecision',
  method: 'get', path: `${P}/v1/decision/{decisionId}`, tags, summary: 'A decision, its current version',
  access: view, errors: [404, 503],
  request: { params: DecisionParams },
  responses: { 200: { description: 'The decision.', ...json(Decision) } },
});

export const updateDecision = defineRoute({
  operationId: 'updateDecision',
  method: 'put', path: `${P}/v1/decision/{decisionId}`, tags, summary: 'Change a decision\'s assessment',
  description: 'A new version with the whole assessment given; what the decision is about stays (decide again for something else). 409 for a withdrawn decision. Recorded as `finding.decided`.',
  access: edit, errors: [400, 404, 409, 415, 503],
  request: { params: DecisionParams, headers: OptionalIdempotencyKeyHeader, ...jsonBody(UpdateDecision) },
  responses: { 200: { description: 'The decision\'s new version.', ...json(Decision) } },
});

export const withdrawDecision = defineRoute({
  operationId: 'withdrawDecision',
  method: 'delete', path: `${P}/v1/decision/{decisionId}`, tags, summary: 'Withdraw a decision',
  description: 'A new version in state `withdrawn`: the finding counts as undecided again; the history stays readable. Withdrawing a withdrawn decision changes nothing. Recorded as `finding.decided`.',
  access: edit, errors: [404, 503],
  request: { params: DecisionParams },
  responses: { 204: { description: 'Withdrawn.' } },
});

export const decisionHistory = defineRoute({
  operationId: 'getDecisionHistory',
  method: 'get', path: `${P}/v1/decision/{decisionId}/history`, tags, summary: 'Every version of a decision',
  description: 'Newest first: who decided what, and when.',
  access: view, errors: [404, 503],
  request: { params: DecisionParams },
  responses: { 200: { description: 'The versions.', ...json(DecisionHistory) } },
});

export const triageQueue = defineRoute({
  operationId: 'getTriageQueue',
  method: 'get', path: `${P}/v1/triage`, tags, summary: 'Findings no decision covers yet',
  description: 'The triage queue: every current finding (each subject\'s latest survey: vulnerabilities, and cryptography to move away from) that no decision covers, by subject, type and key, with what a decision about it would name. Filtered by `type` or `subject`; paged with `after` = `next`.',
  access: view, errors: [400, 404, 503],
  request: { params: ProjectParams, query: TriageQuery },
  responses: { 200: { description: 'A page of undecided findings.', ...json(TriagePage) } },
});
