// Portfolios (spec 4.1): thin handlers over the project object; simulation resolves its fixes here
// (an upgrade is checked against the vulnerability database in D1) and computes from the stored model.
import { recordActivity, type ActivityAction } from '../../control/activity';
import { controlDb } from '../../control/db';
import type { Env } from '../../env';
import type { JsonObject } from '../../lib/json';
import { createRouter } from '../../lib/router';
import type { Context } from 'hono';
import type { AppEnv } from '../../lib/context';
import { packageOf } from '../../analysis/vulns/ecosystem';
import { matchPackage } from '../../analysis/vulns/match';
import { withPortfolioData } from '../../project/client';
import type { RankPage, SimulationInputs } from '../../project/scoring-store';
import type { Effect } from '../../scoring/portfolio';
import { fixesOf, resolveFixes, rowsNeeded, simulation, type StoredRow, type UpgradeCheck } from '../../scoring/simulate';
import { lookupRecords } from '../../vulndb/lookup';
import * as routes from './portfolios.routes';

const data = withPortfolioData;

async function activity(c: Context<AppEnv>, projectId: string, action: ActivityAction, payload: JsonObject): Promise<void> {
  await recordActivity(controlDb(c.env.DB), { orgId: c.var.principal.orgId, projectId, actor: c.var.principal, action, data: payload, traceId: c.var.requestId });
}

/** The rank page as JSON text: the stored rows are written out as they are, never parsed. */
const rankBody = (page: RankPage) => `{"rows":[${page.rows.join(',')}],"total":${page.total},"offset":${page.offset},"limit":${page.limit}}`;

/** Which advisories a version is still affected by, for every installed flavour of the package (its distro, ecosystem). */
function upgradeCheck(env: Env): UpgradeCheck {
  return {
    async stillAffected(_itemKey, items, version) {
      const packages = new Map<string, ReturnType<typeof packageOf> & object>();
      for (const item of items) {
        const pkg = typeof item.purl === 'string' ? packageOf(item.purl) : null;
        if (pkg) packages.set(`${pkg.ecosystem}\u0000${pkg.name}`, pkg);
      }
      const records = await lookupRecords(env.DB, [...packages.values()]);
      const affected = new Set<string>();
      for (const [key, pkg] of packages) {
        for (const advisory of matchPackage(pkg, version, records.get(key) ?? []).advisories) affected.add(advisory.id);
      }
      return affected;
    },
  };
}

const storedRows = (inputs: SimulationInputs): Map<string, StoredRow> =>
  new Map(inputs.rows.map((r) => [r.itemKey, { itemKey: r.itemKey, row: r.row, effects: JSON.parse(r.effects) as Effect[] }]));

export const portfoliosRouter = createRouter()
  .openapi(routes.listPortfolios, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await data<JsonObject>(c.env, projectId, (stub) => stub.listPortfolios()) as never, 200);
  })
  .openapi(routes.createPortfolio, async (c) => {
    const { projectId } = c.req.valid('param');
    const portfolio = await data<JsonObject>(c.env, projectId, (stub) => stub.createPortfolio(c.req.valid('json')));
    await activity(c, projectId, 'portfolio.created', { portfolioId: portfolio.portfolio_id as string, name: portfolio.name as string });
    return c.json(portfolio as never, 201);
  })
  .openapi(routes.getPortfolio, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    return c.json(await data<JsonObject>(c.env, projectId, (stub) => stub.getPortfolio(portfolioId)) as never, 200);
  })
  .openapi(routes.updatePortfolio, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    const body = c.req.valid('json');
    const portfolio = await data<JsonObject>(c.env, projectId, (stub) => stub.updatePortfolio({ portfolioId, ...body }));
    await activity(c, projectId, 'portfolio.updated', { portfolioId, name: portfolio.name as string, membersReplaced: body.members !== undefined });
    return c.json(portfolio as never, 200);
  })
  .openapi(routes.deletePortfolio, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    const { name } = await data<{ name: string }>(c.env, projectId, (stub) => stub.deletePortfolio(portfolioId));
    await activity(c, projectId, 'portfolio.deleted', { portfolioId, name });
    return c.body(null, 204);
  })
  .openapi(routes.portfolioHistory, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    const { axis } = c.req.valid('query');
    return c.json(await data<JsonObject>(c.env, projectId, (stub) => stub.portfolioHistory({ portfolioId, axis })) as never, 200);
  })
  .openapi(routes.listMembers, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    return c.json(await data<JsonObject>(c.env, projectId, (stub) => stub.portfolioMembers(portfolioId)) as never, 200);
  })
  .openapi(routes.addMember, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    const answer = await data<{ members: JsonObject[]; added: boolean; member: JsonObject }>(c.env, projectId, (stub) => stub.addPortfolioMember({ portfolioId, member: c.req.valid('json') }));
    if (answer.added) await activity(c, projectId, 'portfolio.member.added', { portfolioId, member: answer.member });
    return c.json({ members: answer.members } as never, 200);
  })
  .openapi(routes.removeMember, async (c) => {
    const { projectId, portfolioId, value } = c.req.valid('param');
    const { type } = c.req.valid('query');
    const answer = await data<{ members: JsonObject[]; member: JsonObject }>(c.env, projectId, (stub) => stub.removePortfolioMember({ portfolioId, type, value }));
    await activity(c, projectId, 'portfolio.member.removed', { portfolioId, member: answer.member });
    return c.json({ members: answer.members } as never, 200);
  })
  .openapi(routes.rank, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    const page = await data<RankPage>(c.env, projectId, (stub) => stub.portfolioRank({ portfolioId, ...c.req.valid('query') }));
    return c.body(rankBody(page), 200, { 'content-type': 'application/json' }) as never;
  })
  .openapi(routes.state, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    const { rank } = c.req.valid('query');
    const answer = await data<{ text: string; rank: RankPage | null }>(c.env, projectId, (stub) => stub.portfolioState({ portfolioId, rank }));
    const body = answer.rank ? `${answer.text.slice(0, -1)},"rank":${rankBody(answer.rank)}}` : answer.text;
    return c.body(body, 200, { 'content-type': 'application/json' }) as never;
  })
  .openapi(routes.simulate, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    const { rank } = c.req.valid('query');
    const fixes = fixesOf(c.req.valid('json'));
    const inputs = await data<SimulationInputs>(c.env, projectId, (stub) => stub.simulationInputs({ portfolioId, itemKeys: rowsNeeded(fixes), all: rank }));
    const rows = storedRows(inputs);
    const resolved = await resolveFixes(fixes, rows, upgradeCheck(c.env));
    return c.json(simulation(inputs.model, resolved, rank ? [...rows.values()] : undefined) as never, 200);
  });
