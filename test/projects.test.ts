// Projects (spec 4.6): lists, creation, reading and renaming, deletion, restore, my projects, and
// the retention purge.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADMIN_ROLE_ID, MEMBER_ROLE_ID, VIEWER_ROLE_ID } from '../src/auth/permissions';
import { purgeExpiredProjects } from '../src/control/projects';
import { api, expectError, json, newTenant, signIn, uniqueEmail } from './helpers';
import { addPerson, apiToken, roleMatrix, type MatrixRole, type Tenant, lastActivity } from './people';

const DAY = 86_400_000;
const orgPath = (t: { orgId: string }) => `/api/v1/org/${t.orgId}`;
const projectPath = (id: string) => `/api/v1/project/${id}`;

async function createProject(tenant: { orgId: string; token: string }, name = `Project ${crypto.randomUUID().slice(0, 8)}`) {
  const res = await api(`${orgPath(tenant)}/project`, { token: tenant.token, body: { name } });
  expect(res.status).toBe(200);
  return json<{ uuid: string; project: string; jwt: string }>(res);
}

const deleteProject = (token: string, id: string) => api(projectPath(id), { method: 'DELETE', token });

/** A person in the tenant's organization on a team reaching only `projectIds`, with a built-in role. */
async function addScopedPerson(tenant: Tenant, roleId: string, projectIds: string[]) {
  const email = uniqueEmail('scoped');
  const userId = crypto.randomUUID();
  const teamId = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare('INSERT INTO users (id, email, name, created_at) VALUES (?, ?, ?, ?)').bind(userId, email, 'Scoped', now),
    env.DB.prepare('INSERT INTO org_members (org_id, user_id, joined_at) VALUES (?, ?, ?)').bind(tenant.orgId, userId, now),
    env.DB.prepare('INSERT INTO teams (id, org_id, name, built_in, all_projects, created_at) VALUES (?, ?, ?, 0, 0, ?)').bind(teamId, tenant.orgId, `Scoped ${teamId.slice(0, 8)}`, now),
    env.DB.prepare('INSERT INTO team_roles (team_id, role_id) VALUES (?, ?)').bind(teamId, roleId),
    env.DB.prepare('INSERT INTO team_members (team_id, user_id, added_at) VALUES (?, ?, ?)').bind(teamId, userId, now),
    ...projectIds.map((p) => env.DB.prepare('INSERT INTO team_projects (team_id, project_id) VALUES (?, ?)').bind(teamId, p)),
  ]);
  const session = await signIn(email);
  return { ...session, token: session.jwt, teamId };
}

const count = async (query: string, ...binds: unknown[]) => (await env.DB.prepare(query).bind(...binds).first<{ n: number }>())!.n;

describe('project lists (spec 4.6 rule 1)', () => {
  it('lists the active projects with org_uuid, org_name and per project name and uuid', async () => {
    const tenant = await newTenant();
    const second = await createProject(tenant, 'Beta');
    const res = await api(`${orgPath(tenant)}/project`, { token: tenant.token });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      org_uuid: tenant.orgId,
      org_name: expect.any(String),
      projects: expect.arrayContaining([{ name: 'Beta', uuid: second.uuid }, { name: 'First project', uuid: tenant.projectId }]),
    });
    expect(body.projects).toHaveLength(2);
  });

  it('leaves deleted projects out of the list and lists them under deleted with deletedAt', async () => {
    const tenant = await newTenant();
    const doomed = await createProject(tenant, 'Doomed');
    expect((await deleteProject(tenant.token, doomed.uuid)).status).toBe(204);
    const active = await json(await api(`${orgPath(tenant)}/project`, { token: tenant.token }));
    expect(active.projects.map((p: { uuid: string }) => p.uuid)).toEqual([tenant.projectId]);
    const deleted = await json(await api(`${orgPath(tenant)}/project/deleted`, { token: tenant.token }));
    expect(deleted).toEqual({
      org_uuid: tenant.orgId,
      org_name: expect.any(String),
      projects: [{ name: 'Doomed', uuid: doomed.uuid, deletedAt: expect.stringMatching(/Z$/), restorableUntil: expect.stringMatching(/Z$/) }],
    });
    const { deletedAt, restorableUntil } = deleted.projects[0];
    expect(Date.parse(restorableUntil) - Date.parse(deletedAt)).toBe(90 * DAY);
  });

  it('leaves projects past the retention period out of the deleted list', async () => {
    const tenant = await newTenant();
    const old = await createProject(tenant);
    await deleteProject(tenant.token, old.uuid);
    await env.DB.prepare('UPDATE projects SET deleted_at = ? WHERE id = ?').bind(new Date(Date.now() - 91 * DAY).toISOString(), old.uuid).run();
    const deleted = await json(await api(`${orgPath(tenant)}/project/deleted`, { token: tenant.token }));
    expect(deleted.projects).toEqual([]);
  });

  it('answers an API token holding org:view', async () => {
    const tenant = await newTenant();
    const token = await apiToken(tenant, ['org:view']);
    expect((await json(await api(`${orgPath(tenant)}/project`, { token }))).org_uuid).toBe(tenant.orgId);
    expect((await api(`${orgPath(tenant)}/project/deleted`, { token })).status).toBe(200);
  });

  it('answers 403 forbidden when orgId is not the credential\'s organization', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await expectError(await api(`${orgPath(a)}/project`, { token: b.token }), 403, 'forbidden');
    await expectError(await api(`${orgPath(a)}/project/deleted`, { token: b.token }), 403, 'forbidden');
    await expectError(await api(`${orgPath(a)}/project`, { token: await apiToken(b, ['org:view']) }), 403, 'forbidden');
    await expectError(await api(`${orgPath(a)}/project`, { token: b.token, body: { name: 'Intruder' } }), 403, 'forbidden');
  });
});

