// The activity log (spec 4.14).
import { reachableProjectIds } from '../../auth/access';
import { ACTIVITY_ACTIONS } from '../../control/activity';
import { activityScope, queryActivity } from '../../control/activity-query';
import { createRouter } from '../../lib/router';
import * as routes from './activity.routes';

export const activityRouter = createRouter().openapi(routes.listActivity, async (c) => {
  const { action, actions, ...query } = c.req.valid('query');
  const principal = c.var.principal;
  const filters = { ...query, actions: [...(action ? [action] : []), ...(actions ?? [])] };
  // Every entry is written by a change that bumps the organization's access epoch, so a page can be
  // cached until then. The key names who asks: visibility depends on it.
  const viewer = principal.kind === 'session' ? `user:${principal.userId}` : `project:${principal.projectId}`;
  const page = await c.var.access.get(`activity:${viewer}:${JSON.stringify(filters)}`, async () => {
    // A deleted project's entries (its deletion among them) stay visible to those its teams reached.
    const reach = principal.kind === 'session' ? await reachableProjectIds(c.env.DB, principal.orgId, principal.userId, { includeDeleted: true }) : [];
    return queryActivity(c.env.DB, activityScope(principal, reach), filters);
  });
  return c.json({ entries: page.entries, availableActions: [...ACTIVITY_ACTIONS], pagination: page.pagination }, 200);
});
