// The dashboard's surveys and jobs (issue 21, pages 3): the filtered, paged list updated live from the
// job stream (passed through the dashboard with the cookie), a survey's page with regenerate, delete and
// restore, the bundles list, and an empty project's CLI command and upload pass. Surveys run through the
// real pipeline (queues, the project object, R2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectPage, page, post, signInThroughDashboard, submit, textOf, unescape, visit } from '../dashboard';
import { provisioned } from '../data-plane';
import { api, json, newTenant } from '../helpers';
import { addPerson, uploadPass, type Tenant } from '../people';
import { analysed, getJob, letRendersFinish, letScoringFinish, P, sbom, startSurvey } from '../pipeline';

type DataTenant = Tenant & { pass: string };

/** Reads an event stream's text until `done` holds or the time runs out, then lets it go. */
async function readStream(res: Response, done: (text: string) => boolean, ms = 8000): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  while (!done(text) && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), Math.max(1, deadline - Date.now())))]);
    if (next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

const jobsOf = async (t: DataTenant, query = '') => (await json(await api(`${P(t.projectId)}/v1/job?topLevel=true${query}`, { token: t.token }))).jobs as any[];

let t: DataTenant;
let cookie: string;
let viewerCookie: string;
let memberCookie: string;
let surveyId: string;
let strangerCookie: string;
const tenants: DataTenant[] = [];

beforeAll(async () => {
  const tenant = await newTenant('surveys');
  await provisioned(tenant.projectId);
  t = { ...tenant, pass: await uploadPass(tenant) };
  tenants.push(t);
  surveyId = (await analysed(t, sbom('checkout-api', [['left-pad', '1.3.0'], ['express', '4.17.1']]), { target: 'checkout-api', tag: 'v1.2.3' })).surveyId;
  cookie = await signInThroughDashboard(t.user.email);
  viewerCookie = await signInThroughDashboard((await addPerson(t, 'Viewer', 'sv-viewer')).user.email);
  memberCookie = await signInThroughDashboard((await addPerson(t, 'Member', 'sv-member')).user.email);
  strangerCookie = await signInThroughDashboard((await newTenant('sv-stranger')).user.email);
});

afterAll(async () => {
  await letRendersFinish(tenants);
  await letScoringFinish(tenants);
}, 60_000);

describe('the surveys and jobs list', () => {
  it('shows a survey run through the real pipeline, with its steps, linking to its page and to the bundles', async () => {
    const res = await page(`/projects/${t.projectId}/surveys`, cookie);
    const html = await expectPage(res, 200, 'Surveys and jobs');
    expect(res.headers.get('server-timing')).toMatch(/desc="[1-6] calls"/);
    expect(html).toContain(`<tr id="job-${surveyId}">`);
    expect(html).toContain(`href="/projects/${t.projectId}/surveys/${surveyId}"`);
    const row = textOf(html.slice(html.indexOf(`<tr id="job-${surveyId}">`)).split('</tr>')[0]!);
    expect(row).toContain('checkout-api');
    expect(row).toContain('v1.2.3');
    expect(row).toContain('Inventory survey');
    expect(row).toMatch(/COMPLETED/);
    for (const step of ['upload', 'analyze', 'pqc-inventory', 'cbom', 'composition']) expect(row).toContain(step);
    expect(html).toContain(`href="/projects/${t.projectId}/bundles"`);
    expect(html).toContain('aria-current="page">Surveys</a>');
    // Live updates: hx-sse connects (with the page's nonce) to the dashboard's pass-through of the job stream.
    const nonce = /<script[^>]+nonce="([0-9a-f]+)"/.exec(html)![1]!;
    expect(html).toMatch(new RegExp(`<span id="jobs-live" aria-live="polite" hx-sse:connect="/projects/${t.projectId}/surveys/live\\?newest=[0-9a-f-]{36}" hx-nonce="${nonce}">`));
  });

  it('filters by type, status and deleted with a GET form whose values stay in the address', async () => {
    const runtime = await page(`/projects/${t.projectId}/surveys?type=RUNTIME_SURVEY`, cookie);
    const html = await expectPage(runtime, 200, 'Surveys and jobs');
    expect(html).not.toContain(`id="job-${surveyId}"`);
    expect(textOf(html)).toContain('No job matches these filters');
    expect(html).toContain('<option value="RUNTIME_SURVEY" selected="">');
    const completed = await (await page(`/projects/${t.projectId}/surveys?type=SURVEYS&status=completed`, cookie)).text();
    expect(completed).toContain(`id="job-${surveyId}"`);
    expect(completed).toContain('<option value="COMPLETED" selected="">');
    expect((await (await page(`/projects/${t.projectId}/surveys?status=FAILED`, cookie)).text())).not.toContain(`id="job-${surveyId}"`);
    // Unknown values are dropped rather than refused.
    expect((await page(`/projects/${t.projectId}/surveys?type=NOPE&status=nope&after=x`, cookie)).status).toBe(200);
    expect(html).toMatch(/<form method="get" action="\/projects\/[0-9a-f-]+\/surveys" class="toolbar"/);
    for (const id of ['filter-type', 'filter-status', 'filter-deleted']) expect(html).toContain(`<label class="label" for="${id}">`.replace(' class="label"', id === 'filter-deleted' ? '' : ' class="label"'));
  });

  it('pages with the API\'s cursors carried in the address', async () => {
    const extra = await startSurvey(t, { target: 'paged-app' });
    const first = await (await page(`/projects/${t.projectId}/surveys?limit=1`, cookie)).text();
    expect(first).toContain(`id="job-${extra.surveyId}"`);
    expect(first).not.toContain(`id="job-${surveyId}"`);
    const next = unescape(/<a href="([^"]+)" rel="next">/.exec(first)![1]!);
    expect(next).toBe(`/projects/${t.projectId}/surveys?limit=1&after=${extra.surveyId}`);
    const second = await (await page(next, cookie)).text();
    const secondIds = [...second.matchAll(/<tr id="job-([0-9a-f-]{36})">/g)].map((m) => m[1]);
    expect(secondIds).toHaveLength(1);
    expect(secondIds[0]).not.toBe(extra.surveyId);
    const previous = unescape(/<a href="([^"]+)" rel="prev">/.exec(second)![1]!);
    expect(previous).toBe(`/projects/${t.projectId}/surveys?limit=1&before=${secondIds[0]}`);
    expect(await (await page(previous, cookie)).text()).toContain(`id="job-${extra.surveyId}"`);
  });

  it('an empty project shows the CLI command and, to someone who may edit it, a button creating an upload pass', async () => {
    const tenant = await newTenant('sv-empty');
    await provisioned(tenant.projectId);
    tenants.push({ ...tenant, pass: '' });
    const own = await signInThroughDashboard(tenant.user.email);
    const html = await expectPage(await page(`/projects/${tenant.projectId}/surveys`, own), 200, 'Surveys and jobs');
    expect(unescape(html)).toContain(`POSTURE_PASS=$POSTURE_PASS npx posture upload ./bom --api http://localhost --project ${tenant.projectId} --wait`);
    expect(html).toContain(`<form method="post" action="/projects/${tenant.projectId}/upload-pass"`);
    // Its only job is the project's set-up.
    expect(textOf(html)).toContain('Project set-up');
    const bundles = await expectPage(await page(`/projects/${tenant.projectId}/bundles`, own), 200, 'Uploaded bundles');
    expect(textOf(bundles)).toContain('No bundle was uploaded to this project yet');
  });

  it('the upload-pass button creates a pass and shows its secret once, with a copy button and the CLI line', async () => {
    const res = await submit(`/projects/${t.projectId}/upload-pass`, cookie);
    const html = await expectPage(res, 200, 'Your upload pass');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const secret = /<input class="input value" id="upload-pass" readonly="" value="([^"]+)"/.exec(html)![1]!;
    expect(html).toContain('<label class="label" for="upload-pass">Upload pass</label>');
    expect(secret).toMatch(/^ey/);
    expect(html).toContain('data-copy="upload-pass"');
    expect(html).toContain('id="upload-pass-copied" aria-live="polite"');
    expect(unescape(html)).toContain(`POSTURE_PASS=${secret} npx posture upload ./bom --api http://localhost --project ${t.projectId} --wait`);
    // A real upload pass of the project: the pass-only runtime settings answer it.
    expect((await api(`${P(t.projectId)}/bundle/upload/runtime-config`, { token: secret })).status).toBe(200);
    const listed = await json(await api(`${P(t.projectId)}/credential`, { token: t.token }));
    expect(listed.filter((c: any) => c.kind === 'upload_pass' && c.name === 'Dashboard upload pass')).toHaveLength(1);
  });

  it('a Viewer sees the list but no upload-pass button; a forged upload-pass post is refused and creates nothing', async () => {
    const tenant = await newTenant('sv-empty-viewer');
    await provisioned(tenant.projectId);
    tenants.push({ ...tenant, pass: '' });
    const viewer = await signInThroughDashboard((await addPerson(tenant, 'Viewer', 'empty-viewer')).user.email);
    const html = await expectPage(await page(`/projects/${tenant.projectId}/surveys`, viewer), 200, 'Surveys and jobs');
    expect(html).not.toContain('/upload-pass"');
    const before = (await json(await api(`${P(tenant.projectId)}/credential`, { token: tenant.token }))).length;
    const forged = await submit(`/projects/${tenant.projectId}/upload-pass`, viewer);
    expect(forged.status).toBe(403);
    expect(textOf(await forged.text())).toContain('project:edit');
    expect((await json(await api(`${P(tenant.projectId)}/credential`, { token: tenant.token }))).length).toBe(before);
  });
});

