// Issue 7, control plane: no one grants what they do not hold; identity and tenancy rules (rate limit
// per sign-in, several organizations, creating a project, links issued before a removal); spec details
// (activity written for every listed action, ids in paths compared without case).
import { env } from 'cloudflare:workers';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE_ID, MEMBER_ROLE_ID, VIEWER_ROLE_ID, type Permission } from '../../src/auth/permissions';
import { rateLimitKey } from '../../src/middleware/rate-limit';
import { DEMO } from '../../src/routes/dev';
import { dataTenant } from '../data-plane';
import { api, expectError, json, latestLinkToken, newTenant, signIn, uniqueEmail } from '../helpers';
import { activityRows, addPerson, addProject, apiToken, lastActivity, uniqueName, type Tenant } from '../people';

const O = (orgId: string) => `/api/v1/org/${orgId}`;
const P = (projectId: string) => `/api/v1/project/${projectId}`;
const count = async (query: string, ...binds: unknown[]) => (await env.DB.prepare(query).bind(...binds).first<{ n: number }>())!.n;
const teamRows = (table: string, teamId: string) => count(`SELECT count(*) AS n FROM ${table} WHERE team_id = ?`, teamId);
const entriesFor = async (orgId: string, action: string, teamId: string) => (await activityRows(orgId, action)).filter((r) => r.data.teamId === teamId);

/** A team made by the tenant's owner (an administrator) through the API. */
async function adminTeam(tenant: Tenant, body: Record<string, unknown> = {}) {
  const res = await api(`${O(tenant.orgId)}/team`, { token: tenant.token, body: { name: uniqueName('Team'), ...body } });
  expect(res.status).toBe(201);
  return json(res);
}

async function adminRole(tenant: Tenant, permissions: Permission[]): Promise<string> {
  const res = await api(`${O(tenant.orgId)}/role`, { token: tenant.token, body: { name: uniqueName('Role'), permissions } });
  expect(res.status).toBe(201);
  return (await json(res)).id;
}

async function teamIdByName(tenant: Tenant, name: string): Promise<string> {
  const { teams } = await json(await api(`${O(tenant.orgId)}/team`, { token: tenant.token }));
  return teams.find((t: { name: string }) => t.name === name).id;
}

/** A person on a new team reaching only `projectIds`, with a custom role of `permissions`; signed in. */
async function addScopedPerson(tenant: Tenant, permissions: Permission[], projectIds: string[], label = 'scoped') {
  const roleId = await adminRole(tenant, permissions);
  const team = await adminTeam(tenant, { roleIds: [roleId], projectIds });
  const email = uniqueEmail(label);
  const userId = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare('INSERT INTO users (id, email, name, created_at) VALUES (?, ?, ?, ?)').bind(userId, email, label, now),
    env.DB.prepare('INSERT INTO org_members (org_id, user_id, joined_at) VALUES (?, ?, ?)').bind(tenant.orgId, userId, now),
    env.DB.prepare('INSERT INTO team_members (team_id, user_id, added_at) VALUES (?, ?, ?)').bind(team.id, userId, now),
  ]);
  const session = await signIn(email);
  return { ...session, token: session.jwt, teamId: team.id as string };
}

const MANAGER: Permission[] = ['org:manage_teams', 'project:view'];

