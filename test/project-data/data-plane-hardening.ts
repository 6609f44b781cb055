// Issue 7, the data plane: analysis in bounded steps (progress on the job stream, contents flipped in
// one small write and old rows deleted in slices), surveys that complete only when the service's
// work did, leases that bring back an interrupted analysis, and rules nobody checked before.
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import { describe, expect, it, vi } from 'vitest';
import { nowIso } from '../../src/lib/ids';
import { projectStub } from '../../src/project/client';
import { serializedRow, type FoundItem } from '../../src/project/analysis-store';
import { createSurvey } from '../../src/project/jobs';
import { MAX_ANALYSIS_STARTS } from '../../src/project/leases';
import type { ProjectState } from '../../src/project/project-object';
import { PURGE_SLICE_ROWS, purgeSlice, queuePurge } from '../../src/project/purges';
import { bundles, healthRuns } from '../../src/project/schema';
import { api, expectError, json } from '../helpers';
import { dataTenant, readEvents } from '../data-plane';
import { roleMatrix } from '../people';
import {
  analysed, analyzeStep, contentsOf, deliver, drainPurges, getJob, P, sbom, startSurvey, storedRowCount, uploaded, type DataTenant,
} from '../pipeline';

const packages = (count: number, prefix = 'pkg') => Array.from({ length: count }, (_, i): [string, string] => [`${prefix}-${i}`, '1.0.0']);
const stub = (t: DataTenant) => projectStub(env, t.projectId) as any;
const reportStatus = (t: DataTenant, surveyId: string, body: unknown, token = t.pass) => api(`${P(t.projectId)}/survey/${surveyId}/status`, { token, body });

/** Sets fields of a step's lease inside the project object (a lease "lapses" without waiting a minute). */
async function setLease(t: DataTenant, stepId: string, fields: string) {
  await runInDurableObject(projectStub(env, t.projectId), (_instance, state) => {
    state.storage.sql.exec(`UPDATE step_leases SET ${fields} WHERE step_id = ?`, stepId);
  });
}

