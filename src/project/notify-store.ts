// A project's notifications inside its object (issue 24; docs/notifications.md): destinations and rules,
// the events raised, and an outbox per destination that the notify queue's consumer drains
// (src/queues/notify.ts). Raising an event only writes a row; the object's alarm builds it and matches
// the rules, so the work that raised it (a survey finishing) never waits. Each destination has at most
// one queue message on its way (`kickAt`), is paced (`nextSlotAt`), and keeps its messages until they
// are delivered or 24 hours have passed: no event is lost while a destination is down.
import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { ApiError, invalidParameter, notFound } from '../lib/errors';
import { newId, newOrderedId, nowIso } from '../lib/ids';
import { yieldNow } from '../lib/yielding';
import type { JsonObject } from '../lib/json';
import { DEFAULT_STALE_DAYS, destinationsFor, factsOf, type EventType, type NotifyEvent, type RuleShape } from '../notify/events';
import { EVENTS_PER_MESSAGE, SEND_INTERVAL_MS, type DestinationKind } from '../notify/formats';
import { seal } from '../notify/sealing';
import { newSigningSecret } from '../notify/signing';
import { checkDestinationUrl, isLocalInstance, maskUrl, RefusedUrl } from '../notify/url-guard';
import { buildEvent, sampleEvent, type ProjectFacts } from './notify-build';
import { raiseEvent, wanted } from './notify-raise';

export { raiseEvent } from './notify-raise';
import { notifyDeliveries, notifyDestinations, notifyEvents, notifyOutbox, notifyRules } from './schema';
import type { ProjectState } from './state';

type DestinationRow = typeof notifyDestinations.$inferSelect;
type RuleRow = typeof notifyRules.$inferSelect;

/** A message older than this is given up (dropped); a destination failing for this long is disabled. */
export const GIVE_UP_MS = 24 * 60 * 60_000;
/** A rotated-out signing secret stays valid this long. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60_000;
/** Delays after the 1st, 2nd, ... failed attempt (Standard Webhooks' suggested schedule, capped at 24 hours in all). */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 8 * 3_600_000, 8 * 3_600_000];
/** How long a taken message is held for the consumer before another may take it. */
const LEASE_MS = 60_000;
/** Messages a webhook destination's consumer sends per queue message (one a 20 ms slot: about a second). */
const WEBHOOK_TAKE = 50;
/** Delivered and dropped messages, events and log rows are kept this long (the log's window; events for deduplication). */
export const KEEP_MS = 30 * 24 * 60 * 60_000;
/** Events built per alarm ring. */
const BUILD_BATCH = 50;
/** How often the daily checks (expiring credentials, stale subjects) run. */
const DAILY_MS = 24 * 60 * 60_000;
/** Credentials expiring within this are announced once (`credential.expiring`). */
export const EXPIRING_WITHIN_MS = 7 * 24 * 60 * 60_000;

export interface NotifyQueueMessage {
  projectId: string;
  destinationId: string;
}

// ---- destinations ----

export interface DestinationInput {
  kind: DestinationKind;
  name: string;
  url?: string;
  recipients?: string[];
}

/** A destination as reads answer it: the URL masked (a Slack or Teams URL is a secret), never a secret. */
export function destinationAnswer(row: DestinationRow): JsonObject {
  return {
    id: row.id, kind: row.kind, name: row.name, url: row.urlHint, recipients: row.recipients ?? null,
    enabled: row.disabledAt === null, disabled_at: row.disabledAt, disabled_reason: row.disabledReason, failing_since: row.failingSince,
    previous_secret_valid_until: row.previousSecretUntil && row.previousSecretUntil > nowIso() ? row.previousSecretUntil : null,
    created_at: row.createdAt, created_by: row.createdBy, updated_at: row.updatedAt,
  };
}

/** The URL a destination of this kind may have (checked as every delivery checks it), or 400 naming why not. */
function acceptedUrl(state: ProjectState, kind: DestinationKind, url: string | undefined): URL | null {
  if (kind === 'email') {
    if (url !== undefined) throw invalidParameter('url', 'An email destination has recipients, not a URL.');
    return null;
  }
  if (!url) throw invalidParameter('url', `A ${kind} destination needs its URL.`);
  try {
    return checkDestinationUrl(url, { local: isLocalInstance(state.env) });
  } catch (error) {
    if (error instanceof RefusedUrl) throw invalidParameter('url', error.message);
    throw error;
  }
}

