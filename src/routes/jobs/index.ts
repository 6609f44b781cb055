// Jobs (spec 4.9): list, get, and the live job stream (spec part 6).
import { ApiError } from '../../lib/errors';
import { createRouter } from '../../lib/router';
import { withProject } from '../../project/client';
import type { JobAnswer } from '../../project/jobs';
import type { JobPage } from '../../project/surveys';
import * as routes from './jobs.routes';

/** Whether an `Accept` header allows `text/event-stream` (absent means anything). */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';').map((p) => p.trim());
    if (params.some((p) => p === 'q=0' || /^q=0(\.0*)?$/.test(p))) return false;
    return type === 'text/event-stream' || type === 'text/*' || type === '*/*';
  });
}

export const jobsRouter = createRouter()
  .openapi(routes.listJobs, async (c) => {
    const { projectId } = c.req.valid('param');
    const { jobType, sortBy: _sortBy, ...query } = c.req.valid('query');
    const page = await withProject<JobPage>(c.env, projectId, (stub) => stub.listJobs({ ...query, jobTypes: jobType }));
    return c.json(page, 200);
  })
  .openapi(routes.jobStream, async (c) => {
    const { projectId } = c.req.valid('param');
    if (!acceptsEventStream(c.req.header('accept'))) {
      throw new ApiError('not_acceptable', 'The job stream is text/event-stream; send Accept: text/event-stream.');
    }
    return withProject<Response>(c.env, projectId, (stub) => stub.jobStream());
  })
  .openapi(routes.getJob, async (c) => {
    const { projectId, jobId } = c.req.valid('param');
    return c.json(await withProject<JobAnswer>(c.env, projectId, (stub) => stub.getJob(jobId)), 200);
  });
