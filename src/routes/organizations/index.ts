import { GrantCheck } from '../../auth/grants';
import { primaryDb } from '../../middleware/read-session';
import { controlDb } from '../../control/db';
import { deleteOrganization, getOrganization, listMembers, removeMember, updateOrganization } from '../../control/organizations';
import { createRouter } from '../../lib/router';
import { revokeGrants } from '../../mcp/oauth';
import { invite } from './invite.service';
import * as routes from './organizations.routes';

export const organizationsRouter = createRouter()
  .openapi(routes.getOrganization, async (c) => {
    const { orgId } = c.req.valid('param');
    return c.json(await getOrganization(controlDb(c.env.DB), orgId), 200);
  })
  .openapi(routes.updateOrganization, async (c) => {
    const { orgId } = c.req.valid('param');
    const changes = c.req.valid('json');
    return c.json(await updateOrganization(controlDb(c.env.DB), { orgId, changes, actor: c.var.principal, traceId: c.var.requestId }), 200);
  })
  .openapi(routes.deleteOrganization, async (c) => {
    const { orgId } = c.req.valid('param');
    await deleteOrganization(controlDb(c.env.DB), { orgId, actor: c.var.principal, traceId: c.var.requestId });
    return c.body(null, 204);
  })
  .openapi(routes.listMembers, async (c) => {
    const { orgId } = c.req.valid('param');
    return c.json({ users: await listMembers(controlDb(c.env.DB), orgId) }, 200);
  })
  .openapi(routes.removeMember, async (c) => {
    const { orgId, userId } = c.req.valid('param');
    const { disconnectedApps } = await removeMember(controlDb(c.env.DB), { orgId, userId, actor: c.var.principal, traceId: c.var.requestId });
    await revokeGrants(c.env, disconnectedApps);
    return c.body(null, 204);
  })
  .openapi(routes.invite, async (c) => {
    const { orgId } = c.req.valid('param');
    const { email, teamIds, projectUuid } = c.req.valid('json');
    const principal = c.var.principal;
    const answer = await invite(controlDb(c.env.DB), c.env, {
      orgId, email, teamIds, projectId: projectUuid ?? principal.projectId, actor: principal, traceId: c.var.requestId,
      grants: new GrantCheck(primaryDb(c), orgId, principal),
    });
    return c.json(answer, 200);
  });