function acceptedRecipients(kind: DestinationKind, recipients: string[] | undefined): string[] | null {
  if (kind !== 'email') {
    if (recipients?.length) throw invalidParameter('recipients', 'Only an email destination has recipients.');
    return null;
  }
  if (!recipients?.length) throw invalidParameter('recipients', 'An email destination needs at least one recipient.');
  return [...new Set(recipients.map((r) => r.trim().toLowerCase()))];
}

export function requireDestination(state: ProjectState, id: string): DestinationRow {
  const row = state.db.select().from(notifyDestinations).where(eq(notifyDestinations.id, id)).get();
  if (!row) throw notFound('No such notification destination in this project.');
  return row;
}

/** Creates a destination; a webhook's signing secret is answered here once. */
export async function createDestination(state: ProjectState, input: DestinationInput & { createdBy: JsonObject }): Promise<{ destination: JsonObject; secret: string | null }> {
  const url = acceptedUrl(state, input.kind, input.url);
  const recipients = acceptedRecipients(input.kind, input.recipients);
  const secret = input.kind === 'webhook' ? newSigningSecret() : null;
  const now = nowIso();
  const row: DestinationRow = {
    id: newId(), kind: input.kind, name: input.name, urlSealed: url ? await seal(state.env.NOTIFY_KEY, url.href) : null, urlHint: url ? maskUrl(url) : null,
    recipients, secretSealed: secret ? await seal(state.env.NOTIFY_KEY, secret) : null, previousSecretSealed: null, previousSecretUntil: null,
    createdAt: now, createdBy: input.createdBy, updatedAt: now, disabledAt: null, disabledReason: null, failingSince: null, nextSlotAt: 0, kickAt: null,
  };
  state.db.insert(notifyDestinations).values(row).run();
  return { destination: destinationAnswer(row), secret };
}

export function listDestinations(state: ProjectState): JsonObject {
  return { destinations: state.db.select().from(notifyDestinations).orderBy(asc(notifyDestinations.createdAt)).all().map(destinationAnswer) };
}

/** Changes a destination's name, URL, recipients or whether it is enabled; enabling it again sends what waited. */
export async function updateDestination(state: ProjectState, id: string, input: { name?: string; url?: string; recipients?: string[]; enabled?: boolean }): Promise<JsonObject> {
  const row = requireDestination(state, id);
  const change: Partial<DestinationRow> = { updatedAt: nowIso() };
  if (input.name !== undefined) change.name = input.name;
  if (input.url !== undefined) {
    const url = acceptedUrl(state, row.kind, input.url)!;
    Object.assign(change, { urlSealed: await seal(state.env.NOTIFY_KEY, url.href), urlHint: maskUrl(url) });
  }
  if (input.recipients !== undefined) change.recipients = acceptedRecipients(row.kind, input.recipients);
  if (input.enabled === true && row.disabledAt) Object.assign(change, { disabledAt: null, disabledReason: null, failingSince: null });
  if (input.enabled === false && !row.disabledAt) Object.assign(change, { disabledAt: nowIso(), disabledReason: 'Disabled by a person.' });
  state.db.update(notifyDestinations).set(change).where(eq(notifyDestinations.id, id)).run();
  const next = requireDestination(state, id);
  if (!next.disabledAt) await kick(state, next);
  return destinationAnswer(next);
}

/** Deletes a destination, its waiting messages and its log; rules stop naming it. */
export function deleteDestination(state: ProjectState, id: string): void {
  requireDestination(state, id);
  state.db.transaction((tx) => {
    tx.delete(notifyOutbox).where(eq(notifyOutbox.destinationId, id)).run();
    tx.delete(notifyDeliveries).where(eq(notifyDeliveries.destinationId, id)).run();
    tx.delete(notifyDestinations).where(eq(notifyDestinations.id, id)).run();
    for (const rule of tx.select().from(notifyRules).all()) {
      if (rule.destinationIds.includes(id)) tx.update(notifyRules).set({ destinationIds: rule.destinationIds.filter((d) => d !== id), updatedAt: nowIso() }).where(eq(notifyRules.id, rule.id)).run();
    }
  });
}

