// Organizations (spec 4.5): the organization, its members, removing and inviting people.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { issueApiToken, issueUploadPass } from '../../src/auth/credentials';
import { loadPrincipal } from '../../src/auth/principal';
import { signingKeys, verifyToken } from '../../src/auth/tokens';
import { controlDb } from '../../src/control/db';
import { api, expectError, json, newTenant, signIn, uniqueEmail } from '../helpers';
import { addPerson, apiToken, roleMatrix, uploadPass, type MatrixRole, type Tenant, lastActivity } from '../people';

const org = (tenant: { orgId: string }) => `/api/v1/org/${tenant.orgId}`;

async function teamIdByName(orgId: string, name: string): Promise<string> {
  const row = await env.DB.prepare('SELECT id FROM teams WHERE org_id = ? AND name = ?').bind(orgId, name).first<{ id: string }>();
  return row!.id;
}

async function newTeam(orgId: string, name = `Team ${crypto.randomUUID().slice(0, 8)}`): Promise<string> {
  const id = crypto.randomUUID();
  await env.DB.prepare('INSERT INTO teams (id, org_id, name, built_in, all_projects, created_at) VALUES (?, ?, ?, 0, 1, ?)')
    .bind(id, orgId, name, new Date().toISOString()).run();
  return id;
}

async function teamsOf(orgId: string, userId: string): Promise<string[]> {
  const { results } = await env.DB.prepare('SELECT tm.team_id AS id FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE t.org_id = ? AND tm.user_id = ? ORDER BY tm.team_id')
    .bind(orgId, userId).all<{ id: string }>();
  return results.map((r) => r.id);
}

/** An API token and an upload pass created by `userId` in the tenant's project. */
async function credentialsOf(tenant: Tenant, userId: string) {
  const db = controlDb(env.DB);
  const actor = { userId, kind: 'session' };
  const token = await issueApiToken(db, env, { orgId: tenant.orgId, projectId: tenant.projectId, actor, durationDays: 14, permissions: ['org:view', 'project:view'] });
  const pass = await issueUploadPass(db, env, { orgId: tenant.orgId, projectId: tenant.projectId, actor, durationDays: 14 });
  return { token: token.token, pass: pass.token };
}

const principalOf = async (token: string) => loadPrincipal(env.DB, await verifyToken(await signingKeys(env), token));

describe('get the organization (spec 4.5)', () => {
  it('answers id, name, slug and retentionDays (90 unless changed)', async () => {
    const tenant = await newTenant();
    const res = await api(org(tenant), { token: tenant.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ id: tenant.orgId, name: expect.any(String), slug: expect.any(String), retentionDays: 90 });
  });

  it('answers an API token of the organization holding org:view', async () => {
    const tenant = await newTenant();
    const res = await api(org(tenant), { token: await apiToken(tenant, ['org:view']) });
    expect((await json(res)).id).toBe(tenant.orgId);
  });

  it('answers 403 forbidden for another organization (rule 1), for get, list members and delete', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await expectError(await api(org(a), { token: b.token }), 403, 'forbidden');
    await expectError(await api(`${org(a)}/user`, { token: b.token }), 403, 'forbidden');
    await expectError(await api(org(a), { method: 'DELETE', token: b.token }), 403, 'forbidden');
    await expectError(await api(org(a), { token: await apiToken(b, ['org:view']) }), 403, 'forbidden');
    expect((await api(org(a), { token: a.token })).status).toBe(200);
  });

  it('answers 400 invalid_parameter naming orgId when it is not a UUID', async () => {
    const tenant = await newTenant();
    await expectError(await api('/api/v1/org/not-a-uuid', { token: tenant.token }), 400, 'invalid_parameter', { parameter: 'orgId' });
  });
});