describe('create a project (spec 4.6 rule 2)', () => {
  it('answers uuid, project and jwt, a session for the new project under the same sign-in', async () => {
    const tenant = await newTenant();
    const created = await createProject(tenant, 'Payments');
    expect(created).toEqual({ uuid: expect.any(String), project: 'Payments', jwt: expect.any(String) });
    const res = await api(projectPath(created.uuid), { token: created.jwt });
    expect(await json(res)).toEqual({ id: created.uuid, name: 'Payments', orgId: tenant.orgId, demoProject: false, featureFlags: [], createdAt: expect.any(String) });
    const payload = JSON.parse(atob(created.jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    const own = JSON.parse(atob(tenant.token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    expect({ kind: payload.kind, prj: payload.prj, sid: payload.sid, exp: payload.exp }).toEqual({ kind: 'session', prj: created.uuid, sid: own.sid, exp: own.exp });
  });

  it('signing out ends the new project\'s session too (same sign-in)', async () => {
    const tenant = await newTenant();
    const created = await createProject(tenant);
    expect((await api('/api/v1/auth/session', { method: 'DELETE', token: tenant.token })).status).toBe(204);
    await expectError(await api(projectPath(created.uuid), { token: created.jwt }), 401, 'token_revoked');
  });

  it('trims the name', async () => {
    const tenant = await newTenant();
    expect((await createProject(tenant, '  Spaced  ')).project).toBe('Spaced');
  });

  it('answers 400 invalid_request when name is missing, blank, not a string or longer than 255 characters', async () => {
    const tenant = await newTenant();
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 7 }, { name: 'x'.repeat(256) }]) {
      await expectError(await api(`${orgPath(tenant)}/project`, { token: tenant.token, body }), 400, 'invalid_request');
    }
    expect((await createProject(tenant, 'y'.repeat(255))).project).toHaveLength(255);
  });

  it('answers 400 name_taken when an active project of the organization has the name', async () => {
    const tenant = await newTenant();
    await expectError(await api(`${orgPath(tenant)}/project`, { token: tenant.token, body: { name: 'First project' } }), 400, 'name_taken');
  });

  it('frees the name of a deleted project, and allows the same name in another organization', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    const doomed = await createProject(a, 'Reused');
    await deleteProject(a.token, doomed.uuid);
    expect((await createProject(a, 'Reused')).project).toBe('Reused');
    expect((await createProject(b, 'Reused')).project).toBe('Reused');
  });

  it('answers name_taken, never 500, when two creations with one name race', async () => {
    const tenant = await newTenant();
    const results = await Promise.all([1, 2, 3].map(() => api(`${orgPath(tenant)}/project`, { token: tenant.token, body: { name: 'Raced' } })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400, 400]);
    for (const res of results.filter((r) => r.status === 400)) await expectError(res, 400, 'name_taken');
  });

  it('adds no team assignment when one of the caller\'s teams reaches every project', async () => {
    const tenant = await newTenant();
    const created = await createProject(tenant);
    expect(await count('SELECT count(*) AS n FROM team_projects WHERE project_id = ?', created.uuid)).toBe(0);
  });

  it('makes only the caller a member: a new team named after the project holds them, with the roles through which they hold project permissions', async () => {
    const tenant = await newTenant();
    const creator = await addScopedPerson(tenant, MEMBER_ROLE_ID, [tenant.projectId]);
    const viewerTeam = crypto.randomUUID();
    await env.DB.batch([
      env.DB.prepare('INSERT INTO teams (id, org_id, name, built_in, all_projects, created_at) VALUES (?, ?, ?, 0, 0, ?)').bind(viewerTeam, tenant.orgId, 'Viewers', new Date().toISOString()),
      env.DB.prepare('INSERT INTO team_roles (team_id, role_id) VALUES (?, ?)').bind(viewerTeam, VIEWER_ROLE_ID),
      env.DB.prepare('INSERT INTO team_members (team_id, user_id, added_at) VALUES (?, ?, ?)').bind(viewerTeam, creator.user.id, new Date().toISOString()),
    ]);
    const created = await createProject(creator, 'Mine');
    const { results } = await env.DB.prepare('SELECT team_id FROM team_projects WHERE project_id = ?').bind(created.uuid).all<{ team_id: string }>();
    expect(results).toHaveLength(1);
    const teamId = results[0]!.team_id;
    expect(teamId).not.toBe(creator.teamId);
    const team = await json(await api(`${orgPath(tenant)}/team/${teamId}`, { token: tenant.token }));
    // The Viewer role reaches no project, so it is not carried over; Member is.
    expect(team).toMatchObject({ name: 'Mine', allProjects: false, members: [{ id: creator.user.id }], projects: [{ id: created.uuid }], roles: [{ id: MEMBER_ROLE_ID }] });
    const mine = await json(await api('/api/v1/user/project', { token: creator.token }));
    expect(mine.projects.map((p: { uuid: string }) => p.uuid).sort()).toEqual([tenant.projectId, created.uuid].sort());
    expect((await api(projectPath(created.uuid), { token: created.jwt })).status).toBe(200);
    // Their existing role on it (Member), not more: renaming needs project:admin.
    await expectError(await api(projectPath(created.uuid), { method: 'PUT', token: created.jwt, body: { name: 'Renamed' } }), 403, 'permission_denied', { permission: 'project:admin' });
    expect(await count('SELECT count(*) AS n FROM team_roles WHERE team_id = ?', creator.teamId)).toBe(1);
  });

  it('lists the new project and records project.created on it', async () => {
    const tenant = await newTenant();
    const created = await createProject(tenant, 'Logged');
    const list = await json(await api(`${orgPath(tenant)}/project`, { token: tenant.token }));
    expect(list.projects).toContainEqual({ name: 'Logged', uuid: created.uuid });
    expect(await lastActivity(tenant.orgId, 'project.created')).toMatchObject({ project_id: created.uuid, actor_id: tenant.user.id, data: { name: 'Logged' } });
  });
});