/** A new signing secret for a webhook, answered once; the previous one stays valid for 24 hours. */
export async function rotateSecret(state: ProjectState, id: string): Promise<{ destination: JsonObject; secret: string }> {
  const row = requireDestination(state, id);
  if (row.kind !== 'webhook') throw new ApiError('invalid_request', 'Only a webhook destination has a signing secret.');
  const secret = newSigningSecret();
  const now = Date.now();
  state.db.update(notifyDestinations).set({
    secretSealed: await seal(state.env.NOTIFY_KEY, secret), previousSecretSealed: row.secretSealed,
    previousSecretUntil: new Date(now + PREVIOUS_SECRET_MS).toISOString(), updatedAt: new Date(now).toISOString(),
  }).where(eq(notifyDestinations.id, id)).run();
  return { destination: destinationAnswer(requireDestination(state, id)), secret };
}

// ---- rules ----

export interface RuleInput {
  name: string;
  events: EventType[];
  destination_ids: string[];
  subjects?: string[] | null;
  portfolio_ids?: string[] | null;
  min_severity?: string | null;
  min_band?: string | null;
  score_drop?: number | null;
  stale_days?: number | null;
  enabled?: boolean;
}

export const ruleAnswer = (row: RuleRow): JsonObject => ({
  id: row.id, name: row.name, events: row.events, destination_ids: row.destinationIds, subjects: row.subjects, portfolio_ids: row.portfolioIds,
  min_severity: row.minSeverity, min_band: row.minBand, score_drop: row.scoreDrop, stale_days: row.staleDays, enabled: row.enabled,
  created_at: row.createdAt, updated_at: row.updatedAt,
});

function ruleColumns(state: ProjectState, input: RuleInput) {
  const known = new Set(state.db.select({ id: notifyDestinations.id }).from(notifyDestinations).all().map((d) => d.id));
  const unknown = input.destination_ids.find((id) => !known.has(id));
  if (unknown) throw invalidParameter('destination_ids', `No destination ${unknown} in this project.`);
  return {
    name: input.name, events: [...new Set(input.events)], destinationIds: [...new Set(input.destination_ids)], subjects: input.subjects?.length ? input.subjects : null,
    portfolioIds: input.portfolio_ids?.length ? input.portfolio_ids : null, minSeverity: input.min_severity ?? null, minBand: input.min_band ?? null,
    scoreDrop: input.score_drop ?? null, staleDays: input.stale_days ?? null, enabled: input.enabled ?? true,
  };
}

const requireRule = (state: ProjectState, id: string): RuleRow => {
  const row = state.db.select().from(notifyRules).where(eq(notifyRules.id, id)).get();
  if (!row) throw notFound('No such notification rule in this project.');
  return row;
};

export function createRule(state: ProjectState, input: RuleInput): JsonObject {
  const now = nowIso();
  const row: RuleRow = { id: newId(), ...ruleColumns(state, input), createdAt: now, updatedAt: now };
  state.db.insert(notifyRules).values(row).run();
  return ruleAnswer(row);
}

export const listRules = (state: ProjectState): JsonObject => ({ rules: state.db.select().from(notifyRules).orderBy(asc(notifyRules.createdAt)).all().map(ruleAnswer) });

export const getRule = (state: ProjectState, id: string): JsonObject => ruleAnswer(requireRule(state, id));

export function updateRule(state: ProjectState, id: string, input: RuleInput): JsonObject {
  requireRule(state, id);
  state.db.update(notifyRules).set({ ...ruleColumns(state, input), updatedAt: nowIso() }).where(eq(notifyRules.id, id)).run();
  return ruleAnswer(requireRule(state, id));
}

export function deleteRule(state: ProjectState, id: string): void {
  requireRule(state, id);
  state.db.delete(notifyRules).where(eq(notifyRules.id, id)).run();
}

// ---- events ----

const ruleShapes = (state: ProjectState): RuleShape[] => state.db.select().from(notifyRules).all();

/** The project's name and organization, as every event names them. */
async function projectFacts(state: ProjectState): Promise<ProjectFacts> {
  const row = await state.env.DB.prepare('SELECT name, org_id FROM projects WHERE id = ?').bind(state.projectId).first<{ name: string; org_id: string }>();
  return { id: state.projectId, name: row?.name ?? state.projectId, organization_id: row?.org_id ?? '', dashboardUrl: state.env.DASHBOARD_URL.replace(/\/$/, '') };
}

