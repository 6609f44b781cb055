import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, OrgParams, ProjectParams } from '../../lib/schemas';
import { CreateProject, DeletedProjectList, MyProjects, NewProject, Project, ProjectList, UpdateProject } from './projects.schemas';

const tags = ['Projects'];

export const listProjects = defineRoute({
  operationId: 'listProjects',
  method: 'get',
  path: '/api/v1/org/{orgId}/project',
  tags,
  summary: 'List the organization\'s projects',
  description: 'Projects not deleted, by name.',
  access: { creds: 'any', permissions: ['org:view'] },
  request: { params: OrgParams },
  responses: { 200: { description: 'The projects.', ...json(ProjectList) } },
});

export const createProject = defineRoute({
  operationId: 'createProject',
  method: 'post',
  path: '/api/v1/org/{orgId}/project',
  tags,
  summary: 'Create a project',
  description:
    'The caller reaches the new project with their existing roles: when none of their teams reaches every project, the project is assigned to each of their teams granting `org:create_project`. Answers a session for the new project under the same sign-in.',
  access: { creds: 'session', permissions: ['org:create_project'] },
  request: { params: OrgParams, ...jsonBody(CreateProject) },
  responses: { 200: { description: 'The new project with a session for it.', ...json(NewProject) } },
});

export const listDeletedProjects = defineRoute({
  operationId: 'listDeletedProjects',
  method: 'get',
  path: '/api/v1/org/{orgId}/project/deleted',
  tags,
  summary: 'List deleted projects',
  description: 'Deleted projects still inside the retention period (restorable), most recently deleted first.',
  access: { creds: 'any', permissions: ['org:view'] },
  request: { params: OrgParams },
  responses: { 200: { description: 'The deleted projects.', ...json(DeletedProjectList) } },
});

export const getProject = defineRoute({
  operationId: 'getProject',
  method: 'get',
  path: '/api/v1/project/{projectId}',
  tags,
  summary: 'Get a project',
  description: 'A session may name any project of its organization one of its teams reaches; an API token only its own. The permission is checked on that project after the 404.',
  access: { creds: 'any', project: 'reachable', permissions: ['project:view'] },
  errors: [404],
  request: { params: ProjectParams },
  responses: { 200: { description: 'The project.', ...json(Project) } },
});

export const updateProject = defineRoute({
  operationId: 'updateProject',
  method: 'put',
  path: '/api/v1/project/{projectId}',
  tags,
  summary: 'Rename a project',
  description: '404 as for get; 403 when the project is reachable but the permission is lacking.',
  access: { creds: 'session', project: 'reachable', permissions: ['project:admin'] },
  errors: [404],
  request: { params: ProjectParams, ...jsonBody(UpdateProject) },
  responses: { 200: { description: 'The project after the change.', ...json(Project) } },
});

export const deleteProject = defineRoute({
  operationId: 'deleteProject',
  method: 'delete',
  path: '/api/v1/project/{projectId}',
  tags,
  summary: 'Delete a project',
  description:
    'The project leaves the list at once and its sessions stop working; it can be restored during the organization\'s retention period. 400 `last_project` for the organization\'s last project.',
  access: { creds: 'session', project: 'reachable', permissions: ['org:delete_project'] },
  errors: [404],
  request: { params: ProjectParams },
  responses: { 204: { description: 'Deleted.' } },
});

export const restoreProject = defineRoute({
  operationId: 'restoreProject',
  method: 'post',
  path: '/api/v1/project/{projectId}/restore',
  tags,
  summary: 'Restore a deleted project',
  description:
    '400 when the project is not deleted, `name_taken` when an active project took its name meanwhile; 404 when no such project exists in the organization or its retention period has ended.',
  access: { creds: 'session', project: 'reachable', permissions: ['org:delete_project'] },
  errors: [404],
  request: { params: ProjectParams },
  responses: { 200: { description: 'The restored project.', ...json(Project) } },
});

export const myProjects = defineRoute({
  operationId: 'listMyProjects',
  method: 'get',
  path: '/api/v1/user/project',
  tags,
  summary: 'My projects',
  description: 'The active projects of the session\'s organization the caller reaches.',
  access: { creds: 'session' },
  responses: { 200: { description: 'The caller\'s projects.', ...json(MyProjects) } },
});
