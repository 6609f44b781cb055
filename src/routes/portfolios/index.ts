// Portfolios (spec 4.1): thin handlers over the project object and portfolios.service.ts.
import type { JsonObject } from '../../lib/json';
import { createRouter } from '../../lib/router';
import type { Context } from 'hono';
import type { AppEnv } from '../../lib/context';
import { withPortfolioData } from '../../project/client';
import { createPortfolio, deletePortfolio, rankAnswer, recordChange, simulate, stateAnswer, updatePortfolio, type Changer } from './portfolios.service';
import { acceptsGzip, jsonAnswer } from '../../lib/answers';
import * as routes from './portfolios.routes';

const data = withPortfolioData;

const changer = (c: Context<AppEnv>, projectId: string): Changer => ({ principal: c.var.principal, projectId, traceId: c.var.requestId });

export const portfoliosRouter = createRouter()
  .openapi(routes.listPortfolios, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await data<JsonObject>(c.env, projectId, (stub) => stub.listPortfolios()) as never, 200);
  })
  .openapi(routes.createPortfolio, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await createPortfolio(c.env, changer(c, projectId), c.req.valid('json')) as never, 201);
  })
  .openapi(routes.getPortfolio, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    return c.json(await data<JsonObject>(c.env, projectId, (stub) => stub.getPortfolio(portfolioId)) as never, 200);
  })
  .openapi(routes.updatePortfolio, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    return c.json(await updatePortfolio(c.env, changer(c, projectId), portfolioId, c.req.valid('json')) as never, 200);
  })
  .openapi(routes.deletePortfolio, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    await deletePortfolio(c.env, changer(c, projectId), portfolioId);
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
    if (answer.added) await recordChange(c.env, changer(c, projectId), 'portfolio.member.added', { portfolioId, member: answer.member });
    return c.json({ members: answer.members } as never, 200);
  })
  .openapi(routes.removeMember, async (c) => {
    const { projectId, portfolioId, value } = c.req.valid('param');
    const { type } = c.req.valid('query');
    const answer = await data<{ members: JsonObject[]; member: JsonObject }>(c.env, projectId, (stub) => stub.removePortfolioMember({ portfolioId, type, value }));
    await recordChange(c.env, changer(c, projectId), 'portfolio.member.removed', { portfolioId, member: answer.member });
    return c.json({ members: answer.members } as never, 200);
  })
  .openapi(routes.rank, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    return jsonAnswer(await rankAnswer(c.env, projectId, { portfolioId, ...c.req.valid('query'), gzip: acceptsGzip(c) })) as never;
  })
  .openapi(routes.state, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    return jsonAnswer(await stateAnswer(c.env, projectId, { portfolioId, rank: c.req.valid('query').rank, gzip: acceptsGzip(c) })) as never;
  })
  .openapi(routes.simulate, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    return c.json(await simulate(c.env, c.env.DB, projectId, portfolioId, c.req.valid('json'), c.req.valid('query').rank) as never, 200);
  });