describe('update the organization (spec 4.5 rule 2)', () => {
  it('changes the name and retentionDays', async () => {
    const tenant = await newTenant();
    const res = await api(org(tenant), { method: 'PUT', token: tenant.token, body: { name: 'Renamed Inc', retentionDays: 30 } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: tenant.orgId, name: 'Renamed Inc', retentionDays: 30 });
    expect(await json(await api(org(tenant), { token: tenant.token }))).toMatchObject({ name: 'Renamed Inc', retentionDays: 30 });
  });

  it('leaves fields left out unchanged', async () => {
    const tenant = await newTenant();
    await api(org(tenant), { method: 'PUT', token: tenant.token, body: { name: 'First' } });
    const res = await api(org(tenant), { method: 'PUT', token: tenant.token, body: { retentionDays: 7 } });
    expect(await json(res)).toMatchObject({ name: 'First', retentionDays: 7 });
    const again = await api(org(tenant), { method: 'PUT', token: tenant.token, body: {} });
    expect(await json(again)).toMatchObject({ name: 'First', retentionDays: 7 });
  });

  it('trims the name and accepts 255 characters and the bounds 1 and 365', async () => {
    const tenant = await newTenant();
    expect(await json(await api(org(tenant), { method: 'PUT', token: tenant.token, body: { name: '  Spaced  ' } }))).toMatchObject({ name: 'Spaced' });
    expect((await api(org(tenant), { method: 'PUT', token: tenant.token, body: { name: 'x'.repeat(255) } })).status).toBe(200);
    expect((await api(org(tenant), { method: 'PUT', token: tenant.token, body: { retentionDays: 1 } })).status).toBe(200);
    expect((await api(org(tenant), { method: 'PUT', token: tenant.token, body: { retentionDays: 365 } })).status).toBe(200);
  });

  it('answers 400 invalid_request for a name longer than 255 characters, blank or not a string', async () => {
    const tenant = await newTenant();
    for (const name of ['x'.repeat(256), '', '   ', 42, null]) {
      await expectError(await api(org(tenant), { method: 'PUT', token: tenant.token, body: { name } }), 400, 'invalid_request');
    }
  });

  it('answers 400 invalid_request for retentionDays outside 1 to 365 or not an integer', async () => {
    const tenant = await newTenant();
    for (const retentionDays of [0, 366, -1, 1.5, '30', null]) {
      await expectError(await api(org(tenant), { method: 'PUT', token: tenant.token, body: { retentionDays } }), 400, 'invalid_request');
    }
    expect(await json(await api(org(tenant), { token: tenant.token }))).toMatchObject({ retentionDays: 90 });
  });

  it('answers 400 invalid_request for a body that is not JSON', async () => {
    const tenant = await newTenant();
    await expectError(await api(org(tenant), { method: 'PUT', token: tenant.token, body: '{not json' }), 400, 'invalid_request');
  });

  it('records organization.updated with what changed', async () => {
    const tenant = await newTenant();
    await api(org(tenant), { method: 'PUT', token: tenant.token, body: { retentionDays: 45 } });
    const entry = await lastActivity(tenant.orgId, 'organization.updated');
    expect(entry).toMatchObject({ actor_id: tenant.user.id, actor_kind: 'session', project_id: null, data: { retentionDays: { from: 90, to: 45 } } });
    expect(entry!.trace_id).toBeTruthy();
  });
});

