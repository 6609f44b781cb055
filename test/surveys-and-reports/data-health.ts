/// <reference types="vite/client" />
// Data health (spec 4.12): one run per survey, the per-subject summary, reference resolution;
// permissions, paging and isolation. Runs are produced by the real pipeline (test/pipeline.ts).
import { describe, expect, it } from 'vitest';
import { api, expectError, json, newTenant } from '../helpers';
import { dataTenant, provisioned } from '../data-plane';
import { roleMatrix, type MatrixRole } from '../people';
import { analysed, P, sbom, startSurvey, tarGz, type DataTenant } from '../pipeline';

import nginxPass from '../fixtures/cbom/pkic-cbom__nginx-pass.cbom.json?raw';

const runs = async (t: { projectId: string; token: string }, query = '') => {
  const res = await api(`${P(t.projectId)}/v1/data-health/run${query}`, { token: t.token });
  expect(res.status).toBe(200);
  return json(res);
};
const ids = (page: { runs: { id: string }[] }) => page.runs.map((r) => r.id);
const resolve = (t: { projectId: string; token: string }, ref?: string) =>
  api(`${P(t.projectId)}/v1/data-health/resolve${ref === undefined ? '' : `?ref=${encodeURIComponent(ref)}`}`, { token: t.token });
const deleteSurvey = async (t: DataTenant, surveyId: string) =>
  expect((await api(`${P(t.projectId)}/v1/survey/${surveyId}`, { method: 'DELETE', token: t.token })).status).toBe(200);
const notCycloneDx = JSON.stringify({ spdxVersion: 'SPDX-2.3', bomFormat: 'SPDX', packages: [] });

describe('runs: one per survey (spec 4.12, part 2 "Data health")', () => {
  it('is created when the survey starts and follows it to its end', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t, { tag: 'nightly', jsonTags: { ci_run_id: 'gh-99' } });
    const [pending] = (await runs(t)).runs;
    expect(pending).toEqual({
      id: survey.surveyId, subject: null, survey_type: 'INVENTORY_SURVEY', status: 'PENDING', outcome: null, failure_class: null,
      ci_run_id: 'gh-99', tag: 'nightly', created_at: expect.any(String), finished_at: null, deleted_at: null,
      completeness: { components: null, crypto_assets: null, observations: null, previous_run_id: null, previous_components: null, previous_crypto_assets: null, previous_observations: null, ratio: null },
    });
    const done = await analysed(t, nginxPass, { tag: 'nightly' });
    const [latest] = (await runs(t)).runs;
    expect(latest).toMatchObject({
      id: done.surveyId, subject: 'nginx', status: 'COMPLETED', outcome: 'complete', finished_at: expect.any(String),
      completeness: { components: 2, crypto_assets: 9, observations: 0, previous_run_id: null, ratio: null },
    });
  });

  it('a survey whose upload failed is a failed run', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t, { target: 'web' });
    const res = await api(`${P(t.projectId)}/survey/${survey.surveyId}/status`, { token: t.pass, body: { subJobId: survey.uploadStepId, status: 'FAILED', message: 'disk full' } });
    expect(res.status).toBe(204);
    expect((await runs(t)).runs[0]).toMatchObject({ id: survey.surveyId, subject: 'web', status: 'FAILED', outcome: 'failed' });
  });

  it('a run that skipped parts of its bundle is partial', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, await tarGz({ 'a.json': nginxPass, 'notes.json': '{"hello": "world"}' }));
    expect((await runs(t)).runs[0]).toMatchObject({ id: survey.surveyId, status: 'COMPLETED', outcome: 'partial' });
  });

  it('completeness compares with the subject\'s previous completed run of the same kind', async () => {
    const t = await dataTenant();
    const packages = Array.from({ length: 8 }, (_, i): [string, string] => [`p${i}`, '1.0.0']);
    const first = await analysed(t, sbom('api', packages.slice(0, 4)));
    await analysed(t, notCycloneDx, { target: 'api' });
    const third = await analysed(t, sbom('api', packages));
    const run = (await runs(t)).runs.find((r: { id: string }) => r.id === third.surveyId);
    expect(run.completeness).toMatchObject({ components: 8, previous_run_id: first.surveyId, previous_components: 4, ratio: 2 });
  });
});