/** Puts one built event in the outbox of each destination given (once per destination and event) and sends them on. */
async function enqueue(state: ProjectState, event: NotifyEvent, destinationIds: string[]): Promise<number> {
  if (!destinationIds.length) return 0;
  const now = Date.now();
  const payload = JSON.stringify(event);
  const destinations = state.db.select().from(notifyDestinations).where(inArray(notifyDestinations.id, destinationIds)).all();
  for (const destination of destinations) {
    state.db.insert(notifyOutbox).values({
      id: `msg_${newOrderedId(now).replace(/-/g, '')}`, destinationId: destination.id, eventId: event.id, eventType: event.type, payload,
      createdAt: now, attempts: 0, nextAttemptAt: now, leasedUntil: null, state: 'pending', finishedAt: null,
    }).onConflictDoNothing().run();
  }
  for (const destination of destinations) if (!destination.disabledAt) await kick(state, destination);
  return destinations.length;
}

/** Builds the events raised since the last ring (a batch), and sends each to the destinations its rules name. Answers whether more wait. */
export async function buildRaisedEvents(state: ProjectState): Promise<boolean> {
  const raised = state.db.select().from(notifyEvents).where(sql`${notifyEvents.builtAt} IS NULL`).orderBy(asc(notifyEvents.occurredAt)).limit(BUILD_BATCH + 1).all();
  if (!raised.length) return false;
  const project = await projectFacts(state);
  const rules = ruleShapes(state);
  for (const row of raised.slice(0, BUILD_BATCH)) {
    // Requests waiting for the object go between two events (a survey's event reads its reports' figures).
    await yieldNow();
    const event = buildEvent(state, project, row);
    if (event) await enqueue(state, event, destinationsFor(rules, factsOf(event)));
    state.db.update(notifyEvents).set({ builtAt: nowIso() }).where(eq(notifyEvents.id, row.id)).run();
  }
  return raised.length > BUILD_BATCH;
}

/** A sample event of a type, sent to one destination at once (the test-send operation); answers the message id. */
export async function sendTestEvent(state: ProjectState, destinationId: string, type: EventType): Promise<JsonObject> {
  const destination = requireDestination(state, destinationId);
  if (destination.disabledAt) throw new ApiError('conflict', 'The destination is disabled; enable it first.');
  const event = sampleEvent(await projectFacts(state), type);
  await enqueue(state, event, [destinationId]);
  const message = state.db.select({ id: notifyOutbox.id }).from(notifyOutbox).where(and(eq(notifyOutbox.destinationId, destinationId), eq(notifyOutbox.eventId, event.id))).get();
  return { event, message_id: message?.id ?? null };
}

/**
 * Sample events raised as real ones are (matched against the rules, put in each named destination's
 * outbox, sent on): `npm run bench:notify` through a development route. Answers their ids and times.
 */
export async function raiseSamples(state: ProjectState, input: { count: number; type: EventType }): Promise<{ events: { id: string; occurred_at: string }[]; messages: number }> {
  const project = await projectFacts(state);
  const rules = ruleShapes(state);
  const events: { id: string; occurred_at: string }[] = [];
  let messages = 0;
  for (let i = 0; i < input.count; i++) {
    const event = sampleEvent(project, input.type);
    messages += await enqueue(state, event, destinationsFor(rules, factsOf(event)));
    events.push({ id: event.id, occurred_at: event.occurred_at });
  }
  return { events, messages };
}

// ---- the outbox, drained by the notify queue's consumer ----

/** Sends the destination's queue message unless one is already on its way, timed for its next due message and its pace. */
async function kick(state: ProjectState, destination: DestinationRow): Promise<void> {
  const now = Date.now();
  if (destination.kickAt !== null && destination.kickAt > now - LEASE_MS) return;
  const next = state.sql.exec<{ at: number | null }>(
    "SELECT min(max(next_attempt_at, coalesce(leased_until, 0))) AS at FROM notify_outbox WHERE destination_id = ? AND state = 'pending'", destination.id,
  ).one().at;
  if (next === null) return;
  const due = Math.max(now, next, destination.nextSlotAt);
  const message: NotifyQueueMessage = { projectId: state.projectId, destinationId: destination.id };
  // Queue delays are whole seconds: a turn due within the second is sent at once (the consumer keeps the pace).
  const delaySeconds = due - now < 1000 ? 0 : Math.min(43_200, Math.ceil((due - now) / 1000));
  // Marked before the send: another call running while it is awaited sees the message on its way.
  state.db.update(notifyDestinations).set({ kickAt: due }).where(eq(notifyDestinations.id, destination.id)).run();
  try {
    await state.env.NOTIFY_QUEUE.send(message, { delaySeconds });
  } catch (error) {
    state.db.update(notifyDestinations).set({ kickAt: null }).where(eq(notifyDestinations.id, destination.id)).run();
    throw error;
  }
}