describe('get a project (spec 4.6 rule 3)', () => {
  it('answers id, name, orgId, demoProject and featureFlags', async () => {
    const tenant = await newTenant();
    const res = await api(projectPath(tenant.projectId), { token: tenant.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ id: tenant.projectId, name: 'First project', orgId: tenant.orgId, demoProject: false, featureFlags: [], createdAt: expect.any(String) });
  });

  it('a session may name any project of its organization one of its teams reaches', async () => {
    const tenant = await newTenant();
    const other = await createProject(tenant, 'Other');
    expect((await json(await api(projectPath(other.uuid), { token: tenant.token }))).name).toBe('Other');
  });

  it('answers 404 for a project of the organization no team of the session reaches', async () => {
    const tenant = await newTenant();
    const hidden = await createProject(tenant, 'Hidden');
    const scoped = await addScopedPerson(tenant, MEMBER_ROLE_ID, [tenant.projectId]);
    expect((await api(projectPath(tenant.projectId), { token: scoped.token })).status).toBe(200);
    await expectError(await api(projectPath(hidden.uuid), { token: scoped.token }), 404, 'not_found');
  });

  it('answers 404 for a deleted project and one that does not exist', async () => {
    const tenant = await newTenant();
    const doomed = await createProject(tenant);
    await deleteProject(tenant.token, doomed.uuid);
    await expectError(await api(projectPath(doomed.uuid), { token: tenant.token }), 404, 'not_found');
    await expectError(await api(projectPath(crypto.randomUUID()), { token: tenant.token }), 404, 'not_found');
  });

  it('answers 404 for another organization\'s project with that tenant\'s session, 403 with its API token', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await expectError(await api(projectPath(a.projectId), { token: b.token }), 404, 'not_found');
    await expectError(await api(projectPath(a.projectId), { token: await apiToken(b, ['project:view']) }), 403, 'forbidden');
  });

  it('an API token may name only its own project', async () => {
    const tenant = await newTenant();
    const other = await createProject(tenant);
    const token = await apiToken(tenant, ['project:view']);
    expect((await api(projectPath(tenant.projectId), { token })).status).toBe(200);
    await expectError(await api(projectPath(other.uuid), { token }), 403, 'forbidden');
  });

  it('answers 403 permission_denied when project:view is lacking', async () => {
    const tenant = await newTenant();
    const orgOnly = await addPerson(tenant, { permissions: ['org:view'] });
    await expectError(await api(projectPath(tenant.projectId), { token: orgOnly.token }), 403, 'permission_denied', { permission: 'project:view' });
    await expectError(await api(projectPath(tenant.projectId), { token: await apiToken(tenant, ['org:view']) }), 403, 'permission_denied', { permission: 'project:view' });
  });

  it('answers 400 invalid_parameter naming projectId when it is not a UUID', async () => {
    const tenant = await newTenant();
    await expectError(await api(projectPath('nope'), { token: tenant.token }), 400, 'invalid_parameter', { parameter: 'projectId' });
  });
});