describe('run query (spec 4.12 rule 2)', () => {
  let t: DataTenant;
  const made: Record<string, string> = {};
  it('sets up runs of two subjects, one failed, one deleted', async () => {
    t = await dataTenant();
    made.a1 = (await analysed(t, sbom('alpha', [['x', '1']]))).surveyId;
    made.b1 = (await analysed(t, sbom('beta', [['y', '1']]))).surveyId;
    made.a2 = (await analysed(t, notCycloneDx, { target: 'alpha' })).surveyId;
    made.b2 = (await analysed(t, sbom('beta', [['y', '2']]))).surveyId;
    made.a3 = (await analysed(t, sbom('alpha', [['x', '2']]))).surveyId;
    await deleteSurvey(t, made.b2);
    expect(ids(await runs(t))).toEqual([made.a3, made.a2, made.b1, made.a1]);
  });

  it('subject: only runs of this subject', async () => {
    expect(ids(await runs(t, '?subject=alpha'))).toEqual([made.a3, made.a2, made.a1]);
    expect(ids(await runs(t, '?subject=gamma'))).toEqual([]);
  });

  it('status: one status, any case', async () => {
    expect(ids(await runs(t, '?status=failed'))).toEqual([made.a2]);
    expect(ids(await runs(t, '?status=Completed&subject=beta'))).toEqual([made.b1]);
  });

  it('showDeleted: runs of deleted surveys only when true', async () => {
    const all = await runs(t, '?showDeleted=true&subject=beta');
    expect(ids(all)).toEqual([made.b2, made.b1]);
    expect(all.runs[0].deleted_at).toEqual(expect.any(String));
  });

  it('limit, sortDir and the after/before cursors page through every run', async () => {
    const first = await runs(t, '?limit=2');
    expect(ids(first)).toEqual([made.a3, made.a2]);
    expect(first.pagination).toEqual({ firstId: made.a3, lastId: made.a2, hasMore: true, total: 4 });
    const second = await runs(t, `?limit=2&after=${first.pagination.lastId}`);
    expect(ids(second)).toEqual([made.b1, made.a1]);
    expect(second.pagination).toMatchObject({ hasMore: false, total: 4 });
    const back = await runs(t, `?limit=1&before=${second.pagination.firstId}`);
    expect(ids(back)).toEqual([made.a2]);
    expect(back.pagination.hasMore).toBe(true);
    expect(ids(await runs(t, '?sortDir=asc'))).toEqual([made.a1, made.b1, made.a2, made.a3]);
    expect(ids(await runs(t, `?sortDir=asc&after=${made.b1}`))).toEqual([made.a2, made.a3]);
  });

  it('answers 400 invalid_parameter naming a bad filter, limit, sortDir or cursor', async () => {
    const bad: [string, string][] = [
      ['?limit=0', 'limit'], ['?limit=10001', 'limit'], ['?limit=ten', 'limit'], ['?status=DONE', 'status'], ['?status=FAILED,COMPLETED', 'status'],
      ['?sortDir=up', 'sortDir'], ['?showDeleted=yes', 'showDeleted'], ['?after=not-an-id', 'after'], [`?after=${crypto.randomUUID()}`, 'after'],
      [`?before=${crypto.randomUUID()}`, 'before'], [`?after=${made.a1}&before=${made.a3}`, 'before'], ['?subject=', 'subject'],
    ];
    for (const [query, parameter] of bad) {
      await expectError(await api(`${P(t.projectId)}/v1/data-health/run${query}`, { token: t.token }), 400, 'invalid_parameter', { parameter });
    }
  });
});

