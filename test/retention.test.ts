// Data that ends when retention says so (issue 12; docs/retention.md): a purged project leaves no
// control-plane row, no R2 object and no stored file behind; an interrupted erasure continues on the
// next run; a deleted survey's files go when its retention ends; a person who belongs to no
// organization any more loses their name and email. The cron runs through the Worker's scheduled handler.
import { createScheduledController, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../src/index';
import type { Env } from '../src/env';
import { ERASURE_LIMITS, runErasures } from '../src/control/erasures';
import { purgeExpiredProjects } from '../src/control/projects';
import { projectStub } from '../src/project/client';
import { eraseExpiredSurveys } from '../src/project/erasure';
import type { ProjectState } from '../src/project/project-object';
import { isRpcFailure } from '../src/project/errors';
import { api, expectError, json, newTenant } from './helpers';
import { addPerson, addProject, lastActivity } from './people';
import { dataTenant } from './data-plane';
import { analysed, buildReports, getJob, letRendersFinish, P, renderDocuments, sbom, settleScoring } from './pipeline';

const DAY = 86_400_000;
const CRON = '17 3 * * *';

/** Runs the daily cron as the platform would, at `at` (ms). */
async function cron(at: number): Promise<void> {
  await worker.scheduled(createScheduledController({ scheduledTime: at, cron: CRON }), env);
}

const prefix = (projectId: string) => `projects/${projectId}/`;

async function objectKeys(projectId: string): Promise<string[]> {
  return (await env.BUNDLES.list({ prefix: prefix(projectId) })).objects.map((o) => o.key);
}

/** Every table, index or other schema object of the project object's storage. */
async function storedTables(projectId: string): Promise<string[]> {
  return runInDurableObject(projectStub(env, projectId), (_i, state) =>
    state.storage.sql.exec<{ name: string }>('SELECT name FROM sqlite_master').toArray().map((r) => r.name));
}

/** Every D1 table with a `project_id` column, and how many of its rows name the project. */
async function controlRowsOf(projectId: string): Promise<Record<string, number>> {
  const { results: tables } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'").all<{ name: string }>();
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const { results: columns } = await env.DB.prepare(`SELECT name FROM pragma_table_info('${name}')`).all<{ name: string }>();
    if (!columns.some((c) => c.name === 'project_id')) continue;
    counts[name] = (await env.DB.prepare(`SELECT count(*) AS n FROM "${name}" WHERE project_id = ?1`).bind(projectId).first<{ n: number }>())!.n;
  }
  counts.projects = (await env.DB.prepare('SELECT count(*) AS n FROM projects WHERE id = ?1').bind(projectId).first<{ n: number }>())!.n;
  counts.erasures = (await env.DB.prepare('SELECT count(*) AS n FROM erasures WHERE target_id = ?1').bind(projectId).first<{ n: number }>())!.n;
  return counts;
}

const erasureRow = (id: string) => env.DB.prepare('SELECT * FROM erasures WHERE target_id = ?1').bind(id).first<Record<string, any>>();

/** A second project so the tenant's first one may be deleted (an organization keeps one). */
async function secondProject(tenant: { orgId: string; token: string }, name: string): Promise<string> {
  const res = await api(`/api/v1/org/${tenant.orgId}/project`, { token: tenant.token, body: { name } });
  expect(res.status).toBe(200);
  return (await json(res)).uuid;
}

async function deleteProject(tenant: { token: string }, projectId: string): Promise<void> {
  expect((await api(`/api/v1/project/${projectId}`, { method: 'DELETE', token: tenant.token })).status).toBe(204);
}

