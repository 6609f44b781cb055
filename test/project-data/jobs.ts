// Jobs (spec 4.9), the job stream (part 6), step status and regenerate (4.8 rules 2-3), and how the
// project object's failures reach callers.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/lib/errors';
import { JobHub } from '../../src/project/events';
import { fromRpcFailure, isRpcFailure, platformError, rpcFailure } from '../../src/project/errors';
import { api, expectError, json, newTenant } from '../helpers';
import { dataTenant, readEvents } from '../data-plane';
import { roleMatrix, type MatrixRole } from '../people';

type DataTenant = Awaited<ReturnType<typeof dataTenant>>;
const P = (projectId: string) => `/api/v1/project/${projectId}`;

async function startSurvey(t: DataTenant, body: Record<string, unknown> = { jobType: 'INVENTORY_SURVEY' }) {
  const res = await api(`${P(t.projectId)}/survey`, { token: t.pass, body, headers: { 'idempotency-key': crypto.randomUUID() } });
  expect(res.status).toBe(201);
  return json<{ parent_id: string; sub_job_ids: { upload: string; analyze: string } }>(res);
}

const listJobs = (t: { projectId: string; token: string }, query = '') => api(`${P(t.projectId)}/v1/job${query ? `?${query}` : ''}`, { token: t.token });

const reportStatus = (t: DataTenant, surveyId: string, body: unknown, headers: Record<string, string> = {}) =>
  api(`${P(t.projectId)}/survey/${surveyId}/status`, { token: t.pass, body, headers });

describe('list jobs (spec 4.9 rule 1)', () => {
  it('lists newest first by default with pagination, and oldest first with sortDir=asc', async () => {
    const t = await dataTenant();
    const a = await startSurvey(t);
    const b = await startSurvey(t);
    const page = await json(await listJobs(t, 'topLevel=true&jobType=inventory_survey'));
    expect(page.jobs.map((j: { id: string }) => j.id)).toEqual([b.parent_id, a.parent_id]);
    expect(page.pagination).toEqual({ firstId: b.parent_id, lastId: a.parent_id, hasMore: false, total: 2 });
    const asc = await json(await listJobs(t, 'topLevel=true&jobType=INVENTORY_SURVEY&sortDir=asc'));
    expect(asc.jobs.map((j: { id: string }) => j.id)).toEqual([a.parent_id, b.parent_id]);
  });

  it('without topLevel lists steps as their own rows; with it one row per survey with its steps', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    const flat = await json(await listJobs(t, 'jobType=UPLOAD,INVENTORY_SURVEY&topLevel=false'));
    expect(flat.jobs.map((j: { id: string }) => j.id).sort()).toEqual([s.parent_id, s.sub_job_ids.upload, s.sub_job_ids.analyze].sort());
    const analyze = flat.jobs.find((j: { id: string }) => j.id === s.sub_job_ids.analyze);
    expect(analyze).toMatchObject({ type: 'INVENTORY_SURVEY', step_type: 'ANALYZE', parent_id: s.parent_id });
    const top = await json(await listJobs(t, 'topLevel=true&jobType=INVENTORY_SURVEY'));
    expect(top.jobs[0].steps.map((x: { step_label: string }) => x.step_label)).toEqual(['upload', 'analyze', 'pqc-inventory', 'cbom', 'composition']);
  });

  it('filters by one status, any case', async () => {
    const t = await dataTenant();
    await startSurvey(t);
    expect((await json(await listJobs(t, 'status=pending&topLevel=true'))).pagination.total).toBe(1);
    expect((await json(await listJobs(t, 'status=COMPLETED&jobType=INVENTORY_SURVEY'))).pagination.total).toBe(0);
  });

  it('pages with after and before cursors, keeping hasMore and total', async () => {
    const t = await dataTenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await startSurvey(t)).parent_id);
    const newest = [...ids].reverse();
    const q = 'topLevel=true&jobType=INVENTORY_SURVEY&limit=2';
    const first = await json(await listJobs(t, q));
    expect(first.jobs.map((j: { id: string }) => j.id)).toEqual(newest.slice(0, 2));
    expect(first.pagination).toMatchObject({ hasMore: true, total: 5 });
    const second = await json(await listJobs(t, `${q}&after=${first.pagination.lastId}`));
    expect(second.jobs.map((j: { id: string }) => j.id)).toEqual(newest.slice(2, 4));
    const third = await json(await listJobs(t, `${q}&after=${second.pagination.lastId}`));
    expect(third.jobs.map((j: { id: string }) => j.id)).toEqual(newest.slice(4));
    expect(third.pagination.hasMore).toBe(false);
    const back = await json(await listJobs(t, `${q}&before=${third.pagination.firstId}`));
    expect(back.jobs.map((j: { id: string }) => j.id)).toEqual(newest.slice(2, 4));
    expect(back.pagination.hasMore).toBe(true);
  });

  it('answers 400 invalid_parameter for each bad value', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    const cases: [string, string][] = [
      ['jobType=NOPE', 'jobType'], ['status=PENDING,RUNNING', 'status'], ['status=done', 'status'], ['sortBy=status', 'sortBy'],
      ['sortDir=up', 'sortDir'], ['limit=0', 'limit'], ['limit=10001', 'limit'], ['limit=abc', 'limit'], ['after=not-a-uuid', 'after'],
      [`after=${crypto.randomUUID()}`, 'after'], [`after=${s.parent_id}&before=${s.parent_id}`, 'before'], ['topLevel=maybe', 'topLevel'],
    ];
    for (const [query, parameter] of cases) await expectError(await listJobs(t, query), 400, 'invalid_parameter', { parameter });
  });
});