describe('delete the organization (spec 4.5 rule 3)', () => {
  it('answers 204 and every credential of the organization then fails with token_revoked', async () => {
    const tenant = await newTenant();
    const member = await addPerson(tenant, 'Member');
    const token = await apiToken(tenant, ['org:view']);
    const pass = await uploadPass(tenant);
    const res = await api(org(tenant), { method: 'DELETE', token: tenant.token });
    expect(res.status).toBe(204);
    await expectError(await api(org(tenant), { token: tenant.token }), 401, 'token_revoked');
    await expectError(await api(org(tenant), { token: member.token }), 401, 'token_revoked');
    await expectError(await api(org(tenant), { token }), 401, 'token_revoked');
    await expect(principalOf(pass)).rejects.toMatchObject({ code: 'token_revoked' });
  });

  it('removes every project and every membership at once', async () => {
    const tenant = await newTenant();
    await addPerson(tenant, 'Viewer');
    await api(org(tenant), { method: 'DELETE', token: tenant.token });
    const projects = await env.DB.prepare('SELECT count(*) AS n FROM projects WHERE org_id = ? AND deleted_at IS NULL').bind(tenant.orgId).first<{ n: number }>();
    const members = await env.DB.prepare('SELECT count(*) AS n FROM org_members WHERE org_id = ? AND removed_at IS NULL').bind(tenant.orgId).first<{ n: number }>();
    const orgRow = await env.DB.prepare('SELECT deleted_at FROM organizations WHERE id = ?').bind(tenant.orgId).first<{ deleted_at: string }>();
    expect({ projects: projects!.n, members: members!.n, deleted: !!orgRow!.deleted_at }).toEqual({ projects: 0, members: 0, deleted: true });
  });

  it('records organization.deleted', async () => {
    const tenant = await newTenant();
    await api(org(tenant), { method: 'DELETE', token: tenant.token });
    expect(await lastActivity(tenant.orgId, 'organization.deleted')).toMatchObject({ actor_id: tenant.user.id });
  });

  it('leaves other organizations untouched', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await api(org(a), { method: 'DELETE', token: a.token });
    expect((await api(org(b), { token: b.token })).status).toBe(200);
  });

  it('a person of the deleted organization signs up anew on their next sign-in', async () => {
    const tenant = await newTenant();
    await api(org(tenant), { method: 'DELETE', token: tenant.token });
    const again = await signIn(tenant.user.email);
    expect(again.orgId).not.toBe(tenant.orgId);
  });
});

describe('list members (spec 4.5)', () => {
  it('answers users with id, email and name of every active member', async () => {
    const tenant = await newTenant();
    const viewer = await addPerson(tenant, 'Viewer');
    const res = await api(`${org(tenant)}/user`, { token: tenant.token });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.users).toEqual([
      { id: tenant.user.id, email: tenant.user.email, name: tenant.user.name },
      { id: viewer.user.id, email: viewer.user.email, name: viewer.user.name },
    ]);
  });

  it('leaves out removed members', async () => {
    const tenant = await newTenant();
    const viewer = await addPerson(tenant, 'Viewer');
    await api(`${org(tenant)}/user/${viewer.user.id}`, { method: 'DELETE', token: tenant.token });
    const body = await json(await api(`${org(tenant)}/user`, { token: tenant.token }));
    expect(body.users.map((u: { id: string }) => u.id)).toEqual([tenant.user.id]);
  });
});