describe('a purged project leaves nothing behind (issue 12)', () => {
  it('erases its control rows, every R2 object (bundles, reports, documents, staged uploads) and its object\'s storage', async () => {
    const t = await dataTenant('erase');
    const survey = await analysed(t, sbom('erased-app', [['lodash', '4.17.20']]));
    await renderDocuments(t);
    // A staged upload that never completed: a multipart upload the sweep has not aborted yet.
    const stagedKey = `${prefix(t.projectId)}bundles/staged-${crypto.randomUUID()}`;
    const staged = await env.BUNDLES.createMultipartUpload(stagedKey);
    const part = await staged.uploadPart(1, new TextEncoder().encode('half a bundle'));
    await runInDurableObject(projectStub(env, t.projectId), (_i, state) => {
      state.storage.sql.exec(`INSERT INTO uploads (upload_id, blob_key, bundle_id, survey_id, step_id, sha256, size_bytes, part_size, part_count, status, created_at)
        VALUES (?, ?, 'staged', ?, ?, 'x', 13, 16777216, 1, 'started', ?)`, staged.uploadId, stagedKey, survey.surveyId, survey.uploadStepId, new Date().toISOString());
    });
    const keys = await objectKeys(t.projectId);
    expect(keys.some((k) => k.includes('/bundles/'))).toBe(true);
    expect(keys.some((k) => k.endsWith('/report.json'))).toBe(true);
    expect(keys.some((k) => k.includes('/documents/'))).toBe(true);

    await secondProject(t, 'Stays');
    await deleteProject(t, t.projectId);
    // Inside the retention: everything is still there.
    await cron(Date.now() + 10 * DAY);
    expect(await objectKeys(t.projectId)).toEqual(keys);
    expect(await storedTables(t.projectId)).toContain('jobs');

    await cron(Date.now() + 91 * DAY);
    const rows = await controlRowsOf(t.projectId);
    // The organization's activity log keeps its record of the project (ids and names, no data of it).
    const { activity, ...rest } = rows;
    expect(Object.values(rest).every((n) => n === 0)).toBe(true);
    expect(Object.keys(rest)).toEqual(expect.arrayContaining(['credentials', 'team_projects', 'projects', 'erasures']));
    expect(activity).toBeGreaterThan(0);
    expect(await lastActivity(t.orgId, 'project.purged')).toMatchObject({ project_id: t.projectId, actor_kind: 'system' });

    expect(await objectKeys(t.projectId)).toEqual([]);
    await expect(env.BUNDLES.resumeMultipartUpload(stagedKey, staged.uploadId).complete([part])).rejects.toThrow();
    expect(await storedTables(t.projectId)).toEqual([]);
    const left = await runInDurableObject(projectStub(env, t.projectId), async (_i, state) => ({ bytes: state.storage.sql.databaseSize, alarm: await state.storage.getAlarm() }));
    // One empty page: nothing stored.
    expect(left).toEqual({ bytes: 4096, alarm: null });
    expect(await projectStub(env, t.projectId).isReady()).toBe(false);
  });

  it('erases every project of a purged organization, and the organization\'s activity', async () => {
    const t = await dataTenant('erase-org');
    await analysed(t, sbom('org-app', [['left-pad', '1.3.0']]));
    await letRendersFinish([t]);
    expect((await objectKeys(t.projectId)).length).toBeGreaterThan(0);
    expect((await api(`/api/v1/org/${t.orgId}`, { method: 'DELETE', token: t.token })).status).toBe(204);

    await cron(Date.now() + 91 * DAY);
    expect(await objectKeys(t.projectId)).toEqual([]);
    expect(await storedTables(t.projectId)).toEqual([]);
    expect(await env.DB.prepare('SELECT count(*) AS n FROM activity WHERE org_id = ?1').bind(t.orgId).first('n')).toBe(0);
    expect(await env.DB.prepare('SELECT count(*) AS n FROM erasures WHERE target_id IN (?1, ?2)').bind(t.orgId, t.projectId).first('n')).toBe(0);
  });

  it('continues an erasure interrupted after one slice on the next run', async () => {
    const t = await dataTenant('erase-slices');
    const survey = await analysed(t, sbom('sliced-app', [['chalk', '5.0.0']]));
    await letRendersFinish([t]);
    for (let i = 0; i < 5; i++) await env.BUNDLES.put(`${prefix(t.projectId)}bundles/extra-${i}`, `bundle ${i}`);
    const total = (await objectKeys(t.projectId)).length;
    await secondProject(t, 'Survivor');
    await deleteProject(t, t.projectId);
    const at = new Date(Date.now() + 91 * DAY);
    expect((await purgeExpiredProjects(env.DB, at)).projectIds).toContain(t.projectId);
    expect(await erasureRow(t.projectId)).toMatchObject({ kind: 'project', step: 'close', erased: 0 });

    // One slice of three objects, then the run's allowance is spent.
    const first = await runErasures(env, at, { ...ERASURE_LIMITS, objectCalls: 1, sliceKeys: 3, batchKeys: 2 });
    expect(first.objects).toBe(3);
    expect(first.projects).toEqual([]);
    expect((await objectKeys(t.projectId)).length).toBe(total - 3);
    expect(await erasureRow(t.projectId)).toMatchObject({ step: 'objects', erased: 3 });
    // Closed: the object answers no data operation any more, its storage waits for the last step.
    const answer = await projectStub(env, t.projectId).getJob(survey.surveyId);
    expect(isRpcFailure(answer)).toBe(true);
    expect(await storedTables(t.projectId)).toContain('jobs');

    // A run that fails (the object unreachable) keeps the erasure, with the error, for the next.
    const failing = { ...env, PROJECT: { idFromName: (name: string) => env.PROJECT.idFromName(name), get: () => ({ eraseSlice: async () => { throw new Error('object unreachable'); } }) } } as unknown as Env;
    const failed = await runErasures(failing, at, { ...ERASURE_LIMITS, people: 0 });
    expect(failed.failures).toBeGreaterThanOrEqual(1);
    expect(await erasureRow(t.projectId)).toMatchObject({ step: 'objects', erased: 3, failures: 1, last_error: expect.stringContaining('object unreachable') });

    await cron(at.getTime() + DAY);
    expect(await erasureRow(t.projectId)).toBeNull();
    expect(await objectKeys(t.projectId)).toEqual([]);
    expect(await storedTables(t.projectId)).toEqual([]);
  });
});