describe('get job (spec 4.9 rule 2)', () => {
  it('answers a step with its type and label, and 404 for an unknown id', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    const step = await json(await api(`${P(t.projectId)}/v1/job/${s.sub_job_ids.analyze}`, { token: t.token }));
    expect(step).toMatchObject({ id: s.sub_job_ids.analyze, type: 'INVENTORY_SURVEY', step_type: 'ANALYZE', step_label: 'analyze', parent_id: s.parent_id });
    expect(step.steps).toBeUndefined();
    await expectError(await api(`${P(t.projectId)}/v1/job/${crypto.randomUUID()}`, { token: t.token }), 404, 'not_found');
  });
});

describe('report step status (spec 4.8 rule 2)', () => {
  it('merges status, progress, message and metadata onto the step, and the survey follows', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    expect((await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'RUNNING', progress: 40, message: 'sending', metadata: { a: 1 } })).status).toBe(204);
    expect((await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'RUNNING', metadata: { b: 2 }, analyzeStats: { files: 3 } })).status).toBe(204);
    const survey = await json(await api(`${P(t.projectId)}/v1/job/${s.parent_id}`, { token: t.token }));
    expect(survey.status).toBe('RUNNING');
    expect(survey.steps[0]).toMatchObject({ status: 'RUNNING', progress: 40, message: 'sending', metadata: { a: 1, b: 2, analyzeStats: { files: 3 } } });
    await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'FAILED', message: 'broken input' });
    const failed = await json(await api(`${P(t.projectId)}/v1/job/${s.parent_id}`, { token: t.token }));
    expect(failed).toMatchObject({ status: 'FAILED', message: 'broken input' });
  });

  it('answers 400 for a step of another survey, an unknown status, analyzeStats twice; 404 for an unknown survey', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    const other = await startSurvey(t);
    await expectError(await reportStatus(t, s.parent_id, { subJobId: other.sub_job_ids.upload, status: 'RUNNING' }), 400, 'invalid_request');
    await expectError(await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'DONE' }), 400, 'invalid_request');
    await expectError(await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'RUNNING', analyzeStats: {}, metadata: { analyzeStats: {} } }), 400, 'invalid_request');
    await expectError(await reportStatus(t, crypto.randomUUID(), { subJobId: s.sub_job_ids.upload, status: 'RUNNING' }), 404, 'not_found');
  });

  it('answers 400 for metadata too large or too deeply nested to store', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    const big = { blob: 'x'.repeat(70 * 1024) };
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) deep = { d: deep };
    await expectError(await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'RUNNING', metadata: big }), 400, 'invalid_request');
    await expectError(await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'RUNNING', analyzeStats: deep }), 400, 'invalid_request');
    const tags = await api(`${P(t.projectId)}/survey`, { token: t.pass, body: { jobType: 'INVENTORY_SURVEY', jsonTags: big }, headers: { 'idempotency-key': crypto.randomUUID() } });
    await expectError(tags, 400, 'invalid_request');
    // Many reports cannot grow a step past what a row holds.
    for (let i = 0; i < 4; i++) {
      expect((await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'RUNNING', metadata: { [`k${i}`]: 'y'.repeat(60 * 1024) } })).status).toBe(204);
    }
    await expectError(await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'RUNNING', metadata: { k9: 'y'.repeat(60 * 1024) } }), 400, 'invalid_request');
  });

  it('answers 409 conflict when a finished step would change state', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'COMPLETED' });
    await expectError(await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'RUNNING' }), 409, 'conflict');
  });

  it('with an Idempotency-Key a repeat is answered without applying twice', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    const key = { 'idempotency-key': crypto.randomUUID() };
    expect((await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'COMPLETED' }, key)).status).toBe(204);
    expect((await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'COMPLETED' }, key)).status).toBe(204);
  });
});