describe('remove a member (spec 4.5 rule 4, part 5 rule 7)', () => {
  it('answers 204 and removes the person from every team of the organization, keeping their team ids', async () => {
    const tenant = await newTenant();
    const person = await addPerson(tenant, 'Member');
    const membersTeam = await teamIdByName(tenant.orgId, 'Members');
    await env.DB.prepare('INSERT INTO team_members (team_id, user_id, added_at) VALUES (?, ?, ?)').bind(membersTeam, person.user.id, new Date().toISOString()).run();
    const before = await teamsOf(tenant.orgId, person.user.id);
    expect(before).toHaveLength(2);
    const res = await api(`${org(tenant)}/user/${person.user.id}`, { method: 'DELETE', token: tenant.token });
    expect(res.status).toBe(204);
    expect(await teamsOf(tenant.orgId, person.user.id)).toEqual([]);
    const row = await env.DB.prepare('SELECT removed_at, former_team_ids FROM org_members WHERE org_id = ? AND user_id = ?').bind(tenant.orgId, person.user.id).first<{ removed_at: string; former_team_ids: string }>();
    expect(row!.removed_at).toBeTruthy();
    expect(JSON.parse(row!.former_team_ids).sort()).toEqual(before);
  });

  it('ends their sessions at once: 401 token_revoked on the very next request, and their sign-ins are revoked', async () => {
    const tenant = await newTenant();
    const person = await addPerson(tenant, 'Member');
    expect((await api(org(tenant), { token: person.token })).status).toBe(200);
    await api(`${org(tenant)}/user/${person.user.id}`, { method: 'DELETE', token: tenant.token });
    await expectError(await api(org(tenant), { token: person.token }), 401, 'token_revoked');
    const open = await env.DB.prepare("SELECT count(*) AS n FROM credentials WHERE kind = 'sign_in' AND org_id = ? AND user_id = ? AND revoked_at IS NULL")
      .bind(tenant.orgId, person.user.id).first<{ n: number }>();
    expect(open!.n).toBe(0);
  });

  it('keeps the API tokens and upload passes they created working until canceled', async () => {
    const tenant = await newTenant();
    const person = await addPerson(tenant, 'Admin');
    const { token, pass } = await credentialsOf(tenant, person.user.id);
    await api(`${org(tenant)}/user/${person.user.id}`, { method: 'DELETE', token: tenant.token });
    await expectError(await api(org(tenant), { token: person.token }), 401, 'token_revoked');
    const res = await api(org(tenant), { token });
    expect(res.status).toBe(200);
    expect(await principalOf(pass)).toMatchObject({ kind: 'upload_pass', userId: person.user.id, projectId: tenant.projectId });
  });

  it('leaves the organization\'s other sessions working', async () => {
    const tenant = await newTenant();
    const [a, b] = [await addPerson(tenant, 'Member'), await addPerson(tenant, 'Viewer')];
    await api(`${org(tenant)}/user/${a.user.id}`, { method: 'DELETE', token: tenant.token });
    expect((await api(org(tenant), { token: b.token })).status).toBe(200);
    expect((await api(org(tenant), { token: tenant.token })).status).toBe(200);
  });

  it('lets a person remove themselves while others remain', async () => {
    const tenant = await newTenant();
    const admin = await addPerson(tenant, 'Admin');
    expect((await api(`${org(tenant)}/user/${admin.user.id}`, { method: 'DELETE', token: admin.token })).status).toBe(204);
    await expectError(await api(org(tenant), { token: admin.token }), 401, 'token_revoked');
  });

  it('answers 400 invalid_request when this is the last member', async () => {
    const tenant = await newTenant();
    await expectError(await api(`${org(tenant)}/user/${tenant.user.id}`, { method: 'DELETE', token: tenant.token }), 400, 'invalid_request');
    expect((await api(org(tenant), { token: tenant.token })).status).toBe(200);
  });

  it('never leaves the organization without a member when two removals race', async () => {
    const tenant = await newTenant();
    const other = await addPerson(tenant, 'Admin');
    const results = await Promise.all([
      api(`${org(tenant)}/user/${other.user.id}`, { method: 'DELETE', token: tenant.token }),
      api(`${org(tenant)}/user/${tenant.user.id}`, { method: 'DELETE', token: other.token }),
    ]);
    const remaining = await env.DB.prepare('SELECT count(*) AS n FROM org_members WHERE org_id = ? AND removed_at IS NULL').bind(tenant.orgId).first<{ n: number }>();
    expect(remaining!.n).toBeGreaterThanOrEqual(1);
    expect(results.filter((r) => r.status === 204).length).toBeGreaterThanOrEqual(1);
  });

  it('answers 404 when no such person is a member: unknown, of another organization, or already removed', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await expectError(await api(`${org(a)}/user/${crypto.randomUUID()}`, { method: 'DELETE', token: a.token }), 404, 'not_found');
    await expectError(await api(`${org(a)}/user/${b.user.id}`, { method: 'DELETE', token: a.token }), 404, 'not_found');
    const person = await addPerson(a, 'Viewer');
    expect((await api(`${org(a)}/user/${person.user.id}`, { method: 'DELETE', token: a.token })).status).toBe(204);
    await expectError(await api(`${org(a)}/user/${person.user.id}`, { method: 'DELETE', token: a.token }), 404, 'not_found');
    expect((await api(org(b), { token: b.token })).status).toBe(200);
  });

  it('answers 400 invalid_parameter naming userId when it is not a UUID', async () => {
    const tenant = await newTenant();
    await expectError(await api(`${org(tenant)}/user/nope`, { method: 'DELETE', token: tenant.token }), 400, 'invalid_parameter', { parameter: 'userId' });
  });

  it('records organization.member.removed', async () => {
    const tenant = await newTenant();
    const person = await addPerson(tenant, 'Viewer');
    await api(`${org(tenant)}/user/${person.user.id}`, { method: 'DELETE', token: tenant.token });
    const entry = await lastActivity(tenant.orgId, 'organization.member.removed');
    expect(entry).toMatchObject({ actor_id: tenant.user.id, data: { userId: person.user.id, email: person.user.email } });
  });

  it('records nothing when the removal is refused', async () => {
    const tenant = await newTenant();
    await api(`${org(tenant)}/user/${tenant.user.id}`, { method: 'DELETE', token: tenant.token });
    expect(await lastActivity(tenant.orgId, 'organization.member.removed')).toBeNull();
  });
});

