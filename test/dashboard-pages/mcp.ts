// Connecting an AI assistant while signed in on the dashboard (issue 21): the MCP sign-in page offers
// "Continue with your dashboard sign-in"; the dashboard, with its cookie and a POST from its own origin,
// vouches for the waiting authorization with a one-time, short-lived code bound to it; the browser that
// started the authorization goes straight to the approval step (no second email), whose page links back
// to the dashboard's connected apps. The email path keeps working.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { DASHBOARD, expectPage, h1Of, page, post, signInThroughDashboard, submit, textOf, unescape } from '../dashboard';
import { authorizeUrl, Browser, inputValue, pkce, REDIRECT_URI, registerClient, signInToApprove, tokenRequest } from '../assistant';
import { api, json, newTenant, type Session } from '../helpers';
import { addPerson } from '../people';

const linksSentTo = async (email: string) =>
  (await env.DB.prepare('SELECT count(*) AS n FROM sign_in_links WHERE email = ?').bind(email.toLowerCase()).first<{ n: number }>())!.n;

async function person() {
  const tenant = await newTenant('assistant-owner');
  return { tenant, cookie: await signInThroughDashboard(tenant.user.email) };
}

/** An assistant starts connecting in `browser`: the authorize page's request id and HTML. */
async function startConnecting(browser: Browser, name = 'Dash assistant') {
  const clientId = await registerClient(name);
  const { verifier, challenge } = await pkce();
  const res = await browser.fetch(authorizeUrl(clientId, challenge));
  expect(res.status).toBe(200);
  const html = await res.text();
  return { clientId, verifier, request: inputValue(html, 'request'), html };
}

/** The dashboard's confirmation, posted from the dashboard with its cookie: where it sends the browser. */
async function vouch(cookie: string, request: string): Promise<string> {
  const res = await submit('/assistant/connect', cookie, { request });
  expect(res.status).toBe(303);
  return res.headers.get('location')!;
}

