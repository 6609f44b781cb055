// Decisions about findings (triage, issue 23): thin handlers over the project object and decisions.service.ts.
import type { JsonObject } from '../../lib/json';
import { createRouter } from '../../lib/router';
import { changerOf } from '../../control/changes';
import { withProject } from '../../project/client';
import { createDecision, updateDecision, withdrawDecision } from './decisions.service';
import * as routes from './decisions.routes';

export const decisionsRouter = createRouter()
  .openapi(routes.listDecisions, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await withProject<JsonObject>(c.env, projectId, (stub) => stub.listDecisions(c.req.valid('query'))) as never, 200);
  })
  .openapi(routes.createDecision, async (c) => {
    const { projectId } = c.req.valid('param');
    const { finding, ...assessment } = c.req.valid('json');
    const idempotencyKey = c.req.valid('header')['idempotency-key'];
    return c.json(await createDecision(c.env, changerOf(c.var, projectId), { finding, assessment, idempotencyKey }) as never, 201);
  })
  .openapi(routes.getDecision, async (c) => {
    const { projectId, decisionId } = c.req.valid('param');
    return c.json(await withProject<JsonObject>(c.env, projectId, (stub) => stub.getDecision(decisionId)) as never, 200);
  })
  .openapi(routes.updateDecision, async (c) => {
    const { projectId, decisionId } = c.req.valid('param');
    const idempotencyKey = c.req.valid('header')['idempotency-key'];
    return c.json(await updateDecision(c.env, changerOf(c.var, projectId), { id: decisionId, assessment: c.req.valid('json'), idempotencyKey }) as never, 200);
  })
  .openapi(routes.withdrawDecision, async (c) => {
    const { projectId, decisionId } = c.req.valid('param');
    await withdrawDecision(c.env, changerOf(c.var, projectId), decisionId);
    return c.body(null, 204);
  })
  .openapi(routes.triageQueue, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await withProject<JsonObject>(c.env, projectId, (stub) => stub.undecidedFindings(c.req.valid('query'))) as never, 200);
  })
  .openapi(routes.decisionHistory, async (c) => {
    const { projectId, decisionId } = c.req.valid('param');
    return c.json(await withProject<JsonObject>(c.env, projectId, (stub) => stub.decisionHistory(decisionId)) as never, 200);
  });