describe('invite (spec 4.5 rule 5)', () => {
  const invite = (tenant: { orgId: string; token: string }, body: unknown) => api(`${org(tenant)}/invite`, { token: tenant.token, body });

  it('a new person joins the organization in the given teams and gets an email link', async () => {
    const tenant = await newTenant();
    const teamId = await teamIdByName(tenant.orgId, 'Members');
    const email = uniqueEmail('invitee');
    const res = await invite(tenant, { email, teamIds: [teamId] });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({ ok: true, message: expect.any(String), userId: expect.any(String), emailSent: true });
    expect(await teamsOf(tenant.orgId, body.userId)).toEqual([teamId]);
    const link = await env.DB.prepare('SELECT count(*) AS n FROM sign_in_links WHERE email = ?').bind(email).first<{ n: number }>();
    expect(link!.n).toBe(1);
    const members = await json(await api(`${org(tenant)}/user`, { token: tenant.token }));
    expect(members.users.map((u: { email: string }) => u.email)).toContain(email);
  });

  it('the invited person\'s sign-in opens the organization and project of the invitation', async () => {
    const tenant = await newTenant();
    const elsewhere = await newTenant('elsewhere');
    const res = await invite(tenant, { email: elsewhere.user.email, teamIds: [await teamIdByName(tenant.orgId, 'Members')] });
    expect((await json(res)).status).toBeUndefined();
    const session = await signIn(elsewhere.user.email);
    expect({ orgId: session.orgId, projectId: session.projectId }).toEqual({ orgId: tenant.orgId, projectId: tenant.projectId });
  });

  it('uses the session\'s project when projectUuid is omitted, and the given active project otherwise', async () => {
    const tenant = await newTenant();
    const created = await json(await api(`${org(tenant)}/project`, { token: tenant.token, body: { name: 'Second' } }));
    const teamId = await teamIdByName(tenant.orgId, 'Members');
    await invite(tenant, { email: uniqueEmail(), teamIds: [teamId] });
    expect((await lastActivity(tenant.orgId, 'organization.member.invited'))!.data.projectId).toBe(tenant.projectId);
    await invite(tenant, { email: uniqueEmail(), teamIds: [teamId], projectUuid: created.uuid });
    expect((await lastActivity(tenant.orgId, 'organization.member.invited'))!.data.projectId).toBe(created.uuid);
  });

  it('adds an existing member to the given teams they are not yet in, answering status already_exists', async () => {
    const tenant = await newTenant();
    const person = await addPerson(tenant, 'Viewer');
    const [own] = await teamsOf(tenant.orgId, person.user.id);
    const extra = await newTeam(tenant.orgId);
    const res = await invite(tenant, { email: person.user.email.toUpperCase(), teamIds: [own, extra] });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ ok: true, status: 'already_exists', userId: person.user.id, message: expect.any(String) });
    expect(await teamsOf(tenant.orgId, person.user.id)).toEqual([own, extra].sort());
    expect((await api(org(tenant), { token: person.token })).status).toBe(200);
  });

  it('brings a former member back into their previous teams that still exist; teamIds is not applied', async () => {
    const tenant = await newTenant();
    const person = await addPerson(tenant, 'Member');
    const [own] = await teamsOf(tenant.orgId, person.user.id);
    const gone = await newTeam(tenant.orgId);
    await env.DB.prepare('INSERT INTO team_members (team_id, user_id, added_at) VALUES (?, ?, ?)').bind(gone, person.user.id, new Date().toISOString()).run();
    await api(`${org(tenant)}/user/${person.user.id}`, { method: 'DELETE', token: tenant.token });
    await env.DB.prepare('DELETE FROM teams WHERE id = ?').bind(gone).run();
    const other = await newTeam(tenant.orgId);
    const res = await invite(tenant, { email: person.user.email, teamIds: [other] });
    expect(res.status).toBe(200);
    expect((await json(res)).status).toBeUndefined();
    expect(await teamsOf(tenant.orgId, person.user.id)).toEqual([own]);
    const row = await env.DB.prepare('SELECT removed_at, former_team_ids FROM org_members WHERE org_id = ? AND user_id = ?').bind(tenant.orgId, person.user.id).first();
    expect(row).toEqual({ removed_at: null, former_team_ids: null });
  });

  it('a restored member signs in again but their old sessions stay ended', async () => {
    const tenant = await newTenant();
    const person = await addPerson(tenant, 'Member');
    await api(`${org(tenant)}/user/${person.user.id}`, { method: 'DELETE', token: tenant.token });
    await invite(tenant, { email: person.user.email, teamIds: [await teamIdByName(tenant.orgId, 'Members')] });
    await expectError(await api(org(tenant), { token: person.token }), 401, 'token_revoked');
    const again = await signIn(person.user.email);
    expect(again.orgId).toBe(tenant.orgId);
    expect((await api(org(tenant), { token: again.jwt })).status).toBe(200);
  });

  it('records organization.member.invited and organization.member.restored', async () => {
    const tenant = await newTenant();
    const teamId = await teamIdByName(tenant.orgId, 'Members');
    const email = uniqueEmail();
    const { userId } = await json(await invite(tenant, { email, teamIds: [teamId] }));
    expect(await lastActivity(tenant.orgId, 'organization.member.invited')).toMatchObject({ actor_id: tenant.user.id, data: { userId, email, teamIds: [teamId] } });
    await invite(tenant, { email, teamIds: [teamId] });
    expect(await lastActivity(tenant.orgId, 'organization.member.invited')).toMatchObject({ data: { userId, status: 'already_exists', addedTeamIds: [] } });
    await api(`${org(tenant)}/user/${userId}`, { method: 'DELETE', token: tenant.token });
    await invite(tenant, { email, teamIds: [teamId] });
    expect(await lastActivity(tenant.orgId, 'organization.member.restored')).toMatchObject({ data: { userId, teamIds: [teamId] } });
  });

  it('answers 400 invalid_request when email is missing or invalid', async () => {
    const tenant = await newTenant();
    const teamIds = [await teamIdByName(tenant.orgId, 'Members')];
    await expectError(await invite(tenant, { teamIds }), 400, 'invalid_request');
    await expectError(await invite(tenant, { email: 'not-an-address', teamIds }), 400, 'invalid_request');
    await expectError(await invite(tenant, { email: 42, teamIds }), 400, 'invalid_request');
  });

  it('answers 400 invalid_request when teamIds is missing, empty or has a malformed id', async () => {
    const tenant = await newTenant();
    const email = uniqueEmail();
    await expectError(await invite(tenant, { email }), 400, 'invalid_request');
    await expectError(await invite(tenant, { email, teamIds: [] }), 400, 'invalid_request');
    await expectError(await invite(tenant, { email, teamIds: ['not-a-uuid'] }), 400, 'invalid_request');
    await expectError(await invite(tenant, { email, teamIds: [await teamIdByName(tenant.orgId, 'Members')], projectUuid: 'nope' }), 400, 'invalid_request');
    const created = await env.DB.prepare('SELECT count(*) AS n FROM users WHERE email = ?').bind(email).first<{ n: number }>();
    expect(created!.n).toBe(0);
  });

  it('answers 404 when a team does not exist in the organization', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    const email = uniqueEmail();
    await expectError(await invite(a, { email, teamIds: [await teamIdByName(b.orgId, 'Members')] }), 404, 'not_found');
    await expectError(await invite(a, { email, teamIds: [await teamIdByName(a.orgId, 'Members'), crypto.randomUUID()] }), 404, 'not_found');
  });

  it('answers 404 when the project does not exist in the organization or is deleted', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    const teamIds = [await teamIdByName(a.orgId, 'Members')];
    await expectError(await invite(a, { email: uniqueEmail(), teamIds, projectUuid: b.projectId }), 404, 'not_found');
    await expectError(await invite(a, { email: uniqueEmail(), teamIds, projectUuid: crypto.randomUUID() }), 404, 'not_found');
    const second = await json(await api(`${org(a)}/project`, { token: a.token, body: { name: 'Doomed' } }));
    await api(`/api/v1/project/${second.uuid}`, { method: 'DELETE', token: a.token });
    await expectError(await invite(a, { email: uniqueEmail(), teamIds, projectUuid: second.uuid }), 404, 'not_found');
  });
});

