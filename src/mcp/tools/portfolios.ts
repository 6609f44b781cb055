// Portfolios: list, state, ranked fixes, simulation, history (spec 4.1).
import { z } from 'zod';
import type { JsonObject } from '../../lib/json';
import { withPortfolioData } from '../../project/client';
import { createPortfolio, deletePortfolio, rankText, simulate, stateText, updatePortfolio } from '../../routes/portfolios/portfolios.service';
import { onProject, type ToolContext } from '../context';
import type { ToolRegistry } from '../server';
import { limit, offset, projectId, uuid } from './common';

const PortfolioInput = z.object({ projectId, portfolioId: uuid('The portfolio id (listPortfolios lists them; the built-in "All subjects" holds every subject).') });

const Fix = z.object({
  item_key: z.string().min(1).describe('A ranked row\'s item_key: a package URL without version, or algorithm:<name>.'),
  finding_key: z.string().optional().describe('Fix only this finding of the row.'),
  dependency: z.string().optional().describe('Fix only this library the row bundles.'),
  upgrade_to: z.string().optional().describe('The version to upgrade to (checked against the vulnerability data).'),
});

const Member = z.union([
  z.string().min(1).describe('A subject name.'),
  z.object({ type: z.enum(['subject', 'package']), value: z.string().min(1).describe('A subject name, or a package URL without a version.') }),
]);

/** The assistant changing portfolios of a project: the same permissions as the HTTP operations. */
const changer = async (context: ToolContext, project: string) =>
  ({ principal: await onProject(context, project, ['project:portfolio:view', 'project:edit']), projectId: project, traceId: context.requestId });

export function registerPortfolioTools({ tool }: ToolRegistry): void {
  tool('listPortfolios', {
    title: 'List portfolios',
    description: 'A project\'s portfolios, the built-in one (every subject) first, each with its members and latest overall score.',
    input: z.object({ projectId }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<JsonObject>(context.env, project, (stub) => stub.listPortfolios());
  });

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
    input: PortfolioInput.extend({ fixes: z.array(Fix).min(1).max(100), rank: z.boolean().default(false) }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, portfolioId, fixes, rank }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    // Simulation changes nothing: its vulnerability lookups may read the nearest replica.
    return simulate(context.env, context.env.DB.withSession('first-unconstrained'), project, portfolioId, { fixes }, rank);
  });

  tool('getPortfolioHistory', {
    title: 'Score history',
    description: 'One row per score movement, oldest first: axis, score, band, cause (survey, membership, rating, vulnerability-data, snapshot, backfill) and time.',
    input: PortfolioInput.extend({ axis: z.enum(['pqc', 'vuln', 'agility']).optional() }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, portfolioId, axis }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<JsonObject>(context.env, project, (stub) => stub.portfolioHistory({ portfolioId, axis }));
  });

  tool('createPortfolio', {
    title: 'Create a portfolio',
    description: 'A named set of subjects (and packages) scored together; scored on the queue at once (state answers unscored until then).',
    input: z.object({ projectId, name: z.string().trim().min(1).max(200), members: z.array(Member).max(1000).optional() }),
    scope: 'project:write', readOnly: false,
  }, async ({ projectId: project, ...body }, context) => createPortfolio(context.env, await changer(context, project), body));

  tool('updatePortfolio', {
    title: 'Rename a portfolio or replace its members',
    description: 'A new member list replaces the whole list and rescores the portfolio. The built-in portfolio cannot be changed.',
    input: PortfolioInput.extend({ name: z.string().trim().min(1).max(200).optional(), members: z.array(Member).max(1000).optional() }),
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
