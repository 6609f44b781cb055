// Survey reports (issue 8; spec 4.8, 4.10): the REPORT steps of a survey, their figures, and every
// read operation, over real bundles analysed by the real consumer, with OSV records in real D1.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { importRecords } from '../../src/vulndb/import';
import { projectStub } from '../../src/project/client';
import { changeJob, createSurvey } from '../../src/project/jobs';
import type { OsvRecord } from '../../src/analysis/vulns/osv-types';
import log4shell from '../../vulndb/starter/GHSA-jfh8-c2jp-5v3q.json';
import kafka from '../fixtures/cbom/ibm-cbomkit__kafka-cbom.json?raw';
import { api, expectError, json } from '../helpers';
import { addPerson } from '../people';
import { dataTenant } from '../data-plane';
import { validateCycloneDx } from '../cyclonedx-schema';
import { analysed, buildReports, deliver, getJob, letRendersFinish, log4j, mavenSbom, P, tarGz } from '../pipeline';

type T = Awaited<ReturnType<typeof dataTenant>>;

const reportOf = (survey: any, label: string) => survey.steps.find((s: any) => s.step_label === label);

async function get(t: T, path: string) {
  return api(`${P(t.projectId)}/v1/report${path}`, { token: t.token });
}

let t: T;
let first: any;
let second: any;
let cbom: any;

beforeAll(async () => {
  await importRecords(env.DB, [log4shell as unknown as OsvRecord], 'test');
  t = await dataTenant('reports');
  // The subject's first survey: one vulnerable log4j, one out of range, one unknown package.
  const a = await analysed(t, mavenSbom('shop', [log4j('2.14.1'), log4j('2.17.1'), ['com.example', 'other', '1.0.0']]));
  first = await getJob(t, a.surveyId);
  // Its second survey: a further vulnerable version (2.3.1 is fixed; 2.0 is not).
  const b = await analysed(t, mavenSbom('shop', [log4j('2.14.1'), log4j('2.0')]));
  second = await getJob(t, b.surveyId);
  const c = await analysed(t, kafka, { target: 'kafka' });
  cbom = await getJob(t, c.surveyId);
});