describe('the analysis comes in bounded steps (issue 7)', () => {
  it('reports its progress on the job stream while it reads the bundle', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    const message = await uploaded(t, survey, sbom('progress-app', packages(1600)));
    const stream = await api(`${P(t.projectId)}/v1/job/stream`, { token: t.token, headers: { accept: 'text/event-stream' } });
    const reading = readEvents(stream, (e) => e.updates.some((u) => u.id === survey.surveyId && u.status === 'COMPLETED'), 10_000);
    await deliver(message);
    const progress = (await reading).updates.filter((u) => u.id === survey.analyzeStepId && u.status === 'RUNNING').map((u) => u.progress);
    const partial = progress.filter((p) => p > 0 && p < 100);
    expect(partial.length).toBeGreaterThanOrEqual(2);
    expect(partial).toEqual([...partial].sort((a, b) => a - b));
  });

  it('readers see the previous contents until the new analysis finishes, then only the new ones', async () => {
    const t = await dataTenant();
    const first = await analysed(t, sbom('flip-app', packages(3)));
    const second = await startSurvey(t);
    const message = await uploaded(t, second, sbom('flip-app', packages(5, 'next')));
    const start = await stub(t).beginAnalysis({ surveyId: second.surveyId, bundleId: message.bundleId, blobKey: message.blobKey });
    const items = packages(5, 'next').map(([name, version]) => ({ kind: 'component', source: 'bom.json', component: { name, version, purl: `pkg:npm/${name}@${version}` } }));
    expect(await stub(t).stageContents({ surveyId: second.surveyId, attempt: start.attempt, rows: (items as FoundItem[]).map(serializedRow), progress: 50 })).toBe(true);
    const during = await contentsOf(t.projectId, 'flip-app');
    expect(during.total).toBe(3);
    expect(during.items.every((i) => i.survey_id === first.surveyId)).toBe(true);

    await stub(t).finishAnalysis({ surveyId: second.surveyId, attempt: start.attempt, subject: 'flip-app', metadata: {}, partial: false });
    const after = await contentsOf(t.projectId, 'flip-app');
    expect(after.items.map((i) => i.name)).toEqual(['next-0', 'next-1', 'next-2', 'next-3', 'next-4']);
    expect(after.items.every((i) => i.survey_id === second.surveyId)).toBe(true);
    // The first survey's rows are the alarm's to delete, after the answer.
    await drainPurges(t.projectId);
    expect(await storedRowCount(t.projectId, first.surveyId)).toBe(0);
  });

  it('deletes the replaced contents in bounded slices, driven by the object\'s alarm', async () => {
    const t = await dataTenant();
    const first = await analysed(t, sbom('slices-app', packages(PURGE_SLICE_ROWS + 500)));
    await analysed(t, sbom('slices-app', packages(2, 'small')));
    // No one drives it: the alarm rings again after each slice until nothing is left.
    await vi.waitFor(async () => expect(await storedRowCount(t.projectId, first.surveyId)).toBe(0), { timeout: 10_000, interval: 50 });
    expect((await contentsOf(t.projectId, 'slices-app')).total).toBe(2);
  });

  it('one slice deletes at most the rows it is given, and keeps the rest queued', async () => {
    const t = await dataTenant();
    await runInDurableObject(projectStub(env, t.projectId), (_instance, storage) => {
      const state = { db: drizzle(storage.storage), sql: storage.storage.sql, wakeSoon: () => undefined } as unknown as ProjectState;
      const count = () => storage.storage.sql.exec("SELECT count(*) AS n FROM contents WHERE survey_id = 's'").one().n;
      for (let i = 0; i < 250; i++) storage.storage.sql.exec("INSERT INTO contents VALUES ('s', 1, 'component', ?, NULL, 'x', NULL, '{}')", `k${i}`);
      queuePurge(state, 's', 1, '*');
      expect(purgeSlice(state, 100)).toBe(true);
      expect(count()).toBe(150);
      expect(purgeSlice(state, 100)).toBe(true);
      expect(purgeSlice(state, 100)).toBe(false);
      expect(count()).toBe(0);
      expect(storage.storage.sql.exec('SELECT count(*) AS n FROM content_purges').one().n).toBe(0);
    });
  });
});

describe('a survey completes only when the service\'s work did (issue 7)', () => {
  it('a pass reporting on the analysis step is refused with 400 naming the step; nothing changes', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    for (const status of ['RUNNING', 'COMPLETED', 'FAILED']) {
      const body = await expectError(await reportStatus(t, survey.surveyId, { subJobId: survey.analyzeStepId, status }), 400, 'invalid_request');
      expect(body.error).toMatch(/analyze step is run by the service/);
    }
    expect(analyzeStep(await getJob(t, survey.surveyId))).toMatchObject({ status: 'PENDING', progress: 0 });
  });

  it('an upload step reported COMPLETED without an analysis leaves the survey RUNNING', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    expect((await reportStatus(t, survey.surveyId, { subJobId: survey.uploadStepId, status: 'COMPLETED' })).status).toBe(204);
    expect(await getJob(t, survey.surveyId)).toMatchObject({ status: 'RUNNING' });
  });

  it('progress may be any number from 0 to 100, on the step status and on upload progress', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    expect((await reportStatus(t, survey.surveyId, { subJobId: survey.uploadStepId, status: 'RUNNING', progress: 12.5 })).status).toBe(204);
    expect((await getJob(t, survey.uploadStepId)).progress).toBe(12.5);
    expect((await api(`${P(t.projectId)}/bundle/upload/progress`, { method: 'PUT', token: t.pass, body: { jobId: survey.surveyId, progress: 33.25 } })).status).toBe(200);
    expect((await getJob(t, survey.uploadStepId)).progress).toBe(33.25);
    await expectError(await reportStatus(t, survey.surveyId, { subJobId: survey.uploadStepId, status: 'RUNNING', progress: 100.5 }), 400, 'invalid_request');
  });
});

