// The dashboard's activity log (issue 21, page 10; spec 4.14): filters (a project or organization-only,
// a person, actions from availableActions), sort, cursor paging carried in the URL, each entry's trace id;
// who may see it, and what another organization's ids show.
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpAccessEpoch } from '../../src/auth/access-cache';
import { activityInsert } from '../../src/control/activity';
import { controlDb } from '../../src/control/db';
import { expectPage, fragmentOf, page, post, signInThroughDashboard, submit, textOf, unescape, visit } from '../dashboard';
import { api, json, newTenant } from '../helpers';
import { addPerson, uniqueName, type Tenant } from '../people';
import { letScoringFinish } from '../pipeline';

let tenant: Tenant;
let cookie: string;
let projectName: string;
let createdProjectId: string;
const projectTrace = `trace-project-${crypto.randomUUID()}`;
const tokenTrace = `trace-token-${crypto.randomUUID()}`;

/** The action codes of a page's entries, in the order shown. */
const actionsShown = (html: string) => [...html.matchAll(/<td><code>([a-z_.]+)<\/code><\/td>/g)].map((m) => m[1]!);

beforeAll(async () => {
  tenant = await newTenant('activity');
  projectName = uniqueName('Audit target');
  const created = await api(`/api/v1/org/${tenant.orgId}/project`, { token: tenant.token, body: { name: projectName }, headers: { 'x-request-id': projectTrace } });
  expect(created.status).toBe(200);
  createdProjectId = (await json(created)).uuid;
  const token = await api(`/api/v1/project/${tenant.projectId}/credential/api-token`, { token: tenant.token, body: { name: 'ci', permissions: ['project:view'] }, headers: { 'x-request-id': tokenTrace } });
  expect(token.status).toBe(201);
  cookie = await signInThroughDashboard(tenant.user.email);
});

// New projects score their built-in portfolio on the real queue: let it finish before the file ends.
afterAll(() => letScoringFinish([{ projectId: createdProjectId }]).catch(() => undefined));

describe('the activity log page', () => {
  it('shows who did what with the trace id, the project by name, and offers every action the API names', async () => {
    const html = await expectPage(await page('/activity', cookie), 200, 'Activity');
    const text = textOf(html);
    expect(html).toContain('<a href="/activity" aria-current="page">Activity</a>');
    expect(html).toContain(projectTrace);
    expect(html).toContain(tokenTrace);
    expect(text).toContain(projectName);
    expect(text).toContain(tenant.user.email);
    expect(actionsShown(html)).toEqual(expect.arrayContaining(['project.created', 'credential.created', 'organization.created']));
    // The actions offered are the API's availableActions.
    const available = (await json(await api(`/api/v1/org/${tenant.orgId}/activity?limit=1`, { token: tenant.token }))).availableActions as string[];
    for (const action of available) expect(html).toContain(`<option value="${action}">${action}</option>`);
    expect(html).toMatch(/<caption[^>]*>Activity, by time, newest first<\/caption>/);
    // A wide table scrolls in its box: a region named by the caption, in the Tab order (keyboards scroll it).
    expect(html).toMatch(/<div class="table-box" role="region" aria-labelledby="(caption-[0-9a-f]{8})" tabindex="0"><table><caption id="\1">Activity/);
    expect(html).toContain('scope="col"');
    // Nothing to change here: no form posts but the frame's own (theme, sign-out).
    const main = html.slice(html.indexOf('<main'));
    expect(main).not.toContain('method="post"');
  });

  it('filters by action, by project, organization-only and by person, keeping the choices in the form', async () => {
    const byAction = await expectPage(await page('/activity?action=credential.created', cookie), 200, 'Activity');
    expect(actionsShown(byAction)).toEqual(['credential.created']);
    expect(byAction).toContain(tokenTrace);
    expect(byAction).not.toContain(projectTrace);
    expect(byAction).toContain('<option value="credential.created" selected="">credential.created</option>');

    const orgOnly = await expectPage(await page('/activity?project=none', cookie), 200, 'Activity');
    expect(actionsShown(orgOnly)).toContain('organization.created');
    expect(actionsShown(orgOnly)).not.toContain('credential.created');
    expect(orgOnly).toContain('<option value="none" selected="">Organization only</option>');

    const byProject = await expectPage(await page(`/activity?project=${tenant.projectId}`, cookie), 200, 'Activity');
    expect(actionsShown(byProject)).toContain('credential.created');
    expect(actionsShown(byProject)).not.toContain('organization.created');

    const me = await expectPage(await page(`/activity?person=${tenant.user.id}&action=project.created`, cookie), 200, 'Activity');
    expect(me).toContain(projectTrace);
    const someoneElse = await addPerson(tenant, 'Viewer', 'quiet');
    const nobody = await expectPage(await page(`/activity?person=${someoneElse.user.id}&action=credential.created`, cookie), 200, 'Activity');
    expect(actionsShown(nobody)).toEqual([]);
    expect(textOf(nobody)).toContain('No entry matches these filters');
    expect(nobody).toContain(`<option value="${someoneElse.user.id}" selected="">`);
  });

  it('sorts by action, either way', async () => {
    const asc = actionsShown(await expectPage(await page('/activity?sort=action&dir=asc', cookie), 200, 'Activity'));
    expect(asc.length).toBeGreaterThan(2);
    expect(asc).toEqual([...asc].sort());
    const desc = actionsShown(await expectPage(await page('/activity?sort=action&dir=desc', cookie), 200, 'Activity'));
    expect(desc).toEqual([...desc].sort().reverse());
  });

  it('pages by the API\'s cursors, carried in the URL; htmx gets the list alone', async () => {
    // 60 more organization-level entries (written as the service writes them), so the log runs past a page.
    const db = controlDb(env.DB);
    const marker = crypto.randomUUID();
    await db.batch(Array.from({ length: 60 }, (_, i) => activityInsert(db, { orgId: tenant.orgId, actor: { userId: tenant.user.id, kind: 'session' }, action: 'user.updated', data: { marker, n: i }, traceId: `trace-bulk-${i}` })) as never);
    await bumpAccessEpoch(env, tenant.orgId);

    const bulk = (html: string) => [...html.matchAll(/trace-bulk-(\d+)</g)].map((m) => Number(m[1]));
    const first = await expectPage(await page('/activity?action=user.updated', cookie), 200, 'Activity');
    expect(actionsShown(first)).toHaveLength(50);
    expect(textOf(first)).toContain('50 shown of 60 matching entries');
    const next = unescape(/<a href="([^"]+)" rel="next"/.exec(first)![1]!);
    expect(next).toMatch(/^\/activity\?action=user\.updated&after=[0-9a-f-]{36}$/);
    expect(first).not.toContain('rel="prev"');
    // The link is also an htmx request for the list alone, with its own nonce.
    expect(first).toMatch(/rel="next" hx-get="[^"]+" hx-target="#activity-list"/);

    const second = await expectPage(await page(next, cookie), 200, 'Activity');
    expect(actionsShown(second)).toHaveLength(10);
    expect(second).not.toContain('rel="next"');
    // The two pages together are the 60 entries, each once.
    const seen = [...bulk(first), ...bulk(second)];
    expect(new Set(seen).size).toBe(60);
    expect(seen).toHaveLength(60);
    const previous = unescape(/<a href="([^"]+)" rel="prev"/.exec(second)![1]!);
    expect(previous).toMatch(/before=[0-9a-f-]{36}/);
    const back = await expectPage(await page(previous, cookie), 200, 'Activity');
    expect(bulk(back).sort()).toEqual(bulk(first).sort());

    const part = await fragmentOf(next, cookie);
    expect(part.status).toBe(200);
    const fragmentHtml = await part.text();
    expect(fragmentHtml).toMatch(/^<div id="activity-list"/);
    expect(fragmentHtml).not.toContain('<html');
    expect(bulk(fragmentHtml).sort()).toEqual(bulk(second).sort());
  });

  it('a bad cursor or filter is the API\'s 400, shown as a page', async () => {
    const res = await page(`/activity?after=${crypto.randomUUID()}`, cookie);
    expect(res.status).toBe(400);
    const bogus = await page('/activity?action=no.such.action', cookie);
    expect(bogus.status).toBe(400);
    expect(textOf(await bogus.text())).toContain('Unknown action');
  });
});