/** Sends the destination's next queue message now that the one in hand is done with. */
async function rekick(state: ProjectState, destinationId: string): Promise<void> {
  state.db.update(notifyDestinations).set({ kickAt: null }).where(eq(notifyDestinations.id, destinationId)).run();
  await kick(state, requireDestination(state, destinationId));
}

/** What the consumer takes: the destination (still sealed) and its due messages, leased for a minute. */
export interface TakenWork {
  destination: { id: string; kind: DestinationKind; urlSealed: string | null; recipients: string[]; secretsSealed: string[] };
  messages: { id: string; attempt: number; payload: string }[];
  intervalMs: number;
}

export async function takeMessages(state: ProjectState, destinationId: string): Promise<TakenWork | null> {
  const destination = state.db.select().from(notifyDestinations).where(eq(notifyDestinations.id, destinationId)).get();
  if (!destination) return null;
  const now = Date.now();
  // This queue message arrived; while its consumer works, no other is sent (the report sends the next,
  // or the alarm, if the consumer never reports).
  state.db.update(notifyDestinations).set({ kickAt: destination.disabledAt ? null : now + LEASE_MS }).where(eq(notifyDestinations.id, destinationId)).run();
  if (destination.disabledAt) return null;
  if (destination.nextSlotAt > now) {
    await rekick(state, destinationId);
    return null;
  }
  const rows = state.db.select().from(notifyOutbox).where(and(
    eq(notifyOutbox.destinationId, destinationId), eq(notifyOutbox.state, 'pending'), sql`${notifyOutbox.nextAttemptAt} <= ${now}`,
    sql`coalesce(${notifyOutbox.leasedUntil}, 0) < ${now}`,
  )).orderBy(asc(notifyOutbox.nextAttemptAt), asc(notifyOutbox.createdAt)).limit(destination.kind === 'webhook' ? WEBHOOK_TAKE : EVENTS_PER_MESSAGE[destination.kind]).all();
  if (!rows.length) {
    await rekick(state, destinationId);
    return null;
  }
  const interval = SEND_INTERVAL_MS[destination.kind];
  state.db.update(notifyOutbox).set({ leasedUntil: now + LEASE_MS + rows.length * interval }).where(inArray(notifyOutbox.id, rows.map((r) => r.id))).run();
  // The pace: the slots these messages take are held now, whatever arrives before the report.
  const messages = destination.kind === 'webhook' ? rows.length : 1;
  state.db.update(notifyDestinations).set({ nextSlotAt: now + messages * interval }).where(eq(notifyDestinations.id, destinationId)).run();
  const secretsSealed = [destination.secretSealed, destination.previousSecretUntil && destination.previousSecretUntil > nowIso() ? destination.previousSecretSealed : null]
    .filter((s): s is string => Boolean(s));
  return {
    destination: { id: destination.id, kind: destination.kind, urlSealed: destination.urlSealed, recipients: destination.recipients ?? [], secretsSealed },
    messages: rows.map((r) => ({ id: r.id, attempt: r.attempts + 1, payload: r.payload })), intervalMs: interval,
  };
}

/** One attempt as the consumer reports it: the messages it carried (one, or a digest) and what happened. */
export interface AttemptReport {
  messageIds: string[];
  eventType: string;
  attempt: number;
  at: string;
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  answerHead: string | null;
  error: string | null;
}

/** When the next attempt of a message that failed `attempts` times is due: never past 24 hours after it was made. */
export function nextAttemptAt(createdAt: number, attempts: number, now: number): number {
  const delay = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1]!;
  return Math.min(now + delay, createdAt + GIVE_UP_MS);
}

/**
 * Records the consumer's attempts: delivered messages are done; failed ones wait for their next attempt,
 * or are dropped after 24 hours. A destination failing every attempt for 24 hours is disabled (the
 * answer says so, for the consumer's activity entry and email). Messages taken but not tried are freed.
 */
