// The dashboard's Credentials area (issue 21, page 8; spec 4.11): API tokens offered only up to one's own
// permissions with the secret shown once, upload passes with the CLI line, sign-ins, connected apps,
// canceling, and canceled or expired ones still listed; on DASHBOARD_HOST through the Worker's entry.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { controlDb } from '../../src/control/db';
import { connectApp } from '../../src/control/connected-apps';
import { expectPage, page, post, signInThroughDashboard, submit, textOf, unescape, visit } from '../dashboard';
import { api, newTenant } from '../helpers';
import { addPerson, uniqueName, type Tenant } from '../people';

let tenant: Tenant;
let admin: string;
let member: string;
let viewer: string;
let memberSession: Awaited<ReturnType<typeof addPerson>>;
let path: string;

/** The project's credentials as the API lists them (the owner's session). */
const listed = async () => (await api(`/api/v1/project/${tenant.projectId}/credential`, { token: tenant.token })).json<any[]>();

/** The `value` of the read-only field holding a secret just created. */
/** The table row holding `label`, as text, and its HTML. */
const rowOf = (html: string, label: string) => new RegExp(`<tr>(?:(?!</tr>).)*${label.replace(/[()]/g, '\\$&')}(?:(?!</tr>).)*</tr>`, 's').exec(html)![0];

const secretOf = (html: string, id = 'created-secret') => unescape(new RegExp(`id="${id}" readonly="" value="([^"]+)"`).exec(html)?.[1] ?? '');

beforeAll(async () => {
  tenant = await newTenant('creds');
  memberSession = await addPerson(tenant, 'Member', 'creds-member');
  const viewerSession = await addPerson(tenant, 'Viewer', 'creds-viewer');
  admin = await signInThroughDashboard(tenant.user.email);
  member = await signInThroughDashboard(memberSession.user.email);
  viewer = await signInThroughDashboard(viewerSession.user.email);
  path = `/projects/${tenant.projectId}/credentials`;
});

