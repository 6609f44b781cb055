// Portfolios: list, one with its settings, members, state, ranked fixes, simulation, history, and changes (spec 4.1).
import { z } from 'zod';
import type { JsonObject } from '../../lib/json';
import { withPortfolioData } from '../../project/client';
import {
  addPortfolioMember, createPortfolio, deletePortfolio, rankText, removePortfolioMember, simulate, stateText, updatePortfolio,
} from '../../routes/portfolios/portfolios.service';
import { changerOn, onProject, type ToolContext } from '../context';
import type { ToolRegistry } from './registry';
import { limit, offset, projectId, uuid } from './common';

const PortfolioInput = z.object({ projectId, portfolioId: uuid('The portfolio id: `portfolio_id` of a portfolio in listPortfolios (the built-in "All subjects", `is_implicit`, holds every subject).') });

const Fix = z.object({
  item_key: z.string().min(1).describe('A ranked row\'s `item_key` (rankPortfolioFixes): a package URL without version, or algorithm:<name>.'),
  finding_key: z.string().optional().describe('Fix only this finding of the row (a `finding_key` of its `findings`).'),
  dependency: z.string().optional().describe('Fix only this library the row bundles (one of its `dependencies`).'),
  upgrade_to: z.string().optional().describe('The version to upgrade to (checked against the vulnerability data).'),
});

const MEMBER_VALUE = z.string().min(1).max(2048);
const Member = z.union([
  MEMBER_VALUE.describe('A subject name.'),
  z.object({ type: z.enum(['subject', 'package']), value: MEMBER_VALUE.describe('A subject name, or a package URL without a version.') }),
]);
const Members = z.array(Member).max(10_000);
const name = z.string().trim().min(1).max(255);

/** The assistant changing portfolios of a project: the same permissions as the HTTP operations. */
const changer = (context: ToolContext, project: string) => changerOn(context, project, ['project:portfolio:view', 'project:edit']);

export function registerPortfolioTools({ tool }: ToolRegistry): void {
  tool('listPortfolios', {
    title: 'List portfolios',
    description: 'A project\'s portfolios, the built-in one (every subject, `is_implicit`) first, each with its `portfolio_id` (the portfolioId the portfolio tools take), `name`, members and latest overall score.',
    input: z.object({ projectId }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<JsonObject>(context.env, project, (stub) => stub.listPortfolios());
  });

  tool('getPortfolio', {
    title: 'A portfolio with its settings',
    description: 'One portfolio: `name`, members, scoring state and latest score, and its `settings`, how it is scored (criticality weights, axis weights, band thresholds).',
    input: PortfolioInput, scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, portfolioId }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<JsonObject>(context.env, project, (stub) => stub.getPortfolio(portfolioId));
  });

  tool('listPortfolioMembers', {
    title: 'A portfolio\'s members',
    description: 'Its `members`, each `member_type` (subject or package) and `value` (a subject name, or a package URL without a version: the value removePortfolioMember takes). The built-in portfolio lists every subject.',
    input: PortfolioInput, scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, portfolioId }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<JsonObject>(context.env, project, (stub) => stub.portfolioMembers(portfolioId));
  });

  tool('addPortfolioMember', {
    title: 'Add a member to a portfolio',
    description: 'Adds a subject (by name) or a package (a package URL without a version) and rescores the portfolio; one already present changes nothing. The built-in portfolio cannot be changed. Answers the `members` after the addition.',
    input: PortfolioInput.extend({ member: Member.describe('A subject name, or {type, value} with type subject or package.') }),
    scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, portfolioId, member }, context) => addPortfolioMember(context.env, await changer(context, project), portfolioId, member));

  tool('removePortfolioMember', {
    title: 'Remove a member from a portfolio',
    description: 'Removes a member (`value` and `member_type` as listPortfolioMembers answers them) and rescores the portfolio; 404 when it is not a member. The built-in portfolio cannot be changed. Answers the `members` after the removal.',
    input: PortfolioInput.extend({
      value: MEMBER_VALUE.describe('The member\'s value: a subject name, or a package URL without a version.'),
      type: z.enum(['subject', 'package']).default('subject'),
    }),
    scope: 'project:write', readOnly: false, destructive: true,
  }, async ({ projectId: project, portfolioId, value, type }, context) =>
    removePortfolioMember(context.env, await changer(context, project), portfolioId, { type, value }));

  tool('getPortfolioState', {
    title: 'Portfolio scores and what costs the most',
    description: 'The score overall and per axis (pqc, vuln, agility) with bands, the findings that cost the most points per axis and per subject; with rank=true also the first ranked fixes in summary form.',
    input: PortfolioInput.extend({ rank: z.boolean().default(false) }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, portfolioId, rank }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return stateText(context.env, project, portfolioId, rank);
  });

  tool('rankPortfolioFixes', {
    title: 'Ranked fixes',
    description: 'What to fix first: package upgrades and algorithm migrations ordered by how much the portfolio score would gain if that row alone were fixed. summary=true leaves out items and keeps at most 10 findings per row.',
    input: PortfolioInput.extend({ offset, limit: limit(20), summary: z.boolean().default(true) }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, portfolioId, offset: skip, limit: take, summary }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return rankText(context.env, project, { portfolioId, offset: skip, limit: take, summary });
  });

  tool('simulatePortfolioFixes', {
    title: 'What if these were fixed',
    description: 'Current and projected scores after the fixes (rows of rankPortfolioFixes, whole or one finding, library or upgrade version). Nothing is stored. rank=true re-ranks the remaining rows.',
    input: PortfolioInput.extend({ fixes: z.array(Fix).min(1).max(1000), rank: z.boolean().default(false) }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, portfolioId, fixes, rank }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    // Simulation changes nothing: its vulnerability lookups may read the nearest replica.
    return simulate(context.env, context.env.DB.withSession('first-unconstrained'), project, portfolioId, { fixes }, rank);
  });

  tool('getPortfolioHistory', {
    title: 'Score history',
    description: 'One row per score movement, oldest first: axis, score, band, cause (survey, membership, rating, vulnerability-data, snapshot, backfill, decision) and time.',
    input: PortfolioInput.extend({ axis: z.enum(['pqc', 'vuln', 'agility']).optional() }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, portfolioId, axis }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<JsonObject>(context.env, project, (stub) => stub.portfolioHistory({ portfolioId, axis }));
  });

  tool('createPortfolio', {
    title: 'Create a portfolio',
    description: 'A named set of subjects (and packages) scored together; scored on the queue at once (state answers unscored until then). Answers the portfolio: `portfolio_id` is the portfolioId the portfolio tools take.',
    input: z.object({ projectId, name, members: Members.optional() }),
    scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, ...body }, context) => createPortfolio(context.env, await changer(context, project), body));

  tool('updatePortfolio', {
    title: 'Rename a portfolio or replace its members',
    description: 'A new member list replaces the whole list and rescores the portfolio. The built-in portfolio cannot be changed.',
    input: PortfolioInput.extend({ name: name.optional(), members: Members.optional() }),
    scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, portfolioId, ...body }, context) => updatePortfolio(context.env, await changer(context, project), portfolioId, body));

  tool('deletePortfolio', {
    title: 'Delete a portfolio',
    description: 'Its subjects and ratings are untouched. The built-in portfolio cannot be deleted.',
    input: PortfolioInput, scope: 'project:write', readOnly: false, destructive: true,
  }, async ({ projectId: project, portfolioId }, context) => {
    await deletePortfolio(context.env, await changer(context, project), portfolioId);
    return { deleted: portfolioId };
  });
}