describe('a survey\'s page', () => {
  it('shows its steps (reports linking to the viewer), its bundle and data health, and the actions an administrator holds', async () => {
    const html = await expectPage(await page(`/projects/${t.projectId}/surveys/${surveyId}`, cookie), 200, 'checkout-api');
    const survey = await getJob(t, surveyId);
    for (const step of survey.steps.filter((s: any) => s.step_type === 'REPORT')) {
      expect(html).toContain(`href="/projects/${t.projectId}/reports/${step.id}"`);
    }
    const bundle = survey.steps.find((s: any) => s.step_type === 'ANALYZE').metadata.bundleId;
    expect(html).toContain(`href="/projects/${t.projectId}/bundles#bundle-${bundle}"`);
    expect(html).toContain(`href="/projects/${t.projectId}/data-health/runs/${surveyId}"`);
    expect(textOf(html)).toContain('v1.2.3');
    expect(html).toContain(`action="/projects/${t.projectId}/surveys/${surveyId}/regenerate"`);
    expect(html).toContain(`action="/projects/${t.projectId}/surveys/${surveyId}/delete"`);
    expect(html).toContain('<dialog id="delete-survey"');
    // A finished survey needs no live updates.
    expect(html).not.toContain('hx-sse:connect');
  });

  it('the bundles list shows the uploaded bundle with its survey', async () => {
    const html = await expectPage(await page(`/projects/${t.projectId}/bundles`, cookie), 200, 'Uploaded bundles');
    const { bundles } = await json(await api(`${P(t.projectId)}/v1/bundle`, { token: t.token }));
    const bundle = bundles.find((b: any) => b.survey_id === surveyId);
    expect(html).toContain(`<tr id="bundle-${bundle.id}">`);
    expect(html).toContain(bundle.sha256);
    expect(html).toContain(`href="/projects/${t.projectId}/surveys/${surveyId}"`);
  });

  it('deletes a survey (hidden from the list, shown with deleted ones) and an administrator restores it', async () => {
    const target = (await analysed(t, sbom('doomed-app', [['lodash', '4.17.21']]), { target: 'doomed-app' })).surveyId;
    const res = await submit(`/projects/${t.projectId}/surveys/${target}/delete`, cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/projects/${t.projectId}/surveys/${target}?done=deleted`);
    expect((await getJob(t, target)).deleted_at).toBeTruthy();
    expect(await (await page(`/projects/${t.projectId}/surveys`, cookie)).text()).not.toContain(`id="job-${target}"`);
    const withDeleted = await (await page(`/projects/${t.projectId}/surveys?deleted=1`, cookie)).text();
    expect(textOf(withDeleted.slice(withDeleted.indexOf(`id="job-${target}"`)).split('</tr>')[0]!)).toContain('deleted');
    const deletedPage = await expectPage(await page(`/projects/${t.projectId}/surveys/${target}?done=deleted`, cookie), 200, 'doomed-app');
    expect(textOf(deletedPage)).toContain('The survey was deleted');
    expect(deletedPage).toContain(`action="/projects/${t.projectId}/surveys/${target}/restore"`);
    expect(deletedPage).not.toContain('/regenerate"');
    const restored = await submit(`/projects/${t.projectId}/surveys/${target}/restore`, cookie);
    expect(restored.status).toBe(303);
    expect((await getJob(t, target)).deleted_at).toBeNull();
  });

  it('regenerates a survey from its bundle; the same form sent twice starts one new survey', async () => {
    const html = await (await page(`/projects/${t.projectId}/surveys/${surveyId}`, cookie)).text();
    const key = /<input type="hidden" name="key" value="([0-9a-f-]{36})"/.exec(html)![1]!;
    const first = await submit(`/projects/${t.projectId}/surveys/${surveyId}/regenerate`, cookie, { key });
    expect(first.status).toBe(303);
    const location = first.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^/projects/${t.projectId}/surveys/[0-9a-f-]{36}\\?done=regenerated$`));
    const again = await submit(`/projects/${t.projectId}/surveys/${surveyId}/regenerate`, cookie, { key });
    expect(again.headers.get('location')).toBe(location);
    const newId = location.split('/')[4]!.split('?')[0]!;
    expect((await getJob(t, newId)).supersedes).toBe(surveyId);
    const newPage = await expectPage(await page(location, cookie), 200, /.+/);
    expect(newPage).toContain(`href="/projects/${t.projectId}/surveys/${surveyId}"`);
    expect(textOf(newPage)).toContain('A new survey was started');
  });

  it('a Viewer is offered no action, and forged posts are refused (403) and change nothing', async () => {
    const html = await expectPage(await page(`/projects/${t.projectId}/surveys/${surveyId}`, viewerCookie), 200, 'checkout-api');
    for (const action of ['/regenerate"', '/delete"', '/restore"']) expect(html).not.toContain(action);
    const before = (await jobsOf(t, '&showDeleted=true')).length;
    for (const action of ['delete', 'regenerate']) {
      const res = await submit(`/projects/${t.projectId}/surveys/${surveyId}/${action}`, viewerCookie, { key: crypto.randomUUID() });
      expect(res.status).toBe(403);
      expect(textOf(await res.text())).toContain('project:edit');
    }
    expect((await getJob(t, surveyId)).deleted_at).toBeNull();
    expect((await jobsOf(t, '&showDeleted=true')).length).toBe(before);
  });

  it('a Member may delete but not restore (project:admin): restore is not offered and a forged one is refused', async () => {
    const target = (await startSurvey(t, { target: 'member-deleted' })).surveyId;
    expect((await submit(`/projects/${t.projectId}/surveys/${target}/delete`, memberCookie)).status).toBe(303);
    const html = await expectPage(await page(`/projects/${t.projectId}/surveys/${target}`, memberCookie), 200, 'member-deleted');
    expect(html).not.toContain('/restore"');
    const forged = await submit(`/projects/${t.projectId}/surveys/${target}/restore`, memberCookie);
    expect(forged.status).toBe(403);
    expect(textOf(await forged.text())).toContain('project:admin');
    expect((await getJob(t, target)).deleted_at).toBeTruthy();
  });

  it('deleting a step is the API\'s 400, shown on the page', async () => {
    const step = (await getJob(t, surveyId)).steps[0].id;
    const res = await submit(`/projects/${t.projectId}/surveys/${step}/delete`, cookie);
    expect(res.status).toBe(400);
    expect(textOf(await res.text())).toMatch(/Only a survey can be deleted/);
  });
});

