// Subjects and criticality (spec 4.2): thin handlers over the project object and subjects.service.ts.
import type { JsonObject } from '../../lib/json';
import { createRouter } from '../../lib/router';
import { withPortfolioData } from '../../project/client';
import * as routes from './subjects.routes';
import { rateSubject } from './subjects.service';

export const subjectsRouter = createRouter()
  .openapi(routes.listSubjects, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await withPortfolioData<JsonObject>(c.env, projectId, (stub) => stub.listSubjects()) as never, 200);
  })
  .openapi(routes.subjectContent, async (c) => {
    const { projectId, subject } = c.req.valid('param');
    const { offset, limit } = c.req.valid('query');
    return c.json(await withPortfolioData<JsonObject>(c.env, projectId, (stub) => stub.subjectContentPage({ subject, offset, limit })) as never, 200);
  })
  .openapi(routes.rateSubject, async (c) => {
    const { projectId, subject } = c.req.valid('param');
    const { value, rationale } = c.req.valid('json');
    const rating = await rateSubject(c.env, c.var.principal, { projectId, subject, value, rationale: rationale ?? null, traceId: c.var.requestId });
    return c.json(rating as never, 200);
  })
  .openapi(routes.ratingHistory, async (c) => {
    const { projectId, subject } = c.req.valid('param');
    return c.json(await withPortfolioData<JsonObject[]>(c.env, projectId, (stub) => stub.ratingHistory(subject)) as never, 200);
  });
