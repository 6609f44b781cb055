// The activity log (spec 4.14).
import { activityPageText } from '../../control/activity-query';
import { createRouter } from '../../lib/router';
import * as routes from './activity.routes';

export const activityRouter = createRouter().openapi(routes.listActivity, async (c) => {
  const { action, actions, ...query } = c.req.valid('query');
  const body = await activityPageText(c.env.DB, c.var.principal, { ...query, actions: [...(action ? [action] : []), ...(actions ?? [])] }, c.var.access);
  // JSON text of the documented schema; the typed route only knows answers built by c.json.
  return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8' }) as never;
});
