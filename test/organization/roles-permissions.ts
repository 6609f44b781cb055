// Roles (spec 4.4 and the additions create, change, delete) and the permission lookup (spec 4.15).
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE_ID, ALL_PERMISSIONS, BUILTIN_ROLES, MEMBER_ROLE_ID, VIEWER_ROLE_ID, type Permission } from '../../src/auth/permissions';
import { controlDb } from '../../src/control/db';
import { teamMembers, teamProjects, teamRoles, teams } from '../../src/control/schema';
import { nowIso } from '../../src/lib/ids';
import { api, expectError, json, newTenant } from '../helpers';
import { addPerson, apiToken, roleMatrix, type MatrixRole, type Tenant, addProject, addOrgMember, activityRows, uniqueName } from '../people';

const O = (t: { orgId: string }) => `/api/v1/org/${t.orgId}`;
const MISSING = '7c1f0a4e-2b3d-4e5f-8a9b-0c1d2e3f4a5b';
const unique = uniqueName;

async function createRole(tenant: Tenant, body: { name?: string; permissions?: string[] } = {}) {
  const res = await api(`${O(tenant)}/role`, { token: tenant.token, body: { name: unique('Role'), permissions: ['project:view'], ...body } });
  expect(res.status).toBe(201);
  return json(res);
}

/** A team granting `roleIds`, on all projects or on the listed ones, with `userIds` on it; written straight to D1. */
async function grant(tenant: Tenant, input: { roleIds: string[]; userIds?: string[]; projectIds?: string[] }) {
  const db = controlDb(env.DB);
  const teamId = crypto.randomUUID();
  const now = nowIso();
  await db.insert(teams).values({ id: teamId, orgId: tenant.orgId, name: unique('Team'), allProjects: !input.projectIds, createdAt: now });
  if (input.roleIds.length) await db.insert(teamRoles).values(input.roleIds.map((roleId) => ({ teamId, roleId })));
  if (input.projectIds?.length) await db.insert(teamProjects).values(input.projectIds.map((projectId) => ({ teamId, projectId })));
  if (input.userIds?.length) await db.insert(teamMembers).values(input.userIds.map((userId) => ({ teamId, userId, addedAt: now })));
  return teamId;
}

let tenant: Tenant;
beforeAll(async () => {
  tenant = await newTenant('roles');
});

describe('spec 4.4: reading roles', () => {
  it('lists built-in Admin, Member and Viewer first, then the organization\'s own by name, under roles', async () => {
    const fresh = await newTenant();
    for (const name of ['zeta', 'Auditor', 'beta']) await createRole(fresh, { name });
    await createRole(await newTenant(), { name: 'Elsewhere' });
    const res = await api(`${O(fresh)}/role`, { token: fresh.token });
    expect(res.status).toBe(200);
    const { roles } = await json(res);
    expect(roles.map((r: { name: string }) => r.name)).toEqual(['Admin', 'Member', 'Viewer', 'Auditor', 'beta', 'zeta']);
    expect(roles.slice(0, 3)).toEqual(BUILTIN_ROLES.map((r) => ({ id: r.id, name: r.name, systemRole: true, permissions: [...r.permissions] })));
    expect(roles[3]).toEqual({ id: expect.any(String), name: 'Auditor', systemRole: false, permissions: ['project:view'] });
  });

  it('gets a built-in role and the organization\'s own role', async () => {
    const own = await createRole(tenant);
    expect(await json(await api(`${O(tenant)}/role/${MEMBER_ROLE_ID}`, { token: tenant.token }))).toMatchObject({ id: MEMBER_ROLE_ID, name: 'Member', systemRole: true });
    expect(await json(await api(`${O(tenant)}/role/${own.id}`, { token: tenant.token }))).toEqual(own);
  });

  it('answers 404 when no role with the id is built in or belongs to the organization', async () => {
    const theirs = await createRole(await newTenant(), { name: unique('Theirs') });
    for (const id of [MISSING, theirs.id]) {
      const res = await api(`${O(tenant)}/role/${id}`, { token: tenant.token });
      const text = await res.clone().text();
      await expectError(res, 404, 'not_found');
      expect(text).not.toContain(theirs.name);
    }
    await expectError(await api(`${O(tenant)}/role/admin`, { token: tenant.token }), 400, 'invalid_parameter', { parameter: 'roleId' });
  });

  it('answers 403 forbidden when orgId is not the organization of the credential', async () => {
    const other = await newTenant();
    await expectError(await api(`${O(tenant)}/role`, { token: other.token }), 403, 'forbidden');
    await expectError(await api(`${O(tenant)}/role/${ADMIN_ROLE_ID}`, { token: other.token }), 403, 'forbidden');
    await expectError(await api(`${O(tenant)}/role`, { token: await apiToken(other, ['org:view']) }), 403, 'forbidden');
  });

  it('lets every member and API token of the organization read roles, with no permission at all; an upload pass is refused', async () => {
    const { tenant: t, tokens } = await roleMatrix();
    const bare = await addPerson(t, { permissions: [] }, 'bare');
    const noPermToken = await apiToken(t, []);
    for (const token of [...Object.values(tokens).filter((x) => x !== tokens.uploadPass), bare.token, noPermToken]) {
      expect((await api(`${O(t)}/role`, { token })).status).toBe(200);
      expect((await api(`${O(t)}/role/${VIEWER_ROLE_ID}`, { token })).status).toBe(200);
    }
    await expectError(await api(`${O(t)}/role`, { token: tokens.uploadPass }), 401, 'unauthorized');
    await expectError(await api(`${O(t)}/role/${VIEWER_ROLE_ID}`, { token: tokens.uploadPass }), 401, 'unauthorized');
  });
});

