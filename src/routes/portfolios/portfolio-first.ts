// Spec 4.1 rule 3: an operation on a portfolio that does not exist answers 404, whatever its body.
// The body's validators run after route middleware, so this asks the project object first, for the
// operations that take a body (update, add member, simulate).
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../lib/context';
import { UUID_PATTERN } from '../../lib/ids';
import { withPortfolioData } from '../../project/client';

export const portfolioFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  const portfolioId = c.req.param('portfolioId')?.toLowerCase();
  const projectId = c.req.param('projectId')?.toLowerCase();
  // A malformed id is the path validator's 400 (invalid_parameter), not a missing portfolio.
  if (portfolioId && projectId && UUID_PATTERN.test(portfolioId)) {
    await withPortfolioData(c.env, projectId, (stub) => stub.requirePortfolio(portfolioId));
  }
  await next();
};
