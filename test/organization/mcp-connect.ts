// Issue 19, connecting an assistant as a person does: OAuth errors are shown, never redirected to a
// registered client (RFC 9700 4.11.2); PKCE (S256) for every client; the emailed link's token travels in
// its fragment; API_URL is the only issuer and resource, and another host says so; scopes are visible up
// front; the approval says what is missing; the email names the assistant.
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { env, exports } from 'cloudflare:workers';
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { quotedClientName } from '../../src/auth/emails';
import { API, json, latestLinkToken, newTenant } from '../helpers';
import { authorizeUrl, Browser, connectAssistant, inputValue, pkce, REDIRECT_URI, registerClient, signInToApprove } from '../assistant';

const ALL_SCOPES = ['docs:read', 'project:read', 'project:write', 'credentials:create'];
const OTHER_HOST = '127.0.0.1';

let tenant: Awaited<ReturnType<typeof newTenant>>;
beforeAll(async () => {
  tenant = await newTenant('connect');
});
afterEach(() => vi.restoreAllMocks());

async function registerWith(metadata: Record<string, unknown>) {
  return exports.default.fetch(new Request(`${API}/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Test', ...metadata }),
  }));
}

const get = (url: string) => exports.default.fetch(new Request(url, { redirect: 'manual' }));

/** The raw messages the sender was given (the binding is replaced: nothing leaves). */
function captureEmails(): string[] {
  const sent: string[] = [];
  vi.spyOn(env.EMAIL, 'send').mockImplementation(async (message) => {
    sent.push(String((message as unknown as Record<string, unknown>)['EmailMessage::raw']));
    return undefined as never;
  });
  return sent;
}

describe('authorization errors are shown, never redirected (RFC 9700 4.11.2)', () => {
  it('a client registered with any https redirect gets a page for a bad request, with no Location', async () => {
    const res = await registerWith({ redirect_uris: ['https://evil.example/cb'], token_endpoint_auth_method: 'none' });
    const { client_id } = await json(res);
    const { challenge } = await pkce();
    const query = { client_id, redirect_uri: 'https://evil.example/cb', code_challenge: challenge, code_challenge_method: 'S256', state: 's' };
    const bad: Record<string, string>[] = [{ response_type: 'token' }, { response_type: 'code', code_challenge: '', code_challenge_method: '' }, { response_type: 'code', resource: 'https://other.example/mcp' }];
    for (const extra of bad) {
      const page = await get(`${API}/authorize?${new URLSearchParams({ ...query, ...extra })}`);
      expect(page.status).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toContain('This connection request cannot be used');
    }
  });
});

describe('PKCE (S256) for every client', () => {
  it('a confidential client without a code challenge is refused with a page', async () => {
    const res = await registerWith({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' });
    expect(res.status).toBe(201);
    const { client_id, client_secret } = await json(res);
    expect(client_secret).toEqual(expect.any(String));
    const page = await get(`${API}/authorize?${new URLSearchParams({ response_type: 'code', client_id, redirect_uri: REDIRECT_URI, state: 's' })}`);
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(await page.text()).toContain('PKCE');
    // With PKCE it signs in like anyone.
    const { challenge } = await pkce();
    const withPkce = await get(`${API}/authorize?${new URLSearchParams({ response_type: 'code', client_id, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256' })}`);
    expect(withPkce.status).toBe(200);
  });

  it('refuses a registration that could never use the authorization code flow', async () => {
    const res = await registerWith({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', grant_types: ['refresh_token'], response_types: [] });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: 'invalid_client_metadata' });
  });
});

describe('the emailed link', () => {
  it('names the assistant, carries its token in the fragment, and offers no hand exchange', async () => {
    const sent = captureEmails();
    const clientId = await registerClient('Claude\r\nBcc: x@evil.example');
    const { challenge } = await pkce();
    const browser = new Browser();
    const request = inputValue(await (await browser.fetch(authorizeUrl(clientId, challenge))).text(), 'request');
    expect((await browser.fetch('/authorize/sign-in', { form: { request, email: tenant.user.email } })).status).toBe(200);
    expect(sent).toHaveLength(1);
    const message = sent[0]!;
    const headers = message.slice(0, message.indexOf('\r\n\r\n'));
    expect(headers).toContain('Subject: Sign in to connect an AI assistant to Posture');
    expect(headers).not.toContain('Bcc');
    expect(message).toContain('The assistant calls itself "Claude Bcc: x@evil.example" (a name the app gave itself; Posture has not verified it).');
    expect(message).not.toContain('/api/v1/auth/sign-in/exchange');
    const link = message.match(/http:\/\/localhost\/authorize\/continue\S+/)![0];
    const url = new URL(link);
    expect([...url.searchParams.keys()]).toEqual(['request']);
    expect(url.searchParams.get('request')).toBe(request);
    const token = new URLSearchParams(url.hash.slice(1)).get('token')!;
    // The link's own token: its claims but the second it was signed in (`iat`); Continue below verifies its signature.
    const claims = (jwt: string) => ({ ...decodeJwt(jwt), iat: undefined });
    expect(claims(token)).toEqual(claims(await latestLinkToken(tenant.user.email)));

    // What the browser requests (no fragment) shows Continue, its token field empty for the page's script.
    const opened = await browser.fetch(`${url.pathname}${url.search}`);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await opened.text();
    expect(html).toContain('<script src="/authorize/continue.js" defer="">');
    expect(inputValue(html, 'token')).toBe('');
    // A token put in the query is not taken up either.
    expect(inputValue(await (await browser.fetch(`${url.pathname}${url.search}&token=${token}`)).text(), 'token')).toBe('');
    const approval = await browser.fetch('/authorize/continue', { form: { request, token } });
    expect(approval.status).toBe(200);
    expect(await approval.text()).toContain('Allow');
  });

  it('the continue page\'s script is a static file of this origin that never submits the form', async () => {
    const res = await env.ASSETS.fetch('http://localhost/authorize/continue.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    const script = await res.text();
    expect(script).toContain('location.hash');
    expect(script).toContain('replaceState');
    expect(script).not.toMatch(/\.submit\(|requestSubmit|\.click\(/);
  });

  it('quotes a client name as one printable line of at most 80 characters', () => {
    expect(quotedClientName('  Claude\u0000\u202e Desktop\n\n')).toBe('Claude Desktop');
    expect(quotedClientName('x'.repeat(200))).toBe(`${'x'.repeat(79)}…`);
    expect(quotedClientName('\r\n')).toBe('an unnamed app');
  });
});

describe('API_URL is the only issuer and resource', () => {
  it('publishes the scopes up front: scopes_supported in the resource metadata, scope in the 401', async () => {
    const resource = await json(await get(`${API}/.well-known/oauth-protected-resource/mcp`));
    expect(resource).toMatchObject({ resource: `${API}/mcp`, authorization_servers: [API], scopes_supported: ALL_SCOPES });
    const res = await exports.default.fetch(new Request(`${API}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`scope="${ALL_SCOPES.join(' ')}"`);
  });

  it('on another host, the 401 and the discovery documents point at API_URL', async () => {
    const res = await exports.default.fetch(new Request(`http://${OTHER_HOST}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${API}/.well-known/oauth-protected-resource/mcp"`);
    const server = await json(await get(`http://${OTHER_HOST}/.well-known/oauth-authorization-server`));
    expect(server).toMatchObject({ issuer: API, authorization_endpoint: `${API}/authorize`, token_endpoint: `${API}/oauth/token`, registration_endpoint: `${API}/oauth/register` });
    const resource = await json(await get(`http://${OTHER_HOST}/.well-known/oauth-protected-resource/mcp`));
    expect(resource).toMatchObject({ resource: `${API}/mcp`, authorization_servers: [API] });
  });

  it('an MCP client given 127.0.0.1 for localhost stops at discovery, naming the address to use, before anyone signs in', async () => {
    const requests: string[] = [];
    const provider = {
      redirectUrl: REDIRECT_URI,
      clientMetadata: { client_name: 'SDK', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      clientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: () => requests.push('browser opened'),
      saveCodeVerifier: () => undefined,
      codeVerifier: () => '',
    } as unknown as OAuthClientProvider;
    const fetchFn = (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      requests.push(`${request.method} ${request.url}`);
      return exports.default.fetch(request);
    };
    await expect(auth(provider, { serverUrl: `http://${OTHER_HOST}/mcp`, fetchFn })).rejects.toThrow(`Protected resource ${API}/mcp does not match`);
    expect(requests.some((r) => r.includes('/oauth/register') || r === 'browser opened')).toBe(false);
  });

  it('an authorize page reached on another host says which address to use', async () => {
    const clientId = await registerClient();
    const { challenge } = await pkce();
    for (const path of [authorizeUrl(clientId, challenge), '/authorize/continue?request=x']) {
      const page = await new Browser().fetch(path, { host: OTHER_HOST });
      expect(page.status).toBe(400);
      expect(page.headers.get('set-cookie')).toBeNull();
      const html = await page.text();
      expect(html).toContain(`Connect your assistant to ${API}/mcp`);
      expect(html).toContain(`http://${OTHER_HOST}`);
    }
  });
});

describe('the approval page says what is missing', () => {
  it('Allow with nothing ticked: "Choose at least one permission"; an organization not theirs: "Choose an organization"', async () => {
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const browser = new Browser();
    const html = await signInToApprove(browser, clientId, tenant.user.email, challenge);
    const form = { request: inputValue(html, 'request'), handle: inputValue(html, 'handle'), decision: 'approve' };
    const nothing = await browser.fetch('/authorize/approve', { form: { ...form, org: tenant.orgId } });
    expect(nothing.status).toBe(400);
    const again = await nothing.text();
    expect(again).toMatch(/role="alert"[^>]*>\s*<p>Choose at least one permission\.<\/p>/);
    const elsewhere = await browser.fetch('/authorize/approve', { form: { ...form, handle: inputValue(again, 'handle'), org: crypto.randomUUID(), scope: 'project:read' } });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toMatch(/role="alert"[^>]*>\s*<p>Choose an organization\.<\/p>/);
  });
});

describe('registrations', () => {
  it('a client someone approved is kept for its grant\'s life (90 days and a day), not the day of an unused one', async () => {
    const connected = await connectAssistant(tenant.user.email, ['project:read'], tenant.orgId);
    const { keys } = await env.OAUTH_KV.list({ prefix: `client:${connected.clientId}` });
    const inDays = (keys[0]!.expiration! - Date.now() / 1000) / 86_400;
    expect(inDays).toBeGreaterThan(90.9);
    expect(inDays).toBeLessThanOrEqual(91.01);
    const record = await env.OAUTH_KV.get<{ registrationExpiresAt: number; redirectUris: string[] }>(`client:${connected.clientId}`, 'json');
    expect(record).toMatchObject({ redirectUris: [REDIRECT_URI], registrationExpiresAt: keys[0]!.expiration });
  });
});
