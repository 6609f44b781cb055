import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, ProjectParams } from '../../lib/schemas';
import { Job } from '../jobs/jobs.schemas';
import {
  CiQuery, IdempotencyKeyHeader, OptionalIdempotencyKeyHeader, RegenerateAnswer, RegenerateRequest, StartSurveyAnswer, StartSurveyRequest,
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

export const surveyCi = defineRoute({
  operationId: 'getSurveyCiOutput',
  method: 'get', path: `${P}/v1/survey/{surveyId}/ci`, tags, summary: 'A finished survey as SARIF, JUnit or markdown',
  description: 'The survey\'s findings for CI systems (docs/ci.md): `sarif` is SARIF 2.1.0 for code scanning (one rule per classification rule and per advisory, decisions as suppressions, at most 25,000 results and 10 MB gzipped, the most severe kept); `junit` is JUnit XML (a testsuite per report, a testcase per group of findings); `markdown` is the job summary (figures, what is new, top ranked fixes, links to the reports and their PDF). An upload pass reads only the surveys it started (403 `forbidden` for another). 409 `conflict` while the survey is not finished, or when it did not complete.',
  access: { creds: 'anyOrPass', permissions: ['project:view'] }, errors: [404, 409, 503],
  request: { params: SurveyParams, query: CiQuery },
  responses: {
    200: {
      description: 'The document.',
      content: {
        'application/sarif+json': { schema: z.record(z.string(), z.unknown()) },
        'application/xml': { schema: z.string() },
        'text/markdown': { schema: z.string() },
      },
    },
  },
});
