// The dashboard's People area (issue 21, page 9; spec 4.3, 4.4, 4.5, 4.15) and the organization's
// settings (page 12): members, invitations, removal, teams, roles, a person's permissions, the name and
// retention, and deletion behind the typed name; on DASHBOARD_HOST through the Worker's entry.
import { beforeAll, describe, expect, it } from 'vitest';
import { cookieOf, expectPage, page, post, signInThroughDashboard, submit, textOf, unescape, visit } from '../dashboard';
import { api, latestLinkToken, newTenant, uniqueEmail } from '../helpers';
import { addOrgMember, addPerson, uniqueName, type Tenant } from '../people';

let tenant: Tenant;
let projectName: string;
let admin: string;
let member: string;
let viewer: string;
let memberSession: Awaited<ReturnType<typeof addPerson>>;
let viewerSession: Awaited<ReturnType<typeof addPerson>>;

const O = () => `/api/v1/org/${tenant.orgId}`;
const read = async (path: string, token = tenant.token) => (await api(path, { token })).json<any>();
const members = async () => (await read(`${O()}/user`)).users as { id: string; email: string }[];
const teams = async () => (await read(`${O()}/team`)).teams as { id: string; name: string }[];

beforeAll(async () => {
  tenant = await newTenant('people');
  projectName = (await read('/api/v1/user/project')).projects[0].name;
  memberSession = await addPerson(tenant, 'Member', 'people-member');
  viewerSession = await addPerson(tenant, 'Viewer', 'people-viewer');
  admin = await signInThroughDashboard(tenant.user.email);
  member = await signInThroughDashboard(memberSession.user.email);
  viewer = await signInThroughDashboard(viewerSession.user.email);
});

