// Notifications (issue 24): destinations and rules through the API (masked URLs, secrets once, the
// SSRF refusals, permissions, isolation, the activity log), and deliveries end to end in workerd to a
// real receiver (test/receiver/global-setup.mjs) that verifies Standard Webhooks signatures, fails,
// answers too late and redirects: retries with the same webhook-id, the delivery log, the 24-hour
// disable, secret rotation, Slack and Teams formats, and a burst paced to a chat destination's rate.
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, inject, it, vi } from 'vitest';
import { projectStub } from '../src/project/client';
import { destinationsFor, ruleMatches, type EventFacts, type RuleShape } from '../src/notify/events';
import { checkDestinationUrl, maskUrl, RefusedUrl } from '../src/notify/url-guard';
import { api, expectError, json } from './helpers';
import { dataTenant } from './data-plane';
import { activityRows, addPerson } from './people';
import { analysed, deliver, P, sbom, settleScoring } from './pipeline';
import { importRecords } from '../src/vulndb/import';
import type { OsvRecord } from '../src/analysis/vulns/osv-types';

type T = Awaited<ReturnType<typeof dataTenant>>;
const N = (t: { projectId: string }, rest = '') => `${P(t.projectId)}/v1/notification${rest}`;
const receiver = () => `http://127.0.0.1:${inject('receiverPort')}`;
let hooks = 0;
const hookName = (label: string) => `${label}-${Date.now().toString(36)}-${++hooks}`;

async function configure(name: string, config: Record<string, unknown>) {
  await fetch(`${receiver()}/_config/${name}`, { method: 'POST', body: JSON.stringify(config) });
}
async function received(name: string): Promise<{ at: number; headers: Record<string, string>; body: string; verified: boolean | null }[]> {
  return (await fetch(`${receiver()}/_log/${name}`)).json();
}
async function waitForReceived(name: string, count: number, timeout = 15_000) {
  return vi.waitFor(async () => {
    const got = await received(name);
    expect(got.length).toBeGreaterThanOrEqual(count);
    return got;
  }, { timeout, interval: 100 });
}

async function runSql<R = Record<string, unknown>>(projectId: string, query: string, ...params: unknown[]): Promise<R[]> {
  return runInDurableObject(projectStub(env, projectId), (_i, state) => state.storage.sql.exec(query, ...params).toArray() as R[]);
}

async function destination(t: { projectId: string; token: string }, body: Record<string, unknown>) {
  const res = await api(N(t, '/destination'), { token: t.token, body });
  expect(res.status, await res.clone().text()).toBe(201);
  return json<{ destination: Record<string, any>; secret: string | null }>(res);
}

