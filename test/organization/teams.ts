// Teams (spec 4.3): every rule, every error code, the permission matrix and cross-tenant attempts.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE_ID, MEMBER_ROLE_ID, VIEWER_ROLE_ID } from '../../src/auth/permissions';
import { controlDb } from '../../src/control/db';
import { roles } from '../../src/control/schema';
import { nowIso } from '../../src/lib/ids';
import { api, expectError, json, newTenant } from '../helpers';
import { apiToken, roleMatrix, type MatrixRole, type Tenant, addProject, addOrgMember, activityRows, uniqueName } from '../people';

const O = (t: { orgId: string }) => `/api/v1/org/${t.orgId}`;
const MISSING = '7c1f0a4e-2b3d-4e5f-8a9b-0c1d2e3f4a5b';

const unique = uniqueName;

async function ownRole(tenant: Tenant, name = unique('Role')): Promise<string> {
  const id = crypto.randomUUID();
  await controlDb(env.DB).insert(roles).values({ id, orgId: tenant.orgId, name, permissions: ['project:view'], createdAt: nowIso() });
  return id;
}

async function createTeam(tenant: Tenant, body: Record<string, unknown> = {}) {
  const res = await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: unique('Team'), ...body } });
  expect(res.status).toBe(201);
  return json(res);
}

async function getTeam(tenant: Tenant, teamId: string) {
  const res = await api(`${O(tenant)}/team/${teamId}`, { token: tenant.token });
  expect(res.status).toBe(200);
  return json(res);
}

async function builtInTeam(tenant: Tenant, name: 'Administrators' | 'Members') {
  const { teams } = await json(await api(`${O(tenant)}/team`, { token: tenant.token }));
  return teams.find((t: { name: string }) => t.name === name);
}

