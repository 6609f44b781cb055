// Permission lookup (spec 4.15).
import { controlDb } from '../../control/db';
import { requireMember } from '../../control/members';
import { createRouter } from '../../lib/router';
import { assertPermissions } from '../../middleware/auth';
import { permissionsOf } from './permissions.service';
import * as routes from './permissions.routes';

export const permissionsRouter = createRouter().openapi(routes.getUserPermissions, async (c) => {
  const { orgId, userId } = c.req.valid('param');
  const principal = c.var.principal;
  const target = userId.toLowerCase();
  // Permission before existence, so a caller without it cannot probe who is a member.
  if (target !== principal.userId) await assertPermissions(c, ['org:manage_teams'], null);
  await requireMember(controlDb(c.env.DB), orgId, target);
  return c.json(await permissionsOf(c.env.DB, orgId, target), 200);
});