describe('summary: one row per subject', () => {
  it('says when each subject was last analysed, its evidence, its latest outcome and completeness', async () => {
    const t = await dataTenant();
    const packages: [string, string][] = [['a', '1'], ['b', '1']];
    const inventory = await analysed(t, sbom('orders', packages));
    const observation = JSON.stringify({ algorithm: 'AES', keySize: 256, library: 'jca' });
    const runtime = await analysed(t, await tarGz({ 'runtime/jca.jsonl': observation }), { jobType: 'RUNTIME_SURVEY', target: 'orders' });
    await analysed(t, sbom('billing', packages));
    const failed = await analysed(t, notCycloneDx, { target: 'billing' });
    const deleted = await analysed(t, sbom('legacy', packages));
    await deleteSurvey(t, deleted.surveyId);
    await startSurvey(t, { target: 'orders' });

    const res = await api(`${P(t.projectId)}/v1/data-health/summary`, { token: t.token });
    expect(res.status).toBe(200);
    const summary = await json(res);
    expect(summary.generated_at).toEqual(expect.any(String));
    expect(summary.subjects.map((s: { subject: string }) => s.subject)).toEqual(['billing', 'orders']);
    const [billing, orders] = summary.subjects;
    expect(orders).toMatchObject({
      subject: 'orders', evidence: ['inventory', 'runtime'], latest_outcome: 'complete', latest_run_id: runtime.surveyId, latest_status: 'COMPLETED',
      last_analyzed_at: expect.any(String), completeness: { observations: 1, previous_run_id: null },
    });
    const runtimeRun = (await runs(t)).runs.find((r: { id: string }) => r.id === runtime.surveyId);
    expect(orders.last_analyzed_at).toBe(runtimeRun.finished_at);
    expect(billing).toMatchObject({ evidence: ['inventory'], latest_outcome: 'failed', latest_run_id: failed.surveyId, latest_status: 'FAILED' });
    expect(inventory.surveyId).not.toBe(orders.latest_run_id);
  });
});

describe('resolve (spec 4.12 rule 1)', () => {
  let t: DataTenant;
  let tagged: Awaited<ReturnType<typeof analysed>>;
  let pending: Awaited<ReturnType<typeof startSurvey>>;
  it('sets up runs with tags and CI run ids', async () => {
    t = await dataTenant();
    tagged = await analysed(t, nginxPass, { tag: 'release-1', jsonTags: { ci_run_id: 'ci-1' } });
    pending = await startSurvey(t, { tag: 'ci-1', jsonTags: { ci_run_id: 'ci-2' } });
  });

  const resolved = async (ref: string) => {
    const res = await resolve(t, ref);
    expect(res.status).toBe(200);
    return json(res);
  };
  const link = (runId: string) => `/projects/${t.projectId}/data-health/runs/${runId}`;

  it('a run id', async () => {
    expect(await resolved(tagged.surveyId)).toEqual({ kind: 'run', matched: 'run_id', run_id: tagged.surveyId, deep_link: link(tagged.surveyId) });
  });

  it('a step id', async () => {
    expect(await resolved(tagged.analyzeStepId)).toEqual({
      kind: 'step', matched: 'step_id', run_id: tagged.surveyId, step_id: tagged.analyzeStepId, deep_link: `${link(tagged.surveyId)}?step=${tagged.analyzeStepId}`,
    });
  });

  it('an upload id', async () => {
    expect(await resolved(tagged.message.uploadId)).toMatchObject({ kind: 'run', matched: 'upload_id', run_id: tagged.surveyId });
  });

  it('an idempotency key (the survey start\'s)', async () => {
    expect(await resolved(pending.idempotencyKey)).toEqual({ kind: 'run', matched: 'idempotency_key', run_id: pending.surveyId, deep_link: link(pending.surveyId) });
  });

  it('a tag: the subject its runs found', async () => {
    expect(await resolved('release-1')).toEqual({ kind: 'subject', matched: 'tag', subject: 'nginx', deep_link: `/projects/${t.projectId}/data-health/subjects/nginx` });
  });

  it('a CI run id', async () => {
    expect(await resolved('ci-2')).toMatchObject({ kind: 'run', matched: 'ci_run_id', run_id: pending.surveyId });
  });

  it('a ref matching two kinds resolves to the earlier in the order', async () => {
    // "ci-1" is the CI run id of one run and the tag of another (which has no subject yet): tag wins.
    expect(await resolved('ci-1')).toEqual({ kind: 'run', matched: 'tag', run_id: pending.surveyId, deep_link: link(pending.surveyId) });
    // An idempotency key that is also a tag: the key wins.
    const keyed = await startSurvey(t, { tag: pending.idempotencyKey });
    expect(await resolved(pending.idempotencyKey)).toMatchObject({ matched: 'idempotency_key', run_id: pending.surveyId });
    expect(keyed.surveyId).not.toBe(pending.surveyId);
  });

  it('answers 400 when ref is missing or blank, 404 when nothing matches', async () => {
    await expectError(await resolve(t), 400, 'invalid_parameter', { parameter: 'ref' });
    await expectError(await resolve(t, '   '), 400, 'invalid_parameter', { parameter: 'ref' });
    await expectError(await resolve(t, 'no-such-thing'), 404, 'not_found');
    await expectError(await resolve(t, crypto.randomUUID()), 404, 'not_found');
  });
});