describe('the Credentials page', () => {
  it('lists the sign-ins with a session on the project, marks one\'s own, and offers both create forms', async () => {
    const html = await expectPage(await page(path, admin), 200, 'Credentials');
    expect(html).toContain('aria-current="page">Credentials</a>');
    const text = textOf(html);
    expect(text).toContain(`${tenant.user.email} (this sign-in)`);
    expect(text).toContain(memberSession.user.email);
    expect(html).toContain(`action="${path}/api-token"`);
    expect(html).toContain(`action="${path}/upload-pass"`);
    // The owner (Admin) is offered every permission, organization ones included.
    for (const permission of ['project:admin', 'org:manage_org', 'org:view_activity_log']) expect(html).toContain(`value="${permission}"`);
  });

  it('offers a Member only the permissions they hold', async () => {
    const html = await expectPage(await page(path, member), 200, 'Credentials');
    const offered = [...html.matchAll(/name="permissions" value="([^"]+)"/g)].map((m) => m[1]);
    expect(offered).toEqual(['project:view', 'project:edit', 'project:portfolio:view', 'project:portfolio:rate', 'org:view', 'org:create_project']);
    expect(html).not.toContain('value="org:manage_org"');
    expect(html).not.toContain('value="project:admin"');
  });

  it('a token created on the page holds the chosen permissions and its secret is shown exactly once', async () => {
    const name = uniqueName('CI reader');
    const res = await submit(`${path}/api-token`, member, { name, permissions: ['project:view', 'org:view'], duration_days: '30' });
    const html = await expectPage(res, 200, 'Credentials');
    const secret = secretOf(html);
    expect(secret).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(html.split(secret)).toHaveLength(2);
    expect(html).toContain('data-copy="created-secret"');
    expect(textOf(html)).toContain('shown this once');
    // Never in a cookie or an address.
    expect(res.headers.get('set-cookie') ?? '').not.toContain(secret);
    expect(res.headers.get('location')).toBeNull();
    // Listed with its permissions, by its creator, 30 days long.
    const row = (await listed()).find((c) => c.name === name)!;
    expect(row).toMatchObject({ kind: 'api_token', permissions: ['project:view', 'org:view'], createdBy: { email: memberSession.user.email }, revokedAt: null });
    expect(Math.round((Date.parse(row.expiresAt) - Date.parse(row.createdAt)) / 86_400_000)).toBe(30);
    expect(textOf(html)).toContain(`${name} project:view, org:view ${memberSession.user.email}`);
    // The token works on the API host with what it holds.
    expect((await api(`/api/v1/org/${tenant.orgId}`, { token: secret })).status).toBe(200);
    // The list page later shows the token but never its secret.
    const later = await expectPage(await page(path, member), 200, 'Credentials');
    expect(textOf(later)).toContain(name);
    expect(later).not.toContain(secret);
    expect(later).not.toContain('id="created-secret"');
  });

  it('a forged permission the person lacks is refused by the API and shown as the field\'s error; nothing is created', async () => {
    const before = (await listed()).length;
    const name = uniqueName('Escalation');
    const res = await submit(`${path}/api-token`, member, { name, permissions: ['project:view', 'org:manage_org'] });
    const html = await expectPage(res, 400, 'Credentials');
    expect(html).toContain('id="token-permissions-error"');
    expect(textOf(html)).toContain('You do not hold the permission org:manage_org');
    expect(html).toContain(`value="${name}"`);
    expect(html).not.toContain('id="created-secret"');
    expect((await listed()).length).toBe(before);
    // No permission ticked: said beside the permissions, nothing asked of the API.
    const none = await expectPage(await submit(`${path}/api-token`, member, { name }), 400, 'Credentials');
    expect(textOf(none)).toContain('Tick at least one permission.');
    // A duration out of range: the API's message beside the duration.
    const long = await expectPage(await submit(`${path}/api-token`, member, { permissions: 'project:view', duration_days: '400' }), 400, 'Credentials');
    expect(long).toContain('id="token-duration-error"');
    expect((await listed()).length).toBe(before);
  });

  it('an upload pass is shown once with the CLI line that uses it', async () => {
    const name = uniqueName('build server');
    const html = await expectPage(await submit(`${path}/upload-pass`, admin, { name, duration_days: '2' }), 200, 'Credentials');
    const pass = secretOf(html);
    expect(pass).toMatch(/^ey/);
    const command = unescape(/id="created-command"[^>]*>([^<]+)<\/textarea>/.exec(html)![1]!);
    expect(command).toBe(`export POSTURE_PASS='${pass}'\nposture upload ./bom --api ${env.API_URL.replace(/\/$/, '')} --project ${tenant.projectId} --wait`);
    expect((await listed()).find((c) => c.name === name)).toMatchObject({ kind: 'upload_pass', revokedAt: null });
    const later = await page(path, admin).then((r) => r.text());
    expect(textOf(later)).toContain(name);
    expect(later).not.toContain(pass);
  });

  it('cancel works: the credential stops at once and stays listed as canceled; expired ones stay listed as expired', async () => {
    const name = uniqueName('Short lived');
    const created = await submit(`${path}/api-token`, admin, { name, permissions: 'org:view' });
    const secret = secretOf(await created.text());
    const row = (await listed()).find((c) => c.name === name)!;
    expect(await page(path, admin).then((r) => r.text())).toContain(`action="${path}/${row.jti}/cancel"`);
    const res = await submit(`${path}/${row.jti}/cancel`, admin);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${path}?canceled=1`);
    expect((await api(`/api/v1/org/${tenant.orgId}`, { token: secret })).status).toBe(401);
    // An expired pass, for the listing.
    const expiredName = uniqueName('Old pass');
    await submit(`${path}/upload-pass`, admin, { name: expiredName });
    await env.DB.prepare('UPDATE credentials SET expires_at = ? WHERE name = ?').bind('2020-01-01T00:00:00.000Z', expiredName).run();
    const html = await expectPage(await page(`${path}?canceled=1`, admin), 200, 'Credentials');
    expect(textOf(html)).toContain('Canceled: it stopped working at once.');
    expect(textOf(rowOf(html, name))).toMatch(/canceled$/);
    expect(textOf(rowOf(html, expiredName))).toMatch(/expired$/);
    // Neither offers a cancel button any more.
    expect(html).not.toContain(`action="${path}/${row.jti}/cancel"`);
  });

  it('lists connected apps with client, scopes, creator and last use, and disconnects them', async () => {
    const client = uniqueName('Claude Desktop');
    const { jti } = await connectApp(controlDb(env.DB), {
      orgId: tenant.orgId, userId: tenant.user.id, clientId: crypto.randomUUID(), clientName: client, scopes: ['docs:read', 'project:read'], traceId: 'test',
    });
    const html = await expectPage(await page(path, admin), 200, 'Credentials');
    expect(textOf(html)).toContain(`${client} docs:read, project:read ${tenant.user.email}`);
    expect(html).toContain(`Disconnect ${client}?`);
    expect((await submit(`${path}/${jti}/cancel`, admin)).status).toBe(303);
    expect((await listed()).find((c) => c.jti === jti).revokedAt).not.toBeNull();
  });

  it('canceling one\'s own sign-in signs out', async () => {
    const own = await signInThroughDashboard(memberSession.user.email);
    const html = await page(path, own).then((r) => r.text());
    const row = rowOf(html, '(this sign-in)');
    expect(row).toContain('Cancel your own sign-in?');
    const sid = /action="[^"]+\/([0-9a-f-]{36})\/cancel"/.exec(row)![1];
    const res = await submit(`${path}/${sid}/cancel`, own);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in');
    expect((await page(path, own)).headers.get('location')).toBe('/sign-in');
  });
});

describe('who may see and change credentials', () => {
  it('a Viewer (without project:edit) is told so and offered no action; forged posts are refused and change nothing', async () => {
    const html = await expectPage(await page(path, viewer), 200, 'Credentials');
    expect(textOf(html)).toContain('needs the permission project:edit');
    expect(html).not.toMatch(/action="[^"]*\/credentials\//);
    const before = await listed();
    const forged = await submit(`${path}/api-token`, viewer, { name: 'forged', permissions: 'project:view' });
    expect(forged.status).toBe(403);
    expect(textOf(await forged.text())).toContain('project:edit');
    expect((await submit(`${path}/upload-pass`, viewer, { name: 'forged' })).status).toBe(403);
    const active = before.find((c) => c.kind === 'sign_in' && !c.revokedAt)!;
    expect((await submit(`${path}/${active.jti}/cancel`, viewer)).status).toBe(403);
    const after = await listed();
    expect(after).toHaveLength(before.length);
    expect(after.find((c) => c.jti === active.jti).revokedAt).toBeNull();
  });

  it('without a cookie the page leads to sign-in', async () => {
    const res = await visit(path);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in');
  });

  it('another organization\'s project id is a 404 that shows nothing of it', async () => {
    const other = await newTenant('creds-other');
    const otherName = (await (await api('/api/v1/user/project', { token: other.token })).json<any>()).projects[0].name;
    await submit(`/projects/${other.projectId}/credentials/upload-pass`, await signInThroughDashboard(other.user.email), { name: 'theirs' });
    const res = await page(`/projects/${other.projectId}/credentials`, admin);
    const html = await expectPage(res, 404, 'Not found');
    expect(html).not.toContain(other.user.email);
    expect(html).not.toContain(otherName);
    expect(html).not.toContain('theirs');
    expect((await submit(`/projects/${other.projectId}/credentials/api-token`, admin, { permissions: 'project:view' })).status).toBe(404);
  });

  it('a form posted from another site is refused (403) and creates nothing', async () => {
    const before = (await listed()).length;
    const cookie = admin;
    for (const headers of [{ cookie }, { cookie, origin: 'https://evil.example' }] as Record<string, string>[]) {
      expect((await post(`${path}/api-token`, { permissions: 'project:view' }, headers)).status).toBe(403);
      expect((await post(`${path}/upload-pass`, {}, headers)).status).toBe(403);
    }
    expect((await listed()).length).toBe(before);
  });
});