describe('regenerate survey (spec 4.8 rule 3)', () => {
  it('answers 400 when the survey has no completed upload or the job is not a survey, 404 when unknown', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    const regenerate = (id: string) => api(`${P(t.projectId)}/v1/survey/${id}/regenerate`, { method: 'POST', token: t.token, headers: { 'idempotency-key': crypto.randomUUID() } });
    await expectError(await regenerate(s.parent_id), 400, 'invalid_request');
    await expectError(await regenerate(s.sub_job_ids.upload), 400, 'invalid_request');
    await expectError(await regenerate(crypto.randomUUID()), 404, 'not_found');
    const noKey = await api(`${P(t.projectId)}/v1/survey/${s.parent_id}/regenerate`, { method: 'POST', token: t.token });
    await expectError(noKey, 400, 'invalid_parameter', { parameter: 'idempotency-key' });
  });
});

describe('delete and restore a survey (spec 4.9 rules 5-6, part 3)', () => {
  it('hides a deleted survey and its steps from the default list; still readable by id and with showDeleted', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    const deleted = await json(await api(`${P(t.projectId)}/v1/survey/${s.parent_id}`, { method: 'DELETE', token: t.token }));
    expect(deleted.deleted_at).toEqual(expect.any(String));
    expect((await json(await listJobs(t, 'jobType=INVENTORY_SURVEY,UPLOAD&topLevel=false'))).pagination.total).toBe(0);
    expect((await json(await listJobs(t, 'jobType=INVENTORY_SURVEY,UPLOAD&topLevel=false&showDeleted=true'))).pagination.total).toBe(3);
    expect((await json(await api(`${P(t.projectId)}/v1/job/${s.parent_id}`, { token: t.token }))).deleted_at).toBe(deleted.deleted_at);
    const again = await json(await api(`${P(t.projectId)}/v1/survey/${s.parent_id}`, { method: 'DELETE', token: t.token }));
    expect(again.deleted_at).toBe(deleted.deleted_at);
    // Deleting again changed nothing, so it recorded nothing.
    const entries = await env.DB.prepare("SELECT count(*) AS n FROM activity WHERE project_id = ? AND action = 'survey.deleted'").bind(t.projectId).first<{ n: number }>();
    expect(entries!.n).toBe(1);
    const restored = await json(await api(`${P(t.projectId)}/v1/survey/${s.parent_id}/restore`, { method: 'POST', token: t.token }));
    expect(restored.deleted_at).toBeNull();
    expect((await json(await listJobs(t, 'jobType=INVENTORY_SURVEY&topLevel=true'))).pagination.total).toBe(1);
  });

  it('answers 400 for a step or another job type and 404 for an unknown id', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    await expectError(await api(`${P(t.projectId)}/v1/survey/${s.sub_job_ids.upload}`, { method: 'DELETE', token: t.token }), 400, 'invalid_request');
    await expectError(await api(`${P(t.projectId)}/v1/survey/${s.sub_job_ids.upload}/restore`, { method: 'POST', token: t.token }), 400, 'invalid_request');
    await expectError(await api(`${P(t.projectId)}/v1/survey/${crypto.randomUUID()}`, { method: 'DELETE', token: t.token }), 404, 'not_found');
  });

  it('restore needs project:admin; delete needs project:edit', async () => {
    const m = await roleMatrix(['project:view', 'project:edit', 'org:view']);
    const t = { ...m.tenant, pass: m.tokens.uploadPass } as DataTenant;
    await import('../data-plane').then(({ provisioned }) => provisioned(t.projectId));
    const s = await startSurvey(t);
    const expected: Record<MatrixRole, [number, number]> = {
      admin: [200, 200], member: [200, 403], viewer: [403, 403], custom: [200, 403], apiToken: [200, 403], uploadPass: [401, 401],
    };
    for (const role of Object.keys(expected) as MatrixRole[]) {
      const del = await api(`${P(t.projectId)}/v1/survey/${s.parent_id}`, { method: 'DELETE', token: m.tokens[role] });
      const res = await api(`${P(t.projectId)}/v1/survey/${s.parent_id}/restore`, { method: 'POST', token: m.tokens[role] });
      expect([role, del.status, res.status]).toEqual([role, ...expected[role]]);
    }
  });
});

