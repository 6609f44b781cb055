import { controlDb } from '../../control/db';
import { getPreferences, getProfile, updatePreferences, updateProfile } from '../../control/users';
import { createRouter } from '../../lib/router';
import * as routes from './users.routes';

export const usersRouter = createRouter()
  .openapi(routes.getProfile, async (c) => c.json(await getProfile(controlDb(c.env.DB), c.var.principal.userId), 200))
  .openapi(routes.updateProfile, async (c) =>
    c.json(await updateProfile(controlDb(c.env.DB), c.var.principal, c.req.valid('json'), c.var.requestId), 200))
  .openapi(routes.getPreferences, async (c) => c.json(await getPreferences(controlDb(c.env.DB), c.var.principal.userId), 200))
  .openapi(routes.updatePreferences, async (c) =>
    c.json(await updatePreferences(controlDb(c.env.DB), c.var.principal, c.req.valid('json'), c.var.requestId), 200));