const count = async (table: string, teamId: string) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE team_id = ?`).bind(teamId).first<{ n: number }>())!.n;

let tenant: Tenant;
beforeAll(async () => {
  tenant = await newTenant('teams');
});

describe('large lists (D1 binds at most 100 parameters a statement)', () => {
  it('creates a team with 120 projects and replaces them, never a 500', async () => {
    const fresh = await newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push(await addProject(fresh));
    const created = await api(`${O(fresh)}/team`, { token: fresh.token, body: { name: 'Wide', projectIds: ids } });
    expect(created.status).toBe(201);
    const team = await json(created);
    expect(team.projects).toHaveLength(120);
    const replaced = await api(`${O(fresh)}/team/${team.id}/project`, { method: 'PUT', token: fresh.token, body: { projectIds: ids.slice(0, 101) } });
    expect(replaced.status).toBe(200);
    expect((await json(replaced)).projects).toHaveLength(101);
    await expectError(await api(`${O(fresh)}/team`, { token: fresh.token, body: { name: 'Ghosts', projectIds: Array.from({ length: 150 }, () => crypto.randomUUID()) } }), 400, 'invalid_request');
  });

  it('answers 404 (not 500) for an invite naming 100 unknown teams', async () => {
    const fresh = await newTenant();
    const res = await api(`${O(fresh)}/invite`, { token: fresh.token, body: { email: 'many@example.test', teamIds: Array.from({ length: 100 }, () => crypto.randomUUID()) } });
    await expectError(res, 404, 'not_found');
  });
});

describe('team list and full team (spec part 2, ARCHITECTURE section 4)', () => {
  it('lists the built-in teams of a new organization in the list shape', async () => {
    const fresh = await newTenant();
    const res = await api(`${O(fresh)}/team`, { token: fresh.token });
    expect(res.status).toBe(200);
    const { teams } = await json(res);
    expect(teams).toEqual([
      { id: expect.any(String), name: 'Administrators', allProjects: true, memberCount: 1, roles: ['Admin'] },
      { id: expect.any(String), name: 'Members', allProjects: true, memberCount: 0, roles: ['Member'] },
    ]);
    expect(teams[0]).not.toHaveProperty('projectCount');
  });

  it('gives the full team: built-in flag, members, every active project it reaches, roles with permissions', async () => {
    const fresh = await newTenant();
    const admins = await builtInTeam(fresh, 'Administrators');
    const team = await getTeam(fresh, admins.id);
    expect(team).toMatchObject({
      id: admins.id, name: 'Administrators', builtIn: true, allProjects: true, memberCount: 1,
      members: [{ id: fresh.user.id, email: fresh.user.email, name: fresh.user.name }],
      projects: [{ id: fresh.projectId, name: expect.any(String) }],
      roles: [{ id: ADMIN_ROLE_ID, name: 'Admin', systemRole: true, permissions: expect.arrayContaining(['org:manage_teams', 'project:admin']) }],
    });
    expect(team).not.toHaveProperty('projectCount');
  });

  it('counts and lists only active projects and active members', async () => {
    const [kept, deleted] = [await addProject(tenant), await addProject(tenant)];
    const [stays, leaves] = [await addOrgMember(tenant), await addOrgMember(tenant)];
    const team = await createTeam(tenant, { projectIds: [kept, deleted] });
    for (const user of [stays, leaves]) await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId: user.id } });
    await env.DB.prepare('UPDATE projects SET deleted_at = ? WHERE id = ?').bind(nowIso(), deleted).run();
    await env.DB.prepare('UPDATE org_members SET removed_at = ? WHERE org_id = ? AND user_id = ?').bind(nowIso(), tenant.orgId, leaves.id).run();
    const full = await getTeam(tenant, team.id);
    expect(full.projects.map((p: { id: string }) => p.id)).toEqual([kept]);
    expect(full.members.map((m: { id: string }) => m.id)).toEqual([stays.id]);
    expect(full).toMatchObject({ projectCount: 1, memberCount: 1 });
    const { teams } = await json(await api(`${O(tenant)}/team`, { token: tenant.token }));
    expect(teams.find((t: { id: string }) => t.id === team.id)).toMatchObject({ projectCount: 1, memberCount: 1 });
  });

  it('lists built-in teams first, then the others by name', async () => {
    const fresh = await newTenant();
    for (const name of ['zeta', 'Alpha', 'beta']) await createTeam(fresh, { name });
    const { teams } = await json(await api(`${O(fresh)}/team`, { token: fresh.token }));
    expect(teams.map((t: { name: string }) => t.name)).toEqual(['Administrators', 'Members', 'Alpha', 'beta', 'zeta']);
  });
});

describe('rule 1: create', () => {
  it('creates a team with roles and projects, answers 201 with the full team and records team.created', async () => {
    const projectId = await addProject(tenant, 'Create target');
    const roleId = await ownRole(tenant, 'Create role');
    const name = unique('Created');
    const res = await api(`${O(tenant)}/team`, { token: tenant.token, body: { name, projectIds: [projectId], roleIds: [VIEWER_ROLE_ID, roleId] } });
    expect(res.status).toBe(201);
    const team = await json(res);
    expect(team).toMatchObject({
      name, builtIn: false, allProjects: false, memberCount: 0, projectCount: 1, members: [],
      projects: [{ id: projectId, name: 'Create target' }],
      roles: [{ id: VIEWER_ROLE_ID, name: 'Viewer', systemRole: true }, { id: roleId, name: 'Create role', systemRole: false, permissions: ['project:view'] }],
    });
    const [entry] = (await activityRows(tenant.orgId, 'team.created')).filter((r) => r.data.teamId === team.id);
    expect(entry).toMatchObject({ project_id: null, actor_id: tenant.user.id, actor_kind: 'session', data: { teamName: name, projectIds: [projectId] } });
    expect(entry!.trace_id).toBeTruthy();
  });

  it('creates a team reaching all projects', async () => {
    const team = await createTeam(tenant, { allProjects: true, roleIds: [MEMBER_ROLE_ID] });
    expect(team).toMatchObject({ allProjects: true, roles: [{ name: 'Member' }] });
    expect(team).not.toHaveProperty('projectCount');
    expect(team.projects.map((p: { id: string }) => p.id)).toContain(tenant.projectId);
  });

  it('answers 400 invalid_request when the name is blank or missing', async () => {
    await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: '   ' } }), 400, 'invalid_request');
    await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { allProjects: true } }), 400, 'invalid_request');
  });

  it('answers 400 name_taken when another team has the name, whatever its case', async () => {
    const { name } = await createTeam(tenant);
    await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name } }), 400, 'name_taken');
    await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: name.toUpperCase() } }), 400, 'name_taken');
    await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: 'Administrators' } }), 400, 'name_taken');
  });

  it('answers name_taken, never 500, when concurrent requests create the same name', async () => {
    const name = unique('Race');
    const answers = await Promise.all(Array.from({ length: 6 }, () => api(`${O(tenant)}/team`, { token: tenant.token, body: { name } })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 400, 400, 400, 400, 400]);
    for (const res of answers.filter((r) => r.status === 400)) await expectError(res, 400, 'name_taken');
    const row = await env.DB.prepare('SELECT count(*) AS n FROM teams WHERE org_id = ? AND name = ?').bind(tenant.orgId, name).first<{ n: number }>();
    expect(row!.n).toBe(1);
  });

  it('answers name_taken, never 500, when a competing write takes the name between the check and the insert or rename', async () => {
    // The trigger plays the competing request: it writes a team of the same name just before ours.
    await env.DB.prepare(`CREATE TRIGGER race_insert BEFORE INSERT ON teams WHEN NEW.name LIKE 'Raced %' BEGIN
      INSERT INTO teams (id, org_id, name, built_in, all_projects, created_at) VALUES (lower(hex(randomblob(16))), NEW.org_id, NEW.name, 0, 0, NEW.created_at); END`).run();
    await env.DB.prepare(`CREATE TRIGGER race_update BEFORE UPDATE OF name ON teams WHEN NEW.name LIKE 'Raced %' AND NEW.name <> OLD.name BEGIN
      INSERT INTO teams (id, org_id, name, built_in, all_projects, created_at) VALUES (lower(hex(randomblob(16))), NEW.org_id, NEW.name, 0, 0, OLD.created_at); END`).run();
    try {
      const created = unique('Raced');
      await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: created, roleIds: [VIEWER_ROLE_ID] } }), 400, 'name_taken');
      const team = await createTeam(tenant);
      const renamed = unique('Raced');
      await expectError(await api(`${O(tenant)}/team/${team.id}`, { method: 'PUT', token: tenant.token, body: { name: renamed } }), 400, 'name_taken');
      const rows = await env.DB.prepare('SELECT count(*) AS n FROM teams WHERE org_id = ? AND name IN (?, ?)').bind(tenant.orgId, created, renamed).first<{ n: number }>();
      expect(rows!.n).toBe(0);
      expect((await getTeam(tenant, team.id)).name).toBe(team.name);
    } finally {
      await env.DB.batch([env.DB.prepare('DROP TRIGGER race_insert'), env.DB.prepare('DROP TRIGGER race_update')]);
    }
  });

  it('allows the same name in another organization', async () => {
    const { name } = await createTeam(tenant);
    const other = await newTenant();
    await createTeam(other, { name });
  });

  it('answers 400 when both allProjects and projectIds are set', async () => {
    await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: unique('Both'), allProjects: true, projectIds: [tenant.projectId] } }), 400, 'invalid_request');
  });

  it('answers 400 when a role does not exist in the organization (unknown, or another organization\'s)', async () => {
    const other = await newTenant();
    const foreignRole = await ownRole(other);
    for (const roleIds of [[MISSING], [MEMBER_ROLE_ID, foreignRole]]) {
      await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: unique('Bad role'), roleIds } }), 400, 'invalid_request');
    }
  });

  it('answers 400 when a project does not exist in the organization (unknown, deleted, or another organization\'s)', async () => {
    const other = await newTenant();
    const deleted = await addProject(tenant);
    await env.DB.prepare('UPDATE projects SET deleted_at = ? WHERE id = ?').bind(nowIso(), deleted).run();
    for (const projectIds of [[MISSING], [deleted], [tenant.projectId, other.projectId]]) {
      await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: unique('Bad project'), projectIds } }), 400, 'invalid_request');
    }
    const names = await env.DB.prepare("SELECT count(*) AS n FROM teams WHERE org_id = ? AND name LIKE 'Bad %'").bind(tenant.orgId).first<{ n: number }>();
    expect(names!.n).toBe(0);
  });

  it('answers 400 invalid_request for a malformed id, a list that is not a list, or a body that is not JSON', async () => {
    await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: unique('X'), projectIds: ['not-a-uuid'] } }), 400, 'invalid_request');
    await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: { name: unique('X'), roleIds: MEMBER_ROLE_ID } }), 400, 'invalid_request');
    await expectError(await api(`${O(tenant)}/team`, { token: tenant.token, body: '{"name": ' }), 400, 'invalid_request');
  });

  it('ignores unknown fields and duplicate ids', async () => {
    const team = await createTeam(tenant, { builtIn: true, colour: 'red', roleIds: [VIEWER_ROLE_ID, VIEWER_ROLE_ID], projectIds: [tenant.projectId, tenant.projectId] });
    expect(team).toMatchObject({ builtIn: false, projectCount: 1, roles: [{ id: VIEWER_ROLE_ID }] });
    expect(team).not.toHaveProperty('colour');
  });
});

describe('rule 2: update', () => {
  it('renames a team and records team.updated', async () => {
    const team = await createTeam(tenant, { projectIds: [tenant.projectId] });
    const name = unique('Renamed');
    const res = await api(`${O(tenant)}/team/${team.id}`, { method: 'PUT', token: tenant.token, body: { name } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: team.id, name, allProjects: false, projectCount: 1 });
    const [entry] = (await activityRows(tenant.orgId, 'team.updated')).filter((r) => r.data.teamId === team.id);
    expect(entry!.data).toMatchObject({ teamName: name, previousName: team.name });
  });

  it('leaves fields left out unchanged', async () => {
    const team = await createTeam(tenant, { projectIds: [tenant.projectId], roleIds: [VIEWER_ROLE_ID] });
    const res = await api(`${O(tenant)}/team/${team.id}`, { method: 'PUT', token: tenant.token, body: {} });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ name: team.name, allProjects: false, projectCount: 1, roles: [{ id: VIEWER_ROLE_ID }] });
  });

  it('accepts the team\'s own name in another case', async () => {
    const team = await createTeam(tenant, { name: unique('lower') });
    const res = await api(`${O(tenant)}/team/${team.id}`, { method: 'PUT', token: tenant.token, body: { name: team.name.toUpperCase() } });
    expect(res.status).toBe(200);
  });

  it('drops individual project assignments when allProjects is turned on', async () => {
    const team = await createTeam(tenant, { projectIds: [tenant.projectId, await addProject(tenant)] });
    const res = await api(`${O(tenant)}/team/${team.id}`, { method: 'PUT', token: tenant.token, body: { allProjects: true } });
    expect(await json(res)).toMatchObject({ allProjects: true });
    expect(await count('team_projects', team.id)).toBe(0);
    const off = await json(await api(`${O(tenant)}/team/${team.id}`, { method: 'PUT', token: tenant.token, body: { allProjects: false } }));
    expect(off).toMatchObject({ allProjects: false, projectCount: 0, projects: [] });
  });

  it('answers 400 invalid_request when the team is built in', async () => {
    const members = await builtInTeam(tenant, 'Members');
    await expectError(await api(`${O(tenant)}/team/${members.id}`, { method: 'PUT', token: tenant.token, body: { name: unique('Nope') } }), 400, 'invalid_request');
    await expectError(await api(`${O(tenant)}/team/${members.id}`, { method: 'PUT', token: tenant.token, body: { allProjects: false } }), 400, 'invalid_request');
  });

  it('answers 400 name_taken when the new name is taken', async () => {
    const [a, b] = [await createTeam(tenant), await createTeam(tenant)];
    await expectError(await api(`${O(tenant)}/team/${b.id}`, { method: 'PUT', token: tenant.token, body: { name: a.name } }), 400, 'name_taken');
    await expectError(await api(`${O(tenant)}/team/${b.id}`, { method: 'PUT', token: tenant.token, body: { name: 'Members' } }), 400, 'name_taken');
  });

  it('answers 400 invalid_request for a blank name', async () => {
    const team = await createTeam(tenant);
    await expectError(await api(`${O(tenant)}/team/${team.id}`, { method: 'PUT', token: tenant.token, body: { name: '' } }), 400, 'invalid_request');
  });
});

describe('rule 3: delete', () => {
  it('deletes the team with its memberships, role and project assignments; the people stay', async () => {
    const person = await addOrgMember(tenant);
    const team = await createTeam(tenant, { projectIds: [tenant.projectId], roleIds: [VIEWER_ROLE_ID] });
    await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId: person.id } });
    expect(await count('team_members', team.id)).toBe(1);
    const res = await api(`${O(tenant)}/team/${team.id}`, { method: 'DELETE', token: tenant.token });
    expect(res.status).toBe(204);
    for (const table of ['team_members', 'team_roles', 'team_projects']) expect(await count(table, team.id)).toBe(0);
    await expectError(await api(`${O(tenant)}/team/${team.id}`, { token: tenant.token }), 404, 'not_found');
    const membership = await env.DB.prepare('SELECT removed_at FROM org_members WHERE org_id = ? AND user_id = ?').bind(tenant.orgId, person.id).first();
    expect(membership).toEqual({ removed_at: null });
    expect((await activityRows(tenant.orgId, 'team.deleted')).some((r) => r.data.teamId === team.id && r.data.teamName === team.name)).toBe(true);
  });

  it('answers 400 invalid_request when the team is built in', async () => {
    const admins = await builtInTeam(tenant, 'Administrators');
    await expectError(await api(`${O(tenant)}/team/${admins.id}`, { method: 'DELETE', token: tenant.token }), 400, 'invalid_request');
  });
});

describe('rule 4: add projects', () => {
  it('adds projects, skipping those already assigned, and records team.project.added', async () => {
    const [p1, p2] = [await addProject(tenant), await addProject(tenant)];
    const team = await createTeam(tenant, { projectIds: [p1] });
    const res = await api(`${O(tenant)}/team/${team.id}/project`, { token: tenant.token, body: { projectIds: [p1, p2] } });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.projectCount).toBe(2);
    expect(body.projects.map((p: { id: string }) => p.id).sort()).toEqual([p1, p2].sort());
    const [entry] = (await activityRows(tenant.orgId, 'team.project.added')).filter((r) => r.data.teamId === team.id);
    expect(entry!.data.projectIds).toEqual([p2]);
  });

  it('answers 400 when the team reaches all projects', async () => {
    const team = await createTeam(tenant, { allProjects: true });
    await expectError(await api(`${O(tenant)}/team/${team.id}/project`, { token: tenant.token, body: { projectIds: [tenant.projectId] } }), 400, 'invalid_request');
  });

  it('answers 400 when projectIds is missing', async () => {
    const team = await createTeam(tenant);
    await expectError(await api(`${O(tenant)}/team/${team.id}/project`, { token: tenant.token, body: {} }), 400, 'invalid_request');
  });

  it('answers 400 when a project does not exist in the organization', async () => {
    const team = await createTeam(tenant);
    const other = await newTenant();
    await expectError(await api(`${O(tenant)}/team/${team.id}/project`, { token: tenant.token, body: { projectIds: [other.projectId] } }), 400, 'invalid_request');
    expect(await count('team_projects', team.id)).toBe(0);
  });
});

describe('rule 5: replace projects', () => {
  it('keeps only the projects listed and records team.projects.replaced', async () => {
    const [p1, p2] = [await addProject(tenant), await addProject(tenant)];
    const team = await createTeam(tenant, { projectIds: [p1] });
    const body = await json(await api(`${O(tenant)}/team/${team.id}/project`, { method: 'PUT', token: tenant.token, body: { projectIds: [p2] } }));
    expect(body.projects.map((p: { id: string }) => p.id)).toEqual([p2]);
    const [entry] = (await activityRows(tenant.orgId, 'team.projects.replaced')).filter((r) => r.data.teamId === team.id);
    expect(entry!.data).toMatchObject({ projectIds: [p2], added: [p2], removed: [p1] });
  });

  it('leaves none for an empty list', async () => {
    const team = await createTeam(tenant, { projectIds: [tenant.projectId] });
    const res = await api(`${O(tenant)}/team/${team.id}/project`, { method: 'PUT', token: tenant.token, body: { projectIds: [] } });
    expect(await json(res)).toMatchObject({ projectCount: 0, projects: [] });
  });

  it('has the 400 conditions of add projects', async () => {
    const all = await createTeam(tenant, { allProjects: true });
    const team = await createTeam(tenant, { projectIds: [tenant.projectId] });
    const path = (id: string) => `${O(tenant)}/team/${id}/project`;
    await expectError(await api(path(all.id), { method: 'PUT', token: tenant.token, body: { projectIds: [] } }), 400, 'invalid_request');
    await expectError(await api(path(team.id), { method: 'PUT', token: tenant.token, body: {} }), 400, 'invalid_request');
    await expectError(await api(path(team.id), { method: 'PUT', token: tenant.token, body: { projectIds: [MISSING] } }), 400, 'invalid_request');
    expect(await count('team_projects', team.id)).toBe(1);
  });
});

describe('rule 6: remove project', () => {
  it('removes an assigned project and records team.project.removed', async () => {
    const other = await addProject(tenant);
    const team = await createTeam(tenant, { projectIds: [tenant.projectId, other] });
    // A session may name a project other than the one it is scoped to.
    const res = await api(`${O(tenant)}/team/${team.id}/project/${other}`, { method: 'DELETE', token: tenant.token });
    expect(res.status).toBe(204);
    expect((await getTeam(tenant, team.id)).projects.map((p: { id: string }) => p.id)).toEqual([tenant.projectId]);
    expect((await activityRows(tenant.orgId, 'team.project.removed')).some((r) => r.data.teamId === team.id && r.data.projectId === other)).toBe(true);
  });

  it('answers 400 when the team reaches all projects', async () => {
    const team = await createTeam(tenant, { allProjects: true });
    await expectError(await api(`${O(tenant)}/team/${team.id}/project/${tenant.projectId}`, { method: 'DELETE', token: tenant.token }), 400, 'invalid_request');
  });

  it('answers 400 when the project is not assigned', async () => {
    const team = await createTeam(tenant);
    await expectError(await api(`${O(tenant)}/team/${team.id}/project/${tenant.projectId}`, { method: 'DELETE', token: tenant.token }), 400, 'invalid_request');
  });

  it('answers 403 forbidden when an API token made for a project names another one; its own project works', async () => {
    const other = await addProject(tenant);
    const team = await createTeam(tenant, { projectIds: [tenant.projectId, other] });
    const token = await apiToken(tenant, ['org:manage_teams', 'org:view']);
    await expectError(await api(`${O(tenant)}/team/${team.id}/project/${other}`, { method: 'DELETE', token }), 403, 'forbidden');
    expect((await api(`${O(tenant)}/team/${team.id}/project/${tenant.projectId}`, { method: 'DELETE', token })).status).toBe(204);
  });

  it('answers 404 when the team or the project does not exist', async () => {
    const team = await createTeam(tenant, { projectIds: [tenant.projectId] });
    const other = await newTenant();
    await expectError(await api(`${O(tenant)}/team/${MISSING}/project/${tenant.projectId}`, { method: 'DELETE', token: tenant.token }), 404, 'not_found');
    await expectError(await api(`${O(tenant)}/team/${team.id}/project/${MISSING}`, { method: 'DELETE', token: tenant.token }), 404, 'not_found');
    await expectError(await api(`${O(tenant)}/team/${team.id}/project/${other.projectId}`, { method: 'DELETE', token: tenant.token }), 404, 'not_found');
  });

  it('answers 400 invalid_parameter for a malformed project id', async () => {
    const team = await createTeam(tenant);
    await expectError(await api(`${O(tenant)}/team/${team.id}/project/nope`, { method: 'DELETE', token: tenant.token }), 400, 'invalid_parameter', { parameter: 'projectId' });
  });
});

describe('rule 7: add roles', () => {
  it('adds roles, skipping those already held, and records team.role.added', async () => {
    const roleId = await ownRole(tenant);
    const team = await createTeam(tenant, { roleIds: [VIEWER_ROLE_ID] });
    const res = await api(`${O(tenant)}/team/${team.id}/role`, { token: tenant.token, body: { roleIds: [VIEWER_ROLE_ID, roleId] } });
    expect(res.status).toBe(200);
    expect((await json(res)).roles.map((r: { id: string }) => r.id)).toEqual([VIEWER_ROLE_ID, roleId]);
    const [entry] = (await activityRows(tenant.orgId, 'team.role.added')).filter((r) => r.data.teamId === team.id);
    expect(entry!.data.roleIds).toEqual([roleId]);
  });

  it('answers 400 when the team is built in', async () => {
    const members = await builtInTeam(tenant, 'Members');
    await expectError(await api(`${O(tenant)}/team/${members.id}/role`, { token: tenant.token, body: { roleIds: [ADMIN_ROLE_ID] } }), 400, 'invalid_request');
    expect((await getTeam(tenant, members.id)).roles.map((r: { name: string }) => r.name)).toEqual(['Member']);
  });

  it('answers 400 when roleIds is missing', async () => {
    const team = await createTeam(tenant);
    await expectError(await api(`${O(tenant)}/team/${team.id}/role`, { token: tenant.token, body: {} }), 400, 'invalid_request');
  });

  it('answers 400 when a role does not exist or belongs to another organization', async () => {
    const team = await createTeam(tenant);
    const foreignRole = await ownRole(await newTenant());
    for (const roleIds of [[MISSING], [foreignRole]]) {
      await expectError(await api(`${O(tenant)}/team/${team.id}/role`, { token: tenant.token, body: { roleIds } }), 400, 'invalid_request');
    }
    expect(await count('team_roles', team.id)).toBe(0);
  });
});

describe('rule 8: replace roles', () => {
  it('keeps only the roles listed and records team.roles.replaced', async () => {
    const team = await createTeam(tenant, { roleIds: [VIEWER_ROLE_ID] });
    const res = await api(`${O(tenant)}/team/${team.id}/role`, { method: 'PUT', token: tenant.token, body: { roleIds: [MEMBER_ROLE_ID] } });
    expect((await json(res)).roles.map((r: { name: string }) => r.name)).toEqual(['Member']);
    const [entry] = (await activityRows(tenant.orgId, 'team.roles.replaced')).filter((r) => r.data.teamId === team.id);
    expect(entry!.data).toMatchObject({ roleIds: [MEMBER_ROLE_ID], added: [MEMBER_ROLE_ID], removed: [VIEWER_ROLE_ID] });
  });

  it('leaves none for an empty list', async () => {
    const team = await createTeam(tenant, { roleIds: [VIEWER_ROLE_ID] });
    const res = await api(`${O(tenant)}/team/${team.id}/role`, { method: 'PUT', token: tenant.token, body: { roleIds: [] } });
    expect((await json(res)).roles).toEqual([]);
  });

  it('has the 400 conditions of add roles', async () => {
    const admins = await builtInTeam(tenant, 'Administrators');
    const team = await createTeam(tenant, { roleIds: [VIEWER_ROLE_ID] });
    const path = (id: string) => `${O(tenant)}/team/${id}/role`;
    await expectError(await api(path(admins.id), { method: 'PUT', token: tenant.token, body: { roleIds: [] } }), 400, 'invalid_request');
    await expectError(await api(path(team.id), { method: 'PUT', token: tenant.token, body: {} }), 400, 'invalid_request');
    await expectError(await api(path(team.id), { method: 'PUT', token: tenant.token, body: { roleIds: [MISSING] } }), 400, 'invalid_request');
    await expectError(await api(path(team.id), { method: 'PUT', token: tenant.token, body: { roleIds: ['Admin'] } }), 400, 'invalid_request');
    expect((await getTeam(tenant, team.id)).roles.map((r: { id: string }) => r.id)).toEqual([VIEWER_ROLE_ID]);
  });
});

describe('rule 9: built-in teams', () => {
  it('can be neither renamed, deleted, nor have their roles changed', async () => {
    const fresh = await newTenant();
    for (const name of ['Administrators', 'Members'] as const) {
      const team = await builtInTeam(fresh, name);
      const path = `${O(fresh)}/team/${team.id}`;
      await expectError(await api(path, { method: 'PUT', token: fresh.token, body: { name: unique('x') } }), 400, 'invalid_request');
      await expectError(await api(path, { method: 'DELETE', token: fresh.token }), 400, 'invalid_request');
      await expectError(await api(`${path}/role`, { token: fresh.token, body: { roleIds: [VIEWER_ROLE_ID] } }), 400, 'invalid_request');
      await expectError(await api(`${path}/role`, { method: 'PUT', token: fresh.token, body: { roleIds: [] } }), 400, 'invalid_request');
      expect(await getTeam(fresh, team.id)).toMatchObject({ name, builtIn: true, roles: [{ name: name === 'Members' ? 'Member' : 'Admin' }] });
    }
  });
});

describe('rule 10: add member', () => {
  it('adds a member of the organization, answers 201 with id, email and name, and records team.member.added', async () => {
    const person = await addOrgMember(tenant);
    const team = await createTeam(tenant);
    const res = await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId: person.id } });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({ id: person.id, email: person.email, name: person.name });
    expect((await getTeam(tenant, team.id)).memberCount).toBe(1);
    const rows = (await activityRows(tenant.orgId, 'team.member.added')).filter((r) => r.data.teamId === team.id);
    expect(rows).toEqual([expect.objectContaining({
      project_id: null, actor_id: tenant.user.id,
      data: { teamId: team.id, teamName: team.name, userId: person.id, email: person.email },
    })]);
  });

  it('answers 400 when the user is already on the team', async () => {
    const person = await addOrgMember(tenant);
    const team = await createTeam(tenant);
    await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId: person.id } });
    await expectError(await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId: person.id } }), 400, 'invalid_request');
  });

  it('answers 400, never 500, when a concurrent request added the same person first', async () => {
    const person = await addOrgMember(tenant);
    const team = await createTeam(tenant);
    // The trigger plays the competing request, adding the person just before our insert.
    await env.DB.prepare(`CREATE TRIGGER race_member BEFORE INSERT ON team_members WHEN NEW.team_id = '${team.id}' AND NOT EXISTS
      (SELECT 1 FROM team_members WHERE team_id = NEW.team_id AND user_id = NEW.user_id) BEGIN
      INSERT INTO team_members (team_id, user_id, added_at) VALUES (NEW.team_id, NEW.user_id, NEW.added_at); END`).run();
    try {
      await expectError(await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId: person.id } }), 400, 'invalid_request');
      expect((await activityRows(tenant.orgId, 'team.member.added')).filter((r) => r.data.teamId === team.id)).toEqual([]);
    } finally {
      await env.DB.prepare('DROP TRIGGER race_member').run();
    }
  });

  it('answers 400 when userId is blank, missing or malformed', async () => {
    const team = await createTeam(tenant);
    for (const body of [{ userId: '' }, { userId: '  ' }, {}, { userId: 'bob' }]) {
      await expectError(await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body }), 400, 'invalid_request');
    }
  });

  it('answers 404 when the team does not exist', async () => {
    const person = await addOrgMember(tenant);
    await expectError(await api(`${O(tenant)}/team/${MISSING}/user`, { token: tenant.token, body: { userId: person.id } }), 404, 'not_found');
  });

  it('answers 404 when no such user belongs to the organization (unknown, another organization\'s, or a former member)', async () => {
    const team = await createTeam(tenant);
    const other = await newTenant();
    const former = await addOrgMember(tenant);
    await env.DB.prepare('UPDATE org_members SET removed_at = ? WHERE org_id = ? AND user_id = ?').bind(nowIso(), tenant.orgId, former.id).run();
    for (const userId of [MISSING, other.user.id, former.id]) {
      await expectError(await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId } }), 404, 'not_found');
    }
    expect(await count('team_members', team.id)).toBe(0);
  });

  it('gives the new member the team\'s permissions at once', async () => {
    const person = await addOrgMember(tenant);
    const team = await createTeam(tenant, { allProjects: true, roleIds: [MEMBER_ROLE_ID] });
    const perms = async () => json(await api(`${O(tenant)}/user/${person.id}/permission`, { token: tenant.token }));
    expect((await perms()).orgPermissions).toEqual([]);
    await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId: person.id } });
    expect((await perms()).orgPermissions).toEqual(['org:view', 'org:create_project']);
  });
});

describe('rule 11: remove member', () => {
  it('removes the member, who stays in the organization and on other teams, and records team.member.removed', async () => {
    const person = await addOrgMember(tenant);
    const [team, otherTeam] = [await createTeam(tenant), await createTeam(tenant)];
    for (const t of [team, otherTeam]) await api(`${O(tenant)}/team/${t.id}/user`, { token: tenant.token, body: { userId: person.id } });
    const res = await api(`${O(tenant)}/team/${team.id}/user/${person.id}`, { method: 'DELETE', token: tenant.token });
    expect(res.status).toBe(204);
    expect((await getTeam(tenant, team.id)).members).toEqual([]);
    expect((await getTeam(tenant, otherTeam.id)).members).toEqual([{ id: person.id, email: person.email, name: person.name }]);
    const membership = await env.DB.prepare('SELECT removed_at FROM org_members WHERE org_id = ? AND user_id = ?').bind(tenant.orgId, person.id).first();
    expect(membership).toEqual({ removed_at: null });
    const rows = (await activityRows(tenant.orgId, 'team.member.removed')).filter((r) => r.data.teamId === team.id);
    expect(rows).toEqual([expect.objectContaining({ project_id: null, data: { teamId: team.id, teamName: team.name, userId: person.id, email: person.email } })]);
  });

  it('answers 400 when the user is not on the team', async () => {
    const person = await addOrgMember(tenant);
    const team = await createTeam(tenant);
    await expectError(await api(`${O(tenant)}/team/${team.id}/user/${person.id}`, { method: 'DELETE', token: tenant.token }), 400, 'invalid_request');
  });

  it('answers 404 when the team does not exist or no such user belongs to the organization', async () => {
    const person = await addOrgMember(tenant);
    const team = await createTeam(tenant);
    const other = await newTenant();
    await expectError(await api(`${O(tenant)}/team/${MISSING}/user/${person.id}`, { method: 'DELETE', token: tenant.token }), 404, 'not_found');
    await expectError(await api(`${O(tenant)}/team/${team.id}/user/${MISSING}`, { method: 'DELETE', token: tenant.token }), 404, 'not_found');
    await expectError(await api(`${O(tenant)}/team/${team.id}/user/${other.user.id}`, { method: 'DELETE', token: tenant.token }), 404, 'not_found');
  });
});

describe('team member list', () => {
  it('answers { members } with id, email and name', async () => {
    const person = await addOrgMember(tenant);
    const team = await createTeam(tenant);
    await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId: person.id } });
    const res = await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ members: [{ id: person.id, email: person.email, name: person.name }] });
  });
});

describe('rule 12: a user\'s teams', () => {
  it('lists the teams the person is on, in the team list shape', async () => {
    const person = await addOrgMember(tenant);
    const team = await createTeam(tenant, { projectIds: [tenant.projectId], roleIds: [VIEWER_ROLE_ID] });
    await api(`${O(tenant)}/team/${team.id}/user`, { token: tenant.token, body: { userId: person.id } });
    const res = await api(`${O(tenant)}/user/${person.id}/team`, { token: tenant.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ teams: [{ id: team.id, name: team.name, allProjects: false, memberCount: 1, projectCount: 1, roles: ['Viewer'] }] });
    const owner = await json(await api(`${O(tenant)}/user/${tenant.user.id}/team`, { token: tenant.token }));
    expect(owner.teams.map((t: { name: string }) => t.name)).toEqual(['Administrators']);
  });

  it('answers 404 when no such user belongs to the organization', async () => {
    const other = await newTenant();
    for (const userId of [MISSING, other.user.id]) {
      await expectError(await api(`${O(tenant)}/user/${userId}/team`, { token: tenant.token }), 404, 'not_found');
    }
    await expectError(await api(`${O(tenant)}/user/not-a-uuid/team`, { token: tenant.token }), 400, 'invalid_parameter', { parameter: 'userId' });
  });
});

describe('rule 13: unknown team ids', () => {
  it('answers 404 for get, update, delete, roles, projects and the member list', async () => {
    const path = `${O(tenant)}/team/${MISSING}`;
    const calls: [string, string, unknown?][] = [
      ['GET', path], ['PUT', path, { name: unique('x') }], ['DELETE', path],
      ['POST', `${path}/role`, { roleIds: [VIEWER_ROLE_ID] }], ['PUT', `${path}/role`, { roleIds: [] }],
      ['POST', `${path}/project`, { projectIds: [tenant.projectId] }], ['PUT', `${path}/project`, { projectIds: [] }],
      ['GET', `${path}/user`],
    ];
    for (const [method, p, body] of calls) await expectError(await api(p, { method, token: tenant.token, body }), 404, 'not_found');
  });

  it('answers 400 invalid_parameter naming teamId for a malformed id', async () => {
    await expectError(await api(`${O(tenant)}/team/123`, { token: tenant.token }), 400, 'invalid_parameter', { parameter: 'teamId' });
  });
});

describe('cross-tenant attempts', () => {
  it('answers 403 forbidden to another tenant\'s admin on this organization\'s path', async () => {
    const other = await newTenant();
    const team = await createTeam(tenant);
    for (const [method, path] of [['GET', `${O(tenant)}/team`], ['GET', `${O(tenant)}/team/${team.id}`], ['DELETE', `${O(tenant)}/team/${team.id}`], ['GET', `${O(tenant)}/user/${tenant.user.id}/team`]]) {
      await expectError(await api(path!, { method, token: other.token }), 403, 'forbidden');
    }
    const token = await apiToken(other, ['org:manage_teams', 'org:view']);
    await expectError(await api(`${O(tenant)}/team`, { token }), 403, 'forbidden');
    expect((await getTeam(tenant, team.id)).name).toBe(team.name);
  });

  it('answers 404 for another tenant\'s team, user or project ids inside one\'s own organization, never their data', async () => {
    const other = await newTenant();
    const theirs = await createTeam(other, { name: unique('Secret'), projectIds: [other.projectId] });
    const path = `${O(tenant)}/team/${theirs.id}`;
    for (const [method, p, body] of [
      ['GET', path], ['PUT', path, { name: unique('Stolen') }], ['DELETE', path], ['GET', `${path}/user`],
      ['POST', `${path}/user`, { userId: other.user.id }], ['DELETE', `${path}/user/${other.user.id}`],
      ['DELETE', `${path}/project/${other.projectId}`], ['POST', `${path}/role`, { roleIds: [VIEWER_ROLE_ID] }],
    ] as [string, string, unknown?][]) {
      const res = await api(p, { method, token: tenant.token, body });
      const text = await res.clone().text();
      await expectError(res, 404, 'not_found');
      expect(text).not.toContain(theirs.name);
    }
    expect(await getTeam(other, theirs.id)).toMatchObject({ name: theirs.name, projectCount: 1 });
    const { teams } = await json(await api(`${O(tenant)}/team`, { token: tenant.token }));
    expect(teams.some((t: { id: string }) => t.id === theirs.id)).toBe(false);
  });
});

describe('permission matrix: every team operation requires org:manage_teams (Any)', () => {
  type Call = { method: string; path: string; body?: unknown; ok: number };
  // Each call gets fresh fixtures so a successful caller never disturbs the next one.
  const operations: [string, (t: Tenant) => Promise<Call>][] = [
    ['list teams', async (t) => ({ method: 'GET', path: `${O(t)}/team`, ok: 200 })],
    ['create team', async (t) => ({ method: 'POST', path: `${O(t)}/team`, body: { name: unique('M') }, ok: 201 })],
    ['get team', async (t) => ({ method: 'GET', path: `${O(t)}/team/${(await createTeam(t)).id}`, ok: 200 })],
    ['update team', async (t) => ({ method: 'PUT', path: `${O(t)}/team/${(await createTeam(t)).id}`, body: { name: unique('M') }, ok: 200 })],
    ['delete team', async (t) => ({ method: 'DELETE', path: `${O(t)}/team/${(await createTeam(t)).id}`, ok: 204 })],
    ['add projects', async (t) => ({ method: 'POST', path: `${O(t)}/team/${(await createTeam(t)).id}/project`, body: { projectIds: [t.projectId] }, ok: 200 })],
    ['replace projects', async (t) => ({ method: 'PUT', path: `${O(t)}/team/${(await createTeam(t)).id}/project`, body: { projectIds: [t.projectId] }, ok: 200 })],
    ['remove project', async (t) => ({ method: 'DELETE', path: `${O(t)}/team/${(await createTeam(t, { projectIds: [t.projectId] })).id}/project/${t.projectId}`, ok: 204 })],
    ['add roles', async (t) => ({ method: 'POST', path: `${O(t)}/team/${(await createTeam(t)).id}/role`, body: { roleIds: [VIEWER_ROLE_ID] }, ok: 200 })],
    ['replace roles', async (t) => ({ method: 'PUT', path: `${O(t)}/team/${(await createTeam(t)).id}/role`, body: { roleIds: [VIEWER_ROLE_ID] }, ok: 200 })],
    ['list team members', async (t) => ({ method: 'GET', path: `${O(t)}/team/${(await createTeam(t)).id}/user`, ok: 200 })],
    ['add member', async (t) => ({ method: 'POST', path: `${O(t)}/team/${(await createTeam(t)).id}/user`, body: { userId: (await addOrgMember(t)).id }, ok: 201 })],
    ['remove member', async (t) => {
      const team = await createTeam(t);
      const person = await addOrgMember(t);
      await api(`${O(t)}/team/${team.id}/user`, { token: t.token, body: { userId: person.id } });
      return { method: 'DELETE', path: `${O(t)}/team/${team.id}/user/${person.id}`, ok: 204 };
    }],
    ['list a user\'s teams', async (t) => ({ method: 'GET', path: `${O(t)}/user/${t.user.id}/team`, ok: 200 })],
  ];

  let matrix: Awaited<ReturnType<typeof roleMatrix>>;
  let manager: string;
  beforeAll(async () => {
    matrix = await roleMatrix();
    manager = await apiToken(matrix.tenant, ['org:manage_teams', 'org:view']);
  });

  const expected: Record<MatrixRole | 'manager', 'ok' | [number, string]> = {
    admin: 'ok', manager: 'ok', member: [403, 'permission_denied'], viewer: [403, 'permission_denied'],
    custom: [403, 'permission_denied'], apiToken: [403, 'permission_denied'], uploadPass: [401, 'unauthorized'],
  };

  for (const [name, prepare] of operations) {
    it(`${name}: admin and an API token holding it succeed; member, viewer, custom role and a token without it 403; an upload pass 401`, async () => {
      for (const [caller, outcome] of Object.entries(expected) as [MatrixRole | 'manager', 'ok' | [number, string]][]) {
        const call = await prepare(matrix.tenant);
        const token = caller === 'manager' ? manager : matrix.tokens[caller];
        const res = await api(call.path, { method: call.method, token, body: call.body });
        if (outcome === 'ok') expect({ caller, status: res.status }).toEqual({ caller, status: call.ok });
        else if (outcome[0] === 403) await expectError(res, 403, outcome[1], { permission: 'org:manage_teams' });
        else await expectError(res, outcome[0], outcome[1]);
      }
    });
  }
});
