import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { loadPrincipal } from '../../src/auth/principal';
import { signingKeys, verifyToken } from '../../src/auth/tokens';
import { api, expectError, json, newTenant, signIn } from '../helpers';
import { addPerson, apiToken, roleMatrix, uploadPass, type MatrixRole, addProject } from '../people';

const P = (projectId: string) => `/api/v1/project/${projectId}`;
const credentialPath = (projectId: string, jti = '') => `${P(projectId)}/credential${jti ? `/${jti}` : ''}`;
const activityPath = (orgId: string, query = '') => `/api/v1/org/${orgId}/activity${query}`;
const DAY = 86_400_000;

/** A session or tenant: its token and the project it is on. */
type Caller = { token: string; projectId: string | null };

function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(atob(jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
}

async function list(tenant: Caller): Promise<any[]> {
  const res = await api(credentialPath(tenant.projectId!), { token: tenant.token });
  expect(res.status).toBe(200);
  return json(res);
}

async function createToken(tenant: Caller, body: unknown) {
  return api(`${credentialPath(tenant.projectId!)}/api-token`, { token: tenant.token, body });
}

async function createPass(tenant: Caller, body?: unknown) {
  return api(`${credentialPath(tenant.projectId!)}/spice-pass`, { method: 'POST', token: tenant.token, body });
}

async function revoke(tenant: Caller, jti: string) {
  return api(credentialPath(tenant.projectId!, jti), { method: 'DELETE', token: tenant.token });
}

/** A session on another project under the same sign-in. */
async function switchTo(token: string, projectId: string): Promise<string> {
  const res = await api(`${P(projectId)}/session`, { method: 'POST', token });
  expect(res.status).toBe(200);
  return (await json(res)).jwt;
}

/** Any request that a valid session or token passes: reading the activity log of its organization. */
const probe = (orgId: string, token: string) => api(activityPath(orgId, '?limit=1'), { token });

describe('GET P/credential: the project\'s credentials (spec 4.11)', () => {
  it('lists API tokens, upload passes and sign-ins with a session on the project, newest first, with exactly the record fields', async () => {
    const tenant = await newTenant();
    const token = await json(await createToken(tenant, { permissions: ['project:view'], name: 'CI' }));
    const pass = await json(await createPass(tenant, { name: 'builder' }));
    const listed = await list(tenant);
    expect(listed.map((c) => c.kind)).toEqual(['upload_pass', 'api_token', 'sign_in']);
    expect(listed.map((c) => c.jti)).toEqual([pass.jti, token.jti, claims(tenant.token).sid]);
    for (const record of listed) {
      expect(Object.keys(record).sort()).toEqual(['createdAt', 'createdBy', 'expiresAt', 'jti', 'kind', 'lastUsedAt', 'name', 'parentJti', 'permissions', 'revokedAt', 'scopes']);
      expect(record.createdBy).toEqual({ id: tenant.user.id, email: tenant.user.email });
      expect(record.revokedAt).toBeNull();
    }
    expect(listed[0]).toMatchObject({ name: 'builder', permissions: null });
    expect(listed[1]).toMatchObject({ name: 'CI', permissions: ['project:view'] });
    expect(listed[2]).toMatchObject({ name: 'Dashboard sign-in', permissions: null });
  });

  it('never returns a secret', async () => {
    const tenant = await newTenant();
    const token = await json(await createToken(tenant, { permissions: ['project:view'] }));
    const pass = await json(await createPass(tenant));
    const text = await (await api(credentialPath(tenant.projectId), { token: tenant.token })).text();
    expect(text).not.toContain(token.bearer_token);
    expect(text).not.toContain(pass.jwt);
    expect(text).not.toContain(claims(pass.jwt).chl as string);
    expect(text).not.toMatch(/bearer_token|jwt|challenge/i);
  });

  it('leaves out sessions and the credentials of other projects', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    const elsewhere = { token: await switchTo(tenant.token, other), projectId: other };
    const otherToken = await json(await createToken(elsewhere, { permissions: ['project:view'] }));
    const otherPass = await json(await createPass(elsewhere));
    const listed = await list(tenant);
    const ids = listed.map((c) => c.jti);
    expect(ids).not.toContain(claims(tenant.token).jti);
    expect(ids).not.toContain(claims(elsewhere.token).jti);
    expect(ids).not.toContain(otherToken.jti);
    expect(ids).not.toContain(otherPass.jti);
    expect(listed.map((c) => c.kind)).toEqual(['sign_in']);
  });

  it('lists a sign-in on every project it has a session on', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    const second = await switchTo(tenant.token, other);
    const signIn = claims(tenant.token).sid;
    expect((await list(tenant)).map((c) => c.jti)).toContain(signIn);
    expect((await list({ token: second, projectId: other })).map((c) => c.jti)).toContain(signIn);
  });

  it('does not list a sign-in that has no session on the project', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    const colleague = await addPerson(tenant, 'Member');
    // A second sign-in of the colleague, opened straight onto the other project.
    await env.DB.prepare('UPDATE users SET last_context = ? WHERE id = ?').bind(JSON.stringify({ orgId: tenant.orgId, projectId: other }), colleague.user.id).run();
    const second = await signIn(colleague.user.email);
    expect(second.projectId).toBe(other);
    const ids = (await list(tenant)).map((c) => c.jti);
    expect(ids).toContain(claims(colleague.token).sid);
    expect(ids).not.toContain(claims(second.jwt).sid);
  });

  it('shows a sign-in\'s lastUsedAt as the latest use of any of its sessions', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    const second = await switchTo(tenant.token, other);
    const signIn = claims(tenant.token).sid as string;
    await vi.waitFor(async () => {
      expect((await probe(tenant.orgId, second)).status).toBe(200);
      const latest = await env.DB.prepare('SELECT MAX(last_used_at) AS at FROM credentials WHERE parent_jti = ?').bind(signIn).first<{ at: string | null }>();
      expect(latest?.at).toBeTruthy();
      expect((await list(tenant)).find((c) => c.jti === signIn)?.lastUsedAt).toBe(
        (await env.DB.prepare('SELECT MAX(last_used_at) AS at FROM credentials WHERE parent_jti = ?').bind(signIn).first<{ at: string }>())!.at,
      );
    });
  });

  it('sets a token\'s lastUsedAt after it is used', async () => {
    const tenant = await newTenant();
    const created = await json(await createToken(tenant, { permissions: ['org:view_activity_log'] }));
    expect(created.lastUsedAt).toBeNull();
    expect((await probe(tenant.orgId, created.bearer_token)).status).toBe(200);
    await vi.waitFor(async () => {
      expect((await list(tenant)).find((c) => c.jti === created.jti)?.lastUsedAt).toEqual(expect.any(String));
    });
  });

  it('keeps expired credentials listed; they answer 401 token_expired', async () => {
    const tenant = await newTenant();
    const created = await json(await createToken(tenant, { permissions: ['org:view_activity_log'] }));
    const past = new Date(Date.now() - DAY).toISOString();
    await env.DB.prepare('UPDATE credentials SET expires_at = ? WHERE jti = ?').bind(past, created.jti).run();
    await expectError(await probe(tenant.orgId, created.bearer_token), 401, 'token_expired');
    expect((await list(tenant)).find((c) => c.jti === created.jti)).toMatchObject({ expiresAt: past, revokedAt: null });
  });
});

