// The notify queue's consumer (issue 24; src/project/notify-store.ts): one message per destination with
// due messages. It takes them from the project object, delivers them (a webhook one by one at its pace,
// a chat or email destination as one digest), and reports every attempt back; the object keeps the
// outbox, the retries and the delivery log. A destination disabled after 24 hours of failures leaves
// an activity entry and an email to the project's administrators.
import { z } from 'zod';
import { sendPlainEmail } from '../auth/emails';
import { projectAdministratorEmails } from '../auth/access';
import { recordActivity } from '../control/activity';
import { controlDb } from '../control/db';
import type { Env } from '../env';
import type { JsonObject } from '../lib/json';
import { deliver, type Attempt, type OpenDestination } from '../notify/deliver';
import type { NotifyEvent } from '../notify/events';
import { unseal } from '../notify/sealing';
import { withProjectWork } from '../project/client';
import type { AttemptReport, TakenWork } from '../project/notify-store';
import { consumeEach } from './consume';

export const NOTIFY_QUEUE = 'posture-notify';

const NotifyMessageSchema = z.object({ projectId: z.string().min(1), destinationId: z.string().min(1) });

const pause = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

async function open(env: Env, work: TakenWork): Promise<OpenDestination> {
  const { destination } = work;
  return {
    id: destination.id, kind: destination.kind, recipients: destination.recipients,
    url: destination.urlSealed ? await unseal(env.NOTIFY_KEY, destination.urlSealed) : null,
    secrets: await Promise.all(destination.secretsSealed.map((sealed) => unseal(env.NOTIFY_KEY, sealed))),
  };
}

const report = (messageIds: string[], events: NotifyEvent[], attempt: number, at: string, result: Attempt): AttemptReport => ({
  messageIds, eventType: events.length === 1 ? events[0]!.type : 'digest', attempt, at, ...result,
});

/** Delivers what was taken: webhooks one message at a time (stopping at the first failure: the rest keep their turn), the others as one digest. */
async function deliverTaken(env: Env, work: TakenWork): Promise<AttemptReport[]> {
  const destination = await open(env, work);
  const parsed = work.messages.map((m) => ({ ...m, event: JSON.parse(m.payload) as NotifyEvent }));
  const attempts: AttemptReport[] = [];
  if (destination.kind !== 'webhook') {
    const at = new Date().toISOString();
    const events = parsed.map((m) => m.event);
    const result = await deliver(env, destination, { id: parsed[0]!.id, events });
    attempts.push(report(parsed.map((m) => m.id), events, Math.max(...parsed.map((m) => m.attempt)), at, result));
    return attempts;
  }
  const started = Date.now();
  for (const [index, message] of parsed.entries()) {
    // Paced by start times: the n-th request goes no sooner than n slots after the first.
    await pause(started + index * work.intervalMs - Date.now());
    const at = new Date().toISOString();
    const result = await deliver(env, destination, { id: message.id, events: [message.event] });
    attempts.push(report([message.id], [message.event], message.attempt, at, result));
    if (!result.delivered) break;
  }
  return attempts;
}

/** A destination the object disabled: an activity entry, and the project's administrators told by email. */
async function announceDisabled(env: Env, projectId: string, destination: JsonObject): Promise<void> {
  const project = await env.DB.prepare('SELECT org_id, name FROM projects WHERE id = ?').bind(projectId).first<{ org_id: string; name: string }>();
  if (!project) return;
  await recordActivity(controlDb(env.DB), {
    orgId: project.org_id, projectId, actor: null, action: 'notification.destination.disabled',
    data: { destinationId: destination.id as string, kind: destination.kind as string, name: destination.name as string, reason: destination.disabled_reason as string },
  });
  const link = `${env.DASHBOARD_URL.replace(/\/$/, '')}/projects/${projectId}`;
  for (const to of await projectAdministratorEmails(env.DB, project.org_id, projectId)) {
    await sendPlainEmail(env, to, `[Posture] Notifications to ${String(destination.name)} were disabled`, [
      `The ${String(destination.kind)} destination "${String(destination.name)}" of project ${project.name} failed every delivery for 24 hours and was disabled.`,
      '', String(destination.disabled_reason ?? ''), '',
      'Fix the receiving end, then enable the destination again (PATCH .../v1/notification/destination/{id} with {"enabled": true}); what waited is sent then.',
      link,
    ]).catch((error) => console.error(JSON.stringify({ level: 'error', message: 'notifications: telling an administrator failed', to, error: String(error) })));
  }
}

async function handle(env: Env, body: z.infer<typeof NotifyMessageSchema>): Promise<void> {
  const work = await withProjectWork<TakenWork | null>(env, body.projectId, (stub) => stub.takeNotifyMessages(body.destinationId));
  if (!work) return;
  const attempts = await deliverTaken(env, work);
  const outcome = await withProjectWork<{ disabled: JsonObject | null }>(env, body.projectId, (stub) =>
    stub.reportNotifyAttempts({ destinationId: body.destinationId, taken: work.messages.map((m) => m.id), attempts }));
  if (outcome.disabled) await announceDisabled(env, body.projectId, outcome.disabled);
}

export async function consumeNotify(batch: MessageBatch, env: Env): Promise<void> {
  // Different destinations are independent: a slow receiver does not hold up the others of the batch.
  await Promise.all(batch.messages.map((message) => consumeEach({ ...batch, messages: [message] } as MessageBatch, {
    name: 'notify', schema: NotifyMessageSchema, handle: (body) => handle(env, body),
    describe: (body) => `destination ${body.destinationId} of project ${body.projectId}`,
  })));
}
