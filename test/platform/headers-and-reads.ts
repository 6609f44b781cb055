// What every answer carries (security headers, no banner, the stated CORS policy) and reads through
// D1 sessions: the bookmark an answer carries lets the next request read at least what it saw.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectError, json, newTenant } from '../helpers';

const get = (url: string, init?: RequestInit) => exports.default.fetch(new Request(url, init));

describe('security headers on every answer', () => {
  it('API answers: nosniff, no framing, nothing to load, no banner; HSTS only on the production hosts over HTTPS', async () => {
    const res = await get('http://localhost/api/v1/health');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('server')).toBeNull();
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('strict-transport-security')).toBeNull();
    const secure = await get(`https://${env.API_HOST}/api/v1/health`);
    expect(secure.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    const dashboard = await get(`https://${env.DASHBOARD_HOST}/api/v1/health`);
    expect(dashboard.headers.get('strict-transport-security')).toMatch(/^max-age=31536000/);
    // Errors carry them too.
    const missing = await get('http://localhost/api/v1/no-such-path');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('pages may not be framed: the API reference and the authorize pages keep their own policy', async () => {
    const docs = await get('http://localhost/api/v1/docs');
    expect(docs.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(docs.headers.get('x-frame-options')).toBe('DENY');
    const authorize = await get('http://localhost/authorize?client_id=nobody');
    expect(authorize.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(authorize.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('answers of the OAuth provider and the MCP endpoint carry them as well', async () => {
    const unauthenticated = await get('http://localhost/mcp', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('x-content-type-options')).toBe('nosniff');
    const metadata = await get('http://localhost/.well-known/oauth-authorization-server');
    expect(metadata.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it('CORS: the dashboard\'s origin only, with the headers a browser client needs', async () => {
    const preflight = (origin: string) => get('http://localhost/api/v1/user', {
      method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, x-d1-bookmark' },
    });
    const allowed = await preflight(env.DASHBOARD_URL);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(env.DASHBOARD_URL);
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-d1-bookmark');
    const other = await preflight('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const read = await get('http://localhost/api/v1/health', { headers: { origin: env.DASHBOARD_URL } });
    expect(read.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('x-d1-bookmark');
  });
});

describe('reads through D1 sessions', () => {
  it('answers a bookmark; a read sending back the bookmark of a write sees the write', async () => {
    const tenant = await newTenant('bookmark');
    const read = await api(`/api/v1/org/${tenant.orgId}`, { token: tenant.token });
    expect(read.headers.get('x-d1-bookmark')).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/i);
    const renamed = await api(`/api/v1/org/${tenant.orgId}`, { token: tenant.token, method: 'PUT', body: { name: 'Renamed through the primary' } });
    expect(renamed.status).toBe(200);
    const bookmark = renamed.headers.get('x-d1-bookmark')!;
    expect(bookmark).toBeTruthy();
    const after = await api(`/api/v1/org/${tenant.orgId}`, { token: tenant.token, headers: { 'x-d1-bookmark': bookmark } });
    expect(after.status).toBe(200);
    expect((await json(after)).name).toBe('Renamed through the primary');
    // The bookmark moves forward (or stays), never back.
    expect(after.headers.get('x-d1-bookmark')! >= bookmark).toBe(true);
  });

  it('refuses a bookmark it never answered with as a bad parameter, not a failure', async () => {
    const tenant = await newTenant('bad-bookmark');
    await expectError(await api(`/api/v1/org/${tenant.orgId}`, { token: tenant.token, headers: { 'x-d1-bookmark': 'not a bookmark' } }), 400, 'invalid_parameter', { parameter: 'X-D1-Bookmark' });
  });
});