describe('DELETE P/credential/{jti}: cancel (spec 4.11 rule 1)', () => {
  it('answers 204; the credential is refused with 401 token_revoked on its very next request and stays listed as canceled', async () => {
    const tenant = await newTenant();
    const created = await json(await createToken(tenant, { permissions: ['org:view_activity_log'] }));
    expect((await probe(tenant.orgId, created.bearer_token)).status).toBe(200);
    const res = await revoke(tenant, created.jti);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await expectError(await probe(tenant.orgId, created.bearer_token), 401, 'token_revoked');
    expect((await list(tenant)).find((c) => c.jti === created.jti)?.revokedAt).toEqual(expect.any(String));
  });

  it('cancels an upload pass', async () => {
    const tenant = await newTenant();
    const pass = await json(await createPass(tenant));
    expect((await revoke(tenant, pass.jti)).status).toBe(204);
    // Pass-only operations live in other families: check the lookup every one of them runs.
    await expect(loadPrincipal(env.DB, await verifyToken(await signingKeys(env), pass.jwt))).rejects.toMatchObject({ code: 'token_revoked' });
  });

  it('canceling a sign-in ends every session under it, on every project', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    const second = await switchTo(tenant.token, other);
    const colleague = await addPerson(tenant, 'Admin');
    expect((await revoke(colleague, claims(tenant.token).sid as string)).status).toBe(204);
    await expectError(await probe(tenant.orgId, tenant.token), 401, 'token_revoked');
    await expectError(await probe(tenant.orgId, second), 401, 'token_revoked');
    expect((await probe(tenant.orgId, colleague.token)).status).toBe(200);
  });

  it('records credential.revoked in the activity log', async () => {
    const tenant = await newTenant();
    const created = await json(await createToken(tenant, { permissions: ['project:view'], name: 'old' }));
    const res = await revoke(tenant, created.jti);
    const page = await json(await api(activityPath(tenant.orgId, '?action=credential.revoked'), { token: tenant.token }));
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({
      action: 'credential.revoked',
      projectId: tenant.projectId,
      actor: { id: tenant.user.id, kind: 'session' },
      data: { jti: created.jti, kind: 'api_token', name: 'old' },
      traceId: res.headers.get('x-request-id'),
    });
  });

  it('canceling an already canceled credential answers 204 and changes nothing', async () => {
    const tenant = await newTenant();
    const created = await json(await createToken(tenant, { permissions: ['project:view'] }));
    expect((await revoke(tenant, created.jti)).status).toBe(204);
    const first = (await list(tenant)).find((c) => c.jti === created.jti)!.revokedAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await revoke(tenant, created.jti)).status).toBe(204);
    expect((await list(tenant)).find((c) => c.jti === created.jti)!.revokedAt).toBe(first);
    const page = await json(await api(activityPath(tenant.orgId, '?action=credential.revoked'), { token: tenant.token }));
    expect(page.pagination.total).toBe(1);
  });

  it('answers 404 for an API token or pass of another project of the organization', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    const elsewhere = { token: await switchTo(tenant.token, other), projectId: other };
    const token = await json(await createToken(elsewhere, { permissions: ['project:view'] }));
    const pass = await json(await createPass(elsewhere));
    await expectError(await revoke(tenant, token.jti), 404, 'not_found');
    await expectError(await revoke(tenant, pass.jti), 404, 'not_found');
    expect((await list(elsewhere)).find((c) => c.jti === token.jti)?.revokedAt).toBeNull();
  });

  it('answers 404 for a sign-in with no session on the project', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    const colleague = await addPerson(tenant, 'Member');
    await env.DB.prepare('UPDATE users SET last_context = ? WHERE id = ?').bind(JSON.stringify({ orgId: tenant.orgId, projectId: other }), colleague.user.id).run();
    const elsewhere = await signIn(colleague.user.email);
    await expectError(await revoke(tenant, claims(elsewhere.jwt).sid as string), 404, 'not_found');
    expect((await api(credentialPath(other), { token: elsewhere.jwt })).status).toBe(200);
  });

  it('answers 404 for a session id: sessions end by canceling their sign-in', async () => {
    const tenant = await newTenant();
    const colleague = await addPerson(tenant, 'Member');
    await expectError(await revoke(tenant, claims(colleague.token).jti as string), 404, 'not_found');
  });

  it('answers 404 for an id no credential has', async () => {
    const tenant = await newTenant();
    await expectError(await revoke(tenant, crypto.randomUUID()), 404, 'not_found');
  });

  it('answers 400 invalid_parameter jti for a malformed id', async () => {
    const tenant = await newTenant();
    await expectError(await revoke(tenant, 'not-a-uuid'), 400, 'invalid_parameter', { parameter: 'jti' });
  });
});

