import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/openapi';
import { json, ProjectParams } from '../../lib/schemas';
import { Job, JobListQuery, JobPage, JobParams } from './jobs.schemas';

const P = '/api/v1/project/{projectId}';
const tags = ['Jobs'];

export const listJobs = defineRoute({
  operationId: 'listJobs',
  method: 'get', path: `${P}/v1/job`, tags, summary: 'List jobs',
  description: 'Jobs newest first by default. `topLevel=true` gives one row per survey with its steps; deleted surveys (and their steps) only with `showDeleted=true`.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [503],
  request: { params: ProjectParams, query: JobListQuery },
  responses: { 200: { description: 'A page of jobs.', ...json(JobPage) } },
});

export const jobStream = defineRoute({
  operationId: 'streamJobs',
  method: 'get', path: `${P}/v1/job/stream`, tags, summary: 'The live job stream',
  description: 'A `text/event-stream`: opens with the comment `connected`, then a `job-update` event (the job in the get-job shape) on every change of any job of the project; a heartbeat comment every 25 s; closes after one hour (reconnect to keep listening).',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [406, 503],
  request: { params: ProjectParams },
  responses: { 200: { description: 'The event stream.', content: { 'text/event-stream': { schema: z.string() } } } },
});

export const getJob = defineRoute({
  operationId: 'getJob',
  method: 'get', path: `${P}/v1/job/{jobId}`, tags, summary: 'Get a job',
  description: 'A survey includes its `steps`.',
  access: { creds: 'any', permissions: ['project:view'] }, errors: [404, 503],
  request: { params: JobParams },
  responses: { 200: { description: 'The job.', ...json(Job) } },
});