describe('creating a role (addition)', () => {
  it('creates a role, answers 201 with id, name, systemRole and permissions in canonical order, and records role.created', async () => {
    const name = unique('Auditor');
    const res = await api(`${O(tenant)}/role`, { token: tenant.token, body: { name, permissions: ['org:view_activity_log', 'project:view', 'project:view'], extra: 1 } });
    expect(res.status).toBe(201);
    const role = await json(res);
    expect(role).toEqual({ id: expect.any(String), name, systemRole: false, permissions: ['project:view', 'org:view_activity_log'] });
    const [entry] = (await activityRows(tenant.orgId, 'role.created')).filter((r) => r.data.roleId === role.id);
    expect(entry).toMatchObject({ project_id: null, actor_id: tenant.user.id, data: { roleName: name, permissions: role.permissions } });
  });

  it('answers 400 invalid_request for an unknown permission', async () => {
    for (const permissions of [['project:view', 'project:destroy'], ['*'], 'project:view']) {
      await expectError(await api(`${O(tenant)}/role`, { token: tenant.token, body: { name: unique('Bad'), permissions } }), 400, 'invalid_request');
    }
  });

  it('answers 400 invalid_request for a blank or missing name, or missing permissions', async () => {
    for (const body of [{ name: ' ', permissions: [] }, { permissions: [] }, { name: unique('No perms') }]) {
      await expectError(await api(`${O(tenant)}/role`, { token: tenant.token, body }), 400, 'invalid_request');
    }
  });

  it('answers 400 name_taken for a name of the organization\'s roles or of a built-in role, whatever its case', async () => {
    const own = await createRole(tenant);
    for (const name of [own.name, own.name.toUpperCase(), 'Admin', 'viewer']) {
      await expectError(await api(`${O(tenant)}/role`, { token: tenant.token, body: { name, permissions: [] } }), 400, 'name_taken');
    }
  });

  it('allows a name another organization uses', async () => {
    const theirs = await createRole(await newTenant());
    await createRole(tenant, { name: theirs.name });
  });

  it('creates one role only when concurrent requests use the same name; the others answer name_taken', async () => {
    const name = unique('Race');
    const answers = await Promise.all(Array.from({ length: 6 }, () => api(`${O(tenant)}/role`, { token: tenant.token, body: { name, permissions: [] } })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    for (const res of answers.filter((r) => r.status === 400)) await expectError(res, 400, 'name_taken');
    const rows = await env.DB.prepare('SELECT count(*) AS n FROM roles WHERE org_id = ? AND name = ?').bind(tenant.orgId, name).first<{ n: number }>();
    expect(rows!.n).toBe(1);
    expect((await activityRows(tenant.orgId, 'role.created')).filter((r) => r.data.roleName === name)).toHaveLength(1);
  });
});

describe('changing a role (addition)', () => {
  it('changes the name and the permissions, and records role.updated', async () => {
    const role = await createRole(tenant);
    const name = unique('Renamed');
    const res = await api(`${O(tenant)}/role/${role.id}`, { method: 'PUT', token: tenant.token, body: { name, permissions: ['org:view', 'project:edit'] } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ id: role.id, name, systemRole: false, permissions: ['project:edit', 'org:view'] });
    const [entry] = (await activityRows(tenant.orgId, 'role.updated')).filter((r) => r.data.roleId === role.id);
    expect(entry!.data).toMatchObject({ roleName: name, previousName: role.name, permissions: ['project:edit', 'org:view'] });
  });

  it('leaves fields left out unchanged', async () => {
    const role = await createRole(tenant, { permissions: ['project:view', 'org:view'] });
    const renamed = await json(await api(`${O(tenant)}/role/${role.id}`, { method: 'PUT', token: tenant.token, body: { name: unique('Only name') } }));
    expect(renamed.permissions).toEqual(['project:view', 'org:view']);
    const narrowed = await json(await api(`${O(tenant)}/role/${role.id}`, { method: 'PUT', token: tenant.token, body: { permissions: [] } }));
    expect(narrowed).toEqual({ ...renamed, permissions: [] });
  });

  it('changes what the people of every team granting it may do, at once', async () => {
    const role = await createRole(tenant, { permissions: ['org:view'] });
    const person = await addOrgMember(tenant);
    await grant(tenant, { roleIds: [role.id], userIds: [person.id] });
    const lookup = async () => (await json(await api(`${O(tenant)}/user/${person.id}/permission`, { token: tenant.token }))).orgPermissions;
    expect(await lookup()).toEqual(['org:view']);
    await api(`${O(tenant)}/role/${role.id}`, { method: 'PUT', token: tenant.token, body: { permissions: ['org:view', 'org:invite_user'] } });
    expect(await lookup()).toEqual(['org:view', 'org:invite_user']);
  });

  it('answers 400 invalid_request for a built-in role', async () => {
    for (const id of [ADMIN_ROLE_ID, MEMBER_ROLE_ID, VIEWER_ROLE_ID]) {
      await expectError(await api(`${O(tenant)}/role/${id}`, { method: 'PUT', token: tenant.token, body: { permissions: [] } }), 400, 'invalid_request');
    }
    const viewer = await json(await api(`${O(tenant)}/role/${VIEWER_ROLE_ID}`, { token: tenant.token }));
    expect(viewer.permissions).toEqual([...BUILTIN_ROLES[2].permissions]);
  });

  it('answers 400 name_taken for another role\'s name; its own name in another case is fine', async () => {
    const [a, b] = [await createRole(tenant), await createRole(tenant)];
    await expectError(await api(`${O(tenant)}/role/${b.id}`, { method: 'PUT', token: tenant.token, body: { name: a.name } }), 400, 'name_taken');
    await expectError(await api(`${O(tenant)}/role/${b.id}`, { method: 'PUT', token: tenant.token, body: { name: 'Member' } }), 400, 'name_taken');
    expect((await api(`${O(tenant)}/role/${b.id}`, { method: 'PUT', token: tenant.token, body: { name: b.name.toUpperCase() } })).status).toBe(200);
    expect((await activityRows(tenant.orgId, 'role.updated')).filter((r) => r.data.roleId === b.id)).toHaveLength(1);
  });

  it('answers 400 invalid_request for an unknown permission and 404 for a role not the organization\'s', async () => {
    const role = await createRole(tenant);
    await expectError(await api(`${O(tenant)}/role/${role.id}`, { method: 'PUT', token: tenant.token, body: { permissions: ['root'] } }), 400, 'invalid_request');
    const theirs = await createRole(await newTenant());
    for (const id of [MISSING, theirs.id]) {
      await expectError(await api(`${O(tenant)}/role/${id}`, { method: 'PUT', token: tenant.token, body: { name: unique('x') } }), 404, 'not_found');
    }
  });
});

describe('deleting a role (addition)', () => {
  it('deletes a role no team grants and records role.deleted', async () => {
    const role = await createRole(tenant);
    expect((await api(`${O(tenant)}/role/${role.id}`, { method: 'DELETE', token: tenant.token })).status).toBe(204);
    await expectError(await api(`${O(tenant)}/role/${role.id}`, { token: tenant.token }), 404, 'not_found');
    expect((await activityRows(tenant.orgId, 'role.deleted')).filter((r) => r.data.roleId === role.id)).toEqual([
      expect.objectContaining({ project_id: null, data: { roleId: role.id, roleName: role.name } }),
    ]);
  });

  it('answers 409 conflict naming how many teams still grant it, and keeps it', async () => {
    const role = await createRole(tenant);
    await grant(tenant, { roleIds: [role.id] });
    await grant(tenant, { roleIds: [role.id, VIEWER_ROLE_ID] });
    const body = await expectError(await api(`${O(tenant)}/role/${role.id}`, { method: 'DELETE', token: tenant.token }), 409, 'conflict');
    expect(body.error).toContain('2 teams');
    expect((await api(`${O(tenant)}/role/${role.id}`, { token: tenant.token })).status).toBe(200);
    expect((await activityRows(tenant.orgId, 'role.deleted')).filter((r) => r.data.roleId === role.id)).toEqual([]);
  });

  it('answers 400 invalid_request for a built-in role', async () => {
    for (const id of [ADMIN_ROLE_ID, MEMBER_ROLE_ID, VIEWER_ROLE_ID]) {
      await expectError(await api(`${O(tenant)}/role/${id}`, { method: 'DELETE', token: tenant.token }), 400, 'invalid_request');
    }
  });

  it('answers 404 for a role not the organization\'s', async () => {
    const theirs = await createRole(await newTenant());
    for (const id of [MISSING, theirs.id]) {
      await expectError(await api(`${O(tenant)}/role/${id}`, { method: 'DELETE', token: tenant.token }), 404, 'not_found');
    }
    const row = await env.DB.prepare('SELECT count(*) AS n FROM roles WHERE id = ?').bind(theirs.id).first<{ n: number }>();
    expect(row!.n).toBe(1);
  });
});

describe('permission matrix: changing roles requires org:manage_teams (Any)', () => {
  let matrix: Awaited<ReturnType<typeof roleMatrix>>;
  let manager: string;
  beforeAll(async () => {
    matrix = await roleMatrix();
    manager = await apiToken(matrix.tenant, ['org:manage_teams', 'org:view']);
  });

  type Call = { method: string; path: string; body?: unknown; ok: number };
  const operations: [string, (t: Tenant) => Promise<Call>][] = [
    ['create role', async (t) => ({ method: 'POST', path: `${O(t)}/role`, body: { name: unique('M'), permissions: [] }, ok: 201 })],
    ['change role', async (t) => ({ method: 'PUT', path: `${O(t)}/role/${(await createRole(t)).id}`, body: { name: unique('M') }, ok: 200 })],
    ['delete role', async (t) => ({ method: 'DELETE', path: `${O(t)}/role/${(await createRole(t)).id}`, ok: 204 })],
  ];
  const expected: Record<MatrixRole | 'manager', 'ok' | [number, string]> = {
    admin: 'ok', manager: 'ok', member: [403, 'permission_denied'], viewer: [403, 'permission_denied'],
    custom: [403, 'permission_denied'], apiToken: [403, 'permission_denied'], uploadPass: [401, 'unauthorized'],
  };
  for (const [name, prepare] of operations) {
    it(`${name}: admin and an API token holding it succeed; member, viewer, custom role and a token without it 403; an upload pass 401`, async () => {
      for (const [caller, outcome] of Object.entries(expected) as [MatrixRole | 'manager', 'ok' | [number, string]][]) {
        const call = await prepare(matrix.tenant);
        const res = await api(call.path, { method: call.method, token: caller === 'manager' ? manager : matrix.tokens[caller], body: call.body });
        if (outcome === 'ok') expect({ caller, status: res.status }).toEqual({ caller, status: call.ok });
        else if (outcome[0] === 403) await expectError(res, 403, outcome[1], { permission: 'org:manage_teams' });
        else await expectError(res, outcome[0], outcome[1]);
      }
    });
  }
});

describe('spec 4.15: a person\'s permissions', () => {
  const path = (t: { orgId: string }, userId: string) => `${O(t)}/user/${userId}/permission`;
  const inOrder = (perms: readonly Permission[]) => ALL_PERMISSIONS.filter((p) => perms.includes(p));

  it('lets a person look themselves up: organization permissions and per reachable project, in canonical order', async () => {
    const { tenant: t, member } = await roleMatrix();
    const second = await addProject(t);
    const res = await api(path(t, member.user.id), { token: member.token });
    expect(res.status).toBe(200);
    const memberProject = inOrder(['project:view', 'project:edit', 'project:portfolio:view', 'project:portfolio:rate']);
    expect(await json(res)).toEqual({
      orgPermissions: ['org:view', 'org:create_project'],
      projectPermissions: { [t.projectId]: memberProject, [second]: memberProject },
    });
  });

  it('covers only active projects on which the person holds a project permission', async () => {
    const fresh = await newTenant();
    const [assigned, other, deleted] = [await addProject(fresh), await addProject(fresh), await addProject(fresh)];
    const person = await addOrgMember(fresh);
    const orgOnly = crypto.randomUUID();
    await env.DB.prepare("INSERT INTO roles (id, org_id, name, system_role, permissions, position, created_at) VALUES (?, ?, 'Org only', 0, '[\"org:view_activity_log\"]', 100, ?)")
      .bind(orgOnly, fresh.orgId, nowIso()).run();
    await grant(fresh, { roleIds: [VIEWER_ROLE_ID], userIds: [person.id], projectIds: [assigned, deleted] });
    await grant(fresh, { roleIds: [orgOnly], userIds: [person.id], projectIds: [other] });
    await env.DB.prepare('UPDATE projects SET deleted_at = ? WHERE id = ?').bind(nowIso(), deleted).run();
    const body = await json(await api(path(fresh, person.id), { token: fresh.token }));
    expect(body).toEqual({
      orgPermissions: ['org:view', 'org:view_activity_log'],
      projectPermissions: { [assigned]: ['project:view', 'project:portfolio:view'] },
    });
  });

  it('gives an administrator every permission on every project', async () => {
    const fresh = await newTenant();
    const body = await json(await api(path(fresh, fresh.user.id), { token: fresh.token }));
    expect(body.orgPermissions).toEqual([...inOrder(ALL_PERMISSIONS.filter((p) => p.startsWith('org:')))]);
    expect(body.projectPermissions).toEqual({ [fresh.projectId]: ALL_PERMISSIONS.filter((p) => p.startsWith('project:')) });
  });

  it('gives a member of no team empty lists', async () => {
    const person = await addOrgMember(tenant);
    expect(await json(await api(path(tenant, person.id), { token: tenant.token }))).toEqual({ orgPermissions: [], projectPermissions: {} });
  });

  it('lets a holder of org:manage_teams look anyone up; others answer 403 permission_denied', async () => {
    const { tenant: t, member, viewer, custom } = await roleMatrix();
    const manager = await addPerson(t, { permissions: ['org:manage_teams'] }, 'manager');
    expect((await api(path(t, member.user.id), { token: t.token })).status).toBe(200);
    expect((await api(path(t, viewer.user.id), { token: manager.token })).status).toBe(200);
    for (const caller of [member, viewer, custom]) {
      await expectError(await api(path(t, t.user.id), { token: caller.token }), 403, 'permission_denied', { permission: 'org:manage_teams' });
      expect((await api(path(t, caller.user.id), { token: caller.token })).status).toBe(200);
    }
    // Without the permission, a non-member is refused the same way: membership cannot be probed.
    await expectError(await api(path(t, MISSING), { token: member.token }), 403, 'permission_denied');
  });

  it('answers 404 when no such person is a member of the organization', async () => {
    const other = await newTenant();
    const former = await addOrgMember(tenant);
    await env.DB.prepare('UPDATE org_members SET removed_at = ? WHERE org_id = ? AND user_id = ?').bind(nowIso(), tenant.orgId, former.id).run();
    for (const userId of [MISSING, other.user.id, former.id]) {
      const res = await api(path(tenant, userId), { token: tenant.token });
      const text = await res.clone().text();
      await expectError(res, 404, 'not_found');
      expect(text).not.toContain(other.projectId);
    }
    await expectError(await api(path(tenant, 'me'), { token: tenant.token }), 400, 'invalid_parameter', { parameter: 'userId' });
  });

  it('accepts a session only: an API token answers 401 session_required, an upload pass 401 unauthorized', async () => {
    const { tenant: t, tokens } = await roleMatrix();
    const manager = await apiToken(t, ['org:manage_teams', 'org:view']);
    for (const token of [tokens.apiToken, manager]) await expectError(await api(path(t, t.user.id), { token }), 401, 'session_required');
    await expectError(await api(path(t, t.user.id), { token: tokens.uploadPass }), 401, 'unauthorized');
  });

  it('answers 403 forbidden when orgId is not the organization of the session', async () => {
    const other = await newTenant();
    await expectError(await api(path(tenant, tenant.user.id), { token: other.token }), 403, 'forbidden');
    await expectError(await api(path(tenant, other.user.id), { token: other.token }), 403, 'forbidden');
  });
});

describe('OpenAPI document', () => {
  it('lists every team, role and permission operation with named schemas, its permission and its error statuses', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const op = (path: string, method: string) => doc.paths[`/api/v1/org/{orgId}${path}`]?.[method];
    const teamOps: [string, string][] = [
      ['/team', 'get'], ['/team', 'post'], ['/team/{teamId}', 'get'], ['/team/{teamId}', 'put'], ['/team/{teamId}', 'delete'],
      ['/team/{teamId}/project', 'post'], ['/team/{teamId}/project', 'put'], ['/team/{teamId}/project/{projectId}', 'delete'],
      ['/team/{teamId}/role', 'post'], ['/team/{teamId}/role', 'put'], ['/team/{teamId}/user', 'get'], ['/team/{teamId}/user', 'post'],
      ['/team/{teamId}/user/{userId}', 'delete'], ['/user/{userId}/team', 'get'],
      ['/role', 'post'], ['/role/{roleId}', 'put'], ['/role/{roleId}', 'delete'],
    ];
    for (const [path, method] of teamOps) {
      expect(op(path, method), `${method} ${path}`).toBeDefined();
      expect(op(path, method)['x-permissions']).toEqual(['org:manage_teams']);
      expect(Object.keys(op(path, method).responses)).toEqual(expect.arrayContaining(['400', '401', '403']));
    }
    expect(op('/team/{teamId}', 'get').responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/Team');
    expect(op('/team', 'get').responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/TeamList');
    expect(op('/role/{roleId}', 'delete').responses).toHaveProperty('409');
    expect(op('/role', 'get')).not.toHaveProperty('x-permissions');
    expect(op('/role/{roleId}', 'get').responses).toHaveProperty('404');
    expect(op('/user/{userId}/permission', 'get').security).toEqual([{ session: [] }]);
    for (const name of ['Team', 'TeamSummary', 'TeamList', 'TeamMember', 'TeamMemberList', 'Role', 'RoleList', 'UserPermissions']) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
  });
});