describe('the job stream (spec part 6, 4.9 rule 3)', () => {
  it('opens with the comment connected and sends job-update events in the get-job shape on every change', async () => {
    const t = await dataTenant();
    const res = await api(`${P(t.projectId)}/v1/job/stream`, { token: t.token, headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reading = readEvents(res, (e) => e.updates.some((u) => u.steps?.[0]?.status === 'COMPLETED'));
    const s = await startSurvey(t);
    await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'COMPLETED' });
    const events = await reading;
    expect(events.comments[0]).toBe('connected');
    const survey = events.updates.filter((u) => u.id === s.parent_id);
    expect(survey[0]).toMatchObject({ status: 'PENDING' });
    expect(survey[0].steps.map((x: { step_label: string }) => x.step_label)).toEqual(['upload', 'analyze', 'pqc-inventory', 'cbom', 'composition']);
    expect(survey.at(-1)).toMatchObject({ status: 'RUNNING' });
    // In order: the step's own update comes before the survey update it caused.
    const stepDone = events.updates.findIndex((u) => u.id === s.sub_job_ids.upload && u.status === 'COMPLETED');
    const surveyAfter = events.updates.findIndex((u, i) => i > stepDone && u.id === s.parent_id);
    expect(stepDone).toBeGreaterThanOrEqual(0);
    expect(surveyAfter).toBeGreaterThan(stepDone);
  });

  it('fans every change out to every open stream of the project, and to none of another project', async () => {
    const t = await dataTenant();
    const other = await dataTenant('other');
    const open = (x: DataTenant) => api(`${P(x.projectId)}/v1/job/stream`, { token: x.token, headers: { accept: 'text/event-stream' } });
    const [one, two, elsewhere] = await Promise.all([open(t), open(t), open(other)]);
    const until = (e: { updates: any[] }) => e.updates.some((u) => u.type === 'INVENTORY_SURVEY' && !u.parent_id);
    const reading = Promise.all([readEvents(one, until), readEvents(two, until), readEvents(elsewhere, until, 1500)]);
    const s = await startSurvey(t);
    const [a, b, c] = await reading;
    for (const events of [a, b]) expect(events.updates.some((u) => u.id === s.parent_id)).toBe(true);
    expect(c.comments[0]).toBe('connected');
    expect(c.updates).toEqual([]);
  });

  it('sends heartbeat comments and closes the stream when its lifetime ends (timings shortened)', async () => {
    const hub = new JobHub({ heartbeatMs: 20, lifetimeMs: 150 });
    const started = Date.now();
    const events = await readEvents(hub.open({ accepts: () => true }), () => false, 2000);
    expect(events.comments[0]).toBe('connected');
    expect(events.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(3);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(hub.size).toBe(0);
  });

  it('answers 406 without an acceptable Accept header', async () => {
    const t = await dataTenant();
    await expectError(await api(`${P(t.projectId)}/v1/job/stream`, { token: t.token, headers: { accept: 'application/json' } }), 406, 'not_acceptable');
  });

  it('gives the upload pass its survey\'s own stream: current state first, closed once finished', async () => {
    const t = await dataTenant();
    const s = await startSurvey(t);
    const res = await api(`${P(t.projectId)}/survey/${s.parent_id}/events`, { token: t.pass, headers: { accept: 'text/event-stream' } });
    // Read until the stream ends (it closes once the survey finished); the cap only stops a stream that never does.
    const opened = Date.now();
    const reading = readEvents(res, () => false, 20_000);
    await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'RUNNING' });
    await reportStatus(t, s.parent_id, { subJobId: s.sub_job_ids.upload, status: 'FAILED', message: 'the client gave up' });
    const events = await reading;
    expect(Date.now() - opened).toBeLessThan(19_000);
    expect(events.updates[0]).toMatchObject({ id: s.parent_id, status: 'PENDING' });
    expect(events.updates.at(-1)).toMatchObject({ id: s.parent_id, status: 'FAILED' });
    expect(events.updates.every((u) => u.id === s.parent_id || u.parent_id === s.parent_id)).toBe(true);
  }, 30_000);
});

