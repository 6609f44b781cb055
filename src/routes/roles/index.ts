// Roles (spec 4.4; create, change and delete are additions, ARCHITECTURE section 3).
import * as roles from '../../control/roles';
import { GrantCheck } from '../../auth/grants';
import { primaryDb } from '../../middleware/read-session';
import { controlDb } from '../../control/db';
import { createRouter } from '../../lib/router';
import * as routes from './roles.routes';

export const rolesRouter = createRouter()
  .openapi(routes.listRoles, async (c) => {
    const { orgId } = c.req.valid('param');
    return c.json({ roles: await roles.listRoles(controlDb(c.env.DB), orgId) }, 200);
  })
  .openapi(routes.getRole, async (c) => {
    const { orgId, roleId } = c.req.valid('param');
    return c.json(roles.roleAnswer(await roles.requireRole(controlDb(c.env.DB), orgId, roleId)), 200);
  })
  .openapi(routes.createRole, async (c) => {
    const { orgId } = c.req.valid('param');
    const body = c.req.valid('json');
    const role = await roles.createRole(controlDb(c.env.DB), { orgId, actor: c.var.principal, traceId: c.var.requestId, grants: new GrantCheck(primaryDb(c), orgId, c.var.principal), ...body });
    return c.json(role, 201);
  })
  .openapi(routes.updateRole, async (c) => {
    const { orgId, roleId } = c.req.valid('param');
    const body = c.req.valid('json');
    const role = await roles.updateRole(controlDb(c.env.DB), {
      orgId, roleId, actor: c.var.principal, traceId: c.var.requestId, grants: new GrantCheck(primaryDb(c), orgId, c.var.principal), ...body,
    });
    return c.json(role, 200);
  })
  .openapi(routes.deleteRole, async (c) => {
    const { orgId, roleId } = c.req.valid('param');
    await roles.deleteRole(controlDb(c.env.DB), { orgId, roleId, actor: c.var.principal, traceId: c.var.requestId });
    return c.body(null, 204);
  });