export async function reportAttempts(state: ProjectState, destinationId: string, input: { taken: string[]; attempts: AttemptReport[] }): Promise<{ disabled: JsonObject | null }> {
  const destination = state.db.select().from(notifyDestinations).where(eq(notifyDestinations.id, destinationId)).get();
  if (!destination) return { disabled: null };
  const now = Date.now();
  let failingSince = destination.failingSince;
  // After a failed attempt the destination rests until that message's retry: the others wait behind it
  // rather than each failing in turn against a receiver that is down.
  let restUntil = 0;
  state.db.transaction((tx) => {
    for (const attempt of input.attempts) {
      tx.insert(notifyDeliveries).values({ id: newOrderedId(), destinationId, ...attempt }).run();
      const rows = tx.select().from(notifyOutbox).where(inArray(notifyOutbox.id, attempt.messageIds)).all();
      for (const row of rows) {
        const attempts = row.attempts + 1;
        if (attempt.delivered) tx.update(notifyOutbox).set({ attempts, state: 'delivered', finishedAt: now, leasedUntil: null }).where(eq(notifyOutbox.id, row.id)).run();
        else if (now - row.createdAt >= GIVE_UP_MS) tx.update(notifyOutbox).set({ attempts, state: 'dropped', finishedAt: now, leasedUntil: null }).where(eq(notifyOutbox.id, row.id)).run();
        else {
          const next = nextAttemptAt(row.createdAt, attempts, now);
          tx.update(notifyOutbox).set({ attempts, nextAttemptAt: next, leasedUntil: null }).where(eq(notifyOutbox.id, row.id)).run();
          restUntil = restUntil ? Math.min(restUntil, next) : next;
        }
      }
      failingSince = attempt.delivered ? null : (failingSince ?? attempt.at);
      if (attempt.delivered) restUntil = 0;
    }
    const tried = new Set(input.attempts.flatMap((a) => a.messageIds));
    const untried = input.taken.filter((id) => !tried.has(id));
    if (untried.length) tx.update(notifyOutbox).set({ leasedUntil: null }).where(inArray(notifyOutbox.id, untried)).run();
  });
  const last = input.attempts.at(-1);
  const disable = last !== undefined && !last.delivered && failingSince !== null && now - Date.parse(failingSince) >= GIVE_UP_MS && !destination.disabledAt;
  const reason = disable ? `Every delivery failed for 24 hours (since ${failingSince}); the last: ${last!.error ?? `status ${last!.statusCode}`}.` : null;
  state.db.update(notifyDestinations).set({
    failingSince, kickAt: null, nextSlotAt: Math.max(destination.nextSlotAt, now + SEND_INTERVAL_MS[destination.kind], restUntil),
    ...(disable ? { disabledAt: new Date(now).toISOString(), disabledReason: reason, updatedAt: new Date(now).toISOString() } : {}),
  }).where(eq(notifyDestinations.id, destinationId)).run();
  const after = requireDestination(state, destinationId);
  if (!after.disabledAt) await kick(state, after);
  return { disabled: disable ? { ...destinationAnswer(after), project_id: state.projectId } : null };
}

/** The delivery log of a destination, newest first, a page at a time (`before` = the last row's id). */
export function deliveryLog(state: ProjectState, destinationId: string, input: { limit: number; before?: string }): JsonObject {
  requireDestination(state, destinationId);
  const rows = state.db.select().from(notifyDeliveries).where(and(
    eq(notifyDeliveries.destinationId, destinationId), input.before ? lt(notifyDeliveries.id, input.before) : undefined,
  )).orderBy(desc(notifyDeliveries.id)).limit(input.limit + 1).all();
  const page = rows.slice(0, input.limit);
  return {
    deliveries: page.map((r) => ({
      id: r.id, at: r.at, event_type: r.eventType, message_ids: r.messageIds, attempt: r.attempt, delivered: r.delivered, status_code: r.statusCode,
      duration_ms: r.durationMs, answer: r.answerHead, error: r.error,
    })),
    next: rows.length > input.limit ? page.at(-1)!.id : null,
  };
}

// ---- the alarm's part ----