describe('the job stream passed through the dashboard', () => {
  it('streams text/event-stream to a signed-in member: the page\'s rows now, then a new survey on top and its changes in place', async () => {
    const newest = (await jobsOf(t, '&limit=1'))[0].id;
    const res = await page(`/projects/${t.projectId}/surveys/live?newest=${newest}`, cookie, { accept: 'text/event-stream' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reading = readStream(res, (text) => /afterbegin:#jobs-rows[\s\S]*New: live-app[\s\S]*live-app: RUNNING\./.test(text));
    await new Promise((r) => setTimeout(r, 300));
    const survey = await startSurvey(t, { target: 'live-app' });
    const step = await api(`${P(t.projectId)}/survey/${survey.surveyId}/status`, { token: t.pass, body: { subJobId: survey.uploadStepId, status: 'RUNNING', progress: 40 } });
    expect(step.status).toBe(204);
    const text = await reading;
    expect(text.startsWith(': connected\n\n')).toBe(true);
    // The page's rows as they are, swapped in place.
    expect(text).toMatch(new RegExp(`id: ${newest}\\ndata: <tr id="job-[0-9a-f-]{36}" hx-swap-oob="true">`));
    expect(text).toContain(`<tr id="job-${newest}" hx-swap-oob="true">`);
    // The new survey put on top of the list (the empty-list row removed), announced once.
    expect(text).toContain(`<tbody hx-swap-oob="afterbegin:#jobs-rows"><tr id="job-${survey.surveyId}">`);
    expect(text).toMatch(/<\/tr><\/tbody><tbody id="jobs-empty" hx-swap-oob="delete"><\/tbody>/);
    expect(text).toMatch(new RegExp(`id: ${survey.surveyId}\\n`));
    // Its progress changes its row in place, and the status change is announced.
    expect(text).toContain(`<tr id="job-${survey.surveyId}" hx-swap-oob="true">`);
    expect(text).toMatch(/upload<\/span> <span class="tag tag-running">RUNNING 40%<\/span>/);
    expect(text).toContain('live-app: RUNNING.');
    // Rows carry no htmx attributes of their own (hx-csp would strip them without the page's nonce).
    expect(text.replace(/hx-swap-oob="[^"]*"/g, '')).not.toMatch(/ hx-[a-z]/);
  });

  it('a reconnect after the hourly close resumes from the last id: a survey already put on top is not put there again', async () => {
    const survey = await startSurvey(t, { target: 'resumed-app' });
    const before = (await jobsOf(t, '&limit=2'))[1].id;
    const res = await page(`/projects/${t.projectId}/surveys/live?newest=${before}`, cookie, { accept: 'text/event-stream', 'last-event-id': survey.surveyId });
    const text = await readStream(res, (s) => s.includes(`id="job-${survey.surveyId}"`));
    expect(text).toContain(`<tr id="job-${survey.surveyId}" hx-swap-oob="true">`);
    expect(text).not.toContain('afterbegin');
  });

  it('a survey\'s own page follows only that survey', async () => {
    const survey = await startSurvey(t, { target: 'followed-app' });
    const html = await expectPage(await page(`/projects/${t.projectId}/surveys/${survey.surveyId}`, cookie), 200, 'followed-app');
    expect(html).toContain(`hx-sse:connect="/projects/${t.projectId}/surveys/live?job=${survey.surveyId}"`);
    const res = await page(`/projects/${t.projectId}/surveys/live?job=${survey.surveyId}`, cookie, { accept: 'text/event-stream' });
    const reading = readStream(res, (text) => text.includes('followed-app: RUNNING.'));
    await new Promise((r) => setTimeout(r, 300));
    await api(`${P(t.projectId)}/survey/${survey.surveyId}/status`, { token: t.pass, body: { subJobId: survey.uploadStepId, status: 'RUNNING', progress: 10 } });
    const text = await reading;
    expect(text).toContain('<div id="job-state" hx-swap-oob="true">');
    expect(text).toContain('followed-app: RUNNING.');
    expect(text).not.toContain('<tr id="job-');
  });

  it('a Viewer may follow it too (project:view)', async () => {
    const res = await page(`/projects/${t.projectId}/surveys/live`, viewerCookie, { accept: 'text/event-stream' });
    expect(res.status).toBe(200);
    expect(await readStream(res, (text) => text.includes('connected'), 2000)).toContain(': connected');
  });

  it('without a cookie it ends at once (401: a stream is no page to return to after signing in), and another organization\'s project gives nothing (404)', async () => {
    const anonymous = await visit(`/projects/${t.projectId}/surveys/live`, { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('set-cookie') ?? '').not.toContain('posture-return');
    const stranger = await page(`/projects/${t.projectId}/surveys/live`, strangerCookie, { accept: 'text/event-stream' });
    expect(stranger.status).toBe(404);
    expect(stranger.headers.get('content-type')).toMatch(/^text\/html/);
    const body = await stranger.text();
    expect(body).not.toContain('checkout-api');
    expect(body).not.toContain('job-update');
  });
});

describe('every surveys page and action: sign-in, another organization, another site', () => {
  const paths = () => [`/projects/${t.projectId}/surveys`, `/projects/${t.projectId}/surveys/${surveyId}`, `/projects/${t.projectId}/bundles`];

  it('without a cookie each page leads to sign-in', async () => {
    for (const path of paths()) {
      const res = await visit(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location')).toBe('/sign-in');
    }
  });

  it('another organization\'s person gets 404 pages that name nothing, and cannot act', async () => {
    for (const path of paths()) {
      const html = await expectPage(await page(path, strangerCookie), 404, 'Not found');
      expect(html).not.toContain('checkout-api');
    }
    for (const action of ['delete', 'regenerate']) {
      expect((await submit(`/projects/${t.projectId}/surveys/${surveyId}/${action}`, strangerCookie, { key: crypto.randomUUID() })).status).toBe(404);
    }
    expect((await submit(`/projects/${t.projectId}/upload-pass`, strangerCookie)).status).toBe(404);
    expect((await getJob(t, surveyId)).deleted_at).toBeNull();
  });

  it('a post from another site (or without Origin) is refused (403) and changes nothing', async () => {
    const credentials = (await json(await api(`${P(t.projectId)}/credential`, { token: t.token }))).length;
    expect((await post(`/projects/${t.projectId}/surveys/${surveyId}/delete`, {}, { origin: 'https://evil.example', cookie })).status).toBe(403);
    expect((await post(`/projects/${t.projectId}/upload-pass`, {}, { cookie })).status).toBe(403);
    expect((await getJob(t, surveyId)).deleted_at).toBeNull();
    expect((await json(await api(`${P(t.projectId)}/credential`, { token: t.token }))).length).toBe(credentials);
  });
});