describe('update a project (spec 4.6 rule 4)', () => {
  const rename = (token: string, id: string, body: unknown) => api(projectPath(id), { method: 'PUT', token, body });

  it('renames the project (trimmed); a name left out is unchanged', async () => {
    const tenant = await newTenant();
    const res = await rename(tenant.token, tenant.projectId, { name: '  Renamed  ' });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: tenant.projectId, name: 'Renamed' });
    expect(await json(await rename(tenant.token, tenant.projectId, {}))).toMatchObject({ name: 'Renamed' });
    expect(await json(await rename(tenant.token, tenant.projectId, { name: 'Renamed' }))).toMatchObject({ name: 'Renamed' });
  });

  it('renames another reachable project of the organization', async () => {
    const tenant = await newTenant();
    const other = await createProject(tenant);
    expect(await json(await rename(tenant.token, other.uuid, { name: 'Elsewhere' }))).toMatchObject({ id: other.uuid, name: 'Elsewhere' });
  });

  it('answers 400 invalid_request for a name longer than 255 characters or blank', async () => {
    const tenant = await newTenant();
    await expectError(await rename(tenant.token, tenant.projectId, { name: 'x'.repeat(256) }), 400, 'invalid_request');
    await expectError(await rename(tenant.token, tenant.projectId, { name: ' ' }), 400, 'invalid_request');
  });

  it('answers 400 name_taken when another project uses the name', async () => {
    const tenant = await newTenant();
    await createProject(tenant, 'Taken');
    await expectError(await rename(tenant.token, tenant.projectId, { name: 'Taken' }), 400, 'name_taken');
  });

  it('answers 403 permission_denied when the project is reachable but project:admin is lacking', async () => {
    const tenant = await newTenant();
    const member = await addPerson(tenant, 'Member');
    await expectError(await rename(member.token, tenant.projectId, { name: 'Nope' }), 403, 'permission_denied', { permission: 'project:admin' });
  });

  it('answers 404 as for get: unreachable, deleted, another organization\'s', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    const hidden = await createProject(a);
    const scoped = await addScopedPerson(a, MEMBER_ROLE_ID, [a.projectId]);
    await expectError(await rename(scoped.token, hidden.uuid, { name: 'x' }), 404, 'not_found');
    const doomed = await createProject(a);
    await deleteProject(a.token, doomed.uuid);
    await expectError(await rename(a.token, doomed.uuid, { name: 'x' }), 404, 'not_found');
    await expectError(await rename(b.token, a.projectId, { name: 'Hijacked' }), 404, 'not_found');
    expect((await json(await api(projectPath(a.projectId), { token: a.token }))).name).toBe('First project');
  });

  it('records project.updated on the project', async () => {
    const tenant = await newTenant();
    await rename(tenant.token, tenant.projectId, { name: 'Audited' });
    expect(await lastActivity(tenant.orgId, 'project.updated')).toMatchObject({ project_id: tenant.projectId, data: { name: { from: 'First project', to: 'Audited' } } });
  });
});

