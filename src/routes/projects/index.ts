import { controlDb } from '../../control/db';
import { findActiveProject } from '../../control/members';
import {
  createProject, deleteProject, listDeletedProjects, listProjects, myProjects, projectAnswer,
  requireOrgProject, requireReachableProject, restoreProject, updateProject,
} from '../../control/projects';
import { notFound } from '../../lib/errors';
import { createRouter } from '../../lib/router';
import { provisionProject } from '../../project/client';
import { assertPermissions } from '../../middleware/auth';
import * as routes from './projects.routes';

export const projectsRouter = createRouter()
  .openapi(routes.listProjects, async (c) => {
    const { orgId } = c.req.valid('param');
    return c.json(await listProjects(controlDb(c.env.DB), orgId), 200);
  })
  .openapi(routes.createProject, async (c) => {
    const { name } = c.req.valid('json');
    const created = await createProject(controlDb(c.env.DB), c.env, c.var.principal, name, c.var.requestId);
    // Its storage is set up in the background (INSTANCE_STARTUP); until then data answers 503 provisioning.
    c.executionCtx.waitUntil(provisionProject(c.env, created.uuid).catch((error) => console.error(JSON.stringify({ level: 'error', message: 'provisioning failed to start', projectId: created.uuid, error: String(error) }))));
    return c.json(created, 200);
  })
  .openapi(routes.listDeletedProjects, async (c) => {
    const { orgId } = c.req.valid('param');
    return c.json(await listDeletedProjects(controlDb(c.env.DB), orgId), 200);
  })
  .openapi(routes.getProject, async (c) => {
    const { projectId } = c.req.valid('param');
    const project = await requireReachableProject(controlDb(c.env.DB), c.var.principal, projectId);
    await assertPermissions(c, ['project:view'], project.id);
    return c.json(projectAnswer(project), 200);
  })
  .openapi(routes.updateProject, async (c) => {
    const { projectId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    const project = await requireReachableProject(db, c.var.principal, projectId);
    await assertPermissions(c, ['project:admin'], project.id);
    return c.json(await updateProject(db, c.var.principal, project, c.req.valid('json'), c.var.requestId), 200);
  })
  .openapi(routes.deleteProject, async (c) => {
    const { projectId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    // Any active project of the organization, reached or not: deleting is an organization permission.
    if (!(await findActiveProject(db, c.var.principal.orgId, projectId))) throw notFound('No active project with this id exists in the organization.');
    await assertPermissions(c, ['org:delete_project'], null);
    await deleteProject(db, c.var.principal, projectId, c.var.requestId);
    return c.body(null, 204);
  })
  .openapi(routes.restoreProject, async (c) => {
    const { projectId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    await requireOrgProject(db, c.var.principal.orgId, projectId);
    await assertPermissions(c, ['org:delete_project'], null);
    return c.json(await restoreProject(db, c.var.principal, projectId, c.var.requestId), 200);
  })
  .openapi(routes.myProjects, async (c) => {
    const principal = c.var.principal;
    return c.json(await c.var.access.get(`my-projects:${principal.userId}`, (primary) => myProjects(controlDb(primary), principal)), 200);
  });
