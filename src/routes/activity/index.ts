// The activity log (spec 4.14).
import { reachableProjectIds } from '../../auth/access';
import { ACTIVITY_ACTIONS } from '../../control/activity';
import { activityScope, queryActivity } from '../../control/activity-query';
import { createRouter } from '../../lib/router';
import * as routes from './activity.routes';

export const activityRouter = createRouter().openapi(routes.listActivity, async (c) => {
  const { action, actions, ...query } = c.req.valid('query');
  const principal = c.var.principal;
  // A deleted project's entries (its deletion among them) stay visible to those its teams reached.
  const reach = principal.kind === 'session' ? await reachableProjectIds(c.env.DB, principal.orgId, principal.userId, { includeDeleted: true }) : [];
  const page = await queryActivity(c.env.DB, activityScope(principal, reach), {
    ...query,
    actions: [...(action ? [action] : []), ...(actions ?? [])],
  });
  return c.json({ entries: page.entries, availableActions: [...ACTIVITY_ACTIONS], pagination: page.pagination }, 200);
});
