// Jobs and surveys: list with filters, get one, and wait for one to finish (with progress).
import type { ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { JOB_STATUSES, JOB_TYPES, isFinished, type JobAnswer } from '../../project/jobs';
import { withProject } from '../../project/client';
import type { JobPage } from '../../project/surveys';
import { onProject, type ToolContext } from '../context';
import type { ToolRegistry } from './registry';
import { cursors, limit, projectId, sortDir, uuid } from './common';

const JobInput = z.object({ projectId, jobId: uuid('The job or survey id: `id` of a job in listJobs (a survey\'s steps are in its `steps`).') });

const getJob = (context: ToolContext, project: string, jobId: string) =>
  withProject<JobAnswer>(context.env, project, (stub) => stub.getJob(jobId));

/** Longest a wait holds the call open: assistants and proxies give up on longer requests. */
export const WAIT_MAX_SECONDS = 120;

async function notifyProgress(request: ServerContext, job: JobAnswer): Promise<void> {
  const token = request.mcpReq._meta?.progressToken;
  if (token === undefined) return;
  await request.mcpReq.notify({
    method: 'notifications/progress',
    params: { progressToken: token, progress: job.progress, total: 100, message: `${job.status}${job.message ? `: ${job.message}` : ''}` },
  }).catch(() => undefined);
}

export function registerJobTools({ tool }: ToolRegistry): void {
  tool('listJobs', {
    title: 'List jobs and surveys',
    description: 'Jobs of a project, newest first: surveys (INVENTORY_SURVEY, ...) with their steps, uploads, renders. Filter by type and status; topLevel=true gives one row per survey. Each job\'s `id` is the jobId of getJob and waitForJob (a survey\'s: the surveyId of the survey tools); a step with `step_type` REPORT is a report, its `id` the reportId of the report tools. `pagination.lastId` is the next page\'s `after`.',
    input: z.object({
      projectId,
      jobTypes: z.array(z.enum(JOB_TYPES)).optional().describe('Only these job types.'),
      status: z.enum(JOB_STATUSES).optional(),
      topLevel: z.boolean().optional().describe('true: one row per survey, its steps inside.'),
      showDeleted: z.boolean().default(false),
      limit: limit(50), sortDir,
      ...cursors('jobs'),
    }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, ...query }, context) => {
    await onProject(context, project, ['project:view']);
    return withProject<JobPage>(context.env, project, (stub) => stub.listJobs(query));
  });

  tool('getJob', {
    title: 'Get a job or survey',
    description: 'One job with its status, progress, message and, for a survey, its `steps`: a step with `step_type` REPORT is a report, whose `id` is the reportId the report tools take.',
    input: JobInput, scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, jobId }, context) => {
    await onProject(context, project, ['project:view']);
    return getJob(context, project, jobId);
  });

  tool('waitForJob', {
    title: 'Wait for a job to finish',
    description: `Waits until the job is COMPLETED, FAILED or SKIPPED, or until timeoutSeconds pass (at most ${WAIT_MAX_SECONDS}), sending progress notifications; answers the job as it then is (finished: true or false).`,
    input: JobInput.extend({ timeoutSeconds: z.number().int().min(1).max(WAIT_MAX_SECONDS).default(60) }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, jobId, timeoutSeconds }, context, request) => {
    await onProject(context, project, ['project:view']);
    const deadline = Date.now() + timeoutSeconds * 1000;
    let job = await getJob(context, project, jobId);
    let delay = 250;
    while (!isFinished(job.status) && Date.now() < deadline) {
      await notifyProgress(request, job);
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, deadline - Date.now())));
      delay = Math.min(delay * 2, 2000);
      job = await getJob(context, project, jobId);
    }
    return { finished: isFinished(job.status), job };
  });
}