describe('no one grants what they do not hold (Kubernetes RBAC escalation prevention)', () => {
  let tenant: Tenant;
  let manager: Awaited<ReturnType<typeof addPerson>>;
  beforeAll(async () => {
    tenant = await newTenant('grants');
    manager = await addPerson(tenant, { permissions: MANAGER }, 'manager');
  });

  it('create team: its roles x its reach count even with no members; org permissions organization-wide; nothing written', async () => {
    const name = uniqueName('Escalation');
    const denied = await api(`${O(tenant.orgId)}/team`, { token: manager.token, body: { name, allProjects: true, roleIds: [ADMIN_ROLE_ID] } });
    await expectError(denied, 403, 'permission_denied', { permission: 'project:edit' });
    // No reach: the project permissions grant nothing, the organization ones still do.
    await expectError(await api(`${O(tenant.orgId)}/team`, { token: manager.token, body: { name, roleIds: [ADMIN_ROLE_ID] } }), 403, 'permission_denied', { permission: 'org:view' });
    await expectError(await api(`${O(tenant.orgId)}/team`, { token: manager.token, body: { name, allProjects: true, roleIds: [VIEWER_ROLE_ID] } }), 403, 'permission_denied', { permission: 'project:portfolio:view' });
    expect(await count('SELECT count(*) AS n FROM teams WHERE org_id = ? AND name = ?', tenant.orgId, name)).toBe(0);
    expect((await activityRows(tenant.orgId, 'team.created')).filter((r) => r.data.teamName === name)).toEqual([]);
    const viewOnly = await adminRole(tenant, ['project:view']);
    const ok = await api(`${O(tenant.orgId)}/team`, { token: manager.token, body: { name, allProjects: true, roleIds: [viewOnly] } });
    expect(ok.status).toBe(201);
  });

  it('add roles: the added roles\' permissions x the team\'s reach; nothing written', async () => {
    const team = await adminTeam(tenant, { allProjects: true });
    await expectError(await api(`${O(tenant.orgId)}/team/${team.id}/role`, { token: manager.token, body: { roleIds: [MEMBER_ROLE_ID] } }), 403, 'permission_denied', { permission: 'project:edit' });
    expect(await teamRows('team_roles', team.id)).toBe(0);
    expect(await entriesFor(tenant.orgId, 'team.role.added', team.id)).toEqual([]);
    // A team reaching nothing gains no project permission from a role.
    const empty = await adminTeam(tenant);
    const projectOnly = await adminRole(tenant, ['project:view', 'project:edit', 'project:admin']);
    expect((await api(`${O(tenant.orgId)}/team/${empty.id}/role`, { token: manager.token, body: { roleIds: [projectOnly] } })).status).toBe(200);
  });

  it('replace roles: refused when the new roles add a permission the caller lacks; fewer roles always allowed', async () => {
    const viewOnly = await adminRole(tenant, ['project:view']);
    const team = await adminTeam(tenant, { allProjects: true, roleIds: [viewOnly, MEMBER_ROLE_ID] });
    await expectError(await api(`${O(tenant.orgId)}/team/${team.id}/role`, { method: 'PUT', token: manager.token, body: { roleIds: [ADMIN_ROLE_ID] } }), 403, 'permission_denied', { permission: 'project:admin' });
    // (project:edit is granted by Member already: only what the change adds counts.)
    expect(await teamRows('team_roles', team.id)).toBe(2);
    expect((await api(`${O(tenant.orgId)}/team/${team.id}/role`, { method: 'PUT', token: manager.token, body: { roleIds: [viewOnly] } })).status).toBe(200);
  });

  it('add projects, replace projects, allProjects on: the team\'s permissions x the added reach, project by project', async () => {
    const other = await addProject(tenant);
    // Holds project:edit on the tenant's first project only.
    const scoped = await addScopedPerson(tenant, ['org:manage_teams', 'project:view', 'project:edit'], [tenant.projectId]);
    const editRole = await adminRole(tenant, ['project:edit']);
    const team = await adminTeam(tenant, { roleIds: [editRole] });
    const path = `${O(tenant.orgId)}/team/${team.id}`;
    await expectError(await api(`${path}/project`, { token: scoped.token, body: { projectIds: [other] } }), 403, 'permission_denied', { permission: 'project:edit' });
    await expectError(await api(`${path}/project`, { method: 'PUT', token: scoped.token, body: { projectIds: [tenant.projectId, other] } }), 403, 'permission_denied', { permission: 'project:edit' });
    await expectError(await api(path, { method: 'PUT', token: scoped.token, body: { allProjects: true } }), 403, 'permission_denied', { permission: 'project:edit' });
    expect(await teamRows('team_projects', team.id)).toBe(0);
    expect(await json(await api(path, { token: tenant.token }))).toMatchObject({ allProjects: false, projects: [] });
    expect(await entriesFor(tenant.orgId, 'team.project.added', team.id)).toEqual([]);
    // Where the caller holds it, the same change passes.
    expect((await api(`${path}/project`, { token: scoped.token, body: { projectIds: [tenant.projectId] } })).status).toBe(200);
  });

  it('add a person to a team: the team\'s whole grant (a manager cannot join Administrators)', async () => {
    const administrators = await teamIdByName(tenant, 'Administrators');
    const res = await api(`${O(tenant.orgId)}/team/${administrators}/user`, { token: manager.token, body: { userId: manager.user.id } });
    await expectError(res, 403, 'permission_denied', { permission: 'project:edit' });
    expect(await count('SELECT count(*) AS n FROM team_members WHERE team_id = ? AND user_id = ?', administrators, manager.user.id)).toBe(0);
    expect(await entriesFor(tenant.orgId, 'team.member.added', administrators)).toEqual([]);
    // And the manager's session still holds no administrator permission.
    await expectError(await api(P(tenant.projectId), { method: 'PUT', token: manager.token, body: { name: 'Mine now' } }), 403, 'permission_denied');
  });

  it('create a role: each permission must be held somewhere in the organization; nothing written', async () => {
    const name = uniqueName('Everything');
    await expectError(await api(`${O(tenant.orgId)}/role`, { token: manager.token, body: { name, permissions: ['project:view', 'project:admin', 'org:manage_org'] } }), 403, 'permission_denied', { permission: 'project:admin' });
    expect(await count('SELECT count(*) AS n FROM roles WHERE org_id = ? AND name = ?', tenant.orgId, name)).toBe(0);
    expect((await api(`${O(tenant.orgId)}/role`, { token: manager.token, body: { name, permissions: ['project:view', 'org:manage_teams'] } })).status).toBe(201);
  });

  it('change a role\'s permissions: added permissions x the reach of every team granting it; a role no team grants as a new one', async () => {
    const granted = await adminRole(tenant, ['project:view']);
    await adminTeam(tenant, { allProjects: true, roleIds: [granted] });
    await expectError(await api(`${O(tenant.orgId)}/role/${granted}`, { method: 'PUT', token: manager.token, body: { permissions: ['project:view', 'project:edit'] } }), 403, 'permission_denied', { permission: 'project:edit' });
    expect((await json(await api(`${O(tenant.orgId)}/role/${granted}`, { token: tenant.token }))).permissions).toEqual(['project:view']);
    const loose = await adminRole(tenant, []);
    await expectError(await api(`${O(tenant.orgId)}/role/${loose}`, { method: 'PUT', token: manager.token, body: { permissions: ['org:invite_user'] } }), 403, 'permission_denied', { permission: 'org:invite_user' });
    expect((await api(`${O(tenant.orgId)}/role/${loose}`, { method: 'PUT', token: manager.token, body: { permissions: ['project:view'] } })).status).toBe(200);
    // Renaming or removing permissions adds nothing.
    expect((await api(`${O(tenant.orgId)}/role/${granted}`, { method: 'PUT', token: manager.token, body: { name: uniqueName('Renamed'), permissions: [] } })).status).toBe(200);
  });

  it('an API token acts only in its own project: a change reaching another project is refused', async () => {
    const other = await addProject(tenant);
    const token = await apiToken(tenant, ['project:view', 'project:edit', 'project:portfolio:view', 'project:portfolio:rate', 'org:view', 'org:create_project', 'org:manage_teams']);
    const create = (body: Record<string, unknown>) => api(`${O(tenant.orgId)}/team`, { token, body: { name: uniqueName('Token team'), roleIds: [MEMBER_ROLE_ID], ...body } });
    expect((await create({ projectIds: [tenant.projectId] })).status).toBe(201);
    await expectError(await create({ projectIds: [other] }), 403, 'permission_denied', { permission: 'project:view' });
    await expectError(await create({ allProjects: true }), 403, 'permission_denied', { permission: 'project:view' });
  });

  it('invitation: the teams joined count with their own reach, checked before anything is written', async () => {
    const other = await addProject(tenant);
    const inviter = await addScopedPerson(tenant, ['org:invite_user', 'org:view', 'project:view'], [tenant.projectId], 'inviter');
    const viewOnly = await adminRole(tenant, ['project:view']);
    const elsewhere = await adminTeam(tenant, { roleIds: [viewOnly], projectIds: [other] });
    const email = uniqueEmail('invitee');
    const res = await api(`${O(tenant.orgId)}/invite`, { token: inviter.token, body: { email, teamIds: [elsewhere.id] } });
    // project:view is held, but on the first project only, not on the team's.
    await expectError(res, 403, 'permission_denied', { permission: 'project:view' });
    expect(await count('SELECT count(*) AS n FROM users WHERE email = ?', email)).toBe(0);
    expect((await activityRows(tenant.orgId, 'organization.member.invited')).filter((r) => r.data.email === email)).toEqual([]);
    const here = await adminTeam(tenant, { roleIds: [viewOnly], projectIds: [tenant.projectId] });
    expect((await api(`${O(tenant.orgId)}/invite`, { token: inviter.token, body: { email, teamIds: [here.id] } })).status).toBe(200);
  });

  it('removing grants is always allowed: removing a project, removing oneself, demoting oneself', async () => {
    const self = await addPerson(tenant, { permissions: MANAGER }, 'self');
    const team = await adminTeam(tenant, { roleIds: [await adminRole(tenant, ['project:view'])], projectIds: [tenant.projectId] });
    expect((await api(`${O(tenant.orgId)}/team/${team.id}/user`, { token: self.token, body: { userId: self.user.id } })).status).toBe(201);
    expect((await api(`${O(tenant.orgId)}/team/${team.id}/project/${tenant.projectId}`, { method: 'DELETE', token: self.token })).status).toBe(204);
    expect((await api(`${O(tenant.orgId)}/team/${team.id}/user/${self.user.id}`, { method: 'DELETE', token: self.token })).status).toBe(204);
    const { teams } = await json(await api(`${O(tenant.orgId)}/user/${self.user.id}/team`, { token: self.token }));
    const own = teams[0].id;
    expect((await api(`${O(tenant.orgId)}/team/${own}/role`, { method: 'PUT', token: self.token, body: { roleIds: [] } })).status).toBe(200);
    await expectError(await api(`${O(tenant.orgId)}/team`, { token: self.token }), 403, 'permission_denied', { permission: 'org:manage_teams' });
  });

  it('administrators (every permission everywhere) are unaffected', async () => {
    const admin = await addPerson(tenant, 'Admin', 'admin');
    const team = await json(await api(`${O(tenant.orgId)}/team`, { token: admin.token, body: { name: uniqueName('Admins too'), allProjects: true, roleIds: [ADMIN_ROLE_ID] } }));
    expect(team.roles.map((r: { id: string }) => r.id)).toEqual([ADMIN_ROLE_ID]);
    expect((await api(`${O(tenant.orgId)}/team/${team.id}/user`, { token: admin.token, body: { userId: manager.user.id } })).status).toBe(201);
    expect((await api(`${O(tenant.orgId)}/role`, { token: admin.token, body: { name: uniqueName('All'), permissions: ['project:admin', 'org:manage_org'] } })).status).toBe(201);
  });
});