describe('POST P/credential/api-token (spec 4.11 rule 2)', () => {
  it('answers 201 with the record and bearer_token, created by the caller, lasting 14 days by default', async () => {
    const tenant = await newTenant();
    const res = await createToken(tenant, { permissions: ['project:view', 'org:view_activity_log', 'project:view'], name: 'CI' });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({
      kind: 'api_token', name: 'CI', permissions: ['project:view', 'org:view_activity_log'], revokedAt: null, lastUsedAt: null,
      createdBy: { id: tenant.user.id, email: tenant.user.email }, bearer_token: expect.any(String),
    });
    expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(14 * DAY);
    expect(claims(body.bearer_token)).toMatchObject({ kind: 'api_token', jti: body.jti, org: tenant.orgId, prj: tenant.projectId, sub: tenant.user.id });
    expect((await list(tenant))[0]).toEqual(Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'bearer_token')));
  });

  it('takes duration_days from 1 to 365', async () => {
    const tenant = await newTenant();
    for (const days of [1, 365]) {
      const body = await json(await createToken(tenant, { permissions: ['project:view'], duration_days: days }));
      expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(days * DAY);
    }
  });

  it('holds exactly its permissions: with org:view_activity_log it reads the log, without it 403 permission_denied', async () => {
    const tenant = await newTenant();
    const reader = await json(await createToken(tenant, { permissions: ['org:view_activity_log'] }));
    const other = await json(await createToken(tenant, { permissions: ['project:view', 'org:view'] }));
    expect((await probe(tenant.orgId, reader.bearer_token)).status).toBe(200);
    await expectError(await probe(tenant.orgId, other.bearer_token), 403, 'permission_denied', { permission: 'org:view_activity_log' });
  });

  it('acts only in its project and organization', async () => {
    const tenant = await newTenant();
    const stranger = await newTenant();
    const reader = await json(await createToken(tenant, { permissions: ['org:view_activity_log'] }));
    await expectError(await probe(stranger.orgId, reader.bearer_token), 403, 'forbidden');
  });

  it('records credential.created in the activity log', async () => {
    const tenant = await newTenant();
    const res = await createToken(tenant, { permissions: ['project:view'] });
    const created = await json(res);
    const page = await json(await api(activityPath(tenant.orgId, '?action=credential.created'), { token: tenant.token }));
    expect(page.entries[0]).toMatchObject({ projectId: tenant.projectId, actor: { id: tenant.user.id }, data: { jti: created.jti, kind: 'api_token' }, traceId: res.headers.get('x-request-id') });
  });

  it('answers 400 invalid_request naming an unknown permission', async () => {
    const tenant = await newTenant();
    const body = await expectError(await createToken(tenant, { permissions: ['project:view', 'project:fly'] }), 400, 'invalid_request');
    expect(body.error).toContain('project:fly');
  });

  it('answers 400 invalid_request naming a permission the creator does not hold', async () => {
    const tenant = await newTenant();
    const member = await addPerson(tenant, 'Member');
    const body = await expectError(await createToken(member, { permissions: ['project:view', 'org:view_activity_log'] }), 400, 'invalid_request');
    expect(body.error).toContain('org:view_activity_log');
    const project = await expectError(await createToken(member, { permissions: ['project:admin'] }), 400, 'invalid_request');
    expect(project.error).toContain('project:admin');
    const held = await createToken(member, { permissions: ['project:edit', 'org:create_project'] });
    expect(held.status).toBe(201);
    expect((await json(held)).createdBy).toEqual({ id: member.user.id, email: member.user.email });
  });

  it('answers 400 invalid_request for an invalid body', async () => {
    const tenant = await newTenant();
    const invalid = [
      {},
      { permissions: [] },
      { permissions: 'project:view' },
      { permissions: [1] },
      { permissions: ['project:view'], duration_days: 0 },
      { permissions: ['project:view'], duration_days: 366 },
      { permissions: ['project:view'], duration_days: 1.5 },
      { permissions: ['project:view'], duration_days: '14' },
      { permissions: ['project:view'], name: 'x'.repeat(256) },
    ];
    for (const body of invalid) await expectError(await createToken(tenant, body), 400, 'invalid_request');
    await expectError(await createToken(tenant, '{"permissions": ['), 400, 'invalid_request');
    await expectError(await api(`${credentialPath(tenant.projectId)}/api-token`, { method: 'POST', token: tenant.token }), 400, 'invalid_request');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const tenant = await newTenant();
    const res = await api(`${credentialPath(tenant.projectId)}/api-token`, { token: tenant.token, body: 'permissions=project:view', headers: { 'content-type': 'text/plain' } });
    await expectError(res, 415, 'unsupported_media_type');
  });
});

