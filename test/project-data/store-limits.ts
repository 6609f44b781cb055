// Limits a plausible customer reaches (issue 22, docs/scaling.md), each tested with a lowered limit:
// a project object whose SQLite reached PROJECT_STORE_MAX_BYTES starts no new surveys (409
// `storage_full`, naming the limit and what frees space) and the retention purge of deleted surveys
// frees it; a bundle over MAX_BUNDLE_BYTES is refused at upload start (400 naming the limit).
import { createExecutionContext, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, describe, expect, it } from 'vitest';
import { app } from '../../src/app';
import type { Env } from '../../src/env';
import { projectStub } from '../../src/project/client';
import { eraseExpiredSurveys } from '../../src/project/erasure';
import type { ProjectState } from '../../src/project/project-object';
import { api, expectError, json } from '../helpers';
import { dataTenant } from '../data-plane';
import { analysed, getJob, letRendersFinish, letScoringFinish, P, renderDocuments, sbom, settleScoring } from '../pipeline';
import { challenge, initBody, sha256Hex } from '../upload-client';

const DAY = 86_400_000;
const tenants: { projectId: string; token: string }[] = [];

afterAll(async () => {
  await letRendersFinish(tenants);
  await letScoringFinish(tenants);
}, 60_000);

/** Calls the Worker as `api` does, with other settings (a lowered limit). */
function withSettings(settings: Partial<Env>, path: string, options: { token: string; body?: unknown; headers?: Record<string, string>; method?: string }) {
  const headers = new Headers({ authorization: `Bearer ${options.token}`, ...options.headers });
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers.set('content-type', 'application/json');
  }
  const init = { method: options.method ?? (body ? 'POST' : 'GET'), headers, body };
  return app.request(`http://localhost${path}`, init, { ...env, ...settings }, createExecutionContext());
}

const inObject = <R>(projectId: string, body: (state: ProjectState, storage: DurableObjectStorage) => R | Promise<R>) =>
  runInDurableObject(projectStub(env, projectId), (instance, state) => body((instance as unknown as { state(): ProjectState }).state(), state.storage));
const storeSize = (projectId: string) => inObject(projectId, (_s, storage) => storage.sql.databaseSize);
const entryCount = (projectId: string, reportIds: string[]) => inObject(projectId, (_s, storage) =>
  storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM report_entries WHERE report_id IN (SELECT value FROM json_each(?))', JSON.stringify(reportIds)).one().n);
const reportIdsOf = (job: { steps: { step_type: string; id: string }[] }) => job.steps.filter((s) => s.step_type === 'REPORT').map((s) => s.id);
/** A CBOM of `n` RSA keys of distinct sizes: each gives a report entry in the pqc-inventory and the cbom report. */
const cbomOf = (subject: string, n: number) => JSON.stringify({
  bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: subject } },
  components: Array.from({ length: n }, (_, i) => ({
    type: 'cryptographic-asset', 'bom-ref': `${subject}-rsa-${i}`, name: `RSA-${1024 + i}`,
    cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'pke', parameterSetIdentifier: String(1024 + i) } },
  })),
});