/** Invites `email` into the tenant's Members team (every project, the Member role). */
async function inviteMember(tenant: Tenant, email: string) {
  const res = await api(`${O(tenant.orgId)}/invite`, { token: tenant.token, body: { email, teamIds: [await teamIdByName(tenant, 'Members')] } });
  expect(res.status).toBe(200);
}

const switchOrg = (token: string, orgId: string) => api(`${O(orgId)}/session`, { method: 'POST', token });
const switchProject = (token: string, projectId: string) => api(`${P(projectId)}/session`, { method: 'POST', token });

describe('identity and tenancy', () => {
  it('rate limit: every session of one sign-in shares one allowance (keyed by the sign-in), other sign-ins keep theirs', async () => {
    expect(rateLimitKey({ kind: 'session', jti: 'session-jti', sid: 'sign-in-jti' })).toBe('sign-in-jti');
    expect(rateLimitKey({ kind: 'api_token', jti: 'token-jti' })).toBe('token-jti');
    const tenant = await newTenant('limited');
    const other = await addProject(tenant);
    const switched = await json(await switchProject(tenant.token, other));
    const sid = decodeJwt(switched.jwt).sid as string;
    expect(sid).toBe(decodeJwt(tenant.token).sid);
    // Spend the sign-in's allowance (600 a minute) on the binding itself, then ask with the switched session.
    // The limiter's windows are aligned to the clock minute and the 600 take several seconds on a busy
    // machine: near a minute's end the next minute is awaited, so all of them and the asks fall in one.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 200));
    for (let i = 0; i < 600; i++) await env.RATE_LIMITER.limit({ key: sid });
    await expectError(await api(P(other), { token: switched.jwt }), 429, 'rate_limited');
    await expectError(await api(P(tenant.projectId), { token: tenant.token }), 429, 'rate_limited');
    const again = await signIn(tenant.user.email);
    expect((await api(P(again.projectId!), { token: again.jwt })).status).toBe(200);
  }, 60_000);

  it('a person in two organizations reaches both: list, switch organization, switch project, last_context, next sign-in', async () => {
    const a = await newTenant('org-a');
    const a2 = await addProject(a, 'Second of A');
    const b = await newTenant('org-b');
    await inviteMember(b, a.user.email);
    const inB = await signIn(a.user.email);
    expect(inB.orgId).toBe(b.orgId);

    const listed = await api('/api/v1/user/organization', { token: inB.jwt });
    expect(listed.status).toBe(200);
    const { organizations } = await json(listed);
    expect(organizations.map((o: { id: string; current: boolean }) => [o.id, o.current])).toEqual([[a.orgId, false], [b.orgId, true]]);
    expect(organizations[0]).toEqual({ id: a.orgId, name: expect.any(String), slug: expect.any(String), current: false });

    const toA = await switchOrg(inB.jwt, a.orgId);
    expect(toA.status).toBe(200);
    const inA = await json(toA);
    expect(inA).toMatchObject({ orgId: a.orgId, projectId: a.projectId, user: { id: a.user.id } });
    expect((await api(O(a.orgId), { token: inA.jwt })).status).toBe(200);
    const onA2 = await switchProject(inA.jwt, a2);
    expect(onA2.status).toBe(200);
    expect(await json(onA2)).toMatchObject({ orgId: a.orgId, projectId: a2 });
    // Back from B, the switch lands in the project used last in A.
    expect(await json(await switchOrg(inB.jwt, a.orgId))).toMatchObject({ orgId: a.orgId, projectId: a2 });

    const pref = await api('/api/v1/user/preference', { method: 'PATCH', token: inB.jwt, body: { last_context: { orgId: a.orgId, projectId: a2 } } });
    expect(pref.status).toBe(200);
    expect(await signIn(a.user.email)).toMatchObject({ orgId: a.orgId, projectId: a2 });
  });

  it('switching organization: only to one the person belongs to; one sign-in, ended everywhere; a removal ends only that organization\'s sessions', async () => {
    const a = await newTenant('org-a');
    const b = await newTenant('org-b');
    await inviteMember(b, a.user.email);
    const inB = await signIn(a.user.email);
    await expectError(await switchOrg(inB.jwt, (await newTenant('stranger')).orgId), 404, 'not_found');
    const inA = await json(await switchOrg(inB.jwt, a.orgId));
    expect(decodeJwt(inA.jwt).sid).toBe(decodeJwt(inB.jwt).sid);
    // The sign-in (opened in B) is listed, and cancelable, on A's project it has a session on.
    const listed = await json(await api(`${P(a.projectId)}/credential`, { token: a.token }));
    expect(listed.some((c: { jti: string }) => c.jti === decodeJwt(inB.jwt).sid)).toBe(true);

    // Removed from B: the sessions in B stop at once, those in A go on.
    expect((await api(`${O(b.orgId)}/user/${a.user.id}`, { method: 'DELETE', token: b.token })).status).toBe(204);
    await expectError(await api(O(b.orgId), { token: inB.jwt }), 401, 'token_revoked');
    expect((await api(O(a.orgId), { token: inA.jwt })).status).toBe(200);
    await expectError(await switchOrg(inA.jwt, b.orgId), 404, 'not_found');

    // Signing out in one organization ends the sign-in in every organization, on the next request.
    await inviteMember(b, a.user.email);
    const again = await signIn(a.user.email);
    const other = await json(await switchOrg(again.jwt, again.orgId === a.orgId ? b.orgId : a.orgId));
    expect((await api(O(again.orgId), { token: again.jwt })).status).toBe(200);
    expect((await api(O(other.orgId), { token: other.jwt })).status).toBe(200);
    expect((await api('/api/v1/auth/session', { method: 'DELETE', token: other.jwt })).status).toBe(204);
    await expectError(await api(O(again.orgId), { token: again.jwt }), 401, 'token_revoked');
    // Each organization's log records the sign-out, as it recorded the sign-in or the switch into it.
    for (const orgId of [a.orgId, b.orgId]) {
      const entry = await lastActivity(orgId, 'user.signed_out');
      expect(entry).toMatchObject({ actor_id: a.user.id, actor_kind: 'session', data: { signInJti: decodeJwt(again.jwt).sid } });
    }
    const page = await json(await api(`${O(a.orgId)}/activity?action=user.signed_out`, { token: a.token }));
    expect(page.availableActions).toContain('user.signed_out');
    expect(page.entries.map((e: any) => e.action)).toEqual(['user.signed_out']);
  });

  it('canceling a sign-in from another organization\'s project ends its sessions everywhere at once', async () => {
    const a = await newTenant('org-a');
    const b = await newTenant('org-b');
    await inviteMember(b, a.user.email);
    const inB = await signIn(a.user.email);
    expect((await api(O(b.orgId), { token: inB.jwt })).status).toBe(200);
    const inA = await json(await switchOrg(inB.jwt, a.orgId));
    const sid = decodeJwt(inB.jwt).sid as string;
    expect((await api(`${P(a.projectId)}/credential/${sid}`, { method: 'DELETE', token: a.token })).status).toBe(204);
    await expectError(await api(O(b.orgId), { token: inB.jwt }), 401, 'token_revoked');
    await expectError(await api(O(a.orgId), { token: inA.jwt }), 401, 'token_revoked');
  });

  it('last_context: any organization the person belongs to, and a project there they reach; others 400', async () => {
    const a = await newTenant('org-a');
    const b = await newTenant('org-b');
    const patch = (body: unknown) => api('/api/v1/user/preference', { method: 'PATCH', token: a.token, body: { last_context: body } });
    await expectError(await patch({ orgId: b.orgId, projectId: b.projectId }), 400, 'invalid_request');
    await inviteMember(b, a.user.email);
    expect((await patch({ orgId: b.orgId.toUpperCase(), projectId: b.projectId })).status).toBe(200);
    expect((await json(await api('/api/v1/user/preference', { token: a.token }))).last_context).toEqual({ orgId: b.orgId, projectId: b.projectId });
    await expectError(await patch({ orgId: b.orgId, projectId: a.projectId }), 400, 'invalid_request');
  });

  it('create project: only the caller gains reach, never their teammates', async () => {
    const tenant = await newTenant('creator');
    const creator = await addScopedPerson(tenant, ['org:view', 'org:create_project', 'project:view', 'project:edit'], [tenant.projectId], 'creator');
    // A teammate on the creator's team (which reaches the first project and grants org:create_project).
    const mate = await addScopedPerson(tenant, ['project:view'], [tenant.projectId], 'mate');
    expect((await api(`${O(tenant.orgId)}/team/${creator.teamId}/user`, { token: tenant.token, body: { userId: mate.user.id } })).status).toBe(201);

    const created = await api(`${O(tenant.orgId)}/project`, { token: creator.token, body: { name: uniqueName('Mine') } });
    expect(created.status).toBe(200);
    const { uuid, jwt } = await json(created);
    expect((await api(P(uuid), { token: creator.token })).status).toBe(200);
    expect((await api(`${P(uuid)}/credential`, { token: jwt })).status).toBe(200);
    await expectError(await api(P(uuid), { token: mate.token }), 404, 'not_found');
    const theirs = await json(await api('/api/v1/user/project', { token: mate.token }));
    expect(theirs.projects.map((p: { uuid: string }) => p.uuid)).not.toContain(uuid);
  });

  it('a sign-in link issued before a removal signs in nowhere; one asked for afterwards signs up as anyone new', async () => {
    const tenant = await newTenant('remover');
    const person = await addPerson(tenant, 'Member', 'leaver');
    await api('/api/v1/auth/sign-in', { body: { email: person.user.email } });
    const before = await latestLinkToken(person.user.email);
    expect((await api(`${O(tenant.orgId)}/user/${person.user.id}`, { method: 'DELETE', token: tenant.token })).status).toBe(204);
    await expectError(await api('/api/v1/auth/sign-in/exchange', { body: { token: before } }), 401, 'unauthorized');
    expect(await count('SELECT count(*) AS n FROM org_members WHERE user_id = ? AND removed_at IS NULL', person.user.id)).toBe(0);
    const fresh = await signIn(person.user.email);
    expect(fresh.orgId).not.toBe(tenant.orgId);
  });

  it('a person in two organizations removed from A, with a link issued before, lands in B', async () => {
    const b = await newTenant('org-b');
    const a = await newTenant('org-a');
    await inviteMember(a, b.user.email); // their last context is now A
    await api('/api/v1/auth/sign-in', { body: { email: b.user.email } });
    const link = await latestLinkToken(b.user.email);
    expect((await api(`${O(a.orgId)}/user/${b.user.id}`, { method: 'DELETE', token: a.token })).status).toBe(204);
    const res = await api('/api/v1/auth/sign-in/exchange', { body: { token: link } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ orgId: b.orgId, projectId: b.projectId });
  });
});