describe('a deleted survey\'s files end with its retention (issue 12)', () => {
  const inObject = <R>(projectId: string, body: (state: ProjectState) => R | Promise<R>) =>
    runInDurableObject(projectStub(env, projectId), (instance) => body((instance as unknown as { state(): ProjectState }).state()));
  const expire = (projectId: string, at: number) => inObject(projectId, (state) => eraseExpiredSurveys(state, at));
  const reportIds = (job: any) => job.steps.filter((s: any) => s.step_type === 'REPORT').map((s: any) => s.id as string);
  const bundleKey = (projectId: string, bundleId: string) => `${prefix(projectId)}bundles/${bundleId}`;
  const exists = async (key: string) => (await env.BUNDLES.head(key)) !== null;
  const reportKeys = async (projectId: string, reportId: string) => (await env.BUNDLES.list({ prefix: `${prefix(projectId)}reports/${reportId}/` })).objects.length;

  it('keeps the bundle, reports and documents during the retention, erases them after; restore then answers 404', async () => {
    const t = await dataTenant('survey-retention');
    const kept = await analysed(t, sbom('kept-app', [['express', '4.17.0']]));
    const gone = await analysed(t, sbom('gone-app', [['express', '4.17.0']]));
    await renderDocuments(t);
    const reports = reportIds(await getJob(t, gone.surveyId));
    expect(await reportKeys(t.projectId, reports[0]!)).toBeGreaterThan(1);
    expect((await api(`${P(t.projectId)}/v1/survey/${gone.surveyId}`, { method: 'DELETE', token: t.token })).status).toBe(200);
    // Deleting asks the alarm to look at the survey's retention within a day.
    const alarm = await runInDurableObject(projectStub(env, t.projectId), (_i, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(Date.now() + DAY);

    const deletedAt = Date.parse((await getJob(t, gone.surveyId)).deleted_at);
    const next = await expire(t.projectId, deletedAt + 89 * DAY);
    expect(next).toBe(deletedAt + 90 * DAY);
    expect(await exists(bundleKey(t.projectId, gone.message.bundleId))).toBe(true);
    expect((await api(`${P(t.projectId)}/v1/report/${reports[0]}`, { token: t.token })).status).toBe(200);

    expect(await expire(t.projectId, deletedAt + 91 * DAY)).toBeNull();
    expect(await exists(bundleKey(t.projectId, gone.message.bundleId))).toBe(false);
    for (const id of reports) expect(await reportKeys(t.projectId, id)).toBe(0);
    const job = await getJob(t, gone.surveyId);
    expect(job.metadata).toMatchObject({ filesErased: true, retentionEndedAt: expect.any(String) });
    await expectError(await api(`${P(t.projectId)}/v1/report/${reports[0]}`, { token: t.token }), 404, 'not_found');
    // The export list always holds json (spec 4.10 rule 3); the json export says the data was removed.
    expect(await json(await api(`${P(t.projectId)}/v1/report/${reports[0]}/export`, { token: t.token }))).toEqual({ formats: ['json'] });
    const removed = await expectError(await api(`${P(t.projectId)}/v1/report/${reports[0]}/export/json`, { token: t.token }), 404, 'not_found');
    expect(removed.error).toMatch(/report's data was removed/);
    await expectError(await api(`${P(t.projectId)}/v1/report/${reports[0]}/render`, { method: 'POST', token: t.token }), 409, 'conflict');
    await expectError(await api(`${P(t.projectId)}/v1/survey/${gone.surveyId}/restore`, { method: 'POST', token: t.token }), 404, 'not_found');
    const bundles = (await json(await api(`${P(t.projectId)}/v1/bundle`, { token: t.token }))).bundles.map((b: any) => b.id);
    expect(bundles).not.toContain(gone.message.bundleId);

    // The survey not deleted keeps everything.
    expect(await exists(bundleKey(t.projectId, kept.message.bundleId))).toBe(true);
    for (const id of reportIds(await getJob(t, kept.surveyId))) expect(await reportKeys(t.projectId, id)).toBeGreaterThan(0);
  });

  it('keeps a bundle while a survey regenerated from it is in retention', async () => {
    const t = await dataTenant('survey-shared');
    const original = await analysed(t, sbom('shared-app', [['react', '18.0.0']]));
    const res = await api(`${P(t.projectId)}/v1/survey/${original.surveyId}/regenerate`, { token: t.token, method: 'POST', headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(res.status).toBe(201);
    const regenerated = (await json(res)).parent_id as string;
    await buildReports({ ...original.message, surveyId: regenerated });
    await renderDocuments(t);
    const key = bundleKey(t.projectId, original.message.bundleId);

    expect((await api(`${P(t.projectId)}/v1/survey/${original.surveyId}`, { method: 'DELETE', token: t.token })).status).toBe(200);
    await expire(t.projectId, Date.now() + 91 * DAY);
    expect((await getJob(t, original.surveyId)).metadata).toMatchObject({ filesErased: true });
    for (const id of reportIds(await getJob(t, original.surveyId))) expect(await reportKeys(t.projectId, id)).toBe(0);
    expect(await exists(key)).toBe(true);
    for (const id of reportIds(await getJob(t, regenerated))) expect(await reportKeys(t.projectId, id)).toBeGreaterThan(0);

    expect((await api(`${P(t.projectId)}/v1/survey/${regenerated}`, { method: 'DELETE', token: t.token })).status).toBe(200);
    await expire(t.projectId, Date.now() + 182 * DAY);
    expect(await exists(key)).toBe(false);
  });
});

describe('people who belong to no organization any more (issue 12)', () => {
  it('lose their name and email after the retention of their last membership; ids stay', async () => {
    const t = await dataTenant('people');
    await analysed(t, sbom('rated-app', [['vue', '3.0.0']]));
    await letRendersFinish([t]);
    const leaver = await addPerson(t, 'Member', 'leaver');
    const stayer = await addPerson(t, 'Member', 'stayer');
    // The stayer is still an active member elsewhere.
    const elsewhere = await newTenant('elsewhere');
    await env.DB.prepare('INSERT INTO org_members (org_id, user_id, joined_at) VALUES (?1, ?2, ?3)').bind(elsewhere.orgId, stayer.user.id, new Date().toISOString()).run();

    expect((await api('/api/v1/user', { method: 'PUT', token: leaver.token, body: { name: 'Lee Leaver' } })).status).toBe(200);
    const rating = `${P(t.projectId)}/v1/subject/rated-app/criticality`;
    expect((await api(rating, { method: 'PUT', token: leaver.token, body: { value: 'high' } })).status).toBe(200);
    await settleScoring(t);
    for (const person of [leaver, stayer]) {
      expect((await api(`/api/v1/org/${t.orgId}/user/${person.user.id}`, { method: 'DELETE', token: t.token })).status).toBe(204);
    }
    const user = (id: string) => env.DB.prepare('SELECT email, name, timezone FROM users WHERE id = ?1').bind(id).first<Record<string, string>>();
    const mentions = async (id: string) => (await env.DB.prepare("SELECT data FROM activity WHERE json_extract(data, '$.userId') = ?1 OR actor_id = ?1").bind(id).all<{ data: string }>()).results.map((r) => r.data);

    await cron(Date.now() + 89 * DAY);
    expect(await user(leaver.user.id)).toMatchObject({ email: leaver.user.email, name: 'Lee Leaver' });
    expect((await mentions(leaver.user.id)).some((d) => d.includes(leaver.user.email))).toBe(true);

    // Their organization has two projects: a run that may call only one of them leaves a cursor.
    await addProject(t);
    const at = new Date(Date.now() + 91 * DAY);
    const partial = await runErasures(env, at, { ...ERASURE_LIMITS, objectCalls: 1 });
    expect(partial.people.forgotten).toEqual([]);
    expect(await erasureRow(leaver.user.id)).toMatchObject({ kind: 'person', cursor: expect.any(String) });
    expect(await user(leaver.user.id)).toMatchObject({ email: leaver.user.email });

    await cron(at.getTime());
    expect(await erasureRow(leaver.user.id)).toBeNull();
    expect(await user(leaver.user.id)).toEqual({ email: `erased:${leaver.user.id}`, name: 'Former member', timezone: null });
    const after = await mentions(leaver.user.id);
    expect(after.length).toBeGreaterThan(0);
    expect(after.some((d) => d.includes(leaver.user.email) || d.includes('Lee Leaver'))).toBe(false);
    expect(await lastActivity(t.orgId, 'organization.member.removed')).toBeTruthy();
    const removed = (await env.DB.prepare("SELECT data FROM activity WHERE action = 'organization.member.removed' AND json_extract(data, '$.userId') = ?1").bind(leaver.user.id).first<{ data: string }>())!;
    expect(JSON.parse(removed.data)).toEqual({ userId: leaver.user.id, teamIds: expect.any(Array) });
    const history = await json(await api(`${rating}/history`, { token: t.token }));
    expect(history[0].rater).toEqual({ id: leaver.user.id, email: null });
    // The activity log names them by id, with the tombstone.
    const page = await json(await api(`/api/v1/org/${t.orgId}/activity?userId=${leaver.user.id}&limit=100`, { token: t.token }));
    expect(page.entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(page.entries)).not.toContain(leaver.user.email);
    // Their membership row stays (ids consistent); nobody can sign in as the tombstone.
    expect(await env.DB.prepare('SELECT count(*) AS n FROM org_members WHERE user_id = ?1').bind(leaver.user.id).first('n')).toBe(1);

    expect(await user(stayer.user.id)).toMatchObject({ email: stayer.user.email });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM erasures WHERE kind = 'person'").first('n')).toBe(0);
  });
});