describe('access', () => {
  const paths = ['/v1/data-health/run', '/v1/data-health/summary', `/v1/data-health/resolve?ref=x`];

  it('requires project:portfolio:view: its holders 200 (404 for an unmatched ref), a custom role without it 403, a pass 401', async () => {
    const matrix = await roleMatrix(['project:view', 'org:view']);
    await provisioned(matrix.tenant.projectId);
    const expected: Record<MatrixRole, number> = { admin: 200, member: 200, viewer: 200, apiToken: 200, custom: 403, uploadPass: 401 };
    for (const path of paths) {
      for (const [role, status] of Object.entries(expected) as [MatrixRole, number][]) {
        const res = await api(`${P(matrix.tenant.projectId)}${path}`, { token: matrix.tokens[role] });
        const want = status === 200 && path.includes('resolve') ? 404 : status;
        expect({ path, role, status: res.status }).toEqual({ path, role, status: want });
        if (status === 403) await expectError(res, 403, 'permission_denied', { permission: 'project:portfolio:view' });
        if (status === 401) await expectError(res, 401, 'unauthorized');
      }
    }
  });

  it('answers 404 for runs and summary (portfolios are not set up yet) and 503 provisioning for resolve while the project\'s storage is not set up', async () => {
    // The first call starts the set-up (which then completes on its own): one new project per operation.
    for (const path of paths) {
      const tenant = await newTenant();
      const res = await api(`${P(tenant.projectId)}${path}`, { token: tenant.token });
      if (path.includes('resolve')) await expectError(res, 503, 'provisioning');
      else expect((await expectError(res, 404, 'not_found')).error).toMatch(/not set up/);
    }
  });

  it('keeps projects apart: another tenant gets 403 on the path, 404 for ids of another project, never its runs', async () => {
    const a = await dataTenant('alice');
    const b = await dataTenant('bob');
    const run = await analysed(a, nginxPass, { tag: 'secret-tag' });
    for (const path of paths) await expectError(await api(`${P(a.projectId)}${path}`, { token: b.token }), 403, 'forbidden');
    await expectError(await resolve(b, run.surveyId), 404, 'not_found');
    await expectError(await resolve(b, 'secret-tag'), 404, 'not_found');
    expect((await runs(b)).runs).toEqual([]);
    expect((await json(await api(`${P(b.projectId)}/v1/data-health/summary`, { token: b.token }))).subjects).toEqual([]);
  });
});

describe('OpenAPI document', () => {
  it('lists the three operations with their named schemas and error statuses', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const base = '/api/v1/project/{projectId}/v1/data-health';
    expect(Object.keys(doc.paths[`${base}/run`].get.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '503']));
    expect(Object.keys(doc.paths[`${base}/resolve`].get.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(doc.paths[`${base}/summary`].get['x-permissions']).toEqual(['project:portfolio:view']);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['DataHealthRun', 'DataHealthRunPage', 'DataHealthSummary', 'DataHealthResolve', 'DataHealthCompleteness']));
  });
});
