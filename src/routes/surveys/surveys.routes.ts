import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, ProjectParams } from '../../lib/schemas';
import { Job } from '../jobs/jobs.schemas';
import {
  IdempotencyKeyHeader, OptionalIdempotencyKeyHeader, RegenerateAnswer, RegenerateRequest, StartSurveyAnswer, StartSurveyRequest,
  StepStatusRequest, SurveyJobParams, SurveyParams,
} from './surveys.schemas';

const P = '/api/v1/project/{projectId}';
const tags = ['Surveys'];

export const startSurvey = defineRoute({
  operationId: 'startSurvey',
  method: 'post', path: `${P}/survey`, tags, summary: 'Start a survey',
  description: 'Starts an inventory or runtime survey; its steps are `upload` and `analyze`. A repeat with the same Idempotency-Key returns the same `parent_id`, which is then passed as `parentId` to upload init. 409 `storage_full` when the project\'s stored data reached its limit: the message names the limit and what frees space.',
  access: { creds: 'pass' }, errors: [409, 503],
  request: { params: ProjectParams, headers: IdempotencyKeyHeader, ...jsonBody(StartSurveyRequest) },
  responses: { 201: { description: 'The survey.', ...json(StartSurveyAnswer) } },
});

export const reportStatus = defineRoute({
  operationId: 'reportStepStatus',
  method: 'post', path: `${P}/survey/{surveyId}/status`, tags, summary: 'Report the status of a step',
  description: 'Merges the optional fields onto the step; the survey follows its steps.',
  access: { creds: 'pass', keepsAccess: true }, errors: [404, 409, 503],
  request: { params: SurveyParams, headers: OptionalIdempotencyKeyHeader, ...jsonBody(StepStatusRequest) },
  responses: { 204: { description: 'Recorded.' } },
});

export const surveyEvents = defineRoute({
  operationId: 'streamSurveyEvents',
  method: 'get', path: `${P}/survey/{surveyId}/events`, tags, summary: 'Follow one survey (upload pass)',
  description: 'An addition for the upload client, whose pass may not read the general job stream: a `text/event-stream` that opens with `connected`, sends the survey\'s current state as a `job-update`, then every change of the survey and its steps, and closes once the survey is finished.',
  access: { creds: 'pass' }, errors: [404, 406, 503],
  request: { params: SurveyParams },
  responses: { 200: { description: 'The event stream.', content: { 'text/event-stream': { schema: z.string() } } } },
});

export const regenerateSurvey = defineRoute({
  operationId: 'regenerateSurvey',
  method: 'post', path: `${P}/v1/survey/{surveyId}/regenerate`, tags, summary: 'Regenerate a survey',
  description: 'Runs the survey again from the upload it already has. Without a body, or with `skipAnalyze: true`, the analysis is reused and only the reports are produced again; `{}` or `skipAnalyze: false` repeats the analysis. The old survey and its unfinished steps become SKIPPED; the new one names it in `supersedes`. 409 `storage_full` when the project\'s stored data reached its limit: the message names the limit and what frees space.',
  access: { creds: 'any', permissions: ['project:edit'] }, errors: [404, 409, 503],
  request: { params: SurveyParams, headers: IdempotencyKeyHeader, ...jsonBody(RegenerateRequest, false) },
  responses: { 201: { description: 'The new survey.', ...json(RegenerateAnswer) } },
});

export const deleteSurvey = defineRoute({
  operationId: 'deleteSurvey',
  method: 'delete', path: `${P}/v1/survey/{jobId}`, tags, summary: 'Delete a survey',
  description: 'Hides the survey from the default job list; still readable by id and with `showDeleted=true`. Deleting it again changes nothing.',
  access: { creds: 'any', permissions: ['project:edit'] }, errors: [404, 503],
  request: { params: SurveyJobParams },
  responses: { 200: { description: 'The survey with `deleted_at`.', ...json(Job) } },
});

export const restoreSurvey = defineRoute({
  operationId: 'restoreSurvey',
  method: 'post', path: `${P}/v1/survey/{jobId}/restore`, tags, summary: 'Restore a deleted survey',
  access: { creds: 'any', permissions: ['project:admin'] }, errors: [404, 503],
  request: { params: SurveyJobParams },
  responses: { 200: { description: 'The survey without `deleted_at`.', ...json(Job) } },
});