/**
 * What the object's alarm does for notifications: builds raised events, sends on the destinations whose
 * queue message was lost (a consumer that never reported), runs the daily checks, forgets what is past
 * keeping. Answers when it wants to ring next, or null.
 */
export async function notifyAlarm(state: ProjectState): Promise<number | null> {
  try {
    return await notifyRing(state);
  } catch (error) {
    // The alarm's other work goes on; this part is tried again in a minute.
    console.error(JSON.stringify({ level: 'error', message: 'notifications: the alarm\'s part failed; retried in a minute', projectId: state.projectId, error: String(error) }));
    return Date.now() + LEASE_MS;
  }
}

async function notifyRing(state: ProjectState): Promise<number | null> {
  const hasRules = state.sql.exec('SELECT 1 FROM notify_rules LIMIT 1').toArray().length > 0;
  const now = Date.now();
  if (hasRules) await dailyChecks(state, now);
  const more = await buildRaisedEvents(state);
  const stale = state.db.select().from(notifyDestinations).where(sql`${notifyDestinations.disabledAt} IS NULL AND (${notifyDestinations.kickAt} IS NULL OR ${notifyDestinations.kickAt} < ${now - LEASE_MS})`).all();
  for (const destination of stale) await kick(state, destination);
  state.sql.exec("DELETE FROM notify_outbox WHERE state <> 'pending' AND finished_at < ?", now - KEEP_MS);
  state.sql.exec('DELETE FROM notify_deliveries WHERE at < ?', new Date(now - KEEP_MS).toISOString());
  state.sql.exec('DELETE FROM notify_events WHERE built_at IS NOT NULL AND occurred_at < ?', new Date(now - KEEP_MS).toISOString());
  const pending = state.sql.exec<{ at: number | null }>("SELECT min(next_attempt_at) AS at FROM notify_outbox WHERE state = 'pending'").one().at;
  const times = [more ? now : null, pending !== null ? Math.max(pending, now) + LEASE_MS : null, hasRules ? dailyDue(state) : null].filter((t): t is number => t !== null);
  return times.length ? Math.min(...times) : null;
}

const DAILY_KEY = 'notifyDailyAt';
const dailyDue = (state: ProjectState): number => Number(state.sql.exec<{ value: string }>('SELECT value FROM settings WHERE key = ?', DAILY_KEY).toArray()[0]?.value ?? 0) + DAILY_MS;

/** Once a day: credentials of this project expiring within 7 days, and subjects not surveyed for the rules' number of days. */
async function dailyChecks(state: ProjectState, now: number): Promise<void> {
  if (now < dailyDue(state)) return;
  state.sql.exec('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', DAILY_KEY, String(now));
  if (wanted(state, 'credential.expiring')) {
    const { results } = await state.env.DB.prepare(
      `SELECT jti, kind, name, expires_at FROM credentials WHERE project_id = ?1 AND kind IN ('api_token', 'upload_pass') AND revoked_at IS NULL
       AND expires_at > ?2 AND expires_at <= ?3`,
    ).bind(state.projectId, new Date(now).toISOString(), new Date(now + EXPIRING_WITHIN_MS).toISOString()).all<{ jti: string; kind: string; name: string | null; expires_at: string }>();
    for (const credential of results) raiseEvent(state, { id: `credential.expiring:${credential.jti}`, type: 'credential.expiring', ref: credential });
  }
  if (wanted(state, 'data_health.stale')) {
    const fewest = state.sql.exec<{ days: number | null }>(
      "SELECT min(coalesce(r.stale_days, ?)) AS days FROM notify_rules r, json_each(r.events) e WHERE r.enabled = 1 AND e.value = 'data_health.stale'", DEFAULT_STALE_DAYS,
    ).one().days ?? DEFAULT_STALE_DAYS;
    const before = new Date(now - fewest * DAILY_MS).toISOString();
    for (const subject of state.sql.exec<{ name: string; survey_id: string; finished_at: string }>(
      `SELECT s.name, j.id AS survey_id, j.finished_at FROM subjects s JOIN jobs j ON j.id = s.latest_survey_id
       WHERE j.finished_at < ? AND j.deleted_at IS NULL`, before,
    )) {
      raiseEvent(state, { id: `data_health.stale:${subject.name}:${subject.survey_id}`, type: 'data_health.stale', ref: { subject: subject.name, survey_id: subject.survey_id, finished_at: subject.finished_at } });
    }
  }
}

