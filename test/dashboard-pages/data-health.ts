// The dashboard's data health (issue 21, page 11; spec 4.12): the per-subject summary, runs with their
// filters and cursors, the resolve box, and the run and subject pages at the deep-link paths decisions.md
// promises. Runs come from the real pipeline (test/pipeline.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectPage, FROM_DASHBOARD, fragmentOf, page, post, signInThroughDashboard, textOf, unescape, visit } from '../dashboard';
import { dataTenant } from '../data-plane';
import { api, json, newTenant } from '../helpers';
import { addPerson, uniqueName } from '../people';
import { analysed, letRendersFinish, letScoringFinish, P, sbom, type DataTenant } from '../pipeline';

const notCycloneDx = JSON.stringify({ spdxVersion: 'SPDX-2.3', bomFormat: 'SPDX', packages: [] });

let t: DataTenant & Awaited<ReturnType<typeof dataTenant>>;
let cookie: string;
let base: string;
const runs: Record<string, { surveyId: string; analyzeStepId: string }> = {};
const ciRun = `gh-${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  t = await dataTenant('health');
  base = `/projects/${t.projectId}/data-health`;
  runs.alpha1 = await analysed(t, sbom('alpha', [['x', '1'], ['y', '1']]), { tag: 'first-alpha' });
  runs.beta = await analysed(t, sbom('beta', [['z', '1']]), { jsonTags: { ci_run_id: ciRun } });
  runs.failed = await analysed(t, notCycloneDx, { target: 'alpha' });
  runs.alpha2 = await analysed(t, sbom('alpha', [['x', '2'], ['y', '1'], ['w', '1']]));
  cookie = await signInThroughDashboard(t.user.email);
}, 60_000);

afterAll(async () => {
  await letRendersFinish([t]);
  await letScoringFinish([t]);
});

const runIdsShown = (html: string) => [...html.matchAll(/<a href="\/projects\/[0-9a-f-]{36}\/data-health\/runs\/([0-9a-f-]{36})" class="mono/g)].map((m) => m[1]!);

describe('the data-health page', () => {
  it('summarises each subject and lists the runs, newest first, with outcome, failure, CI run and completeness', async () => {
    const html = await expectPage(await page(base, cookie), 200, 'Data health');
    const text = textOf(html);
    expect(html).toContain(`<a href="${base}" aria-current="page">Data health</a>`);
    expect(html).toMatch(/<caption[^>]*>Data health by subject<\/caption>/);
    expect(html).toContain(`href="${base}/subjects/alpha"`);
    expect(html).toContain(`href="${base}/subjects/beta"`);
    expect(text).toContain('2 subjects');
    // alpha's latest finished run found 3 components against 2 before.
    expect(text).toContain('3 items found against 2 before (150%)');
    expect(runIdsShown(html)).toEqual([runs.alpha2!.surveyId, runs.failed!.surveyId, runs.beta!.surveyId, runs.alpha1!.surveyId]);
    expect(html).toContain('<code>not_cyclonedx</code>');
    expect(html).toContain(ciRun);
    expect(text).toContain('4 shown of 4 matching runs');
    // A resolve box, labelled, and nothing that changes data.
    expect(html).toMatch(/<label class="label" for="resolve-ref">Find by reference<\/label>/);
    expect(html.slice(html.indexOf('<main'))).not.toContain('method="post"');
  });

  it('filters the runs by status, subject and order; htmx gets the runs alone', async () => {
    const failed = await expectPage(await page(`${base}?status=FAILED`, cookie), 200, 'Data health');
    expect(runIdsShown(failed)).toEqual([runs.failed!.surveyId]);
    expect(failed).toContain('<option value="FAILED" selected="">failed</option>');
    const beta = await expectPage(await page(`${base}?subject=beta`, cookie), 200, 'Data health');
    expect(runIdsShown(beta)).toEqual([runs.beta!.surveyId]);
    const oldest = await expectPage(await page(`${base}?dir=asc`, cookie), 200, 'Data health');
    expect(runIdsShown(oldest)[0]).toBe(runs.alpha1!.surveyId);
    const none = await expectPage(await page(`${base}?subject=gamma`, cookie), 200, 'Data health');
    expect(textOf(none)).toContain('No run matches these filters');

    const part = await fragmentOf(`${base}?status=FAILED`, cookie);
    expect(part.status).toBe(200);
    const html = await part.text();
    expect(html).toMatch(/^<div id="health-runs">/);
    expect(html).not.toContain('<h1');
    expect(runIdsShown(html)).toEqual([runs.failed!.surveyId]);
  });

  it('pages by the API\'s run cursors, carried in the URL', async () => {
    const after = await expectPage(await page(`${base}?after=${runs.failed!.surveyId}`, cookie), 200, 'Data health');
    expect(runIdsShown(after)).toEqual([runs.beta!.surveyId, runs.alpha1!.surveyId]);
    const previous = unescape(/<a href="([^"]+)" rel="prev"/.exec(after)![1]!);
    expect(previous).toBe(`${base}?before=${runs.beta!.surveyId}`);
    expect(runIdsShown(await expectPage(await page(previous, cookie), 200, 'Data health'))).toEqual([runs.alpha2!.surveyId, runs.failed!.surveyId]);
  });

  it('the resolve box leads to the deep link of what a reference names, or says nothing matches', async () => {
    const byCi = await page(`${base}/resolve?ref=${ciRun}`, cookie);
    expect(byCi.status).toBe(303);
    expect(byCi.headers.get('location')).toBe(`${base}/runs/${runs.beta!.surveyId}`);
    const byStep = await page(`${base}/resolve?ref=${runs.alpha1!.analyzeStepId}`, cookie);
    expect(byStep.headers.get('location')).toBe(`${base}/runs/${runs.alpha1!.surveyId}?step=${runs.alpha1!.analyzeStepId}`);
    const byTag = await page(`${base}/resolve?ref=first-alpha`, cookie);
    expect(byTag.headers.get('location')).toBe(`${base}/subjects/alpha`);

    const missing = await page(`${base}/resolve?ref=no-such-thing`, cookie);
    const html = await expectPage(missing, 404, 'Data health');
    expect(html).toContain('id="resolve-ref-error"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('value="no-such-thing"');
    expect(textOf(html)).toContain('Nothing in this project matches');
    await expectPage(await page(`${base}/resolve?ref=`, cookie), 400, 'Data health');
  });
});

describe('the run and subject pages (the deep links)', () => {
  it('a run: its outcome, what it found against the run before, its steps; ?step= marks one', async () => {
    const html = await expectPage(await page(`${base}/runs/${runs.alpha2!.surveyId}?step=${runs.alpha2!.analyzeStepId}`, cookie), 200, `Run ${runs.alpha2!.surveyId}`);
    const text = textOf(html);
    expect(html).toContain('<span class="tag tag-complete">complete</span>');
    expect(text).toMatch(/Components 3 2/);
    expect(html).toContain(`href="${base}/runs/${runs.alpha1!.surveyId}">the previous run</a>`);
    expect(html).toMatch(/<caption[^>]*>Steps of this run<\/caption>/);
    expect(text).toContain('the step you asked for');
    expect(html).toContain(`href="${base}/subjects/alpha"`);

    const failed = await expectPage(await page(`${base}/runs/${runs.failed!.surveyId}`, cookie), 200, `Run ${runs.failed!.surveyId}`);
    expect(failed).toContain('<span class="tag tag-failed">failed</span>');
    expect(failed).toContain('<code>not_cyclonedx</code>');
    // The oldest and the newest run are found too (the cursor at either end).
    await expectPage(await page(`${base}/runs/${runs.alpha1!.surveyId}`, cookie), 200, `Run ${runs.alpha1!.surveyId}`);
  });

  it('an unknown or malformed run id is a 404 page', async () => {
    expect((await page(`${base}/runs/${crypto.randomUUID()}`, cookie)).status).toBe(404);
    expect((await page(`${base}/runs/not-a-run`, cookie)).status).toBe(404);
  });

  it('a subject: its latest finished run and its runs, with the same filters', async () => {
    const html = await expectPage(await page(`${base}/subjects/alpha`, cookie), 200, 'Data health of alpha');
    expect(runIdsShown(html)).toEqual([runs.alpha2!.surveyId, runs.failed!.surveyId, runs.alpha1!.surveyId]);
    expect(html).toMatch(/<caption[^>]*>Latest finished run of alpha<\/caption>/);
    const failed = await expectPage(await page(`${base}/subjects/alpha?status=FAILED`, cookie), 200, 'Data health of alpha');
    expect(runIdsShown(failed)).toEqual([runs.failed!.surveyId]);
    const part = await (await fragmentOf(`${base}/subjects/alpha?dir=asc`, cookie)).text();
    expect(runIdsShown(part)[0]).toBe(runs.alpha1!.surveyId);
    expect((await page(`${base}/subjects/nobody-here`, cookie)).status).toBe(404);
  });
});

describe('who may see it', () => {
  it('without a cookie: sign-in', async () => {
    for (const path of [base, `${base}/runs/${runs.beta!.surveyId}`, `${base}/subjects/beta`]) {
      const res = await visit(path);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/sign-in');
    }
  });

  it('a Viewer reads it all and is offered nothing to change; a forged POST changes nothing', async () => {
    const viewer = await addPerson(t as never, 'Viewer', 'health-viewer');
    const viewerCookie = await signInThroughDashboard(viewer.user.email);
    const html = await expectPage(await page(base, viewerCookie), 200, 'Data health');
    expect(runIdsShown(html)).toHaveLength(4);
    expect(html.slice(html.indexOf('<main'))).not.toContain('method="post"');
    await expectPage(await page(`${base}/runs/${runs.beta!.surveyId}`, viewerCookie), 200, `Run ${runs.beta!.surveyId}`);
    const forged = await post(`${base}/resolve`, { ref: ciRun }, { ...FROM_DASHBOARD, cookie: viewerCookie });
    expect(forged.status).toBe(404);
  });

  it('another organization\'s project, or its run under this project: 404, nothing of it shown', async () => {
    const other = await dataTenant('health-other');
    const otherRun = await analysed(other, sbom('secret-subject', [['q', '1']]));
    const secret = uniqueName('Hidden project');
    expect((await api(`/api/v1/project/${other.projectId}`, { method: 'PUT', token: other.token, body: { name: secret } })).status).toBe(200);
    for (const path of [`/projects/${other.projectId}/data-health`, `/projects/${other.projectId}/data-health/runs/${otherRun.surveyId}`, `/projects/${other.projectId}/data-health/subjects/secret-subject`]) {
      const res = await page(path, cookie);
      expect(res.status).toBe(404);
      const html = unescape(await res.text());
      expect(html).not.toContain(secret);
      expect(html).not.toContain('secret-subject');
    }
    expect((await page(`${base}/runs/${otherRun.surveyId}`, cookie)).status).toBe(404);
    expect((await page(`${base}/subjects/secret-subject`, cookie)).status).toBe(404);
    await letRendersFinish([other]);
    await letScoringFinish([other]);
    expect((await json(await api(`${P(other.projectId)}/v1/data-health/run`, { token: other.token }))).runs).toHaveLength(1);
    // It waits for the real render queue's renderings of the other project's survey: more than the default 20 s on a busy machine.
  }, 60_000);

  it('a POST from another site is refused (403)', async () => {
    expect((await post(base, { status: 'FAILED' }, { origin: 'https://evil.example', cookie })).status).toBe(403);
  });

  it('a project whose storage is not set up yet says so and refreshes', async () => {
    const fresh = await newTenant('health-fresh');
    const freshCookie = await signInThroughDashboard(fresh.user.email);
    const res = await page(`/projects/${fresh.projectId}/data-health`, freshCookie);
    expect([200, 409]).toContain(res.status);
    if (res.status === 409) expect(res.headers.get('refresh')).toBe('5');
    await res.text();
    await letScoringFinish([fresh]);
  });
});