describe('isolation and permissions', () => {
  it('a pass or token of project A can do nothing in project B', async () => {
    const a = await dataTenant('a');
    const b = await dataTenant('b');
    const sb = await startSurvey(b);
    await expectError(await api(`${P(b.projectId)}/survey`, { token: a.pass, body: { jobType: 'INVENTORY_SURVEY' }, headers: { 'idempotency-key': 'x' } }), 403, 'forbidden');
    await expectError(await api(`${P(b.projectId)}/survey/${sb.parent_id}/events`, { token: a.pass }), 403, 'forbidden');
    await expectError(await api(`${P(b.projectId)}/v1/job/${sb.parent_id}`, { token: a.token }), 403, 'forbidden');
    // Ids of B named through A's own project path are unknown there.
    await expectError(await api(`${P(a.projectId)}/v1/job/${sb.parent_id}`, { token: a.token }), 404, 'not_found');
    await expectError(await reportStatus(a, sb.parent_id, { subJobId: sb.sub_job_ids.upload, status: 'RUNNING' }), 404, 'not_found');
  });

  it('job reads need project:view: a custom role without it is refused, an upload pass is 401', async () => {
    const m = await roleMatrix(['org:view']);
    await import('../data-plane').then(({ provisioned }) => provisioned(m.tenant.projectId));
    await expectError(await api(`${P(m.tenant.projectId)}/v1/job`, { token: m.tokens.custom }), 403, 'permission_denied', { permission: 'project:view' });
    await expectError(await api(`${P(m.tenant.projectId)}/v1/job`, { token: m.tokens.uploadPass }), 401, 'unauthorized');
    for (const role of ['admin', 'member', 'viewer', 'apiToken'] as const) expect((await api(`${P(m.tenant.projectId)}/v1/job`, { token: m.tokens[role] })).status).toBe(200);
  });
});

describe('failures of the project object (spec part 7: 502 or 503, never 500)', () => {
  it('carries an ApiError across RPC unchanged (as a structured-clonable value)', () => {
    const original = new ApiError('invalid_parameter', 'bad', { parameter: 'limit' });
    const carried = structuredClone(rpcFailure(original));
    expect(isRpcFailure(carried)).toBe(true);
    expect(isRpcFailure({ jobs: [] })).toBe(false);
    const decoded = fromRpcFailure(carried);
    expect({ code: decoded?.code, message: decoded?.message, parameter: decoded?.options.parameter }).toEqual({ code: 'invalid_parameter', message: 'bad', parameter: 'limit' });
  });

  it('maps an overloaded object to try_again, a connection lost part way to bad_gateway (issue 19), another unreachable one to unavailable', () => {
    expect(platformError(Object.assign(new Error('Durable Object is overloaded. Too many requests queued.'), { overloaded: true }))?.code).toBe('try_again');
    expect(platformError(Object.assign(new Error('Network connection lost.'), { retryable: true }))?.code).toBe('bad_gateway');
    expect(platformError(new Error('Durable Object reset because its code was updated.'))?.code).toBe('bad_gateway');
    expect(platformError(Object.assign(new Error('Internal error.'), { retryable: true }))?.code).toBe('unavailable');
    expect(platformError(new Error('TypeError: x is undefined'))).toBeNull();
  });

  it('answers 503 provisioning (never 500) for a project whose storage was never set up', async () => {
    const t = await newTenant();
    await expectError(await listJobs(t), 503, 'provisioning');
  });
});