describe('spec details (control plane)', () => {
  it('activity: organization.created on sign-up and on the dev seed', async () => {
    const tenant = await newTenant('created');
    const [entry] = await activityRows(tenant.orgId, 'organization.created');
    expect(entry).toMatchObject({ actor_id: tenant.user.id, actor_kind: 'sign_in', project_id: null, data: { projectId: tenant.projectId } });
    const seeded = await api('/api/v1/dev/seed', { method: 'POST', headers: { 'x-dev-secret': env.DEV_SECRET! } });
    expect(seeded.status).toBe(200);
    expect(await activityRows(DEMO.orgId, 'organization.created')).toEqual([expect.objectContaining({ actor_id: null, actor_kind: 'system' })]);
  });

  it('activity: session.switched on a project switch and an organization switch', async () => {
    const a = await newTenant('org-a');
    const other = await addProject(a);
    expect((await switchProject(a.token, other)).status).toBe(200);
    expect(await activityRows(a.orgId, 'session.switched')).toEqual([
      expect.objectContaining({ actor_id: a.user.id, project_id: other, data: expect.objectContaining({ from: { orgId: a.orgId, projectId: a.projectId } }) }),
    ]);
    const b = await newTenant('org-b');
    await inviteMember(b, a.user.email);
    expect((await switchOrg(a.token, b.orgId)).status).toBe(200);
    expect(await activityRows(b.orgId, 'session.switched')).toEqual([
      expect.objectContaining({ actor_id: a.user.id, project_id: b.projectId, data: expect.objectContaining({ from: { orgId: a.orgId, projectId: a.projectId } }) }),
    ]);
    // Seen at once in the target organization's activity (its cached pages are invalidated).
    const page = await json(await api(`${O(b.orgId)}/activity?action=session.switched`, { token: b.token }));
    expect(page.entries).toHaveLength(1);
  });

  it('switching back to a project reuses the session the sign-in holds there: no new row, no new entry; last_context follows', async () => {
    const a = await newTenant('back-and-forth');
    const other = await addProject(a);
    const toOther = await json(await switchProject(a.token, other));
    const back = await json(await switchProject(toOther.jwt, a.projectId));
    const again = await json(await switchProject(back.jwt, other));
    const jtiOf = (jwt: string) => decodeJwt(jwt).jti;
    expect(jtiOf(back.jwt)).toBe(jtiOf(a.token));
    expect(jtiOf(again.jwt)).toBe(jtiOf(toOther.jwt));
    // Both tokens work: two tabs on two projects.
    expect((await api(`${P(other)}`, { token: again.jwt })).status).toBe(200);
    expect((await api(`${P(a.projectId)}`, { token: back.jwt })).status).toBe(200);
    const sid = decodeJwt(a.token).sid as string;
    const rows = await env.DB.prepare("SELECT project_id FROM credentials WHERE parent_jti = ? AND kind = 'session' ORDER BY project_id").bind(sid).all<{ project_id: string }>();
    expect(rows.results.map((r) => r.project_id).sort()).toEqual([a.projectId, other].sort());
    expect(await activityRows(a.orgId, 'session.switched')).toHaveLength(1);
    const preferences = await json(await api('/api/v1/user/preference', { token: again.jwt }));
    expect(preferences.last_context).toEqual({ orgId: a.orgId, projectId: other });
    // An organization switch saves where it landed too.
    const b = await newTenant('back-and-forth-b');
    await inviteMember(b, a.user.email);
    const inB = await json(await switchOrg(again.jwt, b.orgId));
    expect((await json(await api('/api/v1/user/preference', { token: inB.jwt }))).last_context).toEqual({ orgId: b.orgId, projectId: inB.projectId });
  });

  it('activity: a team update or addition that changes nothing writes no entry', async () => {
    const tenant = await newTenant('noop');
    const team = await adminTeam(tenant, { projectIds: [tenant.projectId], roleIds: [VIEWER_ROLE_ID] });
    const path = `${O(tenant.orgId)}/team/${team.id}`;
    expect((await api(path, { method: 'PUT', token: tenant.token, body: { name: team.name, allProjects: false } })).status).toBe(200);
    expect((await api(`${path}/project`, { token: tenant.token, body: { projectIds: [tenant.projectId] } })).status).toBe(200);
    expect((await api(`${path}/role`, { token: tenant.token, body: { roleIds: [VIEWER_ROLE_ID] } })).status).toBe(200);
    for (const action of ['team.updated', 'team.project.added', 'team.role.added']) expect(await entriesFor(tenant.orgId, action, team.id)).toEqual([]);
  });

  it('organization and project ids in paths are compared without regard to case, and reach the same project object', async () => {
    const tenant = await dataTenant('cased');
    const [org, project] = [tenant.orgId.toUpperCase(), tenant.projectId.toUpperCase()];
    const got = await api(O(org), { token: tenant.token });
    expect(got.status).toBe(200);
    expect((await json(got)).id).toBe(tenant.orgId);
    expect((await api(`${O(org)}/team`, { token: tenant.token })).status).toBe(200);
    const team = await adminTeam(tenant, {});
    expect((await api(`${O(org)}/team/${team.id.toUpperCase()}`, { token: tenant.token })).status).toBe(200);
    const read = await api(P(project), { token: tenant.token });
    expect(read.status).toBe(200);
    expect((await json(read)).id).toBe(tenant.projectId);
    const token = await apiToken(tenant, ['project:view']);
    const lower = await api(`${P(tenant.projectId)}/v1/job`, { token });
    const upper = await api(`${P(project)}/v1/job`, { token });
    expect([lower.status, upper.status]).toEqual([200, 200]);
    expect(await json(upper)).toEqual(await json(lower));
  });
});