describe('POST P/credential/spice-pass (spec 4.11 rule 3)', () => {
  it('answers 201 with the record and jwt without a body, lasting 14 days, reaching only this project, with a challenge', async () => {
    const tenant = await newTenant();
    const res = await createPass(tenant);
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({ kind: 'upload_pass', name: null, permissions: null, revokedAt: null, createdBy: { id: tenant.user.id, email: tenant.user.email }, jwt: expect.any(String) });
    expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(14 * DAY);
    const passClaims = claims(body.jwt);
    expect(passClaims).toMatchObject({ kind: 'upload_pass', jti: body.jti, prj: tenant.projectId, org: tenant.orgId });
    expect(passClaims.chl).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('is listed and cancelable with the project\'s credentials', async () => {
    const tenant = await newTenant();
    const pass = await json(await createPass(tenant, { name: 'ci' }));
    expect((await list(tenant)).find((c) => c.jti === pass.jti)).toMatchObject({ kind: 'upload_pass', name: 'ci' });
    expect((await revoke(tenant, pass.jti)).status).toBe(204);
  });

  it('takes duration_days from 1 to 367', async () => {
    const tenant = await newTenant();
    for (const days of [1, 367]) {
      const body = await json(await createPass(tenant, { duration_days: days }));
      expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(days * DAY);
    }
  });

  it('answers 400 invalid_request when duration_days is below 1, above 367 or not an integer', async () => {
    const tenant = await newTenant();
    for (const duration_days of [0, 368, 2.5, 'x']) await expectError(await createPass(tenant, { duration_days }), 400, 'invalid_request');
    await expectError(await createPass(tenant, { name: 'n'.repeat(256) }), 400, 'invalid_request');
  });

  it('records credential.created in the activity log', async () => {
    const tenant = await newTenant();
    const pass = await json(await createPass(tenant));
    const page = await json(await api(activityPath(tenant.orgId, '?action=credential.created'), { token: tenant.token }));
    expect(page.entries[0]).toMatchObject({ projectId: tenant.projectId, data: { jti: pass.jti, kind: 'upload_pass' } });
  });
});

describe('who may call the credential operations (spec 4.11 rule 4, part 5)', () => {
  const operations = (projectId: string, target: () => Promise<string>) => [
    { name: 'list', call: async (token: string) => api(credentialPath(projectId), { token }) },
    { name: 'cancel', call: async (token: string) => api(credentialPath(projectId, await target()), { method: 'DELETE', token }) },
    { name: 'api-token', call: async (token: string) => api(`${credentialPath(projectId)}/api-token`, { token, body: { permissions: ['project:view'] } }) },
    { name: 'spice-pass', call: async (token: string) => api(`${credentialPath(projectId)}/spice-pass`, { method: 'POST', token }) },
  ];
  const expected: Record<MatrixRole, [number, string | null]> = {
    admin: [200, null],
    member: [200, null],
    viewer: [403, 'permission_denied'],
    custom: [403, 'permission_denied'],
    apiToken: [401, 'session_required'],
    uploadPass: [401, 'unauthorized'],
  };

  it('admin and member (project:edit) succeed; viewer and custom get 403 permission_denied; API token 401 session_required; pass 401 unauthorized', async () => {
    const { tenant, tokens } = await roleMatrix();
    const target = async () => claims(await uploadPass(tenant)).jti as string;
    for (const operation of operations(tenant.projectId, target)) {
      for (const [role, [status, code]] of Object.entries(expected) as [MatrixRole, [number, string | null]][]) {
        const res = await operation.call(tokens[role]);
        if (code === null) expect({ operation: operation.name, role, ok: res.ok }).toEqual({ operation: operation.name, role, ok: true });
        else await expectError(res, status, code, code === 'permission_denied' ? { permission: 'project:edit' } : {});
      }
    }
  });

  it('refuses an API token holding project:edit with 401 session_required', async () => {
    const tenant = await newTenant();
    const token = await apiToken(tenant, ['project:edit', 'project:view']);
    await expectError(await api(credentialPath(tenant.projectId), { token }), 401, 'session_required');
  });
});

describe('tenants stay apart (spec part 5 rule 4)', () => {
  it('answers 403 forbidden to another tenant\'s session on this project\'s paths', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const pass = claims(await uploadPass(a)).jti as string;
    for (const res of [
      await api(credentialPath(a.projectId), { token: b.token }),
      await api(credentialPath(a.projectId, pass), { method: 'DELETE', token: b.token }),
      await api(`${credentialPath(a.projectId)}/api-token`, { token: b.token, body: { permissions: ['project:view'] } }),
      await api(`${credentialPath(a.projectId)}/spice-pass`, { method: 'POST', token: b.token }),
    ]) await expectError(res, 403, 'forbidden');
  });

  it('answers 404 when another tenant cancels this tenant\'s credentials through its own project path', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const pass = claims(await uploadPass(a)).jti as string;
    await expectError(await revoke(b, pass), 404, 'not_found');
    await expectError(await revoke(b, claims(a.token).sid as string), 404, 'not_found');
    expect((await probe(a.orgId, a.token)).status).toBe(200);
    expect((await list(b)).map((c) => c.jti)).not.toContain(pass);
  });
});

describe('the OpenAPI document', () => {
  it('describes the four credential operations with their answers and errors', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const base = '/api/v1/project/{projectId}/credential';
    expect(Object.keys(doc.paths[base].get.responses)).toEqual(expect.arrayContaining(['200', '401', '403']));
    expect(Object.keys(doc.paths[`${base}/{jti}`].delete.responses)).toEqual(expect.arrayContaining(['204', '400', '404']));
    expect(doc.paths[`${base}/api-token`].post.requestBody.required).toBe(true);
    expect(doc.paths[`${base}/spice-pass`].post.requestBody.required).toBe(false);
    expect(doc.components.schemas).toHaveProperty('Credential');
    expect(doc.components.schemas).toHaveProperty('CreatedApiToken');
    expect(doc.components.schemas).toHaveProperty('CreatedUploadPass');
  });
});
