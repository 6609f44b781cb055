import { z } from '@hono/zod-openapi';
import { Pagination, uuidParam } from '../../lib/schemas';
import { JOB_STATUSES, JOB_TYPES } from '../../project/jobs';

const jobFields = {
  id: z.uuid(),
  type: z.string().openapi({ example: 'INVENTORY_SURVEY' }),
  status: z.enum(JOB_STATUSES),
  progress: z.number().min(0).max(100),
  message: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  parent_id: z.uuid().nullable(),
  step_type: z.string().optional().openapi({ description: 'Steps only: UPLOAD, ANALYZE, REPORT.' }),
  step_label: z.string().optional().openapi({ description: 'Steps only: e.g. upload, analyze, pqc-inventory.' }),
  failure_class: z.string().nullable().optional().openapi({ description: 'Why a failed job failed, e.g. not_cyclonedx, archive_limits.' }),
};

export const Step = z.object(jobFields).openapi('Step');

export const Job = z
  .object({
    ...jobFields,
    tag: z.string().nullable().optional(),
    target: z.string().nullable().optional(),
    notes: z.string().nullable().optional(),
    json_tags: z.record(z.string(), z.unknown()).nullable().optional(),
    deleted_at: z.string().nullable().optional(),
    supersedes: z.uuid().nullable().optional(),
    steps: z.array(Step).optional().openapi({ description: 'Surveys only: their steps.' }),
  })
  .openapi('Job');

/** A boolean query parameter: `true` or `false`, false when omitted. */
export const boolQuery = (name: string, description?: string) =>
  z.enum(['true', 'false']).default('false').transform((v) => v === 'true').openapi({ param: { name, in: 'query' }, ...(description ? { description } : {}) });

/** `jobType`: comma-separated job types, any case. */
const jobTypes = z
  .string()
  .transform((value, ctx) => {
    const types = [...new Set(value.split(',').map((t) => t.trim().toUpperCase()).filter(Boolean))];
    const unknown = types.find((t) => !(JOB_TYPES as readonly string[]).includes(t));
    if (unknown || !types.length) {
      ctx.addIssue({ code: 'custom', message: `Unknown job type ${unknown ?? '(empty)'}; one of ${JOB_TYPES.join(', ')}.` });
      return z.NEVER;
    }
    return types;
  })
  .optional()
  .openapi({ param: { name: 'jobType', in: 'query' }, example: 'INVENTORY_SURVEY,RUNTIME_SURVEY' });

/** `status`: exactly one job status, any case. */
export const statusQuery = (example: string) => z
  .string()
  .transform((value, ctx) => {
    const upper = value.trim().toUpperCase();
    if (!(JOB_STATUSES as readonly string[]).includes(upper)) {
      ctx.addIssue({ code: 'custom', message: `status is exactly one of ${JOB_STATUSES.join(', ')}.` });
      return z.NEVER;
    }
    return upper as (typeof JOB_STATUSES)[number];
  })
  .optional()
  .openapi({ param: { name: 'status', in: 'query' }, example });

export const JobListQuery = z.object({
  jobType: jobTypes,
  status: statusQuery('COMPLETED'),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000).openapi({ param: { name: 'limit', in: 'query' } }),
  sortBy: z.enum(['createdAt']).default('createdAt').openapi({ param: { name: 'sortBy', in: 'query' } }),
  sortDir: z.enum(['asc', 'desc']).default('desc').openapi({ param: { name: 'sortDir', in: 'query' } }),
  after: z.uuid().optional().openapi({ param: { name: 'after', in: 'query' } }),
  before: z.uuid().optional().openapi({ param: { name: 'before', in: 'query' } }),
  // Left undefined when absent: with `jobType`, steps are listed only when `topLevel=false` is asked for.
  topLevel: z.enum(['true', 'false']).optional().transform((v) => (v === undefined ? undefined : v === 'true'))
    .openapi({ param: { name: 'topLevel', in: 'query' }, description: 'true: one row per survey with its steps. false (the default): every job, steps included; with `jobType` naming a survey type, only an explicit false lists the analysis steps too.' }),
  showDeleted: boolQuery('showDeleted'),
  parentId: z.uuid({ error: 'parentId must be a job id (UUID).' }).optional()
    .openapi({ param: { name: 'parentId', in: 'query' }, description: 'Only the jobs directly under this job: a survey\'s steps, or a report\'s render jobs (REPORT steps labelled `render:<format>`).' }),
});

export const JobPage = z.object({ jobs: z.array(Job), pagination: Pagination }).openapi('JobPage');

export const JobParams = z.object({ projectId: uuidParam('projectId'), jobId: uuidParam('jobId') });
