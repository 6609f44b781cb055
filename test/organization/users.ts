// Users (spec 4.13): the signed-in person's profile and preferences. Session only.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { isTimeZone } from '../../src/control/users';
import { api, expectError, json, newTenant, signIn } from '../helpers';
import { addPerson, roleMatrix, type MatrixRole, lastActivity } from '../people';

const PROFILE = '/api/v1/user';
const PREFS = '/api/v1/user/preference';

const patch = (token: string, body: unknown) => api(PREFS, { method: 'PATCH', token, body });
const put = (token: string, body: unknown) => api(PROFILE, { method: 'PUT', token, body });

async function newProject(tenant: { orgId: string; token: string }, name = `P ${crypto.randomUUID().slice(0, 8)}`) {
  return json<{ uuid: string; jwt: string }>(await api(`/api/v1/org/${tenant.orgId}/project`, { token: tenant.token, body: { name } }));
}

describe('profile (spec 4.13 rule 1)', () => {
  it('answers id, email and name', async () => {
    const tenant = await newTenant();
    const res = await api(PROFILE, { token: tenant.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ id: tenant.user.id, email: tenant.user.email, name: tenant.user.name });
  });

  it('changes the name, trimmed', async () => {
    const tenant = await newTenant();
    const res = await put(tenant.token, { name: '  Alice Martin ' });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ id: tenant.user.id, email: tenant.user.email, name: 'Alice Martin' });
    expect((await json(await api(PROFILE, { token: tenant.token }))).name).toBe('Alice Martin');
  });

  it('accepts 255 characters', async () => {
    const tenant = await newTenant();
    expect((await put(tenant.token, { name: 'n'.repeat(255) })).status).toBe(200);
  });

  it('answers 400 invalid_request when name is missing, blank, not a string or longer than 255 characters', async () => {
    const tenant = await newTenant();
    for (const body of [{}, { name: '' }, { name: '  ' }, { name: null }, { name: 5 }, { name: 'n'.repeat(256) }]) {
      await expectError(await put(tenant.token, body), 400, 'invalid_request');
    }
    expect((await json(await api(PROFILE, { token: tenant.token }))).name).toBe(tenant.user.name);
  });

  it('the email cannot be changed: another email answers 400 invalid_request, the current one is accepted', async () => {
    const tenant = await newTenant();
    await expectError(await put(tenant.token, { name: 'X', email: 'other@example.test' }), 400, 'invalid_request');
    expect((await json(await api(PROFILE, { token: tenant.token }))).email).toBe(tenant.user.email);
    const same = await put(tenant.token, { name: 'Same', email: tenant.user.email.toUpperCase() });
    expect(await json(same)).toMatchObject({ name: 'Same', email: tenant.user.email });
  });

  it('records user.updated in the session\'s organization', async () => {
    const tenant = await newTenant();
    await put(tenant.token, { name: 'Renamed' });
    expect(await lastActivity(tenant.orgId, 'user.updated')).toMatchObject({ actor_id: tenant.user.id, project_id: null, data: { name: { from: tenant.user.name, to: 'Renamed' } } });
  });
});