describe('delete a project (spec 4.6 rule 5)', () => {
  it('answers 204; the project leaves the list at once', async () => {
    const tenant = await newTenant();
    const doomed = await createProject(tenant);
    expect((await deleteProject(tenant.token, doomed.uuid)).status).toBe(204);
    const list = await json(await api(`${orgPath(tenant)}/project`, { token: tenant.token }));
    expect(list.projects.map((p: { uuid: string }) => p.uuid)).not.toContain(doomed.uuid);
  });

  it('its sessions fail with 401 token_revoked while the organization\'s other sessions work', async () => {
    const tenant = await newTenant();
    const doomed = await createProject(tenant);
    const member = await addPerson(tenant, 'Member');
    expect((await api(projectPath(doomed.uuid), { token: doomed.jwt })).status).toBe(200);
    await deleteProject(tenant.token, doomed.uuid);
    await expectError(await api(projectPath(doomed.uuid), { token: doomed.jwt }), 401, 'token_revoked');
    await expectError(await api(`${orgPath(tenant)}/project`, { token: doomed.jwt }), 401, 'token_revoked');
    expect((await api(`${orgPath(tenant)}/project`, { token: tenant.token })).status).toBe(200);
    expect((await api(`${orgPath(tenant)}/project`, { token: member.token })).status).toBe(200);
  });

  it('refuses the project\'s API tokens while it is deleted', async () => {
    const tenant = await newTenant();
    const second = await createProject(tenant);
    const token = await apiToken(tenant, ['org:view']);
    await deleteProject(second.jwt, tenant.projectId);
    await expectError(await api(`${orgPath(tenant)}/project`, { token }), 401, 'token_revoked');
  });

  it('lets a session delete the project it is scoped to', async () => {
    const tenant = await newTenant();
    const second = await createProject(tenant);
    expect((await deleteProject(second.jwt, second.uuid)).status).toBe(204);
    await expectError(await api(`${orgPath(tenant)}/project`, { token: second.jwt }), 401, 'token_revoked');
  });

  it('answers 400 last_project for the organization\'s last project', async () => {
    const tenant = await newTenant();
    await expectError(await deleteProject(tenant.token, tenant.projectId), 400, 'last_project');
    expect((await api(projectPath(tenant.projectId), { token: tenant.token })).status).toBe(200);
  });

  it('never deletes the last project when two deletions race', async () => {
    const tenant = await newTenant();
    const second = await createProject(tenant);
    // A session scoped to neither project, so deleting one does not end it.
    const admin = await addScopedPerson(tenant, ADMIN_ROLE_ID, []);
    expect(admin.projectId).toBeNull();
    const results = await Promise.all([deleteProject(admin.token, tenant.projectId), deleteProject(admin.token, second.uuid)]);
    expect(results.map((r) => r.status).sort()).toEqual([204, 400]);
    await expectError(results.find((r) => r.status === 400)!, 400, 'last_project');
    expect(await count('SELECT count(*) AS n FROM projects WHERE org_id = ? AND deleted_at IS NULL', tenant.orgId)).toBe(1);
    expect(await count("SELECT count(*) AS n FROM activity WHERE org_id = ? AND action = 'project.deleted'", tenant.orgId)).toBe(1);
  });

  it('answers 404 when the project does not exist in the organization, or is already deleted', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await createProject(a);
    await expectError(await deleteProject(a.token, crypto.randomUUID()), 404, 'not_found');
    await expectError(await deleteProject(a.token, b.projectId), 404, 'not_found');
    const doomed = await createProject(a);
    await deleteProject(a.token, doomed.uuid);
    await expectError(await deleteProject(a.token, doomed.uuid), 404, 'not_found');
    expect((await api(projectPath(b.projectId), { token: b.token })).status).toBe(200);
  });

  it('answers 403 permission_denied without org:delete_project', async () => {
    const tenant = await newTenant();
    const second = await createProject(tenant);
    const member = await addPerson(tenant, 'Member');
    await expectError(await deleteProject(member.token, second.uuid), 403, 'permission_denied', { permission: 'org:delete_project' });
  });

  it('records project.deleted on the project', async () => {
    const tenant = await newTenant();
    const doomed = await createProject(tenant, 'Gone');
    await deleteProject(tenant.token, doomed.uuid);
    expect(await lastActivity(tenant.orgId, 'project.deleted')).toMatchObject({ project_id: doomed.uuid, actor_id: tenant.user.id, data: { name: 'Gone' } });
  });
});