async function rule(t: { projectId: string; token: string }, body: Record<string, unknown>) {
  const res = await api(N(t, '/rule'), { token: t.token, body });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

async function deliveries(t: { projectId: string; token: string }, destinationId: string) {
  const res = await api(N(t, `/destination/${destinationId}/delivery`), { token: t.token });
  expect(res.status).toBe(200);
  return (await json(res)).deliveries as Record<string, any>[];
}

/** Sends the destination's queue message now, as the queue would (after its due messages were made due). */
async function drain(t: { projectId: string }, destinationId: string, options: { env?: typeof env } = {}) {
  await runSql(t.projectId, "UPDATE notify_outbox SET next_attempt_at = 0, leased_until = NULL WHERE destination_id = ? AND state = 'pending'", destinationId);
  await runSql(t.projectId, 'UPDATE notify_destinations SET next_slot_at = 0 WHERE id = ?', destinationId);
  return deliver({ projectId: t.projectId, destinationId }, { queue: 'posture-notify', ...options });
}

describe('notification destinations and rules', () => {
  it('a webhook destination answers its signing secret once, shows its URL masked, keeps both sealed, and is in the activity log', async () => {
    const t = await dataTenant('notify-dest');
    const url = `${receiver()}/hook/${hookName('masked')}?token=very-secret`;
    const created = await destination(t, { kind: 'webhook', name: 'SIEM', url });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.destination).toMatchObject({ kind: 'webhook', name: 'SIEM', enabled: true, url: `${receiver()}/hook/…`, failing_since: null });
    const read = await json(await api(N(t, `/destination/${created.destination.id}`), { token: t.token }));
    expect(JSON.stringify(read)).not.toContain('very-secret');
    expect(JSON.stringify(read)).not.toContain('whsec_');
    const [row] = await runSql<{ url_sealed: string; secret_sealed: string }>(t.projectId, 'SELECT url_sealed, secret_sealed FROM notify_destinations');
    expect(row!.url_sealed).toMatch(/^v1\./);
    expect(row!.url_sealed).not.toContain('127.0.0.1');
    expect(row!.secret_sealed).not.toContain(created.secret!.slice(6));
    expect((await activityRows(t.orgId, 'notification.destination.created'))[0]?.data).toMatchObject({ id: created.destination.id, kind: 'webhook', name: 'SIEM' });
  });

  it('refuses URLs that are not https on a public host, naming why', async () => {
    const t = await dataTenant('notify-ssrf');
    for (const url of [
      'http://example.com/hook', 'https://10.0.0.8/hook', 'https://169.254.169.254/latest/meta-data', 'https://[fd00::1]/x', 'https://[fe80::1]/x',
      'https://[::ffff:192.168.1.1]/x', 'https://167772161/x', 'https://0xa9.254.169.254/x', 'https://metadata.internal/x', 'https://printer.local/x', 'https://intranet/x',
      'https://user:pass@example.com/x', 'ftp://example.com/x', 'not a url', 'https://100.64.1.1/x', 'https://0.0.0.0/x',
    ]) {
      const res = await api(N(t, '/destination'), { token: t.token, body: { kind: 'slack', name: 'x', url } });
      await expectError(res, 400, 'invalid_parameter', { parameter: 'url' });
    }
    // Public hosts are fine; so is loopback on a development instance (DEV_SECRET is set in tests).
    await destination(t, { kind: 'slack', name: 'Slack', url: 'https://hooks.slack.com/services/T0/B0/abc' });
    await destination(t, { kind: 'teams', name: 'Teams', url: 'https://8.8.8.8/workflows' });
    await expectError(await api(N(t, '/destination'), { token: t.token, body: { kind: 'email', name: 'x', url: 'https://example.com' } }), 400, 'invalid_parameter', { parameter: 'url' });
    await expectError(await api(N(t, '/destination'), { token: t.token, body: { kind: 'email', name: 'x' } }), 400, 'invalid_parameter', { parameter: 'recipients' });
  });

  it('needs project:admin to change, project:view to read; another project sees none of it', async () => {
    const t = await dataTenant('notify-perm');
    const created = await destination(t, { kind: 'email', name: 'On call', recipients: ['oncall@example.test'] });
    const member = await addPerson(t, 'Member');
    const viewer = await addPerson(t, 'Viewer');
    await expectError(await api(N(t, '/destination'), { token: member.token, body: { kind: 'email', name: 'x', recipients: ['a@example.test'] } }), 403, 'permission_denied', { permission: 'project:admin' });
    await expectError(await api(N(t, `/destination/${created.destination.id}`), { token: viewer.token, method: 'DELETE' }), 403, 'permission_denied');
    expect((await json(await api(N(t, '/destination'), { token: viewer.token }))).destinations).toHaveLength(1);
    const other = await dataTenant('notify-other');
    await expectError(await api(N(other, `/destination/${created.destination.id}`), { token: other.token }), 404, 'not_found');
    await expectError(await api(N(t, `/destination/${created.destination.id}`), { token: other.token }), 403, 'forbidden');
    await expectError(await api(N(other, '/rule'), { token: other.token, body: { name: 'x', events: ['survey.failed'], destination_ids: [created.destination.id] } }), 400, 'invalid_parameter', { parameter: 'destination_ids' });
  });

  it('rules name events, destinations and narrowing; deleting a destination takes it out of the rules', async () => {
    const t = await dataTenant('notify-rules');
    const { destination: d } = await destination(t, { kind: 'email', name: 'Team', recipients: ['team@example.test'] });
    const created = await rule(t, { name: 'Critical only', events: ['survey.completed', 'advisory.published'], destination_ids: [d.id], min_severity: 'high', subjects: ['payments'] });
    expect(created).toMatchObject({ events: ['survey.completed', 'advisory.published'], destination_ids: [d.id], min_severity: 'high', subjects: ['payments'], enabled: true });
    await expectError(await api(N(t, '/rule'), { token: t.token, body: { name: 'x', events: ['survey.exploded'], destination_ids: [d.id] } }), 400, 'invalid_request');
    const replaced = await api(N(t, `/rule/${created.id}`), { token: t.token, method: 'PUT', body: { name: 'All', events: ['survey.failed'], destination_ids: [d.id] } });
    expect(await json(replaced)).toMatchObject({ name: 'All', events: ['survey.failed'], subjects: null, min_severity: null });
    expect((await api(N(t, `/destination/${d.id}`), { token: t.token, method: 'DELETE' })).status).toBe(204);
    expect(await json(await api(N(t, `/rule/${created.id}`), { token: t.token }))).toMatchObject({ destination_ids: [] });
    expect(await activityRows(t.orgId, 'notification.rule.updated')).toHaveLength(1);
  });
});

