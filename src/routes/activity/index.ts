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
  // The answer is cached as its JSON text: a page of 100 entries is not serialized again per request.
  const body = await c.var.access.get(`activity:${viewer}:${JSON.stringify(filters)}`, async () => {
    // A deleted project's entries (its deletion among them) stay visible to those its teams reached.
    const reach = principal.kind === 'session' ? await reachableProjectIds(c.env.DB, principal.orgId, principal.userId, { includeDeleted: true }) : [];
    const page = await queryActivity(c.env.DB, activityScope(principal, reach), filters);
    return JSON.stringify({ entries: page.entries, availableActions: [...ACTIVITY_ACTIONS], pagination: page.pagination });
  });
  // JSON text of the documented schema; the typed route only knows answers built by c.json.
  return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8' }) as never;
});