describe('restore a project (spec 4.6 rules 5 and 6)', () => {
  const restore = (token: string, id: string) => api(`${projectPath(id)}/restore`, { method: 'POST', token });

  it('answers 200 with the project, back in the list; its API tokens work again, its sessions stay ended', async () => {
    const tenant = await newTenant();
    const second = await createProject(tenant, 'Back');
    const token = await apiToken(tenant, ['org:view']);
    await deleteProject(second.jwt, tenant.projectId);
    const res = await restore(second.jwt, tenant.projectId);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: tenant.projectId, name: 'First project', orgId: tenant.orgId });
    const list = await json(await api(`${orgPath(tenant)}/project`, { token: second.jwt }));
    expect(list.projects.map((p: { uuid: string }) => p.uuid)).toContain(tenant.projectId);
    expect((await api(`${orgPath(tenant)}/project`, { token })).status).toBe(200);
    await expectError(await api(`${orgPath(tenant)}/project`, { token: tenant.token }), 401, 'token_revoked');
  });

  it('answers 400 invalid_request when the project is not deleted', async () => {
    const tenant = await newTenant();
    await expectError(await restore(tenant.token, tenant.projectId), 400, 'invalid_request');
  });

  it('answers 404 when the project does not exist in the organization', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await expectError(await restore(a.token, crypto.randomUUID()), 404, 'not_found');
    const bSecond = await createProject(b);
    await deleteProject(b.token, bSecond.uuid);
    await expectError(await restore(a.token, bSecond.uuid), 404, 'not_found');
  });

  it('answers 404 once the retention period has ended', async () => {
    const tenant = await newTenant();
    const old = await createProject(tenant);
    await deleteProject(tenant.token, old.uuid);
    await env.DB.prepare('UPDATE projects SET deleted_at = ? WHERE id = ?').bind(new Date(Date.now() - 31 * DAY).toISOString(), old.uuid).run();
    expect((await api(orgPath(tenant), { method: 'PUT', token: tenant.token, body: { retentionDays: 30 } })).status).toBe(200);
    await expectError(await restore(tenant.token, old.uuid), 404, 'not_found');
    expect((await api(orgPath(tenant), { method: 'PUT', token: tenant.token, body: { retentionDays: 32 } })).status).toBe(200);
    expect((await restore(tenant.token, old.uuid)).status).toBe(200);
  });

  it('answers 400 name_taken when an active project took the name meanwhile', async () => {
    const tenant = await newTenant();
    const old = await createProject(tenant, 'Contested');
    await deleteProject(tenant.token, old.uuid);
    await createProject(tenant, 'Contested');
    await expectError(await restore(tenant.token, old.uuid), 400, 'name_taken');
  });

  it('answers 403 permission_denied without org:delete_project', async () => {
    const tenant = await newTenant();
    const old = await createProject(tenant);
    await deleteProject(tenant.token, old.uuid);
    const member = await addPerson(tenant, 'Member');
    await expectError(await restore(member.token, old.uuid), 403, 'permission_denied', { permission: 'org:delete_project' });
  });

  it('records project.restored on the project', async () => {
    const tenant = await newTenant();
    const old = await createProject(tenant);
    await deleteProject(tenant.token, old.uuid);
    await restore(tenant.token, old.uuid);
    expect(await lastActivity(tenant.orgId, 'project.restored')).toMatchObject({ project_id: old.uuid, actor_id: tenant.user.id });
  });
});

describe('my projects (spec 4.6)', () => {
  it('answers org_uuid, org_name, user_uuid and the reachable active projects', async () => {
    const tenant = await newTenant();
    const second = await createProject(tenant, 'Two');
    const doomed = await createProject(tenant, 'Three');
    await deleteProject(tenant.token, doomed.uuid);
    const res = await api('/api/v1/user/project', { token: tenant.token });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ org_uuid: tenant.orgId, org_name: expect.any(String), user_uuid: tenant.user.id });
    expect(body.projects.sort((x: { name: string }, y: { name: string }) => x.name.localeCompare(y.name)))
      .toEqual([{ name: 'First project', uuid: tenant.projectId }, { name: 'Two', uuid: second.uuid }]);
  });

  it('leaves out projects none of the person\'s teams reaches', async () => {
    const tenant = await newTenant();
    await createProject(tenant, 'Unreached');
    const scoped = await addScopedPerson(tenant, VIEWER_ROLE_ID, [tenant.projectId]);
    const body = await json(await api('/api/v1/user/project', { token: scoped.token }));
    expect(body.projects).toEqual([{ name: 'First project', uuid: tenant.projectId }]);
  });
});