describe('who may see it', () => {
  it('without a cookie: sign-in, then back here', async () => {
    const res = await visit('/activity?project=none');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in');
  });

  it('a Member (no org:view_activity_log) is not offered it and is refused with the permission named', async () => {
    const member = await addPerson(tenant, 'Member', 'no-log');
    const memberCookie = await signInThroughDashboard(member.user.email);
    const profile = await expectPage(await page('/profile', memberCookie), 200, 'Your profile');
    expect(profile).not.toContain('href="/activity"');
    const res = await page('/activity', memberCookie);
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain('org:view_activity_log');
    expect(html).not.toContain(tokenTrace);
  });

  it('a Viewer is offered nothing to change, and a forged POST changes nothing', async () => {
    const viewer = await addPerson(tenant, 'Viewer', 'viewer');
    const viewerCookie = await signInThroughDashboard(viewer.user.email);
    const res = await page('/activity', viewerCookie);
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain('method="post" action="/activity');
    expect((await submit('/activity', viewerCookie, { action: 'x' })).status).toBe(404);
  });

  it('another organization\'s project or person: 404, nothing of it shown', async () => {
    const other = await newTenant('elsewhere');
    const secret = uniqueName('Secret project');
    expect((await api(`/api/v1/project/${other.projectId}`, { method: 'PUT', token: other.token, body: { name: secret } })).status).toBe(200);
    const otherOrg = (await json(await api('/api/v1/user/project', { token: other.token }))).org_name as string;
    const res = await page(`/activity?project=${other.projectId}`, cookie);
    expect(res.status).toBe(404);
    const html = unescape(await res.text());
    expect(html).not.toContain(secret);
    expect(html).not.toContain(otherOrg);
    expect(html).not.toContain(other.user.email);
    expect((await page(`/activity?person=${other.user.id}`, cookie)).status).toBe(404);
  });

  it('a POST from another site is refused (403)', async () => {
    const res = await post('/activity', { project: 'none' }, { origin: 'https://evil.example', cookie });
    expect(res.status).toBe(403);
  });
});
