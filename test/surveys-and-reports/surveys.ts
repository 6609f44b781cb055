// Surveys and jobs (spec 4.8, 4.9, part 6) through the Worker and the project Durable Object.
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, describe, expect, it } from 'vitest';
import { projectStub } from '../../src/project/client';
import { api, expectError, json, newTenant } from '../helpers';
import { dataTenant as newDataTenant } from '../data-plane';
import { letScoringFinish } from '../pipeline';
import { uploadPass } from '../people';

// Each new project's built-in portfolio is scored on the real queue: that finishes before the file ends.
const tenants: { projectId: string }[] = [];
const dataTenant = async () => {
  const t = await newDataTenant();
  tenants.push(t);
  return t;
};
afterAll(() => letScoringFinish(tenants));

const P = (projectId: string) => `/api/v1/project/${projectId}`;
const start = (t: { projectId: string; pass: string }, body: unknown = { jobType: 'INVENTORY_SURVEY' }, key = crypto.randomUUID()) =>
  api(`${P(t.projectId)}/survey`, { token: t.pass, body, headers: { 'idempotency-key': key } });

describe('provisioning (INSTANCE_STARTUP)', () => {
  it('answers 503 provisioning until the project\'s storage is set up, with an INSTANCE_STARTUP job', async () => {
    const tenant = await newTenant();
    const pass = await uploadPass(tenant);
    const first = await start({ projectId: tenant.projectId, pass });
    await expectError(first, 503, 'provisioning');
    expect(first.headers.get('retry-after')).toBe('2');
    await runDurableObjectAlarm(projectStub(env, tenant.projectId));
    expect((await start({ projectId: tenant.projectId, pass })).status).toBe(201);
    const jobs = await json(await api(`${P(tenant.projectId)}/v1/job?jobType=instance_startup`, { token: tenant.token }));
    expect(jobs.jobs).toEqual([expect.objectContaining({ type: 'INSTANCE_STARTUP', status: 'COMPLETED' })]);
  });
});

describe('start survey (spec 4.8 rule 1)', () => {
  it('creates a PENDING survey with its upload, analyze and report steps', async () => {
    const t = await dataTenant();
    const res = await start(t, { jobType: 'INVENTORY_SURVEY', tag: 'v1.2', target: 'shop', jsonTags: { ci_run_id: '42' }, notes: 'n' });
    expect(res.status).toBe(201);
    const answer = await json(res);
    expect(answer).toEqual({ parent_id: expect.any(String), submission_timestamp: expect.any(String), sub_job_ids: { upload: expect.any(String), analyze: expect.any(String), 'pqc-inventory': expect.any(String), cbom: expect.any(String), composition: expect.any(String) } });
    const job = await json(await api(`${P(t.projectId)}/v1/job/${answer.parent_id}`, { token: t.token }));
    expect(job).toMatchObject({ id: answer.parent_id, type: 'INVENTORY_SURVEY', status: 'PENDING', tag: 'v1.2', target: 'shop', deleted_at: null, supersedes: null });
    expect(job.steps.map((s: { step_label: string; status: string }) => [s.step_label, s.status])).toEqual([
      ['upload', 'PENDING'], ['analyze', 'PENDING'], ['pqc-inventory', 'PENDING'], ['cbom', 'PENDING'], ['composition', 'PENDING'],
    ]);
    expect(job.steps.filter((s: { step_type: string }) => s.step_type === 'REPORT').map((s: { type: string }) => s.type)).toEqual(['REPORT', 'REPORT', 'REPORT']);
  });

  it('returns the same parent_id for a repeat with the same key, also for concurrent repeats', async () => {
    const t = await dataTenant();
    const key = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 5 }, () => start(t, undefined, key).then(json)));
    expect(new Set(answers.map((a) => a.parent_id)).size).toBe(1);
    const later = await json(await start(t, undefined, key));
    expect(later.parent_id).toBe(answers[0].parent_id);
    const all = await json(await api(`${P(t.projectId)}/v1/job?topLevel=true&jobType=INVENTORY_SURVEY`, { token: t.token }));
    expect(all.pagination.total).toBe(1);
  });

  it('answers 400 for an unknown jobType and a missing key header', async () => {
    const t = await dataTenant();
    await expectError(await start(t, { jobType: 'REPORT' }), 400, 'invalid_request');
    const noKey = await api(`${P(t.projectId)}/survey`, { token: t.pass, body: { jobType: 'INVENTORY_SURVEY' } });
    await expectError(noKey, 400, 'invalid_parameter', { parameter: 'idempotency-key' });
  });

  it('accepts only an upload pass (401 for a session)', async () => {
    const t = await dataTenant();
    await expectError(await api(`${P(t.projectId)}/survey`, { token: t.token, body: { jobType: 'INVENTORY_SURVEY' }, headers: { 'idempotency-key': 'k' } }), 401, 'unauthorized');
  });
});
