// Issue 19, the routes anyone may call without a credential: one address gets at most 5 unused sign-in
// links at a time (answered as if sent), each client address 60 requests a minute across sign-in, its
// exchange, OAuth registration and token and the authorize pages (429 `rate_limited`, a page on the HTML
// ones), and at most 20 client registrations an hour.
import { env, exports } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clientAddress, PUBLIC_REQUESTS_PER_MINUTE, REGISTRATIONS_PER_HOUR } from '../../src/middleware/public-limits';
import { API, api, expectError, json, latestLinkToken, oneMinuteAhead, uniqueEmail } from '../helpers';
import { pkce, REDIRECT_URI } from '../assistant';

beforeEach(() => {
  // No message leaves in these tests; the sender itself is not what they are about.
  vi.spyOn(env.EMAIL, 'send').mockResolvedValue(undefined as never);
});
afterEach(() => vi.restoreAllMocks());

const linkCount = async (email: string) =>
  (await env.DB.prepare('SELECT count(*) AS n FROM sign_in_links WHERE email = ?').bind(email).first<{ n: number }>())!.n;

const fromIp = (ip: string, headers: Record<string, string> = {}) => ({ 'cf-connecting-ip': ip, ...headers });

const register = (ip: string, body: unknown = { client_name: 'Flood', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }) =>
  exports.default.fetch(new Request(`${API}/oauth/register`, {
    method: 'POST', headers: fromIp(ip, { 'content-type': 'application/json' }), body: typeof body === 'string' ? body : JSON.stringify(body),
  }));

/** Spends an address's allowance of the minute, as 60 earlier requests would have. */
async function exhaust(key: string) {
  await oneMinuteAhead();
  for (let i = 0; i < PUBLIC_REQUESTS_PER_MINUTE; i++) await env.PUBLIC_RATE_LIMITER.limit({ key });
}

describe('sign-in links per address', () => {
  it('sends at most 5 unused links to one address, and answers the sixth request exactly as the first', async () => {
    const email = uniqueEmail('flooded');
    const first = await api('/api/v1/auth/sign-in', { body: { email } });
    const firstBody = await json(first);
    for (let i = 0; i < 4; i++) expect((await api('/api/v1/auth/sign-in', { body: { email } })).status).toBe(202);
    expect(env.EMAIL.send).toHaveBeenCalledTimes(5);
    const sixth = await api('/api/v1/auth/sign-in', { body: { email } });
    expect({ status: sixth.status, body: await json(sixth) }).toEqual({ status: first.status, body: firstBody });
    expect(first.status).toBe(202);
    expect(await linkCount(email)).toBe(5);
    expect(env.EMAIL.send).toHaveBeenCalledTimes(5);
  });

  it('counts only links still waiting: one used, or older than 15 minutes, makes room for another', async () => {
    const email = uniqueEmail('waiting');
    for (let i = 0; i < 5; i++) await api('/api/v1/auth/sign-in', { body: { email } });
    await api('/api/v1/auth/sign-in', { body: { email } });
    expect(await linkCount(email)).toBe(5);
    expect((await api('/api/v1/auth/sign-in/exchange', { body: { token: await latestLinkToken(email) } })).status).toBe(200);
    await api('/api/v1/auth/sign-in', { body: { email } });
    expect(await linkCount(email)).toBe(6);

    const stale = uniqueEmail('stale');
    const old = new Date(Date.now() - 16 * 60_000).toISOString();
    for (let i = 0; i < 5; i++) {
      await env.DB.prepare('INSERT INTO sign_in_links (jti, email, created_at, expires_at) VALUES (?, ?, ?, ?)').bind(crypto.randomUUID(), stale, old, old).run();
    }
    await api('/api/v1/auth/sign-in', { body: { email: stale } });
    expect(await linkCount(stale)).toBe(6);
  });
});