describe('the People page', () => {
  it('shows the members, the teams with their reach and roles, and each role\'s permissions, with the admin\'s actions', async () => {
    const html = await expectPage(await page('/people', admin), 200, 'People');
    const text = textOf(html);
    for (const person of [tenant.user, memberSession.user, viewerSession.user]) expect(text).toContain(person.email);
    expect(text).toMatch(/Administrators All projects 1 Admin/);
    expect(text).toContain('Admin built-in project:view, project:edit, project:admin');
    expect(text).toContain('Viewer built-in project:view, project:portfolio:view, org:view');
    expect(html).toContain('href="/people/invite"');
    expect(html).toContain('href="/people/teams/new"');
    expect(html).toContain(`action="/people/${memberSession.user.id}/remove"`);
    // Each row's button names its person for screen readers ("Remove" alone is a list of the same name).
    expect(unescape(html)).toContain(`Remove<span class="visually-hidden"> ${memberSession.user.name || memberSession.user.email}</span>`);
    // No removing oneself from here.
    expect(html).not.toContain(`action="/people/${tenant.user.id}/remove"`);
  });

  it('a Member sees members and roles but is offered no invitation, removal or team change', async () => {
    const html = await expectPage(await page('/people', member), 200, 'People');
    expect(textOf(html)).toContain(viewerSession.user.email);
    expect(textOf(html)).toContain('Seeing teams needs the permission org:manage_teams.');
    expect(html).not.toContain('href="/people/invite"');
    expect(html).not.toContain('href="/people/teams/new"');
    expect(html).not.toMatch(/action="\/people\//);
  });

  it('without a cookie every People and Settings page leads to sign-in', async () => {
    for (const path of ['/people', '/people/invite', '/people/teams/new', `/people/${tenant.user.id}`, '/settings']) {
      const res = await visit(path);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/sign-in');
    }
  });
});

describe('invitations and removal', () => {
  it('an invitation by email into chosen teams: the person joins, gets the email, and is listed', async () => {
    const form = await expectPage(await page('/people/invite', admin), 200, 'Invite a person');
    const membersTeam = (await teams()).find((t) => t.name === 'Members')!;
    expect(form).toContain(`value="${membersTeam.id}"`);
    const email = uniqueEmail('invitee');
    const res = await submit('/people/invite', admin, { email, teamIds: membersTeam.id, projectUuid: tenant.projectId });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/people?invited=${encodeURIComponent(email)}`);
    await expect(latestLinkToken(email)).resolves.toMatch(/^ey/);
    const joined = (await members()).find((m) => m.email === email)!;
    expect(joined).toBeDefined();
    expect((await read(`${O()}/user/${joined.id}/team`)).teams.map((t: any) => t.name)).toEqual(['Members']);
    const html = await expectPage(await page(res.headers.get('location')!, admin), 200, 'People');
    expect(textOf(html)).toContain(`Invitation sent to ${email}`);
    expect(textOf(html)).toContain(email);
  });

  it('an invitation without a team or with a bad address is shown again with the error at its field', async () => {
    const email = uniqueEmail('noteam');
    const none = await expectPage(await submit('/people/invite', admin, { email }), 400, 'Invite a person');
    expect(none).toContain('id="invite-teams-error"');
    expect(none).toContain(`value="${email}"`);
    const team = (await teams())[0]!;
    const bad = await expectPage(await submit('/people/invite', admin, { email: 'not an address', teamIds: team.id }), 400, 'Invite a person');
    expect(bad).toContain('id="invite-email-error"');
    expect((await members()).some((m) => m.email === email)).toBe(false);
  });

  it('a forged invitation by a Member, or a removal by a Viewer, is refused (403) and changes nothing', async () => {
    const email = uniqueEmail('forged');
    const team = (await teams())[0]!;
    const res = await submit('/people/invite', member, { email, teamIds: team.id });
    expect(res.status).toBe(403);
    expect(textOf(await res.text())).toContain('org:invite_user');
    expect((await members()).some((m) => m.email === email)).toBe(false);
    expect((await submit(`/people/${memberSession.user.id}/remove`, viewer)).status).toBe(403);
    expect((await members()).some((m) => m.id === memberSession.user.id)).toBe(true);
  });

  it('removing a member takes them out of the organization and ends their sign-ins', async () => {
    const leaver = await addPerson(tenant, 'Viewer', 'leaver');
    const cookie = await signInThroughDashboard(leaver.user.email);
    const res = await submit(`/people/${leaver.user.id}/remove`, admin);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/people?removed=1');
    expect((await members()).some((m) => m.id === leaver.user.id)).toBe(false);
    const html = await expectPage(await page('/people?removed=1', admin), 200, 'People');
    expect(textOf(html)).not.toContain(leaver.user.email);
    expect((await page('/people', cookie)).headers.get('location')).toBe('/sign-in');
  });

  it('posts from another site are refused (403) and change nothing', async () => {
    const email = uniqueEmail('csrf');
    const team = (await teams())[0]!;
    for (const headers of [{ cookie: admin }, { cookie: admin, origin: 'https://evil.example' }] as Record<string, string>[]) {
      expect((await post('/people/invite', { email, teamIds: team.id }, headers)).status).toBe(403);
      expect((await post(`/people/${viewerSession.user.id}/remove`, {}, headers)).status).toBe(403);
      expect((await post('/settings', { name: 'Hijacked' }, headers)).status).toBe(403);
    }
    expect((await members()).some((m) => m.email === email)).toBe(false);
    expect((await members()).some((m) => m.id === viewerSession.user.id)).toBe(true);
    expect((await read(O())).name).not.toBe('Hijacked');
  });
});

describe('teams', () => {
  it('a team created on the page shows its roles with their permissions, its projects and its members, and changes', async () => {
    const { roles } = await read(`${O()}/role`);
    const viewerRole = roles.find((r: any) => r.name === 'Viewer');
    const memberRole = roles.find((r: any) => r.name === 'Member');
    expect(await expectPage(await page('/people/teams/new', admin), 200, 'New team')).toContain(`value="${viewerRole.id}"`);
    const name = uniqueName('Auditors');
    const created = await submit('/people/teams', admin, { name, roleIds: viewerRole.id, projectIds: tenant.projectId });
    expect(created.status).toBe(303);
    const href = created.headers.get('location')!;
    const teamId = href.split('/').pop()!;
    expect(href).toBe(`/people/teams/${teamId}`);

    const joiner = await addOrgMember(tenant, 'joiner');
    let html = await expectPage(await page(href, admin), 200, `Team ${name}`);
    expect(textOf(html)).toContain('Viewer project:view, project:portfolio:view, org:view');
    expect(textOf(html)).toContain(projectName);
    expect(textOf(html)).toContain('No one is on this team yet.');

    // Add a member of the organization, then take them off.
    expect(html).toContain(`<option value="${joiner.id}">`);
    const added = await submit(`${href}/members`, admin, { userId: joiner.id });
    expect(added.headers.get('location')).toBe(`${href}?done=added`);
    html = await expectPage(await page(`${href}?done=added`, admin), 200, `Team ${name}`);
    expect(textOf(html)).toContain('Member added.');
    expect(textOf(html)).toContain(joiner.email);
    expect((await read(`${O()}/team/${teamId}`)).members.map((m: any) => m.id)).toEqual([joiner.id]);
    // Their permissions now come from it.
    const person = await expectPage(await page(`/people/${joiner.id}`, admin), 200, joiner.name || joiner.email);
    expect(textOf(person)).toContain(`${projectName} project:view, project:portfolio:view`);
    expect(textOf(person)).toContain(name);
    expect((await submit(`${href}/members/${joiner.id}/remove`, admin)).status).toBe(303);
    expect((await read(`${O()}/team/${teamId}`)).members).toEqual([]);

    // Roles on their own page; projects replaced; renamed and reaching everything.
    expect(await expectPage(await page(`${href}/roles`, admin), 200, `Roles of ${name}`)).toContain(`value="${memberRole.id}"`);
    expect((await submit(`${href}/roles`, admin, { roleIds: memberRole.id })).status).toBe(303);
    expect((await read(`${O()}/team/${teamId}`)).roles.map((r: any) => r.name)).toEqual(['Member']);
    expect((await submit(`${href}/projects`, admin, {})).status).toBe(303);
    expect((await read(`${O()}/team/${teamId}`)).projects).toEqual([]);
    const renamed = uniqueName('Reviewers');
    expect((await submit(href, admin, { name: renamed, allProjects: 'true' })).status).toBe(303);
    html = await expectPage(await page(href, admin), 200, `Team ${renamed}`);
    expect(textOf(html)).toContain('Member on every project');

    // Delete.
    const deleted = await submit(`${href}/delete`, admin);
    expect(deleted.headers.get('location')).toBe('/people?deleted=1');
    expect((await api(`${O()}/team/${teamId}`, { token: tenant.token })).status).toBe(404);
    expect((await page(href, admin)).status).toBe(404);
  });

  it('a taken name is shown again with the error at the name', async () => {
    const html = await expectPage(await submit('/people/teams', admin, { name: 'Administrators' }), 400, 'New team');
    expect(html).toContain('id="team-name-error"');
    expect(html).toContain('value="Administrators"');
  });

  it('a built-in team offers no rename, role change or deletion', async () => {
    const administrators = (await teams()).find((t) => t.name === 'Administrators')!;
    const html = await expectPage(await page(`/people/teams/${administrators.id}`, admin), 200, 'Team Administrators');
    expect(textOf(html)).toContain('The roles of a built-in team cannot be changed.');
    expect(html).not.toContain(`action="/people/teams/${administrators.id}/delete"`);
    expect(html).not.toContain(`action="/people/teams/${administrators.id}"`);
    expect(textOf(html)).toContain(tenant.user.email);
  });

  it('a Member cannot open a team page, nor forge a team change', async () => {
    const team = (await teams())[0]!;
    expect((await page(`/people/teams/${team.id}`, member)).status).toBe(403);
    const name = uniqueName('Forged');
    expect((await submit('/people/teams', member, { name })).status).toBe(403);
    expect((await teams()).some((t) => t.name === name)).toBe(false);
    expect((await submit(`/people/teams/${team.id}/delete`, viewer)).status).toBe(403);
    expect((await teams()).some((t) => t.id === team.id)).toBe(true);
  });

  it('another organization\'s team or person is a 404 that shows nothing of them', async () => {
    const other = await newTenant('people-other');
    const otherTeam = (await read(`/api/v1/org/${other.orgId}/team`, other.token)).teams[0];
    for (const path of [`/people/teams/${otherTeam.id}`, `/people/teams/${otherTeam.id}/roles`, `/people/${other.user.id}`]) {
      const html = await expectPage(await page(path, admin), 404, /Not found/);
      expect(html).not.toContain(other.user.email);
    }
    expect((await submit(`/people/teams/${otherTeam.id}/delete`, admin)).status).toBe(404);
    expect((await api(`/api/v1/org/${other.orgId}/team/${otherTeam.id}`, { token: other.token })).status).toBe(200);
  });
});

describe('a person\'s permissions', () => {
  it('shows what a person may do in the organization and on each project, and their teams', async () => {
    const html = await expectPage(await page(`/people/${memberSession.user.id}`, admin), 200, memberSession.user.name || memberSession.user.email);
    const text = textOf(html);
    expect(text).toContain('org:create_project');
    expect(text).toContain(`${projectName} project:view, project:edit, project:portfolio:view, project:portfolio:rate`);
    expect(text).toMatch(/Team [0-9a-f]{8} All projects 1 Member/);
  });

  it('a Member may look themselves up but not anyone else', async () => {
    const own = await expectPage(await page(`/people/${memberSession.user.id}`, member), 200, memberSession.user.name || memberSession.user.email);
    expect(textOf(own)).toContain('(you)');
    const res = await page(`/people/${tenant.user.id}`, member);
    expect(res.status).toBe(403);
    const text = textOf(await res.text());
    expect(text).toContain('org:manage_teams');
    expect(text).not.toContain('project:admin');
  });
});

describe('organization settings', () => {
  it('shows the name and retention; saving changes them; a value out of range is shown at its field', async () => {
    const html = await expectPage(await page('/settings', admin), 200, 'Organization settings');
    const org = await read(O());
    expect(html).toContain(`value="${org.retentionDays}"`);
    expect(textOf(html)).toContain(org.name);
    const name = uniqueName('Renamed org');
    const saved = await submit('/settings', admin, { name, retentionDays: '30' });
    expect(saved.headers.get('location')).toBe('/settings?saved=1');
    expect(await read(O())).toMatchObject({ name, retentionDays: 30 });
    const after = await expectPage(await page('/settings?saved=1', admin), 200, 'Organization settings');
    expect(textOf(after)).toContain('Saved.');
    expect(after).toContain('value="30"');
    const bad = await expectPage(await submit('/settings', admin, { name, retentionDays: '0' }), 400, 'Organization settings');
    expect(bad).toContain('id="org-retention-error"');
    expect((await read(O())).retentionDays).toBe(30);
  });

  it('a Member sees the settings without forms; forged changes and deletion are refused and change nothing', async () => {
    const org = await read(O());
    const html = await expectPage(await page('/settings', member), 200, 'Organization settings');
    expect(textOf(html)).toContain(`Retention: ${org.retentionDays} days`);
    expect(html).not.toMatch(/action="\/settings/);
    expect((await submit('/settings', member, { name: 'Taken over' })).status).toBe(403);
    expect((await submit('/settings/delete', viewer, { confirm: org.name })).status).toBe(403);
    expect(await read(O())).toMatchObject({ name: org.name });
  });

  it('deletion needs the organization\'s name typed; with it, the organization goes and the cookie is cleared', async () => {
    const doomed = await newTenant('doomed');
    const cookie = await signInThroughDashboard(doomed.user.email);
    const org = await read(`/api/v1/org/${doomed.orgId}`, doomed.token);
    for (const confirm of ['', 'something else', org.name.toUpperCase()]) {
      const html = await expectPage(await submit('/settings/delete', cookie, { confirm }), 400, 'Organization settings');
      expect(html).toContain('id="delete-confirm-error"');
      expect((await api(`/api/v1/org/${doomed.orgId}`, { token: doomed.token })).status).toBe(200);
    }
    const res = await submit('/settings/delete', cookie, { confirm: org.name });
    const html = await expectPage(res, 200, 'Organization deleted');
    expect(textOf(html)).toContain(org.name);
    expect(cookieOf(res)).toMatch(/Max-Age=0/);
    expect((await api(`/api/v1/org/${doomed.orgId}`, { token: doomed.token })).status).toBe(401);
  });
});
