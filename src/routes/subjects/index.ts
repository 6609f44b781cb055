// Subjects and criticality (spec 4.2): thin handlers over the project object. A rating names the
// caller (a session: id and email) as its rater.
import { recordActivity } from '../../control/activity';
import { controlDb } from '../../control/db';
import { getProfile } from '../../control/users';
import type { JsonObject } from '../../lib/json';
import { createRouter } from '../../lib/router';
import { withPortfolioData } from '../../project/client';
import * as routes from './subjects.routes';

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
    const db = controlDb(c.env.DB);
    const profile = await getProfile(db, c.var.principal.userId);
    const rating = await withPortfolioData<JsonObject>(c.env, projectId, (stub) =>
      stub.rateSubject({ subject, value, rationale: rationale ?? null, rater: { id: profile.id, email: profile.email } }));
    await recordActivity(db, {
      orgId: c.var.principal.orgId, projectId, actor: c.var.principal, action: 'subject.rated',
      data: { subject, value, priorValue: rating.prior_value as string }, traceId: c.var.requestId,
    });
    return c.json(rating as never, 200);
  })
  .openapi(routes.ratingHistory, async (c) => {
    const { projectId, subject } = c.req.valid('param');
    return c.json(await withPortfolioData<JsonObject[]>(c.env, projectId, (stub) => stub.ratingHistory(subject)) as never, 200);
  });