describe('invite never grants more than the inviter holds', () => {
  const inviter = ['org:invite_user', 'org:view', 'project:view', 'project:portfolio:view'] as const;

  it('refuses with 403 permission_denied a team granting a permission the inviter lacks', async () => {
    const tenant = await newTenant();
    const person = await addPerson(tenant, { permissions: [...inviter] });
    const administrators = await teamIdByName(tenant.orgId, 'Administrators');
    const res = await api(`${org(tenant)}/invite`, { token: person.token, body: { email: uniqueEmail('escalate'), teamIds: [administrators] } });
    await expectError(res, 403, 'permission_denied', { permission: 'project:edit' });
  });

  it('accepts a team whose roles grant only permissions the inviter holds', async () => {
    const tenant = await newTenant();
    const person = await addPerson(tenant, { permissions: [...inviter] });
    const viewers = await json(await api(`${org(tenant)}/team`, { token: tenant.token, body: { name: 'Viewers', allProjects: true, roleIds: ['00000000-0000-4000-8000-000000000003'] } }));
    const res = await api(`${org(tenant)}/invite`, { token: person.token, body: { email: uniqueEmail('viewer'), teamIds: [viewers.id] } });
    expect(res.status).toBe(200);
  });
});

describe('OpenAPI document (spec 4.5)', () => {
  it('documents every operation with its access and error statuses', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const o = '/api/v1/org/{orgId}';
    expect(Object.keys(doc.paths[o])).toEqual(expect.arrayContaining(['get', 'put', 'delete']));
    expect(doc.paths[`${o}/user`].get['x-permissions']).toEqual(['org:view']);
    expect(Object.keys(doc.paths[`${o}/user/{userId}`].delete.responses)).toEqual(expect.arrayContaining(['204', '400', '401', '403', '404']));
    expect(doc.paths[`${o}/invite`].post.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/InviteResult');
    expect(doc.paths[o].put.security).toEqual([{ session: [] }]);
  });
});

