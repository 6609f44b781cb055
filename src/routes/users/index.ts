import { bumpAccessEpoch } from '../../auth/access-cache';
import { controlDb } from '../../control/db';
import { activeMemberships } from '../../control/tenancy';
import { getPreferences, getProfile, myOrganizations, updatePreferences, updateProfile } from '../../control/users';
import { createRouter } from '../../lib/router';
import * as routes from './users.routes';

export const usersRouter = createRouter()
  .openapi(routes.getProfile, async (c) => c.json(await getProfile(controlDb(c.env.DB), c.var.principal.userId), 200))
  .openapi(routes.updateProfile, async (c) => {
    const db = controlDb(c.env.DB);
    const profile = await updateProfile(db, c.var.principal, c.req.valid('json'), c.var.requestId);
    // The name shows in every organization's cached reads (members, activity), not only this one's.
    const memberships = await activeMemberships(db, profile.id);
    await Promise.all(memberships.map((m) => bumpAccessEpoch(c.env, m.orgId)));
    return c.json(profile, 200);
  })
  .openapi(routes.myOrganizations, async (c) => c.json({ organizations: await myOrganizations(controlDb(c.env.DB), c.var.principal) }, 200))
  .openapi(routes.getPreferences, async (c) => c.json(await getPreferences(controlDb(c.env.DB), c.var.principal.userId), 200))
  .openapi(routes.updatePreferences, async (c) =>
    c.json(await updatePreferences(controlDb(c.env.DB), c.var.principal, c.req.valid('json'), c.var.requestId), 200));
