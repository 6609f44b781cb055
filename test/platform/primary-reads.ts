// Reads that must come from the primary (docs/decisions.md "Reads near the user"): a change opens its
// D1 session on the primary whatever bookmark the client sends, the checks deciding whether a change is
// allowed read the primary, and the access cache keeps only what the primary answered. A lagging read
// replica is stood in by test/replica.ts (local D1 has none).
import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MEMBER_ROLE_ID } from '../../src/auth/permissions';
import { app } from '../../src/app';
import { api, expectError, json, newTenant, signIn } from '../helpers';
import { addOrgMember, addPerson, addProject, uniqueName } from '../people';
import { replicatedDb, syncReplica } from '../replica';

/** A request to the Worker of a deployment whose D1 sessions may read a lagging replica. */
function replicated(path: string, token: string, init: { method?: string; body?: unknown; bookmark?: string; sessions?: string[] } = {}): Promise<Response> | Response {
  const headers = new Headers({ authorization: `Bearer ${token}` });
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  if (init.bookmark) headers.set('x-d1-bookmark', init.bookmark);
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  return app.request(`http://localhost${path}`, { method: init.method ?? 'GET', headers, body }, { ...env, DB: replicatedDb(init.sessions) }, createExecutionContext());
}

describe('changes read the primary, whatever bookmark is sent', () => {
  it('a change opens its session on the primary; a read honours the bookmark', async () => {
    const tenant = await newTenant('primary-session');
    await syncReplica();
    const read = await replicated(`/api/v1/org/${tenant.orgId}`, tenant.token);
    const bookmark = read.headers.get('x-d1-bookmark')!;
    const sessions: string[] = [];
    expect((await replicated(`/api/v1/org/${tenant.orgId}`, tenant.token, { bookmark, sessions })).status).toBe(200);
    expect((await replicated(`/api/v1/org/${tenant.orgId}`, tenant.token, { method: 'PUT', body: { name: uniqueName('Renamed') }, bookmark, sessions })).status).toBe(200);
    expect(sessions).toEqual([bookmark, 'first-primary']);
  });

  it('the escalation guard sees a permission an administrator just took away, even with a bookmark from before', async () => {
    const tenant = await newTenant('primary-grants');
    const lead = await addPerson(tenant, { permissions: ['org:view', 'org:manage_teams', 'project:view', 'project:admin'] }, 'lead');
    const leadRole = (await env.DB.prepare('SELECT tr.role_id AS id FROM team_roles tr JOIN team_members tm ON tm.team_id = tr.team_id WHERE tm.user_id = ?')
      .bind(lead.user.id).first<{ id: string }>())!.id;
    const grantee = await api(`/api/v1/org/${tenant.orgId}/role`, { token: tenant.token, body: { name: uniqueName('Project admins'), permissions: ['project:view', 'project:admin'] } });
    expect(grantee.status).toBe(201);
    const granteeRole = (await json(grantee)).id as string;
    // The lead's last answer, read from a replica that has what the primary had then, and its bookmark.
    await syncReplica();
    const before = await replicated(`/api/v1/org/${tenant.orgId}/team`, lead.token);
    expect(before.status).toBe(200);
    const bookmark = before.headers.get('x-d1-bookmark')!;
    expect(bookmark).toBeTruthy();

    // An administrator takes project:admin away from the lead (on the primary; the replica lags).
    const demoted = await api(`/api/v1/org/${tenant.orgId}/role/${leadRole}`, { token: tenant.token, method: 'PUT', body: { permissions: ['org:view', 'org:manage_teams', 'project:view'] } });
    expect(demoted.status).toBe(200);

    // The lead tries to grant it back through a new team, sending the old bookmark: the replica
    // would still say they hold it; the primary says they do not.
    const regrant = await replicated(`/api/v1/org/${tenant.orgId}/team`, lead.token, {
      method: 'POST', bookmark, body: { name: uniqueName('Shadow admins'), allProjects: true, roleIds: [granteeRole] },
    });
    await expectError(regrant, 403, 'permission_denied', { permission: 'project:admin' });

    // What they still hold they may grant; the answer still carries a bookmark.
    const viewers = await api(`/api/v1/org/${tenant.orgId}/role`, { token: tenant.token, body: { name: uniqueName('Viewers only'), permissions: ['project:view'] } });
    const allowed = await replicated(`/api/v1/org/${tenant.orgId}/team`, lead.token, {
      method: 'POST', bookmark, body: { name: uniqueName('Readers'), allProjects: true, roleIds: [(await json(viewers)).id] },
    });
    expect(allowed.status).toBe(201);
    expect(allowed.headers.get('x-d1-bookmark')).toBeTruthy();
  });
});

describe('the access cache keeps only what the primary answered', () => {
  it('a person taken off a team stops seeing its project at once, though a replica still lists it', async () => {
    const tenant = await newTenant('primary-cache');
    const projectId = await addProject(tenant, uniqueName('Team project'));
    const person = await addOrgMember(tenant, 'reader');
    const team = await api(`/api/v1/org/${tenant.orgId}/team`, { token: tenant.token, body: { name: uniqueName('Project team'), projectIds: [projectId], roleIds: [MEMBER_ROLE_ID] } });
    expect(team.status).toBe(201);
    const teamId = (await json(team)).id as string;
    expect((await api(`/api/v1/org/${tenant.orgId}/team/${teamId}/user`, { token: tenant.token, body: { userId: person.id } })).status).toBe(201);
    const session = await signIn(person.email);
    await syncReplica();
    const listed = async () => ((await json(await replicated('/api/v1/user/project', session.jwt))).projects as { uuid: string }[]).map((p) => p.uuid);
    expect(await listed()).toContain(projectId);

    // Taken off the team on the primary: the organization's access epoch moves on.
    expect((await api(`/api/v1/org/${tenant.orgId}/team/${teamId}/user/${person.id}`, { token: tenant.token, method: 'DELETE' })).status).toBe(204);
    // The replica still has them on the team; the list is read (and cached) from the primary.
    expect(await listed()).not.toContain(projectId);
    // Later reads in the same minute are served from the cache: what it holds is the primary's.
    await syncReplica();
    expect(await listed()).not.toContain(projectId);
  });
});