describe('deliveries', () => {
  it('a completed survey reaches a webhook once, signed (Standard Webhooks), with what is new; Slack and Teams get their formats', async () => {
    const t = await dataTenant('notify-e2e');
    const hook = hookName('e2e');
    const slack = hookName('slack');
    const teams = hookName('teams');
    const webhook = await destination(t, { kind: 'webhook', name: 'Receiver', url: `${receiver()}/hook/${hook}` });
    await configure(hook, { mode: 'ok', secret: webhook.secret });
    const chat = [
      (await destination(t, { kind: 'slack', name: 'Slack', url: `${receiver()}/hook/${slack}` })).destination.id,
      (await destination(t, { kind: 'teams', name: 'Teams', url: `${receiver()}/hook/${teams}` })).destination.id,
    ];
    await rule(t, { name: 'Surveys', events: ['survey.completed', 'survey.failed'], destination_ids: [webhook.destination.id, ...chat] });
    const survey = await analysed(t, sbom('notify-app', [['lodash', '4.17.20']]));

    const [message] = await waitForReceived(hook, 1);
    expect(message!.verified).toBe(true);
    expect(message!.headers['webhook-id']).toMatch(/^msg_/);
    const event = JSON.parse(message!.body);
    expect(event).toMatchObject({
      type: 'survey.completed', version: 1, id: `survey.completed:${survey.surveyId}`, project: { id: t.projectId, organization_id: t.orgId },
      data: { survey: { id: survey.surveyId }, subject: 'notify-app', previous_survey_id: null },
    });
    expect(event.link).toContain(`/projects/${t.projectId}/surveys/${survey.surveyId}`);
    expect(event.data.reports.map((r: { type: string }) => r.type).sort()).toEqual(['cbom', 'composition', 'pqc-inventory']);
    expect(Object.keys(event.data.new).sort()).toEqual(['critical', 'high', 'red', 'undecided', 'yellow']);

    const [slackMessage] = await waitForReceived(slack, 1);
    const blocks = JSON.parse(slackMessage!.body);
    expect(blocks.text).toContain('Survey of notify-app');
    expect(blocks.blocks[0]).toMatchObject({ type: 'header' });
    expect(blocks.blocks.find((b: { type: string }) => b.type === 'actions').elements[0].url).toBe(event.link);
    const [teamsMessage] = await waitForReceived(teams, 1);
    const card = JSON.parse(teamsMessage!.body);
    expect(card).toMatchObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard', version: '1.4' } }] });
    expect(card.attachments[0].content.actions[0].url).toBe(event.link);

    const log = await deliveries(t, webhook.destination.id);
    expect(log).toEqual([expect.objectContaining({ event_type: 'survey.completed', attempt: 1, delivered: true, status_code: 200, answer: 'ok ', error: null, message_ids: [message!.headers['webhook-id']] })]);
    // Once per survey, however often its finished row passes by.
    await new Promise((r) => setTimeout(r, 500));
    expect(await received(hook)).toHaveLength(1);
  });

  it('a failing receiver is retried with the same webhook-id until it answers; the log keeps every attempt', async () => {
    const t = await dataTenant('notify-retry');
    const hook = hookName('retry');
    const created = await destination(t, { kind: 'webhook', name: 'Flaky', url: `${receiver()}/hook/${hook}` });
    await configure(hook, { mode: 'fail', secret: created.secret });
    const sent = await json(await api(N(t, `/destination/${created.destination.id}/test`), { token: t.token, body: { event: 'advisory.published' } }));
    expect(sent.event).toMatchObject({ type: 'advisory.published', data: { test: true } });
    await vi.waitFor(async () => expect((await deliveries(t, created.destination.id)).length).toBe(1), { timeout: 10_000, interval: 100 });
    const [failed] = await deliveries(t, created.destination.id);
    expect(failed).toMatchObject({ attempt: 1, delivered: false, status_code: 500, answer: 'receiver down', error: 'answered 500', message_ids: [sent.message_id] });
    const [pending] = await runSql<{ attempts: number; next_attempt_at: number; state: string }>(t.projectId, 'SELECT attempts, next_attempt_at, state FROM notify_outbox');
    expect(pending).toMatchObject({ attempts: 1, state: 'pending' });
    expect(pending!.next_attempt_at).toBeGreaterThan(Date.now());
    // The destination rests until that retry: nothing else is tried against it meanwhile.
    const [rest] = await runSql<{ next_slot_at: number }>(t.projectId, 'SELECT next_slot_at FROM notify_destinations');
    expect(rest!.next_slot_at).toBeGreaterThanOrEqual(pending!.next_attempt_at);
    expect((await json(await api(N(t, `/destination/${created.destination.id}`), { token: t.token }))).failing_since).not.toBeNull();

    await configure(hook, { mode: 'ok', secret: created.secret });
    await drain(t, created.destination.id);
    const got = await received(hook);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([sent.message_id, sent.message_id]);
    expect(got[1]!.verified).toBe(true);
    expect((await deliveries(t, created.destination.id))[0]).toMatchObject({ attempt: 2, delivered: true, status_code: 200 });
    expect((await json(await api(N(t, `/destination/${created.destination.id}`), { token: t.token }))).failing_since).toBeNull();
  });

  it('follows no redirect, gives up on a receiver that answers too late, and reads only the first bytes of an answer', async () => {
    const t = await dataTenant('notify-safety');
    const redirect = hookName('redirect');
    const slow = hookName('slow');
    const big = hookName('big');
    await configure(redirect, { mode: 'redirect' });
    await configure(slow, { mode: 'slow', delayMs: 6_000 });
    await configure(big, { mode: 'ok', answerBytes: 300_000 });
    const ids: string[] = [];
    for (const name of [redirect, slow, big]) {
      const { destination: d } = await destination(t, { kind: 'slack', name, url: `${receiver()}/hook/${name}` });
      await api(N(t, `/destination/${d.id}/test`), { token: t.token, body: {} });
      ids.push(d.id);
    }
    await vi.waitFor(async () => {
      for (const id of ids) expect((await deliveries(t, id)).length).toBe(1);
    }, { timeout: 15_000, interval: 200 });
    expect((await deliveries(t, ids[0]!))[0]).toMatchObject({ delivered: false, status_code: 307, error: 'redirect to http://169.254.169.254/latest/meta-data not followed' });
    expect(await received(redirect)).toHaveLength(1);
    const late = (await deliveries(t, ids[1]!))[0]!;
    expect(late).toMatchObject({ delivered: false, status_code: null, error: 'no answer within 3 s' });
    expect(late.duration_ms).toBeLessThan(5_500);
    const long = (await deliveries(t, ids[2]!))[0]!;
    expect(long).toMatchObject({ delivered: true, status_code: 200 });
    expect(long.answer).toHaveLength(512);
  });

  it('a destination failing every attempt for 24 hours is disabled, logged, and its administrators told; enabling it sends what waited', async () => {
    const t = await dataTenant('notify-disable');
    const hook = hookName('down');
    await configure(hook, { mode: 'fail' });
    const { destination: d } = await destination(t, { kind: 'webhook', name: 'Down', url: `${receiver()}/hook/${hook}` });
    const sent = await json(await api(N(t, `/destination/${d.id}/test`), { token: t.token, body: { event: 'survey.failed' } }));
    await vi.waitFor(async () => expect((await deliveries(t, d.id)).length).toBe(1), { timeout: 10_000, interval: 100 });
    // A day of failures later (the clock moved back on the stored times).
    const dayAgo = Date.now() - 24 * 3_600_000 - 60_000;
    await runSql(t.projectId, 'UPDATE notify_destinations SET failing_since = ? WHERE id = ?', new Date(dayAgo).toISOString(), d.id);
    await runSql(t.projectId, 'UPDATE notify_outbox SET created_at = ? WHERE destination_id = ?', dayAgo + 120_000, d.id);
    const mails: { to: string; raw: string }[] = [];
    // The email binding, standing in for Cloudflare's: the message's raw text is its `EmailMessage::raw` field.
    const capture = { send: async (m: Record<string, unknown>) => { mails.push({ to: m.to as string, raw: String(m['EmailMessage::raw']) }); } };
    await drain(t, d.id, { env: { ...env, EMAIL: capture as unknown as SendEmail } });
    const read = await json(await api(N(t, `/destination/${d.id}`), { token: t.token }));
    expect(read).toMatchObject({ enabled: false });
    expect(read.disabled_reason).toMatch(/^Every delivery failed for 24 hours/);
    expect((await activityRows(t.orgId, 'notification.destination.disabled'))[0]).toMatchObject({ actor_kind: 'system', actor_id: null, data: { destinationId: d.id, name: 'Down' } });
    expect(mails.map((m) => m.to)).toEqual([t.user.email]);
    expect(mails[0]!.raw).toContain('failed every delivery for 24 hours and was disabled');
    // The message is still waiting (it is not yet 24 hours old); a disabled destination gets nothing.
    expect((await runSql(t.projectId, 'SELECT state FROM notify_outbox'))[0]).toMatchObject({ state: 'pending' });
    await drain(t, d.id);
    expect(await received(hook)).toHaveLength(2);

    await configure(hook, { mode: 'ok' });
    const enabled = await api(N(t, `/destination/${d.id}`), { token: t.token, method: 'PATCH', body: { enabled: true } });
    expect(await json(enabled)).toMatchObject({ enabled: true, disabled_at: null, failing_since: null });
    await vi.waitFor(async () => expect((await received(hook)).at(-1)?.headers['webhook-id']).toBe(sent.message_id), { timeout: 10_000, interval: 100 });
  });

  it('a message that could not be delivered within 24 hours is dropped', async () => {
    const t = await dataTenant('notify-drop');
    const hook = hookName('drop');
    await configure(hook, { mode: 'fail' });
    const { destination: d } = await destination(t, { kind: 'webhook', name: 'Gone', url: `${receiver()}/hook/${hook}` });
    await api(N(t, `/destination/${d.id}/test`), { token: t.token, body: {} });
    await vi.waitFor(async () => expect((await deliveries(t, d.id)).length).toBe(1), { timeout: 10_000, interval: 100 });
    await runSql(t.projectId, 'UPDATE notify_outbox SET created_at = ?', Date.now() - 24 * 3_600_000 - 1);
    await drain(t, d.id);
    expect((await runSql(t.projectId, 'SELECT state, attempts FROM notify_outbox'))[0]).toMatchObject({ state: 'dropped', attempts: 2 });
  });

  it('a rotated secret keeps the old one signing for 24 hours', async () => {
    const t = await dataTenant('notify-rotate');
    const oldHook = hookName('old-secret');
    const created = await destination(t, { kind: 'webhook', name: 'Rotating', url: `${receiver()}/hook/${oldHook}` });
    await configure(oldHook, { mode: 'ok', secret: created.secret });
    const rotated = await json(await api(N(t, `/destination/${created.destination.id}/rotate-secret`), { token: t.token, method: 'POST' }));
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.destination.previous_secret_valid_until) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    await api(N(t, `/destination/${created.destination.id}/test`), { token: t.token, body: {} });
    const [first] = await waitForReceived(oldHook, 1);
    expect(first!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(first!.verified).toBe(true);
    // A receiver that already switched verifies with the new secret.
    await configure(oldHook, { mode: 'ok', secret: rotated.secret });
    await api(N(t, `/destination/${created.destination.id}/test`), { token: t.token, body: {} });
    const got = await waitForReceived(oldHook, 2);
    expect(got[1]!.verified).toBe(true);
    // Past the 24 hours only the new secret signs.
    await runSql(t.projectId, 'UPDATE notify_destinations SET previous_secret_until = ?', new Date(Date.now() - 1000).toISOString());
    await api(N(t, `/destination/${created.destination.id}/test`), { token: t.token, body: {} });
    const third = (await waitForReceived(oldHook, 3))[2]!;
    expect(third.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(third.verified).toBe(true);
  });

  it('a burst to a chat destination is paced to one message a second, the waiting events sent as one digest; none is lost', async () => {
    const t = await dataTenant('notify-burst');
    const hook = hookName('burst');
    await configure(hook, { mode: 'ok' });
    const { destination: d } = await destination(t, { kind: 'slack', name: 'Busy channel', url: `${receiver()}/hook/${hook}` });
    const sent = await Promise.all(Array.from({ length: 30 }, () => api(N(t, `/destination/${d.id}/test`), { token: t.token, body: { event: 'survey.completed' } }).then((r) => json(r))));
    await vi.waitFor(async () => {
      const log = await deliveries(t, d.id);
      expect(log.flatMap((l) => l.message_ids).sort()).toEqual(sent.map((s) => s.message_id).sort());
    }, { timeout: 20_000, interval: 200 });
    const got = await received(hook);
    expect(got.length).toBeLessThan(30);
    for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(900);
    expect(got.some((m) => /^\d+ alerts from /.test(JSON.parse(m.body).text))).toBe(true);
  });
});

/** Rings the project object's alarm with its daily check due (runDurableObjectAlarm rings only an alarm that is set). */
async function dailyCheck(projectId: string) {
  await runSql(projectId, "DELETE FROM settings WHERE key = 'notifyDailyAt'");
  const stub = projectStub(env, projectId);
  await runInDurableObject(stub, (_i, state) => state.storage.setAlarm(Date.now() + 60_000));
  expect(await runDurableObjectAlarm(stub)).toBe(true);
}

describe('events and rules', () => {
  const shape = (over: Partial<RuleShape> = {}): RuleShape => ({
    events: ['survey.completed'], destinationIds: ['d1'], subjects: null, portfolioIds: null, minSeverity: null, minBand: null, scoreDrop: null, staleDays: null, enabled: true, ...over,
  });
  const facts = (over: Partial<EventFacts> = {}): EventFacts => ({ type: 'survey.completed', severity: 'high', subject: 'app', portfolioId: null, band: null, drop: null, staleDays: null, ...over });

  it('a rule narrows by event, subject, portfolio, severity, band, score drop and days without a survey', () => {
    expect(ruleMatches(shape(), facts())).toBe(true);
    expect(ruleMatches(shape({ enabled: false }), facts())).toBe(false);
    expect(ruleMatches(shape(), facts({ type: 'survey.failed' }))).toBe(false);
    expect(ruleMatches(shape({ subjects: ['other'] }), facts())).toBe(false);
    expect(ruleMatches(shape({ minSeverity: 'critical' }), facts())).toBe(false);
    expect(ruleMatches(shape({ minSeverity: 'high' }), facts({ severity: 'critical' }))).toBe(true);
    expect(ruleMatches(shape({ events: ['portfolio.band_changed'], minBand: 'weak' }), facts({ type: 'portfolio.band_changed', band: 'fair' }))).toBe(false);
    expect(ruleMatches(shape({ events: ['portfolio.band_changed'], minBand: 'weak' }), facts({ type: 'portfolio.band_changed', band: 'critical' }))).toBe(true);
    expect(ruleMatches(shape({ events: ['portfolio.score_dropped'] }), facts({ type: 'portfolio.score_dropped', drop: 4 }))).toBe(false);
    expect(ruleMatches(shape({ events: ['portfolio.score_dropped'], scoreDrop: 3 }), facts({ type: 'portfolio.score_dropped', drop: 4 }))).toBe(true);
    expect(ruleMatches(shape({ events: ['portfolio.score_dropped'], portfolioIds: ['p1'] }), facts({ type: 'portfolio.score_dropped', drop: 9, portfolioId: 'p2' }))).toBe(false);
    expect(ruleMatches(shape({ events: ['data_health.stale'], staleDays: 60 }), facts({ type: 'data_health.stale', staleDays: 45 }))).toBe(false);
    expect(destinationsFor([shape({ destinationIds: ['a', 'b'] }), shape({ destinationIds: ['b', 'c'] }), shape({ destinationIds: ['d'], subjects: ['x'] })], facts())).toEqual(['a', 'b', 'c']);
  });

  it('production refuses loopback too; development allows http only there', () => {
    for (const url of ['http://127.0.0.1:8787/x', 'https://127.0.0.1/x', 'https://localhost/x', 'https://[::1]/x', 'https://2130706433/x', 'http://localhost/x']) {
      expect(() => checkDestinationUrl(url, { local: false }), url).toThrow(RefusedUrl);
    }
    expect(checkDestinationUrl('http://localhost:9000/x', { local: true }).port).toBe('9000');
    expect(() => checkDestinationUrl('http://example.com/x', { local: true })).toThrow(/https/);
    expect(maskUrl(new URL('https://hooks.slack.com/services/T0/B0/secret'))).toBe('https://hooks.slack.com/services/…');
  });

  it('expiring credentials and subjects not surveyed for the rule\'s days are announced once by the daily check', async () => {
    const t = await dataTenant('notify-daily');
    const hook = hookName('daily');
    await configure(hook, { mode: 'ok' });
    const { destination: d } = await destination(t, { kind: 'webhook', name: 'Daily', url: `${receiver()}/hook/${hook}` });
    await rule(t, { name: 'Housekeeping', events: ['credential.expiring', 'data_health.stale'], destination_ids: [d.id], stale_days: 30 });
    const res = await api(`${P(t.projectId)}/credential/spice-pass`, { token: t.token, body: { name: 'Short pass', duration_days: 3 } });
    expect(res.status, await res.clone().text()).toBe(201);
    await analysed(t, sbom('old-app', [['lodash', '4.17.21']]));
    await analysed(t, sbom('fresh-app', [['lodash', '4.17.21']]));
    await runSql(t.projectId, "UPDATE jobs SET finished_at = ? WHERE id = (SELECT latest_survey_id FROM subjects WHERE name = 'old-app')", new Date(Date.now() - 40 * 86_400_000).toISOString());
    await dailyCheck(t.projectId);
    const got = await waitForReceived(hook, 2);
    const events = got.map((m) => JSON.parse(m.body));
    expect(events.map((e) => e.type).sort()).toEqual(['credential.expiring', 'data_health.stale']);
    expect(events.find((e) => e.type === 'data_health.stale')).toMatchObject({ data: { subject: 'old-app', days_since_survey: 40 } });
    expect(events.find((e) => e.type === 'credential.expiring')).toMatchObject({ summary: expect.stringContaining('upload pass Short pass expires'), data: { credential: { kind: 'upload_pass', name: 'Short pass' } } });
    // The next day's check finds the same things: nothing is sent again.
    await dailyCheck(t.projectId);
    await new Promise((r) => setTimeout(r, 500));
    expect(await received(hook)).toHaveLength(2);
  }, 60_000);
});

describe('events from the vulnerability data and the scores', () => {
  const advisories = Object.values(import.meta.glob('./fixtures/osv/*.json', { import: 'default', eager: true })) as OsvRecord[];
  /** Affects ws 7.4.0; held back until the subject was surveyed and scored. */
  const WS = 'GHSA-3h5v-q93c-6h6q';

  it('a new advisory found by the re-matching for a deployed component is announced, and so is the score it drops', async () => {
    await importRecords(env.DB, advisories.filter((r) => r.id !== WS), 'fixtures');
    const t = await dataTenant('notify-rematch');
    await analysed(t, sbom('shop', [['ws', '7.4.0']]));
    await settleScoring(t);
    const hook = hookName('rematch');
    await configure(hook, { mode: 'ok' });
    const { destination: d } = await destination(t, { kind: 'webhook', name: 'Security', url: `${receiver()}/hook/${hook}` });
    await rule(t, { name: 'New advisories', events: ['advisory.published'], destination_ids: [d.id], subjects: ['shop'] });
    await rule(t, { name: 'Scores', events: ['portfolio.score_dropped', 'portfolio.band_changed'], destination_ids: [d.id], score_drop: 1 });

    await importRecords(env.DB, advisories.filter((r) => r.id === WS), 'rematch-test');
    const { id, result } = await deliver({ kind: 'rematch', projectId: t.projectId }, { queue: 'posture-scoring' });
    expect(result.explicitAcks).toEqual([id]);
    const [published] = await waitForReceived(hook, 1);
    expect(JSON.parse(published!.body)).toMatchObject({
      type: 'advisory.published', id: `advisory.published:shop:${WS}`,
      data: { subject: 'shop', advisory_id: WS, components: [{ purl: 'pkg:npm/ws@7.4.0', version: '7.4.0', fix_version: '7.5.10' }] },
    });

    await settleScoring(t);
    // The band may have changed too (its own event): wait for the drop's.
    const dropped = await vi.waitFor(async () => {
      const found = (await received(hook)).map((m) => JSON.parse(m.body)).find((e) => e.type === 'portfolio.score_dropped');
      expect(found).toBeDefined();
      return found;
    }, { timeout: 15_000, interval: 100 });
    expect(dropped).toMatchObject({ data: { axis: 'vuln', cause: 'vulnerability-data' } });
    expect(dropped.data.drop).toBeGreaterThan(0);
    expect(dropped.data.previous_score - dropped.data.score).toBeCloseTo(dropped.data.drop, 0);
  }, 60_000);
});
