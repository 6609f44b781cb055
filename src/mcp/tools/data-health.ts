// Data health: how complete and recent each subject's analysis is, the runs, and resolving a reference.
import { z } from 'zod';
import { JOB_STATUSES } from '../../project/jobs';
import { withPortfolioData, withProject } from '../../project/client';
import type { RunPage, SubjectHealth } from '../../project/health';
import type { ResolveAnswer } from '../../project/health-resolve';
import { onProject } from '../context';
import type { ToolRegistry } from './registry';
import { cursors, limit, projectId, sortDir } from './common';

export function registerDataHealthTools({ tool }: ToolRegistry): void {
  tool('getDataHealthSummary', {
    title: 'Data health per subject',
    description: 'For every subject: how complete its latest analysis is, how recent, and what is missing. `latest_run_id` is a survey\'s id (getJob).',
    input: z.object({ projectId }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<{ subjects: SubjectHealth[]; generated_at: string }>(context.env, project, (stub) => stub.healthSummary());
  });

  tool('listDataHealthRuns', {
    title: 'Analysis runs',
    description: 'Analysis runs of a project, newest first, filtered by subject and status (FAILED shows what broke). A run\'s id is its survey\'s id (getJob); `pagination.lastId` is the next page\'s `after`.',
    input: z.object({
      projectId,
      subject: z.string().trim().min(1).max(512).optional(),
      status: z.enum(JOB_STATUSES).optional(),
      showDeleted: z.boolean().default(false),
      limit: limit(50), sortDir,
      ...cursors('runs'),
    }),
    scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, ...query }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withPortfolioData<RunPage>(context.env, project, (stub) => stub.listHealthRuns(query));
  });

  tool('resolveDataHealthRef', {
    title: 'Find a run by reference',
    description: 'What a reference names: a run id, step id, upload id, idempotency key, tag or CI run id. Answers `run_id` (a survey\'s id for getJob), `step_id` or `subject`.',
    input: z.object({ projectId, ref: z.string().trim().min(1).max(512) }), scope: 'project:read', readOnly: true,
  }, async ({ projectId: project, ref }, context) => {
    await onProject(context, project, ['project:portfolio:view']);
    return withProject<ResolveAnswer>(context.env, project, (stub) => stub.resolveHealthRef(ref));
  });
}
