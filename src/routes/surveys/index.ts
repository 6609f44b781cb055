// Surveys (spec 4.8) and survey deletion (4.9): thin handlers over the project object.
import { CI_CONTENT_TYPES, ciOutput } from '../../ci';
import { recordActivity } from '../../control/activity';
import { changerOf } from '../../control/changes';
import { controlDb } from '../../control/db';
import { ApiError } from '../../lib/errors';
import { createRouter } from '../../lib/router';
import { withProject } from '../../project/client';
import { projectStoreMaxBytes } from '../../project/store-limit';
import type { Changed, StartSurveyAnswer } from '../../project/surveys';
import { hasBody } from '../../middleware/optional-body';
import { acceptsEventStream } from '../jobs';
import * as routes from './surveys.routes';
import { deleteSurvey, regenerateSurvey, restoreSurvey } from './surveys.service';

export const surveysRouter = createRouter()
  .openapi(routes.startSurvey, async (c) => {
    const { projectId } = c.req.valid('param');
    const body = c.req.valid('json');
    const { answer, changed } = await withProject<Changed<StartSurveyAnswer>>(c.env, projectId, (stub) =>
      stub.startSurvey({ idempotencyKey: c.req.valid('header')['idempotency-key'], ...body, startedBy: c.var.principal.jti }, projectStoreMaxBytes(c.env)));
    if (changed) {
      await recordActivity(controlDb(c.env.DB), {
        orgId: c.var.principal.orgId, projectId, actor: c.var.principal, action: 'survey.started',
        data: { surveyId: answer.parent_id, jobType: body.jobType, ...(body.tag ? { tag: body.tag } : {}), ...(body.target ? { target: body.target } : {}) }, traceId: c.var.requestId,
      });
    }
    return c.json(answer, 201);
  })
  .openapi(routes.reportStatus, async (c) => {
    const { projectId, surveyId } = c.req.valid('param');
    const body = c.req.valid('json');
    await withProject(c.env, projectId, (stub) =>
      stub.reportStepStatus({ idempotencyKey: c.req.valid('header')['idempotency-key'], surveyId, ...body }));
    return c.body(null, 204);
  })
  .openapi(routes.surveyEvents, async (c) => {
    const { projectId, surveyId } = c.req.valid('param');
    if (!acceptsEventStream(c.req.header('accept'))) throw new ApiError('not_acceptable', 'This is a text/event-stream; send Accept: text/event-stream.');
    return withProject<Response>(c.env, projectId, (stub) => stub.surveyEvents(surveyId));
  })
  .openapi(routes.regenerateSurvey, async (c) => {
    const { projectId, surveyId } = c.req.valid('param');
    // No body at all means "reports only"; `{}` repeats the analysis too (spec 4.8 rule 3).
    const skipAnalyze = hasBody(c.req.raw) ? (c.req.valid('json').skipAnalyze ?? false) : true;
    return c.json(await regenerateSurvey(c.env, changerOf(c.var, projectId), { idempotencyKey: c.req.valid('header')['idempotency-key'], surveyId, skipAnalyze }), 201);
  })
  .openapi(routes.deleteSurvey, async (c) => {
    const { projectId, jobId } = c.req.valid('param');
    return c.json(await deleteSurvey(c.env, changerOf(c.var, projectId), jobId), 200);
  })
  .openapi(routes.restoreSurvey, async (c) => {
    const { projectId, jobId } = c.req.valid('param');
    return c.json(await restoreSurvey(c.env, changerOf(c.var, projectId), jobId), 200);
  })
  .openapi(routes.surveyCi, async (c) => {
    const { projectId, surveyId } = c.req.valid('param');
    const { format, failOn, path } = c.req.valid('query');
    const body = await ciOutput(c.env, c.var.principal, { projectId, surveyId, format, failOn, path });
    return new Response(body, { headers: { 'content-type': CI_CONTENT_TYPES[format], 'x-content-type-options': 'nosniff' } }) as never;
  });