describe('an interrupted analysis recovers (issue 7: leases)', () => {
  /** A survey whose analysis began (attempt 1) and stored one batch, then its consumer died. */
  async function interrupted(t: DataTenant, subject: string, count: number) {
    const survey = await startSurvey(t);
    const message = await uploaded(t, survey, sbom(subject, packages(count)));
    const start = await stub(t).beginAnalysis({ surveyId: survey.surveyId, bundleId: message.bundleId, blobKey: message.blobKey });
    expect(start).toMatchObject({ run: true, attempt: 1 });
    const items = packages(count).slice(0, 2).map(([name, version]) => ({ kind: 'component', source: 'bom.json', component: { name, version, purl: `pkg:npm/${name}@${version}` } }));
    expect(await stub(t).stageContents({ surveyId: survey.surveyId, attempt: 1, rows: (items as FoundItem[]).map(serializedRow) })).toBe(true);
    return { survey, message };
  }

  it('a duplicate delivery while a live attempt holds the lease is acked and changes nothing', async () => {
    const t = await dataTenant();
    const { survey, message } = await interrupted(t, 'busy-app', 3);
    const { id, result } = await deliver(message, { attempts: 1 });
    expect(result.explicitAcks).toEqual([id]);
    expect(analyzeStep(await getJob(t, survey.surveyId))).toMatchObject({ status: 'RUNNING', metadata: { attempt: 1 } });
  });

  it('when the lease lapses the alarm sends the work again; the survey completes with no duplicate rows, and the old attempt can write nothing', async () => {
    const t = await dataTenant();
    const { survey } = await interrupted(t, 'lapsed-app', 4);
    await setLease(t, survey.analyzeStepId, 'expires_at = 0');
    expect(await runDurableObjectAlarm(projectStub(env, t.projectId))).toBe(true);
    // The real analysis queue delivers the message the alarm sent.
    await vi.waitFor(async () => expect((await getJob(t, survey.surveyId)).status).toBe('COMPLETED'), { timeout: 10_000, interval: 100 });
    const step = analyzeStep(await getJob(t, survey.surveyId));
    expect(step).toMatchObject({ status: 'COMPLETED', metadata: { attempt: 2, resends: 1, stored: { components: 4 } } });
    expect((await contentsOf(t.projectId, 'lapsed-app')).total).toBe(4);
    // The first attempt lost its lease: it can neither store nor finish.
    expect(await stub(t).stageContents({ surveyId: survey.surveyId, attempt: 1, rows: [] })).toBe(false);
    expect(await stub(t).finishAnalysis({ surveyId: survey.surveyId, attempt: 1, subject: 'lapsed-app', metadata: {}, partial: false })).toEqual({ completed: false });
    await drainPurges(t.projectId);
    expect(await storedRowCount(t.projectId, survey.surveyId)).toBe(4);
  });

  it('queued work whose message was lost is sent again when its lease lapses', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    const message = await uploaded(t, survey, sbom('lost-app', packages(2)));
    await runInDurableObject(projectStub(env, t.projectId), async (_instance, state) => {
      state.storage.sql.exec('INSERT INTO step_leases (step_id, survey_id, holder, expires_at, message, counts) VALUES (?, ?, NULL, 0, ?, ?)',
        survey.analyzeStepId, survey.surveyId, JSON.stringify(message), '{}');
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    await runDurableObjectAlarm(projectStub(env, t.projectId));
    await vi.waitFor(async () => expect((await getJob(t, survey.surveyId)).status).toBe('COMPLETED'), { timeout: 10_000, interval: 100 });
    expect((await contentsOf(t.projectId, 'lost-app')).total).toBe(2);
  });

  it(`after ${MAX_ANALYSIS_STARTS} starts the step fails with class interrupted`, async () => {
    const t = await dataTenant();
    const { survey } = await interrupted(t, 'doomed-app', 2);
    await setLease(t, survey.analyzeStepId, `expires_at = 0, attempts = ${MAX_ANALYSIS_STARTS}`);
    await runDurableObjectAlarm(projectStub(env, t.projectId));
    const job = await getJob(t, survey.surveyId);
    expect(job).toMatchObject({ status: 'FAILED', failure_class: 'interrupted' });
    expect(analyzeStep(job)).toMatchObject({ status: 'FAILED', failure_class: 'interrupted', message: expect.stringMatching(/started 5 times/) });
    const { runs } = await json(await api(`${P(t.projectId)}/v1/data-health/run`, { token: t.token }));
    expect(runs.find((r: { id: string }) => r.id === survey.surveyId)).toMatchObject({ outcome: 'failed', failure_class: 'interrupted' });
    await drainPurges(t.projectId);
    expect(await storedRowCount(t.projectId, survey.surveyId)).toBe(0);
  });
});

describe('job list, activity and request details (issue 7)', () => {
  it('jobType names surveys: their analysis steps (of the same type) are listed only with topLevel=false', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    const list = (query: string) => api(`${P(t.projectId)}/v1/job?${query}`, { token: t.token }).then(json);
    const surveys = await list('jobType=INVENTORY_SURVEY');
    expect(surveys.jobs.map((j: { id: string }) => j.id)).toEqual([survey.surveyId]);
    expect(surveys.pagination.total).toBe(1);
    const steps = await list('jobType=INVENTORY_SURVEY&topLevel=false');
    expect(steps.jobs.map((j: { id: string }) => j.id).sort()).toEqual([survey.surveyId, survey.analyzeStepId].sort());
    expect(steps.pagination.total).toBe(2);
  });

  it('starting a survey writes survey.started once; a repeat of the key writes nothing', async () => {
    const t = await dataTenant();
    const key = crypto.randomUUID();
    const survey = await startSurvey(t, { tag: 'v1' }, key);
    await startSurvey(t, { tag: 'v1' }, key);
    const { results } = await env.DB.prepare("SELECT data FROM activity WHERE project_id = ? AND action = 'survey.started'").bind(t.projectId).all<{ data: string }>();
    expect(results.map((r) => JSON.parse(r.data))).toEqual([{ surveyId: survey.surveyId, jobType: 'INVENTORY_SURVEY', tag: 'v1' }]);
  });

  it('regenerate: Content-Type application/json with an empty body is a request without a body (reports only)', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, sbom('empty-body-app', packages(2)));
    const res = await api(`${P(t.projectId)}/v1/survey/${survey.surveyId}/regenerate`, {
      method: 'POST', token: t.token, headers: { 'idempotency-key': crypto.randomUUID(), 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    const fresh = await getJob(t, (await json(res)).parent_id);
    expect(analyzeStep(fresh)).toMatchObject({ status: 'SKIPPED' });
  });

  it('create upload pass: Content-Type application/json with an empty body gets the defaults', async () => {
    const t = await dataTenant();
    const res = await api(`${P(t.projectId)}/credential/spice-pass`, { method: 'POST', token: t.token, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    const pass = await json(res);
    expect(Date.parse(pass.expiresAt) - Date.parse(pass.createdAt)).toBe(14 * 86_400_000);
  });
});

describe('rules nobody checked before (issue 7)', () => {
  it('regenerate survey needs project:edit: admin, member and an API token holding it 201; viewer and a custom role 403; a pass 401', async () => {
    const m = await roleMatrix(['project:view', 'org:view']);
    const t = { projectId: m.tenant.projectId, token: m.tenant.token, pass: m.tokens.uploadPass };
    await import('../data-plane').then(({ provisioned }) => provisioned(t.projectId));
    const survey = await analysed(t, sbom('matrix-app', packages(1)));
    const regenerate = (token: string) => api(`${P(t.projectId)}/v1/survey/${survey.surveyId}/regenerate`, { method: 'POST', token, headers: { 'idempotency-key': crypto.randomUUID() } });
    for (const role of ['admin', 'member', 'apiToken'] as const) expect((await regenerate(m.tokens[role])).status).toBe(201);
    for (const role of ['viewer', 'custom'] as const) await expectError(await regenerate(m.tokens[role]), 403, 'permission_denied', { permission: 'project:edit' });
    await expectError(await regenerate(m.tokens.uploadPass), 401, 'unauthorized');
  });

  it('the status report accepts an upload pass only: a session or an API token is 401', async () => {
    const m = await roleMatrix();
    await import('../data-plane').then(({ provisioned }) => provisioned(m.tenant.projectId));
    const t = { projectId: m.tenant.projectId, token: m.tenant.token, pass: m.tokens.uploadPass };
    const survey = await startSurvey(t);
    for (const role of ['admin', 'apiToken'] as const) {
      await expectError(await reportStatus(t, survey.surveyId, { subJobId: survey.uploadStepId, status: 'RUNNING' }, m.tokens[role]), 401, 'unauthorized');
    }
    expect((await reportStatus(t, survey.surveyId, { subJobId: survey.uploadStepId, status: 'RUNNING' })).status).toBe(204);
  });

  it('get job and the job stream need project:view', async () => {
    const m = await roleMatrix(['project:portfolio:view', 'org:view']);
    await import('../data-plane').then(({ provisioned }) => provisioned(m.tenant.projectId));
    const t = { projectId: m.tenant.projectId, token: m.tenant.token, pass: m.tokens.uploadPass };
    const survey = await startSurvey(t);
    const stream = (token: string) => api(`${P(t.projectId)}/v1/job/stream`, { token, headers: { accept: 'text/event-stream' } });
    await expectError(await api(`${P(t.projectId)}/v1/job/${survey.surveyId}`, { token: m.tokens.custom }), 403, 'permission_denied', { permission: 'project:view' });
    await expectError(await stream(m.tokens.custom), 403, 'permission_denied', { permission: 'project:view' });
    expect((await api(`${P(t.projectId)}/v1/job/${survey.surveyId}`, { token: m.tokens.viewer })).status).toBe(200);
    const open = await stream(m.tokens.viewer);
    expect(open.status).toBe(200);
    await open.body?.cancel();
  });

  it('restoring a survey that is not deleted answers it unchanged and records nothing', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    const res = await api(`${P(t.projectId)}/v1/survey/${survey.surveyId}/restore`, { method: 'POST', token: t.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: survey.surveyId, deleted_at: null });
    const entries = await env.DB.prepare("SELECT count(*) AS n FROM activity WHERE project_id = ? AND action = 'survey.restored'").bind(t.projectId).first<{ n: number }>();
    expect(entries!.n).toBe(0);
  });

  it('jobs, bundles and data-health runs are paged 1000 at a time when no limit is given', async () => {
    const t = await dataTenant();
    await runInDurableObject(projectStub(env, t.projectId), (_instance, state) => {
      const db = drizzle(state.storage);
      for (let i = 0; i < 1001; i++) {
        const { survey } = createSurvey(db as never, { jobType: 'INVENTORY_SURVEY' });
        db.insert(healthRuns).values({ id: survey.id, surveyType: survey.type, status: 'PENDING', createdAt: survey.createdAt }).run();
        db.insert(bundles).values({ id: crypto.randomUUID(), sha256: '0'.repeat(64), sizeBytes: 1, mimeType: 'application/json', blobKey: `k${i}`, surveyId: survey.id, uploadedAt: nowIso() }).run();
      }
    });
    for (const [path, field] of [['/v1/job', 'jobs'], ['/v1/bundle', 'bundles'], ['/v1/data-health/run', 'runs']] as const) {
      const page = await json(await api(`${P(t.projectId)}${path}`, { token: t.token }));
      expect({ path, returned: page[field].length, hasMore: page.pagination.hasMore }).toEqual({ path, returned: 1000, hasMore: true });
    }
  });
});
