// Portfolios (spec 4.1): thin handlers over the project object and portfolios.service.ts.
import type { JsonObject } from '../../lib/json';
import { createRouter } from '../../lib/router';
import { changerOf } from '../../control/changes';
import { withPortfolioData } from '../../project/client';
import { addPortfolioMember, createPortfolio, deletePortfolio, rankAnswer, removePortfolioMember, simulate, stateAnswer, updatePortfolio } from './portfolios.service';
import { acceptsGzip, jsonAnswer } from '../../lib/answers';
import * as routes from './portfolios.routes';

const data = withPortfolioData;

export const portfoliosRouter = createRouter()
  .openapi(routes.listPortfolios, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await data<JsonObject>(c.env, projectId, (stub) => stub.listPortfolios()) as never, 200);
  })
  .openapi(routes.createPortfolio, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await createPortfolio(c.env, changerOf(c.var, projectId), c.req.valid('json')) as never, 201);
  })
  .openapi(routes.getPortfolio, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    return c.json(await data<JsonObject>(c.env, projectId, (stub) => stub.getPortfolio(portfolioId)) as never, 200);
  })
  .openapi(routes.updatePortfolio, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    return c.json(await updatePortfolio(c.env, changerOf(c.var, projectId), portfolioId, c.req.valid('json')) as never, 200);
  })
  .openapi(routes.deletePortfolio, async (c) => {
    const { projectId, portfolioId } = c.req.valid('param');
    await deletePortfolio(c.env, changerOf(c.var, projectId), portfolioId);
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
    return c.json(await addPortfolioMember(c.env, changerOf(c.var, projectId), portfolioId, c.req.valid('json')) as never, 200);
  })
  .openapi(routes.removeMember, async (c) => {
    const { projectId, portfolioId, value } = c.req.valid('param');
    const { type } = c.req.valid('query');
    return c.json(await removePortfolioMember(c.env, changerOf(c.var, projectId), portfolioId, { type, value }) as never, 200);
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