describe('an inventory survey runs upload, analyze and three REPORT steps (issue 8)', () => {
  it('completes when all three reports do, each step carrying its figures', () => {
    expect(first.status).toBe('COMPLETED');
    expect(first.steps.map((s: any) => [s.step_type, s.step_label, s.status])).toEqual([
      ['UPLOAD', 'upload', 'COMPLETED'], ['ANALYZE', 'analyze', 'COMPLETED'],
      ['REPORT', 'pqc-inventory', 'COMPLETED'], ['REPORT', 'cbom', 'COMPLETED'], ['REPORT', 'composition', 'COMPLETED'],
    ]);
    const composition = reportOf(first, 'composition').metadata.figures;
    expect(composition).toMatchObject({ components: 3, vulnerable_components: 1, advisories: 1, fixable: 1, severities: { critical: 1, high: 0 } });
    expect(composition.changes).toMatchObject({ previous_survey_id: null, new: { critical: 1 } });
  });

  it('says what changed since the subject\'s previous survey', () => {
    const changes = reportOf(second, 'composition').metadata.figures.changes;
    expect(changes).toMatchObject({ previous_survey_id: first.id, new: { critical: 1, high: 0 }, gone: { critical: 0 } });
  });

  it('a CBOM gives pqc-inventory entries in its sections, counted on the step', () => {
    const figures = reportOf(cbom, 'pqc-inventory').metadata.figures;
    const total = Object.values(figures.sections as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(total).toBe(11);
    expect(figures.sections.red).toBeGreaterThan(0);
    expect(figures.cnsa2.approved + figures.cnsa2.not_approved).toBe(11);
    expect(reportOf(cbom, 'cbom').metadata.figures.asset_types).toMatchObject({ algorithm: 7, 'related-crypto-material': 4 });
  });

  it('a runtime survey produces pqc-inventory and cbom, entries counting observed uses', async () => {
    const lines = [
      JSON.stringify({ algorithm: 'RSA', keySize: 2048, protocol: 'TLS', library: 'openssl', count: 40 }),
      JSON.stringify({ algorithm: 'RSA', keySize: 2048, protocol: 'TLS', library: 'openssl', count: 2 }),
      JSON.stringify({ algorithm: 'AES-256-GCM', library: 'openssl', count: 7 }),
    ].join('\n');
    const bundle = await tarGz({ 'manifest.json': JSON.stringify({ subject: 'shop-runtime' }), 'runtime/tls.jsonl': lines });
    const run = await analysed(t, bundle, { jobType: 'RUNTIME_SURVEY' });
    const job = await getJob(t, run.surveyId);
    expect(job.status).toBe('COMPLETED');
    expect(job.steps.filter((s: any) => s.step_type === 'REPORT').map((s: any) => s.step_label)).toEqual(['pqc-inventory', 'cbom']);
    const red = await json(await get(t, `/${reportOf(job, 'pqc-inventory').id}/section/red`));
    expect(red.entries).toHaveLength(1);
    expect(red.entries[0]).toMatchObject({ observed: 42, section: 'red' });
  });
});

describe('report reads (spec 4.10)', () => {
  it('summary: headline figures, source survey, produced time, sections', async () => {
    const id = reportOf(first, 'composition').id;
    const summary = await json(await get(t, `/${id}/summary`));
    expect(summary).toMatchObject({
      report_id: id, type: 'composition', subject: 'shop', survey: { id: first.id, type: 'INVENTORY_SURVEY' },
      headline: { vulnerable_components: 1, severities: { critical: 1 } },
    });
    expect(summary.sections.map((s: any) => s.name)).toEqual(['overview', 'critical', 'high', 'medium', 'low', 'unknown']);
    expect(Date.parse(summary.produced_at)).not.toBeNaN();
  });

  it('section: a page with the total in pagination; a non-list section whole', async () => {
    const id = reportOf(second, 'composition').id;
    const page = await json(await get(t, `/${id}/section/critical?limit=1`));
    expect(page.entries).toHaveLength(1);
    expect(page.pagination).toMatchObject({ total: 2, hasMore: true });
    expect(page.entries[0]).toMatchObject({ advisory_id: 'GHSA-jfh8-c2jp-5v3q', aliases: ['CVE-2021-44228'], section: 'critical' });
    const next = await json(await get(t, `/${id}/section/critical?offset=1&limit=1`));
    expect(next.pagination).toMatchObject({ total: 2, hasMore: false });
    expect(next.entries[0].key).not.toBe(page.entries[0].key);
    const overview = await json(await get(t, `/${id}/section/overview`));
    expect(overview).toMatchObject({ vulnerable_components: 2, advisories: 1 });
    expect(overview.entries).toBeUndefined();
  });

  it('the fix version is the smallest outside every matching range', async () => {
    const page = await json(await get(t, `/${reportOf(second, 'composition').id}/section/critical`));
    const byVersion = Object.fromEntries(page.entries.map((e: any) => [e.version, e.fix_version]));
    expect(byVersion).toEqual({ '2.14.1': '2.15.0', '2.0': '2.3.1' });
  });

  it('search: package URL, name or explanation, any case, marked with the section', async () => {
    const id = reportOf(second, 'composition').id;
    const matches = await json(await get(t, `/${id}/search?query=LOG4J-CORE%402.0`));
    expect(matches).toHaveLength(1);
    expect(matches[0]).toMatchObject({ section: 'critical', version: '2.0' });
    // The explanation names the CVE.
    expect(await json(await get(t, `/${id}/search?query=cve-2021-44228`))).toHaveLength(2);
    expect(await json(await get(t, `/${id}/search?query=no-such-thing`))).toHaveLength(0);
    expect(await json(await get(t, `/${id}/search?query=%25`))).toHaveLength(0);
  });

  it('compare: added, removed, moved and unchanged, finding by finding', async () => {
    const from = reportOf(first, 'composition').id;
    const to = reportOf(second, 'composition').id;
    const comparison = await json(await get(t, `/compare?from=${from}&to=${to}`));
    expect(comparison.added.map((e: any) => e.purl)).toEqual(['pkg:maven/org.apache.logging.log4j/log4j-core@2.0']);
    expect(comparison.removed).toEqual([]);
    expect(comparison.moved).toEqual([]);
    expect(comparison.unchanged).toBe(1);
  });

  it('the full report and the json export are CycloneDX 1.6 documents that validate against the official schema', async () => {
    for (const survey of [second, cbom]) {
      for (const label of ['cbom', 'composition']) {
        const res = await get(t, `/${reportOf(survey, label).id}`);
        expect(res.status).toBe(200);
        const document = await json(res);
        expect(document).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
        validateCycloneDx(document);
      }
    }
    const composition = await json(await get(t, `/${reportOf(second, 'composition').id}/export/json`));
    expect(composition.data.components).toHaveLength(2);
    // Each component as the analysis stored it: its type and group (read from the stored row) with its columns.
    const purl = (version: string) => `pkg:maven/org.apache.logging.log4j/log4j-core@${version}`;
    expect(composition.data.components).toEqual(['2.0', '2.14.1'].map((version) => ({
      type: 'library', 'bom-ref': `component:${purl(version)}`, group: 'org.apache.logging.log4j', name: 'log4j-core', version, purl: purl(version),
    })));
    expect(composition.data.vulnerabilities).toHaveLength(1);
    expect(composition.data.vulnerabilities[0]).toMatchObject({ id: 'GHSA-jfh8-c2jp-5v3q', ratings: [{ severity: 'critical', score: 10 }] });
    expect(composition.data.vulnerabilities[0].affects).toHaveLength(2);
  });

  it('export list has json; provenance names report, survey, bundle, and input versions', async () => {
    const id = reportOf(first, 'pqc-inventory').id;
    // `json` always, first; the rendered formats join as their render jobs finish (test/report-documents/documents.ts).
    const { formats } = await json(await get(t, `/${id}/export`));
    expect(formats[0]).toBe('json');
    expect(['json', 'pdf', 'xlsx', 'pptx', 'html', 'csv'].filter((f) => formats.includes(f))).toEqual(formats);
    const provenance = await json(await get(t, `/${id}/export/json/provenance`));
    expect(provenance).toMatchObject({
      format: 'json', report: { id, type: 'pqc-inventory', subject: 'shop' }, survey: { id: first.id },
      bundle: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      versions: { analysis: expect.any(String), classification: expect.any(String), vulnerability_data: expect.any(Object) },
    });
  });

  it('400 and 404 as 4.10 says', async () => {
    const id = reportOf(first, 'composition').id;
    await expectError(await get(t, '/not-a-uuid/summary'), 400, 'invalid_parameter');
    await expectError(await get(t, '/not-a-uuid'), 400, 'invalid_parameter');
    await expectError(await get(t, `/${crypto.randomUUID()}/summary`), 404, 'not_found');
    await expectError(await get(t, `/${crypto.randomUUID()}`), 404, 'not_found');
    await expectError(await get(t, `/${first.id}/summary`), 404, 'not_found');
    await expectError(await get(t, `/${id}/section/nope`), 404, 'not_found');
    await expectError(await get(t, `/${id}/search`), 400, 'invalid_parameter');
    await expectError(await get(t, `/${id}/search?query=`), 400, 'invalid_parameter');
    await expectError(await get(t, `/compare?to=${id}`), 400, 'invalid_parameter');
    await expectError(await get(t, `/compare?from=${id}&to=${crypto.randomUUID()}`), 404, 'not_found');
    await expectError(await get(t, `/compare?from=${id}&to=${reportOf(first, 'cbom').id}`), 400, 'invalid_request');
    await expectError(await get(t, `/${id}/export/docx`), 400, 'invalid_parameter');
    // A format not rendered yet. The real render queue renders every report on its own: let it finish,
    // then take the PDF's record away, rather than hope to read before it is written.
    await letRendersFinish([t]);
    await runInDurableObject(projectStub(env, t.projectId), (_i, state) => {
      state.storage.sql.exec("DELETE FROM report_documents WHERE report_id = ? AND format = 'pdf'", id);
    });
    await expectError(await get(t, `/${id}/export/pdf`), 404, 'not_found');
    await expectError(await get(t, `/${id}/export/pdf/provenance`), 404, 'not_found');
    // It waits for the real render queue's fifteen renderings: more than the default 20 s on a busy machine.
  }, 60_000);

  it('reads need project:view; another organization sees nothing', async () => {
    const id = reportOf(first, 'composition').id;
    const other = await dataTenant('reports-other');
    await expectError(await api(`${P(t.projectId)}/v1/report/${id}/summary`, { token: other.token }), 403, 'forbidden');
    await expectError(await api(`${P(other.projectId)}/v1/report/${id}/summary`, { token: other.token }), 404, 'not_found');
    await expectError(await api(`${P(t.projectId)}/v1/report/${id}/summary`, { token: t.pass }), 401, 'unauthorized');
  });
});

describe('regenerate a survey\'s report (spec 4.10 rule 10)', () => {
  it('202 with the new survey to follow; 409 while it is produced and once ready; the old version stays readable', async () => {
    const id = reportOf(cbom, 'cbom').id;
    const res = await api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: t.token, method: 'POST', headers: { 'idempotency-key': 'regen-1' } });
    expect(res.status).toBe(202);
    const answer = await json(res);
    expect(answer).toMatchObject({ job_id: expect.any(String), supersedes: cbom.id });
    const repeat = await api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: t.token, method: 'POST', headers: { 'idempotency-key': 'regen-1' } });
    expect(await json(repeat)).toEqual(answer);
    await expectError(await api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: t.token, method: 'POST' }), 409, 'conflict');
    const regenerated = await getJob(t, answer.job_id);
    expect(regenerated).toMatchObject({ supersedes: cbom.id });
    expect(regenerated.steps.find((s: any) => s.step_type === 'ANALYZE').status).toBe('SKIPPED');
    await buildReports({ projectId: t.projectId, surveyId: answer.job_id, bundleId: '-', blobKey: '-' });
    const done = await getJob(t, answer.job_id);
    expect(done.status).toBe('COMPLETED');
    // The same findings, rebuilt from the stored analysis: nothing new since the version it replaces.
    expect(reportOf(done, 'pqc-inventory').metadata.figures.changes.new).toEqual({ red: 0, yellow: 0, transition: 0, green: 0, unclassified: 0 });
    expect((await get(t, `/${id}/summary`)).status).toBe(200);
    await expectError(await api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: t.token, method: 'POST' }), 409, 'conflict');
  });

  it('needs project:edit', async () => {
    const viewer = await addPerson(t, 'Viewer');
    const id = reportOf(first, 'cbom').id;
    await expectError(await api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: viewer.token, method: 'POST' }), 403, 'permission_denied');
  });

  it('allows a new request once the new version failed (spec part 3, 8)', async () => {
    // The first survey's analysis was replaced by the second's: a version rebuilt from it fails.
    const id = reportOf(first, 'pqc-inventory').id;
    const res = await api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: t.token, method: 'POST' });
    expect(res.status).toBe(202);
    const { job_id } = await json(res);
    await buildReports({ projectId: t.projectId, surveyId: job_id, bundleId: '-', blobKey: '-' });
    expect(await getJob(t, job_id)).toMatchObject({ status: 'FAILED', failure_class: 'analysis_replaced' });
    const again = await api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: t.token, method: 'POST' });
    expect(again.status).toBe(202);
    const retried = (await json(again)).job_id;
    expect(retried).not.toBe(job_id);
    await buildReports({ projectId: t.projectId, surveyId: retried, bundleId: '-', blobKey: '-' });
  });

  it('allows a new request once the new version waited 30 minutes without starting (spec part 3, 8)', async () => {
    const id = reportOf(second, 'composition').id;
    let regenerated: { job_id: string; supersedes: string } = { job_id: '', supersedes: '' };
    // A regenerated survey whose work never started (its message lost): RUNNING at once, its reused
    // upload complete, its analysis skipped, its reports still waiting.
    await runInDurableObject(projectStub(env, t.projectId), (_instance, state) => {
      const db = drizzle(state.storage) as never;
      const { survey, steps } = createSurvey(db, { jobType: 'INVENTORY_SURVEY', supersedes: second.id, target: 'shop' });
      changeJob(db, steps.find((s) => s.stepType === 'UPLOAD')!, { status: 'COMPLETED' });
      changeJob(db, steps.find((s) => s.stepType === 'ANALYZE')!, { status: 'SKIPPED' });
      changeJob(db, survey, { status: 'RUNNING' });
    });
    const regenerate = () => api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: t.token, method: 'POST' });
    await expectError(await regenerate(), 409, 'conflict');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 29 * 60_000);
      await expectError(await regenerate(), 409, 'conflict');
      vi.setSystemTime(Date.now() + 2 * 60_000);
      const res = await regenerate();
      expect(res.status).toBe(202);
      regenerated = await json(res);
      expect(regenerated).toMatchObject({ supersedes: second.id });
    } finally {
      vi.useRealTimers();
    }
    await buildReports({ projectId: t.projectId, surveyId: regenerated.job_id, bundleId: '-', blobKey: '-' });
  });

  it('follows a new version that was superseded in turn to the version that replaced it', async () => {
    const id = reportOf(first, 'cbom').id;
    // A new version of the first survey whose work never started, then regenerated itself: it is
    // SKIPPED, and the survey replacing it (with no analysis to reuse) fails at once.
    const waiting = await runInDurableObject(projectStub(env, t.projectId), (_instance, state) => {
      const db = drizzle(state.storage) as never;
      const bundleId = state.storage.sql.exec<{ id: string }>('SELECT id FROM bundles WHERE survey_id = ?', first.id).one().id;
      const { survey, steps } = createSurvey(db, { jobType: 'INVENTORY_SURVEY', supersedes: first.id, target: 'shop', metadata: { bundleId } });
      changeJob(db, steps.find((s) => s.stepType === 'UPLOAD')!, { status: 'COMPLETED' });
      changeJob(db, steps.find((s) => s.stepType === 'ANALYZE')!, { status: 'SKIPPED' });
      return changeJob(db, survey, { status: 'RUNNING' }).id;
    });
    const res = await api(`${P(t.projectId)}/v1/survey/${waiting}/regenerate`, { token: t.token, method: 'POST', headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(res.status).toBe(201);
    expect(await getJob(t, waiting)).toMatchObject({ status: 'SKIPPED' });
    expect(await getJob(t, (await json(res)).parent_id)).toMatchObject({ status: 'FAILED', failure_class: 'no_analysis' });
    const again = await api(`${P(t.projectId)}/v1/report/${id}/regenerate`, { token: t.token, method: 'POST' });
    expect(again.status).toBe(202);
    await buildReports({ projectId: t.projectId, surveyId: (await json(again)).job_id, bundleId: '-', blobKey: '-' });
  });

  it('a report phase delivered twice builds once', async () => {
    const again = await deliver({ projectId: t.projectId, surveyId: first.id, bundleId: '-', blobKey: '-', phase: 'report' });
    expect(again.result.explicitAcks).toEqual([again.id]);
    expect((await getJob(t, first.id)).status).toBe('COMPLETED');
  });
});