describe('a project object near its size limit starts no new surveys (issue 22)', () => {
  it('answers 409 storage_full naming the limit and what frees space, at survey start, upload start and regenerate; the retention purge frees it', async () => {
    const t = await dataTenant('store-limit');
    tenants.push(t);
    const gone = await analysed(t, cbomOf('store-gone', 1200));
    const kept = await analysed(t, cbomOf('store-kept', 5));
    await renderDocuments(t);
    await settleScoring(t);
    const full = { PROJECT_STORE_MAX_BYTES: String(await storeSize(t.projectId)) };

    const start = await withSettings(full, `${P(t.projectId)}/survey`, { token: t.pass, body: { jobType: 'INVENTORY_SURVEY' }, headers: { 'idempotency-key': crypto.randomUUID() } });
    const refused = await expectError(start, 409, 'storage_full');
    expect(refused.error).toMatch(/has reached its limit of 0\.\d+ GB \(PROJECT_STORE_MAX_BYTES; one project holds at most 10 GB\)/);
    expect(refused.error).toMatch(/Delete the surveys you no longer need/);
    expect(refused.error).toMatch(/retention period \(90 days\) has passed since the deletion/);

    const bytes = new TextEncoder().encode(sbom('store-new', [['left-pad', '1.3.0']]));
    await expectError(await withSettings(full, `${P(t.projectId)}/bundle/upload/init`, { token: t.pass, body: await initBody(t, bytes), headers: { 'idempotency-key': crypto.randomUUID() } }), 409, 'storage_full');
    await expectError(await withSettings(full, `${P(t.projectId)}/v1/survey/${kept.surveyId}/regenerate`, { token: t.token, method: 'POST', headers: { 'idempotency-key': crypto.randomUUID() } }), 409, 'storage_full');
    const [keptReport] = reportIdsOf(await getJob(t, kept.surveyId));
    await expectError(await withSettings(full, `${P(t.projectId)}/v1/report/${keptReport}/regenerate`, { token: t.token, method: 'POST' }), 409, 'storage_full');
    // An upload into a survey that already exists is not a new survey, and the default limit (9 GB) has room.
    expect((await api(`${P(t.projectId)}/survey`, { token: t.pass, body: { jobType: 'INVENTORY_SURVEY' }, headers: { 'idempotency-key': crypto.randomUUID() } })).status).toBe(201);

    // Deleting frees nothing until the retention ends; then the purge erases the reports' entries, a slice per ring.
    const goneReports = reportIdsOf(await getJob(t, gone.surveyId));
    const summaries = await Promise.all(goneReports.map(async (id) => json(await api(`${P(t.projectId)}/v1/report/${id}/summary`, { token: t.token }))));
    const listedIn = (summary: { sections: { name: string; kind: string; total?: number }[] }) => summary.sections.find((s) => s.kind === 'list' && s.total)?.name;
    const goneReport = summaries.find(listedIn)!;
    const listed = listedIn(goneReport)!;
    const reads = [`section/${listed}`, 'search?query=rsa'];
    for (const path of reads) expect((await api(`${P(t.projectId)}/v1/report/${goneReport.report_id}/${path}`, { token: t.token })).status).toBe(200);
    const entriesBefore = await entryCount(t.projectId, goneReports);
    expect(entriesBefore).toBeGreaterThan(2_000);
    expect((await api(`${P(t.projectId)}/v1/survey/${gone.surveyId}`, { method: 'DELETE', token: t.token })).status).toBe(200);
    expect(await entryCount(t.projectId, goneReports)).toBe(entriesBefore);
    const after = Date.now() + 91 * DAY;
    expect(await inObject(t.projectId, (state) => eraseExpiredSurveys(state, after))).toBe(after + 5);
    expect(await entryCount(t.projectId, goneReports)).toBeLessThan(entriesBefore);
    let next: number | null = after + 5;
    for (let ring = 0; next !== null && ring < 20; ring++) next = await inObject(t.projectId, (state) => eraseExpiredSurveys(state, after));
    expect(next).toBeNull();
    expect(await entryCount(t.projectId, goneReports)).toBe(0);
    expect(await storeSize(t.projectId)).toBeLessThan(Number(full.PROJECT_STORE_MAX_BYTES));

    // The erased report answers 404 where it read its entries; the kept survey's reports are whole.
    for (const path of reads) {
      const res = await api(`${P(t.projectId)}/v1/report/${goneReport.report_id}/${path}`, { token: t.token });
      expect((await expectError(res, 404, 'not_found')).error).toMatch(/data was removed/);
    }
    expect(await entryCount(t.projectId, reportIdsOf(await getJob(t, kept.surveyId)))).toBeGreaterThan(0);

    // With the same limit there is room again.
    const again = await withSettings(full, `${P(t.projectId)}/survey`, { token: t.pass, body: { jobType: 'INVENTORY_SURVEY' }, headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(again.status).toBe(201);
    // It waits for the real render queue's renderings of 1,200-entry reports: more than the default 20 s on a busy machine.
  }, 60_000);
});

describe('a bundle over MAX_BUNDLE_BYTES is refused at upload start (issue 22)', () => {
  it('answers 400 naming the limit before anything is stored; a bundle of exactly the limit is accepted', async () => {
    const t = await dataTenant('bundle-limit');
    tenants.push(t);
    const bytes = new TextEncoder().encode(sbom('bundle-limit', [['left-pad', '1.3.0']]));
    const limit = { MAX_BUNDLE_BYTES: String(bytes.length - 1) };
    const sha256 = await sha256Hex(bytes);
    const jobsBefore = (await json(await api(`${P(t.projectId)}/v1/job?jobType=INVENTORY_SURVEY`, { token: t.token }))).jobs.length;
    const res = await withSettings(limit, `${P(t.projectId)}/bundle/upload/init`, { token: t.pass, body: await initBody(t, bytes), headers: { 'idempotency-key': crypto.randomUUID() } });
    const refused = await expectError(res, 400, 'invalid_request');
    expect(refused.error).toBe(`The bundle is ${bytes.length} bytes; the largest accepted is ${bytes.length - 1} bytes (MAX_BUNDLE_BYTES).`);
    expect((await json(await api(`${P(t.projectId)}/v1/job?jobType=INVENTORY_SURVEY`, { token: t.token }))).jobs.length).toBe(jobsBefore);
    expect((await env.BUNDLES.list({ prefix: `projects/${t.projectId}/bundles/` })).objects).toEqual([]);
    // The runtime settings tell clients the same limit.
    const settings = await json(await withSettings(limit, `${P(t.projectId)}/bundle/upload/runtime-config`, { token: t.pass }));
    expect(settings.upload.maxBundleBytes).toBe(bytes.length - 1);

    const exact = { MAX_BUNDLE_BYTES: String(bytes.length) };
    const body = { sha256, sizeBytes: bytes.length, encryptedChallenge: await challenge(t.pass, { sha256, sizeBytes: bytes.length }) };
    expect((await withSettings(exact, `${P(t.projectId)}/bundle/upload/init`, { token: t.pass, body, headers: { 'idempotency-key': crypto.randomUUID() } })).status).toBe(200);
  });
});
