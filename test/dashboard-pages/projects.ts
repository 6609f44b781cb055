// The dashboard's projects (issue 21, pages 2): the organization's list with create, rename, delete
// and restore, and a project's overview (latest surveys, portfolio scores per axis, data health), on
// DASHBOARD_HOST through the Worker's entry, with real sign-in, D1, the project object and its queues.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectPage, page, post, submit, signInThroughDashboard, textOf, unescape, visit } from '../dashboard';
import { provisioned } from '../data-plane';
import { api, json, newTenant } from '../helpers';
import { addPerson, addProject, uniqueName, uploadPass, type Tenant } from '../people';
import { analysed, letRendersFinish, letScoringFinish, sbom, settleScoring } from '../pipeline';

const names = async (tenant: Tenant) => (await json(await api(`/api/v1/org/${tenant.orgId}/project`, { token: tenant.token }))).projects.map((p: { name: string }) => p.name) as string[];
const deletedNames = async (tenant: Tenant) => (await json(await api(`/api/v1/org/${tenant.orgId}/project/deleted`, { token: tenant.token }))).projects.map((p: { name: string }) => p.name) as string[];
const created: { projectId: string }[] = [];

describe('the projects list', () => {
  let owner: Tenant;
  let cookie: string;
  let viewerCookie: string;
  let memberCookie: string;
  let extra: string;
  const extraName = uniqueName('Extra');

  beforeAll(async () => {
    owner = await newTenant('projects');
    extra = await addProject(owner, extraName);
    cookie = await signInThroughDashboard(owner.user.email);
    viewerCookie = await signInThroughDashboard((await addPerson(owner, 'Viewer', 'viewer')).user.email);
    memberCookie = await signInThroughDashboard((await addPerson(owner, 'Member', 'member')).user.email);
  });

  it('lists the organization\'s projects with the actions an administrator holds', async () => {
    const html = await expectPage(await page('/projects', cookie), 200, 'Projects');
    for (const name of await names(owner)) expect(unescape(html)).toContain(name);
    expect(html).toContain(`href="/projects/${extra}"`);
    expect(html).toContain('<form method="post" action="/projects"');
    expect(html).toContain('action="/projects/rename"');
    expect(html).toContain('action="/projects/delete"');
    expect(html).toMatch(/<dialog id="delete-[0-9a-f-]+"/);
    expect(textOf(html)).toContain('No deleted projects');
    expect(html).toContain('aria-current="page">Projects</a>');
  });

  it('creating a project leads to its overview', async () => {
    const name = uniqueName('Created');
    const res = await submit('/projects', cookie, { name });
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/projects\/[0-9a-f-]{36}$/);
    created.push({ projectId: location.split('/')[2]! });
    expect(await names(owner)).toContain(name);
    const overview = await page(location, cookie);
    expect(overview.status).toBe(200);
    const html = await overview.text();
    expect(unescape(html)).toContain(`<h1>${name}</h1>`);
  });

  it('a name already taken is shown again with the API\'s message tied to the field (400)', async () => {
    const res = await submit('/projects', cookie, { name: extraName });
    const html = await expectPage(res, 400, 'Projects');
    expect(html).toContain('id="new-project-name-error"');
    expect(html).toMatch(/id="new-project-name"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="new-project-name"/);
    expect(unescape(html)).toContain(`value="${extraName}"`);
    const blank = await submit('/projects', cookie, { name: '  ' });
    expect(blank.status).toBe(400);
  });

  it('renames a project (project:admin); a taken name is refused beside its field', async () => {
    const renamed = uniqueName('Renamed');
    const res = await submit('/projects/rename', cookie, { projectId: extra, name: renamed });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/projects?done=renamed');
    expect(await names(owner)).toContain(renamed);
    expect(textOf(await (await page('/projects?done=renamed', cookie)).text())).toContain('The project was renamed.');
    const taken = (await names(owner)).find((n) => n !== renamed)!;
    const refused = await submit('/projects/rename', cookie, { projectId: extra, name: taken });
    const html = await expectPage(refused, 400, 'Projects');
    expect(html).toContain(`id="rename-${extra}-error"`);
    expect(html).toMatch(/<details class="rename" open/);
    expect(await names(owner)).toContain(renamed);
  });

  it('deletes a project (confirmed), lists it as deleted, and restores it', async () => {
    const name = uniqueName('Doomed');
    const id = await addProject(owner, name);
    const res = await submit('/projects/delete', cookie, { projectId: id });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/projects?done=deleted');
    expect(await names(owner)).not.toContain(name);
    expect(await deletedNames(owner)).toContain(name);
    const html = await expectPage(await page('/projects', cookie), 200, 'Projects');
    expect(html).toContain(`id="deleted-${id}"`);
    expect(unescape(html)).toContain(`Restore ${name}`);
    const restored = await submit('/projects/restore', cookie, { projectId: id });
    expect(restored.status).toBe(303);
    expect(await names(owner)).toContain(name);
    expect(await deletedNames(owner)).not.toContain(name);
  });

  it('deleting the project the session is on moves the session to another project first, so the person stays signed in', async () => {
    const tenant = await newTenant('own-project');
    const other = await addProject(tenant, uniqueName('Remaining'));
    const own = await signInThroughDashboard(tenant.user.email);
    const res = await submit('/projects/delete', own, { projectId: tenant.projectId });
    expect(res.status).toBe(303);
    const set = (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie().find((c) => c.startsWith('__Host-posture-session='));
    expect(set).toBeTruthy();
    const moved = set!.split(';')[0]!;
    const after = await page('/projects', moved);
    const html = await expectPage(after, 200, 'Projects');
    expect(html).toContain(`href="/projects/${other}"`);
    expect(html).not.toContain(`href="/projects/${tenant.projectId}"`);
  });

  it('the organization\'s last project cannot be deleted: the API\'s last_project message is shown', async () => {
    const tenant = await newTenant('last');
    const own = await signInThroughDashboard(tenant.user.email);
    const res = await submit('/projects/delete', own, { projectId: tenant.projectId });
    const html = await expectPage(res, 400, 'Projects');
    expect(textOf(html)).toMatch(/last project/i);
    expect(html).toContain('role="alert"');
    expect((await names(tenant)).length).toBe(1);
  });

  it('a Viewer sees the list without actions; forged posts are refused by the API (403) and change nothing', async () => {
    const html = await expectPage(await page('/projects', viewerCookie), 200, 'Projects');
    expect(html).not.toContain('<form method="post" action="/projects"');
    expect(html).not.toContain('action="/projects/rename"');
    expect(html).not.toContain('action="/projects/delete"');
    const before = await names(owner);
    const create = await submit('/projects', viewerCookie, { name: uniqueName('Forged') });
    expect(create.status).toBe(403);
    expect(textOf(await create.text())).toContain('org:create_project');
    const del = await submit('/projects/delete', viewerCookie, { projectId: extra });
    expect(del.status).toBe(403);
    const rename = await submit('/projects/rename', viewerCookie, { projectId: extra, name: uniqueName('Forged') });
    expect(rename.status).toBe(403);
    expect(await names(owner)).toEqual(before);
  });

  it('a Member may create projects but is offered neither rename nor delete', async () => {
    const html = await expectPage(await page('/projects', memberCookie), 200, 'Projects');
    expect(html).toContain('<form method="post" action="/projects"');
    expect(html).not.toContain('action="/projects/rename"');
    expect(html).not.toContain('action="/projects/delete"');
    expect((await submit('/projects/delete', memberCookie, { projectId: extra })).status).toBe(403);
  });

  it('without a cookie the pages lead to sign-in; a post from another site is refused (403)', async () => {
    for (const path of ['/projects', `/projects/${owner.projectId}`]) {
      const res = await visit(path);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/sign-in');
    }
    const before = await names(owner);
    const forged = await post('/projects', { name: uniqueName('Cross') }, { origin: 'https://evil.example', cookie });
    expect(forged.status).toBe(403);
    const noOrigin = await post('/projects/delete', { projectId: extra }, { cookie });
    expect(noOrigin.status).toBe(403);
    expect(await names(owner)).toEqual(before);
  });

  it('the header\'s project switcher leads to the chosen project', async () => {
    const res = await page(`/projects/go?project=${extra}`, cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/projects/${extra}`);
    expect((await page('/projects/go?project=nonsense', cookie)).headers.get('location')).toBe('/projects');
  });
});

describe('a project\'s overview', () => {
  let t: Tenant & { pass: string };
  let cookie: string;
  let viewerCookie: string;
  let surveyId: string;

  beforeAll(async () => {
    const tenant = await newTenant('overview');
    await provisioned(tenant.projectId);
    t = { ...tenant, pass: await uploadPass(tenant) };
    surveyId = (await analysed(t, sbom('overview-app', [['left-pad', '1.3.0'], ['lodash', '4.17.20']]), { target: 'overview-app' })).surveyId;
    await settleScoring(t);
    cookie = await signInThroughDashboard(t.user.email);
    viewerCookie = await signInThroughDashboard((await addPerson(t, 'Viewer', 'ov-viewer')).user.email);
  });

  afterAll(async () => {
    await letRendersFinish([t]);
    await letScoringFinish([t, ...created]);
  }, 60_000);

  it('shows the latest surveys, the portfolio scores per axis with their bands, and data health, each linking on', async () => {
    const res = await page(`/projects/${t.projectId}`, cookie);
    const projectName = (await json(await api(`/api/v1/project/${t.projectId}`, { token: t.token }))).name;
    const html = await expectPage(res, 200, projectName);
    expect(res.headers.get('server-timing')).toMatch(/desc="[1-6] calls"/);
    const text = textOf(html);
    // Latest surveys: the one run through the pipeline, linked to its page.
    expect(html).toContain(`href="/projects/${t.projectId}/surveys/${surveyId}"`);
    expect(text).toContain('overview-app');
    expect(text).toContain('COMPLETED');
    // Portfolio scores: the built-in portfolio, its overall and per-axis scores as the API has them.
    const { portfolios } = await json(await api(`/api/v1/project/${t.projectId}/v1/portfolio`, { token: t.token }));
    const builtIn = portfolios.find((p: any) => p.is_implicit);
    expect(builtIn.axes).toMatchObject({ pqc: expect.any(Object), vuln: expect.any(Object), agility: expect.any(Object) });
    expect(html).toContain(`href="/projects/${t.projectId}/portfolios/${builtIn.portfolio_id}"`);
    for (const axis of ['Post-quantum', 'Vulnerabilities', 'Crypto-agility']) expect(text).toContain(axis);
    if (builtIn.axes.pqc.score != null) expect(text).toContain(`${builtIn.axes.pqc.score} ${builtIn.axes.pqc.band}`);
    // Data health: one subject, its latest run complete.
    expect(html).toContain(`href="/projects/${t.projectId}/data-health"`);
    expect(text).toMatch(/1 Subjects/);
    expect(html).toContain(`href="/projects/${t.projectId}/surveys"`);
  });

  it('an empty project shows the upload command and a button creating an upload pass', async () => {
    const tenant = await newTenant('empty-overview');
    await provisioned(tenant.projectId);
    const own = await signInThroughDashboard(tenant.user.email);
    const html = await expectPage(await page(`/projects/${tenant.projectId}`, own), 200, /.+/);
    expect(unescape(html)).toContain(`npx posture upload ./bom --api http://localhost --project ${tenant.projectId} --wait`);
    expect(html).toContain(`action="/projects/${tenant.projectId}/upload-pass"`);
    await letScoringFinish([tenant]);
  });

  it('a Viewer sees the overview (200) without the upload-pass button', async () => {
    const res = await page(`/projects/${t.projectId}`, viewerCookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`/surveys/${surveyId}`);
    expect(html).not.toContain('/upload-pass');
  });

  it('another organization\'s project is a 404 that names nothing of it', async () => {
    const stranger = await newTenant('stranger');
    const strangerCookie = await signInThroughDashboard(stranger.user.email);
    const res = await page(`/projects/${t.projectId}`, strangerCookie);
    const html = await expectPage(res, 404, 'Not found');
    expect(html).not.toContain('overview-app');
    expect(html).not.toContain(surveyId);
  });
});


