// Projects: the ones the assistant's person reaches in the approved organization.
import { controlDb } from '../../control/db';
import { myProjects, projectAnswer } from '../../control/projects';
import { onProject } from '../context';
import type { ToolRegistry } from './registry';
import { ProjectInput } from './common';
import { z } from 'zod';

export function registerProjectTools({ tool }: ToolRegistry): void {
  tool('listProjects', {
    title: 'List projects',
    description: 'The organization the assistant was approved for (`org_uuid`, `org_name`) and the projects its person reaches there, each with `name` and `uuid`: a project\'s `uuid` is the projectId every other tool takes.',
    input: z.object({}), scope: 'project:read', readOnly: true,
  }, async (_args, context) => myProjects(controlDb(context.env.DB), context.app));

  tool('getProject', {
    title: 'Get a project',
    description: 'One project: `id` (the projectId other tools take), `name`, `orgId` (its organization), `createdAt`, `demoProject` and `featureFlags`.',
    input: ProjectInput, scope: 'project:read', readOnly: true,
  }, async ({ projectId }, context) => {
    const principal = await onProject(context, projectId, ['project:view']);
    const db = controlDb(context.env.DB);
    const project = await db.query.projects.findFirst({ where: (p, { eq }) => eq(p.id, principal.projectId!) });
    return projectAnswer(project!);
  });
}