describe('preferences (spec 4.13 rule 2)', () => {
  it('leaves out preferences never set', async () => {
    const tenant = await newTenant();
    const res = await api(PREFS, { token: tenant.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({});
  });

  it('sets timezone and last_context, answering the preferences after the change', async () => {
    const tenant = await newTenant();
    const res = await patch(tenant.token, { timezone: 'Europe/Paris', last_context: { orgId: tenant.orgId, projectId: tenant.projectId } });
    expect(res.status).toBe(200);
    const expected = { timezone: 'Europe/Paris', last_context: { orgId: tenant.orgId, projectId: tenant.projectId } };
    expect(await json(res)).toEqual(expected);
    expect(await json(await api(PREFS, { token: tenant.token }))).toEqual(expected);
  });

  it('leaves a field left out unchanged', async () => {
    const tenant = await newTenant();
    await patch(tenant.token, { timezone: 'Asia/Tokyo' });
    const res = await patch(tenant.token, { last_context: { orgId: tenant.orgId, projectId: tenant.projectId } });
    expect(await json(res)).toMatchObject({ timezone: 'Asia/Tokyo' });
    expect(await json(await patch(tenant.token, {}))).toMatchObject({ timezone: 'Asia/Tokyo', last_context: { projectId: tenant.projectId } });
  });

  it('clears a field sent as null', async () => {
    const tenant = await newTenant();
    await patch(tenant.token, { timezone: 'UTC', last_context: { orgId: tenant.orgId, projectId: tenant.projectId } });
    expect(await json(await patch(tenant.token, { timezone: null }))).toEqual({ last_context: { orgId: tenant.orgId, projectId: tenant.projectId } });
    expect(await json(await patch(tenant.token, { last_context: null }))).toEqual({});
  });

  it('accepts UTC and IANA zone names, including links the runtime lists under their older name', async () => {
    const tenant = await newTenant();
    for (const timezone of ['UTC', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Europe/Kyiv']) {
      expect(await json(await patch(tenant.token, { timezone }))).toMatchObject({ timezone });
    }
  });

  it('answers 400 invalid_request for a timezone that is not an IANA zone name', async () => {
    const tenant = await newTenant();
    for (const timezone of ['Mars/Olympus', 'europe/paris', 'utc', '+02:00', '', 'x'.repeat(100), 42]) {
      await expectError(await patch(tenant.token, { timezone }), 400, 'invalid_request');
    }
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Not/AZone')).toBe(false);
  });

  it('accepts another active project of the organization the caller reaches', async () => {
    const tenant = await newTenant();
    const other = await newProject(tenant);
    expect(await json(await patch(tenant.token, { last_context: { orgId: tenant.orgId, projectId: other.uuid } }))).toMatchObject({ last_context: { projectId: other.uuid } });
  });

  it('answers 400 invalid_request when last_context names another organization', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await expectError(await patch(a.token, { last_context: { orgId: b.orgId, projectId: b.projectId } }), 400, 'invalid_request');
    await expectError(await patch(a.token, { last_context: { orgId: b.orgId, projectId: a.projectId } }), 400, 'invalid_request');
  });

  it('answers 400 invalid_request when last_context names a project not in the organization, deleted or unreached', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await expectError(await patch(a.token, { last_context: { orgId: a.orgId, projectId: b.projectId } }), 400, 'invalid_request');
    await expectError(await patch(a.token, { last_context: { orgId: a.orgId, projectId: crypto.randomUUID() } }), 400, 'invalid_request');
    const doomed = await newProject(a);
    await api(`/api/v1/project/${doomed.uuid}`, { method: 'DELETE', token: a.token });
    await expectError(await patch(a.token, { last_context: { orgId: a.orgId, projectId: doomed.uuid } }), 400, 'invalid_request');

    const unreached = await newProject(a);
    const viewer = await addPerson(a, 'Viewer');
    await env.DB.batch([
      env.DB.prepare('UPDATE teams SET all_projects = 0 WHERE id IN (SELECT team_id FROM team_members WHERE user_id = ?)').bind(viewer.user.id),
      env.DB.prepare('INSERT INTO team_projects (team_id, project_id) SELECT team_id, ? FROM team_members WHERE user_id = ?').bind(a.projectId, viewer.user.id),
    ]);
    await expectError(await patch(viewer.token, { last_context: { orgId: a.orgId, projectId: unreached.uuid } }), 400, 'invalid_request');
    expect((await patch(viewer.token, { last_context: { orgId: a.orgId, projectId: a.projectId } })).status).toBe(200);
  });

  it('answers 400 invalid_request for a malformed last_context', async () => {
    const tenant = await newTenant();
    for (const last_context of [{ orgId: tenant.orgId }, { orgId: 'x', projectId: tenant.projectId }, 'context', 3]) {
      await expectError(await patch(tenant.token, { last_context }), 400, 'invalid_request');
    }
  });

  it('the next sign-in opens the last context', async () => {
    const tenant = await newTenant();
    const other = await newProject(tenant);
    await patch(tenant.token, { last_context: { orgId: tenant.orgId, projectId: other.uuid } });
    expect((await signIn(tenant.user.email)).projectId).toBe(other.uuid);
  });

  it('records user.preferences.updated in the session\'s organization', async () => {
    const tenant = await newTenant();
    await patch(tenant.token, { timezone: 'Europe/Berlin' });
    expect(await lastActivity(tenant.orgId, 'user.preferences.updated')).toMatchObject({ actor_id: tenant.user.id, project_id: null, data: { fields: ['timezone'] } });
  });
});

describe('OpenAPI document (spec 4.13)', () => {
  it('documents the four operations as session only', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    for (const [path, method] of [[PROFILE, 'get'], [PROFILE, 'put'], [PREFS, 'get'], [PREFS, 'patch']] as const) {
      expect(doc.paths[path][method].security).toEqual([{ session: [] }]);
    }
    expect(doc.paths[PREFS].patch.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/UserPreferencesPatch');
  });
});

describe('session only (spec 4.13)', () => {
  const ROLES: MatrixRole[] = ['admin', 'member', 'viewer', 'custom', 'apiToken', 'uploadPass'];
  const ops: [string, (token: string, m: Awaited<ReturnType<typeof roleMatrix>>) => Promise<Response>][] = [
    ['GET /user', (token) => api(PROFILE, { token })],
    ['PUT /user', (token) => put(token, { name: 'Matrix' })],
    ['GET /user/preference', (token) => api(PREFS, { token })],
    ['PATCH /user/preference', (token) => patch(token, { timezone: 'UTC' })],
  ];

  for (const [name, call] of ops) {
    it(`${name}: every session 200, API token 401 session_required, upload pass 401 unauthorized`, async () => {
      const m = await roleMatrix();
      for (const role of ROLES) {
        const res = await call(m.tokens[role], m);
        if (role === 'apiToken') await expectError(res, 401, 'session_required');
        else if (role === 'uploadPass') await expectError(res, 401, 'unauthorized');
        else expect(res.status).toBe(200);
      }
    });
  }

  it('answers 401 unauthorized without a credential', async () => {
    await expectError(await api(PROFILE), 401, 'unauthorized');
    await expectError(await patch('', {}), 401, 'unauthorized');
  });

  it('each person sees and changes only their own profile', async () => {
    const [a, b] = [await newTenant('a'), await newTenant('b')];
    await put(a.token, { name: 'Only A' });
    expect((await json(await api(PROFILE, { token: b.token }))).name).toBe(b.user.name);
  });
});