type Outcome = number | [number, string];

describe('permission matrix (spec 4.5)', () => {
  const ROLES: MatrixRole[] = ['admin', 'member', 'viewer', 'custom', 'apiToken', 'uploadPass'];
  const sessionOnly = (admin: number): Record<MatrixRole, Outcome> => ({
    admin,
    member: [403, 'permission_denied'],
    viewer: [403, 'permission_denied'],
    custom: [403, 'permission_denied'],
    apiToken: [401, 'session_required'],
    uploadPass: [401, 'unauthorized'],
  });
  const anyView: Record<MatrixRole, Outcome> = { admin: 200, member: 200, viewer: 200, custom: 200, apiToken: 200, uploadPass: [401, 'unauthorized'] };

  async function check(res: Response, outcome: Outcome, permission?: string) {
    if (typeof outcome === 'number') return expect(res.status).toBe(outcome);
    const [status, code] = outcome;
    await expectError(res, status, code, code === 'permission_denied' ? { permission } : {});
  }

  const ops: { name: string; permission?: string; expected: Record<MatrixRole, Outcome>; call: (m: Awaited<ReturnType<typeof roleMatrix>>, token: string) => Promise<Response> }[] = [
    { name: 'GET O', expected: anyView, call: (m, token) => api(org(m.tenant), { token }) },
    { name: 'GET O/user', expected: anyView, call: (m, token) => api(`${org(m.tenant)}/user`, { token }) },
    {
      name: 'PUT O', permission: 'org:manage_org', expected: sessionOnly(200),
      call: (m, token) => api(org(m.tenant), { method: 'PUT', token, body: { retentionDays: 60 } }),
    },
    {
      name: 'POST O/invite', permission: 'org:invite_user', expected: sessionOnly(200),
      call: async (m, token) => api(`${org(m.tenant)}/invite`, { token, body: { email: uniqueEmail(), teamIds: [await teamIdByName(m.tenant.orgId, 'Members')] } }),
    },
    {
      name: 'DELETE O/user/{userId}', permission: 'org:remove_user', expected: sessionOnly(204),
      call: async (m, token) => api(`${org(m.tenant)}/user/${(await addPerson(m.tenant, 'Viewer', 'target')).user.id}`, { method: 'DELETE', token }),
    },
  ];

  for (const op of ops) {
    it(`${op.name}: ${ROLES.map((r) => `${r} ${JSON.stringify(op.expected[r])}`).join(', ')}`, async () => {
      const m = await roleMatrix();
      for (const role of ROLES) await check(await op.call(m, m.tokens[role]), op.expected[role], op.permission);
    });
  }

  it('DELETE O: only a session holding org:manage_org deletes the organization', async () => {
    const m = await roleMatrix();
    const call = (token: string) => api(org(m.tenant), { method: 'DELETE', token });
    const expected = sessionOnly(204);
    for (const role of ROLES.filter((r) => r !== 'admin')) await check(await call(m.tokens[role]), expected[role], 'org:manage_org');
    expect((await api(org(m.tenant), { token: m.tokens.viewer })).status).toBe(200);
    await check(await call(m.tokens.admin), 204);
  });

  it('a custom role holding org:remove_user and org:invite_user may remove and invite, but not manage the organization', async () => {
    const m = await roleMatrix(['org:view', 'org:remove_user', 'org:invite_user']);
    const target = await addPerson(m.tenant, 'Viewer');
    expect((await api(`${org(m.tenant)}/user/${target.user.id}`, { method: 'DELETE', token: m.tokens.custom })).status).toBe(204);
    // A team granting nothing beyond what the inviter holds (here: no role at all).
    const plain = await json(await api(`${org(m.tenant)}/team`, { token: m.tokens.admin, body: { name: 'Plain' } }));
    expect((await api(`${org(m.tenant)}/invite`, { token: m.tokens.custom, body: { email: uniqueEmail(), teamIds: [plain.id] } })).status).toBe(200);
    await expectError(await api(org(m.tenant), { method: 'PUT', token: m.tokens.custom, body: { name: 'x' } }), 403, 'permission_denied', { permission: 'org:manage_org' });
  });

  it('another tenant\'s admin session answers 403 forbidden on every operation of the organization', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    const teamIds = [await teamIdByName(a.orgId, 'Members')];
    const calls = [
      api(org(a), { token: b.token }),
      api(org(a), { method: 'PUT', token: b.token, body: { name: 'Hijacked' } }),
      api(org(a), { method: 'DELETE', token: b.token }),
      api(`${org(a)}/user`, { token: b.token }),
      api(`${org(a)}/user/${a.user.id}`, { method: 'DELETE', token: b.token }),
      api(`${org(a)}/invite`, { token: b.token, body: { email: uniqueEmail(), teamIds } }),
    ];
    for (const res of await Promise.all(calls)) await expectError(res, 403, 'forbidden');
    expect(await json(await api(org(a), { token: a.token }))).toMatchObject({ retentionDays: 90 });
    expect((await json(await api(org(a), { token: a.token }))).name).not.toBe('Hijacked');
  });
});
