// Notification destinations and alert rules (issue 24; docs/notifications.md): thin handlers over the
// project object (src/project/notify-store.ts); each change leaves an activity entry.
import { changerOf, recordChange, type Changer } from '../../control/changes';
import type { Env } from '../../env';
import type { JsonObject } from '../../lib/json';
import { createRouter } from '../../lib/router';
import { withProject } from '../../project/client';
import { deciderOf } from '../decisions/decisions.service';
import * as routes from './notifications.routes';

const call = <T = JsonObject>(env: Env, projectId: string, body: Parameters<typeof withProject>[2]) => withProject<T>(env, projectId, body);

/** The activity entry of a change to a destination or rule: what it is, never its URL or secret. */
const recorded = (env: Env, by: Changer, action: Parameters<typeof recordChange>[2], thing: JsonObject) =>
  recordChange(env, by, action, { id: thing.id as string, name: thing.name as string, ...(thing.kind ? { kind: thing.kind as string } : {}) });

export const notificationsRouter = createRouter()
  .openapi(routes.listDestinations, async (c) => c.json(await call(c.env, c.req.valid('param').projectId, (stub) => stub.listNotifyDestinations()) as never, 200))
  .openapi(routes.createDestination, async (c) => {
    const { projectId } = c.req.valid('param');
    const by = changerOf(c.var, projectId);
    const createdBy = await deciderOf(c.env, by);
    const created = await call<{ destination: JsonObject; secret: string | null }>(c.env, projectId, (stub) => stub.createNotifyDestination({ ...c.req.valid('json'), createdBy } as never));
    await recorded(c.env, by, 'notification.destination.created', created.destination);
    return c.json(created as never, 201);
  })
  .openapi(routes.getDestination, async (c) => {
    const { projectId, destinationId } = c.req.valid('param');
    return c.json(await call(c.env, projectId, (stub) => stub.getNotifyDestination(destinationId)) as never, 200);
  })
  .openapi(routes.updateDestination, async (c) => {
    const { projectId, destinationId } = c.req.valid('param');
    const destination = await call(c.env, projectId, (stub) => stub.updateNotifyDestination({ id: destinationId, change: c.req.valid('json') }));
    await recordChange(c.env, changerOf(c.var, projectId), 'notification.destination.updated', { id: destinationId, name: destination.name as string, changed: Object.keys(c.req.valid('json')) });
    return c.json(destination as never, 200);
  })
  .openapi(routes.deleteDestination, async (c) => {
    const { projectId, destinationId } = c.req.valid('param');
    const destination = await call(c.env, projectId, (stub) => stub.getNotifyDestination(destinationId));
    await call(c.env, projectId, (stub) => stub.deleteNotifyDestination(destinationId));
    await recorded(c.env, changerOf(c.var, projectId), 'notification.destination.deleted', destination);
    return c.body(null, 204);
  })
  .openapi(routes.rotateSecret, async (c) => {
    const { projectId, destinationId } = c.req.valid('param');
    const rotated = await call<{ destination: JsonObject; secret: string }>(c.env, projectId, (stub) => stub.rotateNotifySecret(destinationId));
    await recorded(c.env, changerOf(c.var, projectId), 'notification.destination.secret_rotated', rotated.destination);
    return c.json(rotated as never, 200);
  })
  .openapi(routes.testDestination, async (c) => {
    const { projectId, destinationId } = c.req.valid('param');
    const body = c.req.valid('json') ?? { event: 'survey.completed' as const };
    const sent = await call(c.env, projectId, (stub) => stub.sendNotifyTest({ id: destinationId, event: body.event ?? 'survey.completed' }));
    await recordChange(c.env, changerOf(c.var, projectId), 'notification.destination.tested', { id: destinationId, event: body.event ?? 'survey.completed' });
    return c.json(sent as never, 202);
  })
  .openapi(routes.deliveryLog, async (c) => {
    const { projectId, destinationId } = c.req.valid('param');
    return c.json(await call(c.env, projectId, (stub) => stub.notifyDeliveryLog({ id: destinationId, ...c.req.valid('query') })) as never, 200);
  })
  .openapi(routes.listRules, async (c) => c.json(await call(c.env, c.req.valid('param').projectId, (stub) => stub.listNotifyRules()) as never, 200))
  .openapi(routes.createRule, async (c) => {
    const { projectId } = c.req.valid('param');
    const rule = await call(c.env, projectId, (stub) => stub.createNotifyRule(c.req.valid('json')));
    await recorded(c.env, changerOf(c.var, projectId), 'notification.rule.created', rule);
    return c.json(rule as never, 201);
  })
  .openapi(routes.getRule, async (c) => {
    const { projectId, ruleId } = c.req.valid('param');
    return c.json(await call(c.env, projectId, (stub) => stub.getNotifyRule(ruleId)) as never, 200);
  })
  .openapi(routes.updateRule, async (c) => {
    const { projectId, ruleId } = c.req.valid('param');
    const rule = await call(c.env, projectId, (stub) => stub.updateNotifyRule({ id: ruleId, rule: c.req.valid('json') }));
    await recorded(c.env, changerOf(c.var, projectId), 'notification.rule.updated', rule);
    return c.json(rule as never, 200);
  })
  .openapi(routes.deleteRule, async (c) => {
    const { projectId, ruleId } = c.req.valid('param');
    const rule = await call(c.env, projectId, (stub) => stub.getNotifyRule(ruleId));
    await call(c.env, projectId, (stub) => stub.deleteNotifyRule(ruleId));
    await recorded(c.env, changerOf(c.var, projectId), 'notification.rule.deleted', rule);
    return c.body(null, 204);
  });