describe('requests per client address on the routes without a credential', () => {
  it('counts every request to them: the 61st in a minute is 429 rate_limited with Retry-After', async () => {
    const headers = fromIp('198.51.100.61');
    await oneMinuteAhead();
    for (let i = 0; i < PUBLIC_REQUESTS_PER_MINUTE; i++) {
      expect((await api('/api/v1/auth/sign-in/exchange', { body: { token: 'not-a-link' }, headers })).status).toBe(401);
    }
    const refused = await api('/api/v1/auth/sign-in/exchange', { body: { token: 'not-a-link' }, headers });
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('x-request-id')).toEqual(expect.any(String));
    await expectError(refused, 429, 'rate_limited');
    // Another address keeps its own allowance.
    expect((await api('/api/v1/auth/sign-in/exchange', { body: { token: 'not-a-link' }, headers: fromIp('198.51.100.62') })).status).toBe(401);
  }, 60_000);

  it('refuses sign-in, the token endpoint and registration as JSON, the authorize pages as a page', async () => {
    const ip = '203.0.113.7';
    await exhaust(`ip:${ip}`);
    await expectError(await api('/api/v1/auth/sign-in', { body: { email: uniqueEmail() }, headers: fromIp(ip) }), 429, 'rate_limited');
    const token = await exports.default.fetch(new Request(`${API}/oauth/token`, {
      method: 'POST', headers: fromIp(ip, { 'content-type': 'application/x-www-form-urlencoded' }), body: 'grant_type=refresh_token&refresh_token=x&client_id=y',
    }));
    await expectError(token, 429, 'rate_limited');
    await expectError(await register(ip), 429, 'rate_limited');

    const { challenge } = await pkce();
    const page = await exports.default.fetch(new Request(`${API}/authorize?client_id=x&response_type=code&code_challenge=${challenge}`, { headers: fromIp(ip) }));
    expect(page.status).toBe(429);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('retry-after')).toBe('60');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('Too many requests');
    const continued = await exports.default.fetch(new Request(`${API}/authorize/continue`, { method: 'POST', headers: fromIp(ip) }));
    expect(continued.status).toBe(429);

    // Routes with a credential, and discovery, are not counted here.
    expect((await api('/api/v1/health', { headers: fromIp(ip) })).status).toBe(200);
    expect((await exports.default.fetch(new Request(`${API}/.well-known/oauth-authorization-server`, { headers: fromIp(ip) }))).status).toBe(200);
  }, 60_000);

  it('counts an IPv6 address by its /64', async () => {
    expect(clientAddress(new Request(API, { headers: fromIp('2001:db8:1:2:aaaa:bbbb:cccc:dddd') }))).toBe('2001:db8:1:2::/64');
    expect(clientAddress(new Request(API, { headers: fromIp('2001:0DB8:0001:0002::1') }))).toBe('2001:db8:1:2::/64');
    expect(clientAddress(new Request(API, { headers: fromIp('2001:db8::1') }))).toBe('2001:db8:0:0::/64');
    expect(clientAddress(new Request(API, { headers: fromIp('::1') }))).toBe('0:0:0:0::/64');
    expect(clientAddress(new Request(API, { headers: fromIp(' 192.0.2.1 ') }))).toBe('192.0.2.1');
    // Without the header (only in-process callers: Cloudflare sets it on every request, wrangler dev from the socket).
    expect(clientAddress(new Request(API))).toBeNull();

    await exhaust('ip:2001:db8:7:7::/64');
    await expectError(await api('/api/v1/auth/sign-in/exchange', { body: { token: 'x' }, headers: fromIp('2001:db8:7:7:1::9') }), 429, 'rate_limited');
    expect((await api('/api/v1/auth/sign-in/exchange', { body: { token: 'x' }, headers: fromIp('2001:db8:7:8::9') })).status).toBe(401);
  }, 60_000);
});

describe('dynamic client registrations', () => {
  it(`takes at most ${REGISTRATIONS_PER_HOUR} an hour from one address, failed ones included`, async () => {
    const ip = '192.0.2.20';
    for (let i = 0; i < 5; i++) expect((await register(ip, '{not json')).status).toBe(400);
    for (let i = 5; i < REGISTRATIONS_PER_HOUR; i++) expect((await register(ip)).status).toBe(201);
    const refused = await register(ip);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    await expectError(refused, 429, 'rate_limited');
    expect((await register('192.0.2.21')).status).toBe(201);
    // The address is not stored, only a keyed hash of it.
    const stored = await env.DB.prepare('SELECT client_key FROM oauth_registrations').all<{ client_key: string }>();
    expect(stored.results.length).toBeGreaterThanOrEqual(REGISTRATIONS_PER_HOUR + 1);
    expect(stored.results.some((r) => r.client_key.includes('192.0.2'))).toBe(false);
  });

  it('keeps a registration nobody approved for a day', async () => {
    const res = await register('192.0.2.30');
    const { client_id } = await json(res);
    const { keys } = await env.OAUTH_KV.list({ prefix: `client:${client_id}` });
    expect(keys).toHaveLength(1);
    const inSeconds = keys[0]!.expiration! - Date.now() / 1000;
    expect(inSeconds).toBeGreaterThan(86_400 - 120);
    expect(inSeconds).toBeLessThanOrEqual(86_400 + 5);
  });
});
