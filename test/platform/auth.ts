import { env } from 'cloudflare:workers';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signingKeys, signToken, type TokenClaims } from '../../src/auth/tokens';
import { api, expectError, json, latestLinkToken, newTenant, signIn, uniqueEmail } from '../helpers';

// Signed with the instance's current key, as the service itself would (the header names its kid).
const sign = async (claims: TokenClaims) => signToken(await signingKeys(env), claims);

describe('sign-in by email link (ARCHITECTURE section 2)', () => {
  it('signs a new address up with an organization, built-in teams and a first project', async () => {
    const email = uniqueEmail('new');
    const session = await signIn(email);
    expect(session.user.email).toBe(email);
    expect(session.projectId).toBeTruthy();
    const teams = await env.DB.prepare('SELECT name, built_in FROM teams WHERE org_id = ? ORDER BY name').bind(session.orgId).all();
    expect(teams.results).toEqual([{ name: 'Administrators', built_in: 1 }, { name: 'Members', built_in: 1 }]);
  });

  it('accepts a link once only', async () => {
    const email = uniqueEmail();
    await api('/api/v1/auth/sign-in', { body: { email } });
    const token = await latestLinkToken(email);
    expect((await api('/api/v1/auth/sign-in/exchange', { body: { token } })).status).toBe(200);
    await expectError(await api('/api/v1/auth/sign-in/exchange', { body: { token } }), 401, 'token_revoked');
  });

  it('refuses a link signed with another key', async () => {
    const forged = await new SignJWT({ kind: 'sign_in_link', jti: crypto.randomUUID(), sub: 'x@example.test' })
      .setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(new TextEncoder().encode('another-key-another-key-another-key!'));
    await expectError(await api('/api/v1/auth/sign-in/exchange', { body: { token: forged } }), 401, 'unauthorized');
  });

  it('answers 400 invalid_request for an invalid email', async () => {
    await expectError(await api('/api/v1/auth/sign-in', { body: { email: 'not-an-email' } }), 400, 'invalid_request');
  });

  it('signs out: the sign-in ends on its next request', async () => {
    const tenant = await newTenant();
    expect((await api('/api/v1/auth/session', { method: 'DELETE', token: tenant.token })).status).toBe(204);
    await expectError(await api(`/api/v1/project/${tenant.projectId}/session`, { method: 'POST', token: tenant.token }), 401, 'token_revoked');
  });
});

describe('credential checks (spec part 5)', () => {
  it('answers 401 unauthorized without a token, with a malformed one, and with alg none', async () => {
    const tenant = await newTenant();
    const path = `/api/v1/project/${tenant.projectId}/session`;
    await expectError(await api(path, { method: 'POST' }), 401, 'unauthorized');
    await expectError(await api(path, { method: 'POST', token: 'not.a.jwt' }), 401, 'unauthorized');
    const payload = JSON.parse(atob(tenant.token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    const unsigned = new UnsecuredJWT(payload).encode();
    await expectError(await api(path, { method: 'POST', token: unsigned }), 401, 'unauthorized');
  });

  it('answers 401 token_expired for an expired token', async () => {
    const tenant = await newTenant();
    const payload = JSON.parse(atob(tenant.token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    const expired = await sign({ ...payload, exp: Math.floor(Date.now() / 1000) - 10 });
    await expectError(await api(`/api/v1/project/${tenant.projectId}/session`, { method: 'POST', token: expired }), 401, 'token_expired');
  });

  it('answers 401 unauthorized for a token whose jti no credential has', async () => {
    const tenant = await newTenant();
    const payload = JSON.parse(atob(tenant.token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    const unknown = await sign({ ...payload, jti: crypto.randomUUID() });
    await expectError(await api(`/api/v1/project/${tenant.projectId}/session`, { method: 'POST', token: unknown }), 401, 'unauthorized');
  });

  it('switches the session to another reachable project and 404s an unknown one', async () => {
    const tenant = await newTenant();
    const res = await api(`/api/v1/project/${crypto.randomUUID()}/session`, { method: 'POST', token: tenant.token });
    await expectError(res, 404, 'not_found');
    const same = await api(`/api/v1/project/${tenant.projectId}/session`, { method: 'POST', token: tenant.token });
    expect(same.status).toBe(200);
    expect((await json(same)).projectId).toBe(tenant.projectId);
  });
});