describe('retention purge (spec 4.6 rule 5, 4.5 rule 3)', () => {
  it('removes a project deleted longer than retentionDays ago, with its team assignments and credentials; restore then answers 404', async () => {
    const tenant = await newTenant();
    const scoped = await addScopedPerson(tenant, MEMBER_ROLE_ID, [tenant.projectId]);
    const old = await createProject(scoped, 'Expiring');
    await deleteProject(tenant.token, old.uuid);
    const deletedAt = Date.parse((await env.DB.prepare('SELECT deleted_at AS d FROM projects WHERE id = ?').bind(old.uuid).first<{ d: string }>())!.d);

    const early = await purgeExpiredProjects(env.DB, new Date(deletedAt + 89 * DAY));
    expect(early.projectIds).not.toContain(old.uuid);
    const result = await purgeExpiredProjects(env.DB, new Date(deletedAt + 91 * DAY));
    expect(result.projectIds).toContain(old.uuid);

    expect(await count('SELECT count(*) AS n FROM projects WHERE id = ?', old.uuid)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM team_projects WHERE project_id = ?', old.uuid)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM credentials WHERE project_id = ?', old.uuid)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM activity WHERE project_id = ? AND action = 'project.created'", old.uuid)).toBe(1);
    expect(await lastActivity(tenant.orgId, 'project.purged')).toMatchObject({ project_id: old.uuid, actor_id: null, actor_kind: 'system' });
    await expectError(await api(`${projectPath(old.uuid)}/restore`, { method: 'POST', token: tenant.token }), 404, 'not_found');
    expect((await api(projectPath(tenant.projectId), { token: tenant.token })).status).toBe(200);
  });

  it('follows each organization\'s own retentionDays', async () => {
    const tenant = await newTenant();
    await api(orgPath(tenant), { method: 'PUT', token: tenant.token, body: { retentionDays: 1 } });
    const old = await createProject(tenant);
    await deleteProject(tenant.token, old.uuid);
    const result = await purgeExpiredProjects(env.DB, new Date(Date.now() + 2 * DAY));
    expect(result.projectIds).toContain(old.uuid);
    await expectError(await api(`${projectPath(old.uuid)}/restore`, { method: 'POST', token: tenant.token }), 404, 'not_found');
  });

  it('removes an organization deleted longer than its retentionDays ago with everything in it, keeping activity', async () => {
    const tenant = await newTenant();
    await addPerson(tenant, { permissions: ['org:view'] });
    await createProject(tenant);
    await api(orgPath(tenant), { method: 'DELETE', token: tenant.token });
    const kept = await count('SELECT count(*) AS n FROM activity WHERE org_id = ?', tenant.orgId);

    await purgeExpiredProjects(env.DB, new Date(Date.now() + 89 * DAY));
    expect(await count('SELECT count(*) AS n FROM organizations WHERE id = ?', tenant.orgId)).toBe(1);

    const result = await purgeExpiredProjects(env.DB, new Date(Date.now() + 91 * DAY));
    expect(result.organizationIds).toContain(tenant.orgId);
    expect(result.projectIds).toContain(tenant.projectId);
    const left = {
      organizations: await count('SELECT count(*) AS n FROM organizations WHERE id = ?', tenant.orgId),
      members: await count('SELECT count(*) AS n FROM org_members WHERE org_id = ?', tenant.orgId),
      teams: await count('SELECT count(*) AS n FROM teams WHERE org_id = ?', tenant.orgId),
      roles: await count('SELECT count(*) AS n FROM roles WHERE org_id = ?', tenant.orgId),
      projects: await count('SELECT count(*) AS n FROM projects WHERE org_id = ?', tenant.orgId),
      credentials: await count('SELECT count(*) AS n FROM credentials WHERE org_id = ?', tenant.orgId),
      teamRows: await count('SELECT count(*) AS n FROM team_members tm LEFT JOIN teams t ON t.id = tm.team_id WHERE t.id IS NULL')
        + await count('SELECT count(*) AS n FROM team_roles tr LEFT JOIN teams t ON t.id = tr.team_id WHERE t.id IS NULL')
        + await count('SELECT count(*) AS n FROM team_projects tp LEFT JOIN teams t ON t.id = tp.team_id WHERE t.id IS NULL'),
    };
    expect(left).toEqual({ organizations: 0, members: 0, teams: 0, roles: 0, projects: 0, credentials: 0, teamRows: 0 });
    expect(await count('SELECT count(*) AS n FROM activity WHERE org_id = ?', tenant.orgId)).toBe(kept);
    expect(await count('SELECT count(*) AS n FROM users WHERE id = ?', tenant.user.id)).toBe(1);
  });

  it('leaves active projects and organizations alone', async () => {
    const tenant = await newTenant();
    await purgeExpiredProjects(env.DB, new Date(Date.now() + 1000 * DAY));
    expect((await api(projectPath(tenant.projectId), { token: tenant.token })).status).toBe(200);
  });
});

