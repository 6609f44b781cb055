// Triage: the findings no decision covers, a decision's history, and deciding (with the change scope),
// so an assistant can go through the queue with a person. The same service as the API's routes.
import { z } from 'zod';
import type { JsonObject } from '../../lib/json';
import { withProject } from '../../project/client';
import { createDecision } from '../../routes/decisions/decisions.service';
import { DECISION_STATES, JUSTIFICATIONS, RESPONSES } from '../../triage/decision';
import { changerOn, onProject } from '../context';
import type { ToolRegistry } from './registry';
import { limit, projectId, uuid } from './common';

const text = (max: number) => z.string().trim().min(1).max(max);

const Finding = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('vulnerability'),
    advisory_id: text(200).describe('The advisory id or any alias (`advisory_id` of a finding in getTriageQueue).'),
    package: text(2000).optional().describe('A package URL; with a version, that version only. Without it, the advisory in every package.'),
    version_range: text(2000).optional().describe('A VERS range of the package\'s versions, e.g. vers:npm/>=1.0.0|<1.4.2.'),
    subject: text(300).optional().describe('One subject; every subject when left out.'),
  }),
  z.object({
    type: z.literal('crypto'),
    algorithm: text(200).optional().describe('The algorithm (`algorithm` of a finding in getTriageQueue, e.g. RSA): every use of it.'),
    asset: text(500).optional().describe('One asset (`key` of a crypto finding).'),
    subject: text(300).optional().describe('One subject; every subject when left out.'),
  }),
]);

export function registerDecisionTools({ tool }: ToolRegistry): void {
  tool('getTriageQueue', {
    title: 'Findings waiting for a decision',
    description: 'The triage queue: current findings (vulnerabilities, cryptography to move away from) that no decision covers, by subject, with what a decision would name. Page with `after` = the answer\'s `next`.',
    input: z.object({
      projectId, type: z.enum(['vulnerability', 'crypto']).optional(), subject: text(300).optional(), limit: limit(50, 1000),
      after: z.string().max(4000).optional().describe('`next` of the page before.'),
    }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, ...query }, context) => {
    await onProject(context, project, ['project:view']);
    return withProject<JsonObject>(context.env, project, (stub) => stub.undecidedFindings(query));
  });

  tool('getDecisionHistory', {
    title: 'A decision\'s history',
    description: 'Every version of a decision about a finding, newest first: its state, justification, response, detail, expiry, who decided and when.',
    input: z.object({ projectId, decisionId: uuid('The decision id (`id` of a decision).') }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, decisionId }, context) => {
    await onProject(context, project, ['project:view']);
    return withProject<JsonObject>(context.env, project, (stub) => stub.decisionHistory(decisionId));
  });

  tool('createDecision', {
    title: 'Decide what a finding means',
    description: 'Records a decision (CycloneDX impact analysis states). not_affected, false_positive and resolved take the finding out of scores, ranked fixes and the CLI gate; an exploitable cryptographic finding with `expires` is a risk accepted until then. `justification` is required with not_affected. Confirm with the person before deciding: the decision applies to every later survey.',
    input: z.object({
      projectId, finding: Finding, state: z.enum(DECISION_STATES), justification: z.enum(JUSTIFICATIONS).optional(),
      response: z.array(z.enum(RESPONSES)).optional(), detail: z.string().max(10_000).optional(),
      expires: z.string().max(40).optional().describe('For an accepted cryptographic finding: the date (YYYY-MM-DD) after which it counts again.'),
    }),
    scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, finding, ...assessment }, context) =>
    createDecision(context.env, await changerOn(context, project, ['project:view', 'project:edit']), { finding, assessment }));
}
