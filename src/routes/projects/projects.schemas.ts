import { z } from '@hono/zod-openapi';

const PROJECT_ID = '9c4e2b1a-7d3f-4e5a-8b6c-1d2e3f4a5b6c';
const ORG_ID = '3f1c2a9e-6b1d-4c1e-9a51-2f7c0c6b8e10';

const projectName = z.string().trim().min(1, 'name must not be blank.').max(255, 'name is at most 255 characters.');

export const Project = z
  .object({
    id: z.uuid().openapi({ example: PROJECT_ID }),
    name: z.string().openapi({ example: 'Payments platform' }),
    orgId: z.uuid().openapi({ example: ORG_ID }),
    demoProject: z.boolean().openapi({ example: false }),
    featureFlags: z.array(z.string()).openapi({ description: 'The enabled feature flags (not settable through the API).', example: [] }),
    createdAt: z.string().openapi({ example: '2026-11-21T10:00:00.000Z' }),
  })
  .openapi('Project');

const ProjectEntry = z.object({ name: z.string().openapi({ example: 'Payments platform' }), uuid: z.uuid().openapi({ example: PROJECT_ID }) }).openapi('ProjectListEntry');

export const ProjectList = z
  .object({ org_uuid: z.uuid().openapi({ example: ORG_ID }), org_name: z.string().openapi({ example: 'Acme Security' }), projects: z.array(ProjectEntry) })
  .openapi('ProjectList');

export const DeletedProjectList = z
  .object({
    org_uuid: z.uuid(),
    org_name: z.string(),
    projects: z.array(
      ProjectEntry.extend({
        deletedAt: z.string().openapi({ example: '2026-11-21T10:00:00.000Z' }),
        restorableUntil: z.string().openapi({ description: 'When the retention period ends and the project may be removed for good.', example: '2027-02-19T10:00:00.000Z' }),
      }).openapi('DeletedProjectListEntry'),
    ),
  })
  .openapi('DeletedProjectList');

export const MyProjects = z
  .object({ org_uuid: z.uuid(), org_name: z.string(), user_uuid: z.uuid(), projects: z.array(ProjectEntry) })
  .openapi('MyProjects');

export const CreateProject = z.object({ name: projectName.openapi({ example: 'Payments platform' }) }).openapi('ProjectCreate');

export const NewProject = z
  .object({
    uuid: z.uuid().openapi({ example: PROJECT_ID }),
    project: z.string().openapi({ description: 'The project name.', example: 'Payments platform' }),
    jwt: z.string().openapi({ description: 'A dashboard session for the new project, under the caller\'s same sign-in.' }),
  })
  .openapi('NewProject');

export const UpdateProject = z.object({ name: projectName.optional().openapi({ example: 'Payments' }) }).openapi('ProjectUpdate');