describe('OpenAPI document (spec 4.6)', () => {
  it('documents every operation with its permissions and error statuses', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const p = '/api/v1/project/{projectId}';
    expect(Object.keys(doc.paths['/api/v1/org/{orgId}/project'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(doc.paths['/api/v1/org/{orgId}/project/deleted'].get).toBeDefined();
    expect(doc.paths[p].get['x-permissions']).toEqual(['project:view']);
    expect(doc.paths[p].put['x-permissions']).toEqual(['project:admin']);
    expect(Object.keys(doc.paths[p].delete.responses)).toEqual(expect.arrayContaining(['204', '400', '401', '403', '404']));
    expect(doc.paths[`${p}/restore`].post['x-permissions']).toEqual(['org:delete_project']);
    expect(doc.paths['/api/v1/user/project'].get.security).toEqual([{ session: [] }]);
  });
});

type Outcome = number | [number, string];

describe('permission matrix (spec 4.6)', () => {
  const ROLES: MatrixRole[] = ['admin', 'member', 'viewer', 'custom', 'apiToken', 'uploadPass'];
  const denied: Outcome = [403, 'permission_denied'];
  const tokenRefused = { apiToken: [401, 'session_required'] as Outcome, uploadPass: [401, 'unauthorized'] as Outcome };
  type Matrix = Awaited<ReturnType<typeof roleMatrix>>;

  async function check(res: Response, outcome: Outcome, permission?: string) {
    if (typeof outcome === 'number') return expect(res.status).toBe(outcome);
    const [status, code] = outcome;
    await expectError(res, status, code, code === 'permission_denied' ? { permission } : {});
  }

  /** A deleted project of the matrix organization, for restore calls. */
  async function deletedProject(m: Matrix) {
    const p = await createProject(m.tenant);
    await deleteProject(m.tokens.admin, p.uuid);
    return p.uuid;
  }

  const ops: { name: string; permission?: string; expected: Record<MatrixRole, Outcome>; call: (m: Matrix, token: string) => Promise<Response> }[] = [
    {
      name: 'GET O/project', expected: { admin: 200, member: 200, viewer: 200, custom: 200, apiToken: 200, uploadPass: [401, 'unauthorized'] },
      call: (m, token) => api(`${orgPath(m.tenant)}/project`, { token }),
    },
    {
      name: 'GET O/project/deleted', expected: { admin: 200, member: 200, viewer: 200, custom: 200, apiToken: 200, uploadPass: [401, 'unauthorized'] },
      call: (m, token) => api(`${orgPath(m.tenant)}/project/deleted`, { token }),
    },
    {
      name: 'POST O/project', permission: 'org:create_project', expected: { admin: 200, member: 200, viewer: denied, custom: denied, ...tokenRefused },
      call: (m, token) => api(`${orgPath(m.tenant)}/project`, { token, body: { name: `P ${crypto.randomUUID()}` } }),
    },
    {
      name: 'GET /project/{id}', expected: { admin: 200, member: 200, viewer: 200, custom: 200, apiToken: 200, uploadPass: [401, 'unauthorized'] },
      call: (m, token) => api(projectPath(m.tenant.projectId), { token }),
    },
    {
      name: 'PUT /project/{id}', permission: 'project:admin', expected: { admin: 200, member: denied, viewer: denied, custom: denied, ...tokenRefused },
      call: (m, token) => api(projectPath(m.tenant.projectId), { method: 'PUT', token, body: { name: `P ${crypto.randomUUID()}` } }),
    },
    {
      name: 'DELETE /project/{id}', permission: 'org:delete_project', expected: { admin: 204, member: denied, viewer: denied, custom: denied, ...tokenRefused },
      call: async (m, token) => deleteProject(token, (await createProject(m.tenant)).uuid),
    },
    {
      name: 'POST /project/{id}/restore', permission: 'org:delete_project', expected: { admin: 200, member: denied, viewer: denied, custom: denied, ...tokenRefused },
      call: async (m, token) => api(`${projectPath(await deletedProject(m))}/restore`, { method: 'POST', token }),
    },
    {
      name: 'GET /user/project', expected: { admin: 200, member: 200, viewer: 200, custom: 200, ...tokenRefused },
      call: (_m, token) => api('/api/v1/user/project', { token }),
    },
  ];

  for (const op of ops) {
    it(`${op.name}: ${ROLES.map((r) => `${r} ${JSON.stringify(op.expected[r])}`).join(', ')}`, async () => {
      const m = await roleMatrix();
      for (const role of ROLES) await check(await op.call(m, m.tokens[role]), op.expected[role], op.permission);
    });
  }

  it('another tenant\'s session: 403 forbidden on the organization paths, 404 on project ids', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    const doomed = await createProject(a);
    await deleteProject(a.token, doomed.uuid);
    await expectError(await api(`${orgPath(a)}/project`, { token: b.token }), 403, 'forbidden');
    await expectError(await api(`${orgPath(a)}/project/deleted`, { token: b.token }), 403, 'forbidden');
    await expectError(await api(projectPath(a.projectId), { token: b.token }), 404, 'not_found');
    await expectError(await api(projectPath(a.projectId), { method: 'PUT', token: b.token, body: { name: 'x' } }), 404, 'not_found');
    await expectError(await deleteProject(b.token, a.projectId), 404, 'not_found');
    await expectError(await api(`${projectPath(doomed.uuid)}/restore`, { method: 'POST', token: b.token }), 404, 'not_found');
    const bToken = await apiToken(b, ['project:view', 'org:view']);
    await expectError(await api(projectPath(a.projectId), { token: bToken }), 403, 'forbidden');
    const mine = await json(await api('/api/v1/user/project', { token: b.token }));
    expect(mine.projects.map((p: { uuid: string }) => p.uuid)).toEqual([b.projectId]);
  });
});