describe('connecting an assistant while signed in on the dashboard', () => {
  it('goes from the sign-in step to approval with no email, and the approval links to the dashboard\'s connected apps', async () => {
    const { tenant, cookie } = await person();
    const linksBefore = await linksSentTo(tenant.user.email);
    const browser = new Browser();
    const { clientId, verifier, request, html: signInHtml } = await startConnecting(browser);

    // The sign-in step offers the dashboard, besides the email form.
    const handoffHref = `${DASHBOARD}/assistant/connect?request=${request}`;
    expect(unescape(signInHtml)).toContain(`href="${handoffHref}"`);
    expect(signInHtml).toContain('Continue with your dashboard sign-in');
    expect(signInHtml).toContain('name="email"');

    // The dashboard's page names the assistant (unverified) and who continues; opening it changes nothing.
    const confirm = await expectPage(await page(`/assistant/connect?request=${request}`, cookie), 200, 'Connect Dash assistant to Posture');
    expect(textOf(confirm)).toContain(`Continue as ${tenant.user.email}`);
    expect(confirm).toContain('Unverified');
    expect(confirm).toMatch(/<form method="post" action="\/assistant\/connect">/);

    const next = await vouch(cookie, request);
    const url = new URL(next);
    expect(url.origin + url.pathname).toBe('http://localhost/authorize/dashboard');
    expect(url.searchParams.get('request')).toBe(request);
    expect(url.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
    // The session token never travels in an address.
    const jwt = decodeURIComponent(cookie.split('=')[1]!);
    expect(next).not.toContain(jwt.split('.')[2]!);

    const handed = await browser.fetch(next);
    expect(handed.status).toBe(303);
    expect(handed.headers.get('location')).toBe(`/authorize/approve?request=${request}`);
    const approval = await browser.fetch(handed.headers.get('location')!);
    expect(approval.status).toBe(200);
    const html = await approval.text();
    expect(h1Of(html)).toBe(`Allow Dash assistant to use Posture as ${tenant.user.email}?`);
    expect(html).toContain(`href="${DASHBOARD}/projects/${tenant.projectId}/credentials"`);
    expect(await linksSentTo(tenant.user.email)).toBe(linksBefore);

    // Approving works as after an email sign-in: the assistant gets its tokens, the app is listed.
    const approved = await browser.fetch('/authorize/approve', {
      form: { request, handle: inputValue(html, 'handle'), org: inputValue(html, 'org'), scope: ['docs:read', 'project:read'], decision: 'approve' },
    });
    expect(approved.status).toBe(302);
    const redirect = new URL(approved.headers.get('location')!);
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT_URI);
    const tokens = await tokenRequest({ grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    const credentials = await json(await api(`/api/v1/project/${tenant.projectId}/credential`, { token: tenant.token }));
    const apps = (Array.isArray(credentials) ? credentials : credentials.credentials ?? credentials.items ?? []).filter((c: any) => c.kind === 'connected_app');
    expect(apps.map((a: any) => a.name)).toContain('Dash assistant');
  });

  it('the code works once, in the browser that started the request, and not after it expired', async () => {
    const { cookie } = await person();
    const browser = new Browser();
    const { request } = await startConnecting(browser);
    const next = await vouch(cookie, request);
    expect((await browser.fetch(next)).status).toBe(303);
    // Used: again is refused.
    expect((await browser.fetch(next)).status).toBe(400);

    // Another browser (without the authorize cookie) cannot use it, and using it there burns it.
    const second = new Browser();
    const started = await startConnecting(second);
    const code = await vouch(cookie, started.request);
    const elsewhere = await new Browser().fetch(code);
    expect(elsewhere.status).toBe(400);
    expect(textOf(await elsewhere.text())).toContain('Start again');
    expect((await second.fetch(code)).status).toBe(400);
    // A made-up code is refused; no approval page without a sign-in.
    const third = new Browser();
    const fresh = await startConnecting(third);
    await vouch(cookie, fresh.request);
    expect((await third.fetch(`/authorize/dashboard?request=${fresh.request}&code=${'A'.repeat(43)}`)).status).toBe(400);
    expect((await third.fetch(`/authorize/approve?request=${fresh.request}`)).status).toBe(400);

    // Expired: two minutes is all a code gets.
    const fourth = new Browser();
    const late = await startConnecting(fourth);
    const lateCode = await vouch(cookie, late.request);
    const key = `posture:authorize:${late.request}`;
    const stored = await env.OAUTH_KV.get<any>(key, 'json');
    await env.OAUTH_KV.put(key, JSON.stringify({ ...stored, handoff: { ...stored.handoff, expiresAt: Date.now() - 1 } }));
    expect((await fourth.fetch(lateCode)).status).toBe(400);
    expect((await fourth.fetch(`/authorize/approve?request=${late.request}`)).status).toBe(400);
  });

  it('another site cannot vouch: a POST without the dashboard\'s Origin is refused and hands nothing over', async () => {
    const { cookie } = await person();
    const browser = new Browser();
    const { request } = await startConnecting(browser);
    for (const origin of ['https://evil.example', 'http://localhost']) {
      const res = await post('/assistant/connect', { request }, { origin, cookie });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
    }
    const res = await post('/assistant/connect', { request }, { cookie });
    expect(res.status).toBe(403);
    const stored = await env.OAUTH_KV.get<any>(`posture:authorize:${request}`, 'json');
    expect(stored.handoff).toBeUndefined();
    expect(stored.userId).toBeUndefined();
  });

  it('without a dashboard sign-in: the page offers it, the POST leads to sign-in and back here', async () => {
    const browser = new Browser();
    const { request } = await startConnecting(browser);
    const html = await expectPage(await page(`/assistant/connect?request=${request}`, ''), 200, 'Connect Dash assistant to Posture');
    expect(html).toContain('Continue with your dashboard sign-in');
    const res = await post('/assistant/connect', { request });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in');
    expect((res.headers as unknown as { getSetCookie(): string[] }).getSetCookie().join()).toContain(`__Host-posture-return=${encodeURIComponent(`/assistant/connect?request=${request}`)}`);
    // A signed-out session is no one either.
    const { cookie } = await person();
    expect((await submit('/sign-out', cookie)).status).toBe(303);
    expect((await submit('/assistant/connect', cookie, { request })).headers.get('location')).toBe('/sign-in');
    expect((await env.OAUTH_KV.get<any>(`posture:authorize:${request}`, 'json')).handoff).toBeUndefined();
  });

  it('an unknown or finished request is a page saying to start again', async () => {
    const { cookie } = await person();
    for (const request of [crypto.randomUUID(), 'not-an-id', '']) {
      expect((await page(`/assistant/connect?request=${request}`, cookie)).status).toBe(400);
      expect((await submit('/assistant/connect', cookie, { request })).status).toBe(400);
    }
  });

  it('the email path still works, and its approval page links to the dashboard too', async () => {
    const tenant: Session & { projectId: string } = await newTenant('assistant-email');
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const html = await signInToApprove(new Browser(), clientId, tenant.user.email, challenge);
    expect(h1Of(html)).toBe(`Allow Test assistant to use Posture as ${tenant.user.email}?`);
    expect(html).toContain(`href="${DASHBOARD}/projects/${tenant.projectId}/credentials"`);
  });

  it('a person who may not see credentials anywhere (a Viewer) is linked to the dashboard\'s start instead', async () => {
    const tenant = await newTenant('assistant-viewer');
    const viewer = await addPerson(tenant, 'Viewer');
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const html = await signInToApprove(new Browser(), clientId, viewer.user.email, challenge);
    expect(html).not.toContain('/credentials"');
    expect(html).toContain(`href="${DASHBOARD}/"`);
  });

  it('the dashboard page\'s CSP lets its form lead on to the API host\'s authorize pages only', async () => {
    const { cookie } = await person();
    const browser = new Browser();
    const { request } = await startConnecting(browser);
    const res = await page(`/assistant/connect?request=${request}`, cookie);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self' http://localhost;");
    expect(csp).toContain("frame-ancestors 'none'");
    await res.text();
  });
});
