// The dashboard's sign-in (issue 21, first part): the email form, the emailed link's page, the session
// cookie, the landing page and signing out, on DASHBOARD_HOST, through the Worker's own entry.
import { env, exports } from 'cloudflare:workers';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/dashboard/session-cookie';
import { cookieOf, FROM_DASHBOARD, h1Of, post, signInThroughDashboard, unescape, visit } from '../dashboard';
import { api, latestLinkToken, newTenant, oneMinuteAhead, uniqueEmail } from '../helpers';
import { apiToken } from '../people';

describe('signing in on the dashboard host', () => {
  it('the emailed link\'s page exists: a form, the link script of this origin, a strict CSP', async () => {
    const res = await visit('/sign-in');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    for (const rule of ["script-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "default-src 'none'"]) expect(csp).toContain(rule);
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    // Browsers send the form posts' Origin (which the origin check reads) only under a referrer policy that allows it.
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    const html = await res.text();
    expect(html).toContain('<h1>Sign in to Posture</h1>');
    expect(html).toMatch(/<script src="\/assets\/sign-in\.[0-9a-f]{10}\.js" defer="">/);
    expect(html).toMatch(/<form method="post" action="\/session" id="link-form" hidden/);
    expect(html).toMatch(/<form method="post" action="\/sign-in\/email" id="email-form"/);
  });

  it('the email form sends a link to the dashboard\'s sign-in page and says to check the email', async () => {
    const email = uniqueEmail('dash');
    const res = await post('/sign-in/email', { email });
    expect(res.status).toBe(200);
    expect(h1Of(await res.text())).toBe('Check your email');
    await expect(latestLinkToken(email)).resolves.toMatch(/^ey/);
  });

  it('a malformed address is shown again with the error tied to its field', async () => {
    const res = await post('/sign-in/email', { email: 'not an address' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('id="email-error"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('value="not an address"');
  });

  it('the link\'s token becomes a __Host- cookie: HttpOnly, Secure, SameSite=Strict, path /, expiring with the sign-in', async () => {
    const email = uniqueEmail('cookie');
    await post('/sign-in/email', { email });
    const res = await post('/session', { token: await latestLinkToken(email) });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const cookie = cookieOf(res)!;
    expect(cookie).toMatch(/; Path=\//);
    for (const attribute of ['HttpOnly', 'Secure', 'SameSite=Strict']) expect(cookie).toContain(attribute);
    expect(cookie).not.toMatch(/Domain=/);
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)![1]);
    expect(maxAge).toBeGreaterThan(3_600);
    expect(maxAge).toBeLessThanOrEqual(24 * 3_600 * 31);
  });

  it('a used or forged link token is refused with a page that offers a new link; no cookie is set', async () => {
    const email = uniqueEmail('reuse');
    await post('/sign-in/email', { email });
    const token = await latestLinkToken(email);
    expect((await post('/session', { token })).status).toBe(303);
    for (const bad of [token, 'not-a-token', '']) {
      const res = await post('/session', { token: bad });
      expect(res.status).toBe(400);
      expect(cookieOf(res)).toBeNull();
      expect(await res.text()).toContain('href="/sign-in"');
    }
  });

  it('signed in, / leads to the session\'s project; every page\'s frame names the person, the organization and their projects', async () => {
    const tenant = await newTenant('landing');
    const cookie = await signInThroughDashboard(tenant.user.email);
    const landing = await visit('/', { headers: { cookie } });
    expect(landing.status).toBe(303);
    expect(landing.headers.get('location')).toBe(`/projects/${tenant.projectId}`);
    const res = await visit('/profile', { headers: { cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(h1Of(html)).toBe('Your profile');
    expect(html).toContain(tenant.user.email);
    const projects = await (await api('/api/v1/user/project', { token: tenant.token })).json<any>();
    expect(projects.projects.length).toBeGreaterThan(0);
    expect(unescape(html)).toContain(projects.org_name);
    for (const project of projects.projects) expect(unescape(html)).toContain(project.name);
  });

  it('without a cookie, or with one the service no longer accepts, a page leads to sign-in', async () => {
    expect((await visit('/')).headers.get('location')).toBe('/sign-in');
    const res = await visit('/', { headers: { cookie: `${SESSION_COOKIE}=forged.token.value` } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in');
    expect(cookieOf(res)).toMatch(/Max-Age=0/);
  });

  it('signing out ends the sign-in at the API and clears the cookie', async () => {
    const tenant = await newTenant('leaver');
    const cookie = await signInThroughDashboard(tenant.user.email);
    const res = await post('/sign-out', {}, { ...FROM_DASHBOARD, cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in');
    expect(cookieOf(res)).toMatch(/Max-Age=0/);
    // The session the cookie held is over: the API refuses it, and the page leads to sign-in.
    const jwt = decodeURIComponent(cookie.split('=')[1]!);
    expect((await api('/api/v1/user', { token: jwt, method: 'GET' })).status).toBe(401);
    expect((await visit('/', { headers: { cookie } })).headers.get('location')).toBe('/sign-in');
  });

  it('a form posted from another site changes nothing (403): no link sent, no sign-out', async () => {
    const email = uniqueEmail('csrf');
    const res = await post('/sign-in/email', { email }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    await expect(latestLinkToken(email)).rejects.toThrow(/no sign-in link/);
    const tenant = await newTenant('kept');
    const cookie = await signInThroughDashboard(tenant.user.email);
    expect((await post('/sign-out', {}, { cookie })).status).toBe(403);
    expect((await visit('/profile', { headers: { cookie } })).status).toBe(200);
  });

  it('the cookie authenticates pages only: the API on the dashboard host wants a bearer token, and API tokens stay refused there', async () => {
    const tenant = await newTenant('bearer');
    const cookie = await signInThroughDashboard(tenant.user.email);
    expect((await visit('/api/v1/user', { headers: { cookie } })).status).toBe(401);
    const token = await apiToken(tenant, ['project:view']);
    const res = await visit(`/api/v1/project/${tenant.projectId}/v1/job`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
    expect((await res.json<any>()).code).toBe('api_host_required');
  });

  it('the API host\'s / leads to the dashboard; an unknown dashboard page is a 404 page', async () => {
    const res = await exports.default.fetch(new Request(`${env.API_URL.replace(/\/$/, '')}/`, { redirect: 'manual' }));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(new URL(env.DASHBOARD_URL).href);
    expect((await visit('/no-such-page')).headers.get('location')).toBe('/sign-in');
    const tenant = await newTenant('lost');
    const missing = await visit('/no-such-page', { headers: { cookie: await signInThroughDashboard(tenant.user.email) } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('an invitation\'s link', () => {
  it('lands on the invited project, in the organization that invited, though the person last worked in another', async () => {
    const home = await newTenant('home');
    const inviter = await newTenant('inviter');
    const { teams } = await (await api(`/api/v1/org/${inviter.orgId}/team`, { token: inviter.token, method: 'GET' })).json<any>();
    const members = teams.find((t: { name: string }) => t.name === 'Members');
    expect((await api(`/api/v1/org/${inviter.orgId}/invite`, { token: inviter.token, body: { email: home.user.email, teamIds: [members.id] } })).status).toBe(200);
    const res = await post(`/session?project=${inviter.projectId}`, { token: await latestLinkToken(home.user.email) });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/projects/${inviter.projectId}`);
    const cookie = cookieOf(res)!.split(';')[0]!;
    const landed = await visit(`/projects/${inviter.projectId}/credentials`, { headers: { cookie } });
    expect(landed.status).toBe(200);
    const { name } = await (await api(`/api/v1/project/${inviter.projectId}`, { token: inviter.token, method: 'GET' })).json<any>();
    expect(unescape(await landed.text())).toContain(name);
  });
});

describe('the frame\'s guards', () => {
  it('a value that would climb the API\'s address (`..`) calls nothing: removing a member named .. leaves the portfolio', async () => {
    const tenant = await newTenant('climb');
    const P = `/api/v1/project/${tenant.projectId}`;
    // The project's storage is set up in the background after it is created.
    let created: { portfolio_id?: string } = {};
    for (let attempt = 0; attempt < 100 && !created.portfolio_id; attempt++) {
      const res = await api(`${P}/v1/portfolio`, { token: tenant.token, body: { name: 'Kept', members: [{ type: 'subject', value: 'shop' }] } });
      if (res.status === 201 || res.status === 200) created = await res.json<any>();
      else await new Promise((r) => setTimeout(r, 100));
    }
    // The API refuses such a member in the first place.
    expect((await api(`${P}/v1/portfolio`, { token: tenant.token, body: { name: 'Dots', members: [{ type: 'subject', value: '..' }] } })).status).toBe(400);
    const cookie = await signInThroughDashboard(tenant.user.email);
    const res = await post(`/projects/${tenant.projectId}/portfolios/${created.portfolio_id}/members/remove`, { type: 'subject', value: '..' }, { ...FROM_DASHBOARD, cookie });
    expect(res.status).toBe(404);
    const list = await (await api(`${P}/v1/portfolio`, { token: tenant.token, method: 'GET' })).json<any>();
    expect(list.portfolios.map((p: { portfolio_id: string }) => p.portfolio_id)).toContain(created.portfolio_id);
  });

  it('/projects/<not an id>/… is a 404 page, not the session\'s own project', async () => {
    const tenant = await newTenant('not-an-id');
    const cookie = await signInThroughDashboard(tenant.user.email);
    for (const path of ['/projects/abc/credentials', '/projects/------------------------------------/subjects']) {
      const res = await visit(path, { headers: { cookie } });
      expect(res.status, path).toBe(404);
      expect(h1Of(await res.text())).toBe('Not found');
    }
    expect((await visit('/projects', { headers: { cookie } })).status).toBe(200);
  });

  it('an htmx fragment or a live stream without a session is not a page to return to', async () => {
    const fragment = await visit('/profile', { headers: { 'hx-request': 'true' } });
    expect(fragment.status).toBe(401);
    expect(fragment.headers.get('hx-redirect')).toBe('/sign-in');
    expect(fragment.headers.get('set-cookie') ?? '').not.toContain('posture-return');
    const stream = await visit('/profile', { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(401);
  });

  it('a malformed Referer or an unknown timezone in the display cookie is not a 500', async () => {
    const tenant = await newTenant('odd-headers');
    const cookie = await signInThroughDashboard(tenant.user.email);
    const themed = await post('/preferences/theme', { theme: 'dark' }, { ...FROM_DASHBOARD, cookie, referer: 'http://[not a url' });
    expect(themed.status).toBe(303);
    const odd = await visit('/profile', { headers: { cookie: `${cookie}; __Host-posture-display=tz%3DNot%2FA_Zone%26theme%3Ddark` } });
    expect(odd.status).toBe(200);
  });
});

describe('the rate limit on the dashboard', () => {
  it('a page counts once against the sign-in\'s allowance, however many API calls it makes; past the allowance it is the 429 page', async () => {
    const tenant = await newTenant('page-allowance');
    // Signing in, spending and the pages below in one clock minute (the limiter's window).
    await oneMinuteAhead();
    const cookie = await signInThroughDashboard(tenant.user.email);
    const session = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
    const sid = decodeJwt(session).sid as string;
    // One request left of the 600 a minute (signing in read the preferences: one); the overview makes
    // several calls (its frame and its content).
    for (let i = 0; i < 598; i++) await env.RATE_LIMITER.limit({ key: sid });
    const overview = await visit(`/projects/${tenant.projectId}`, { headers: { cookie } });
    expect(overview.status, (await overview.clone().text()).slice(0, 300)).toBe(200);
    expect(Number(/desc="(\d+) calls"/.exec(overview.headers.get('server-timing') ?? '')?.[1])).toBeGreaterThan(1);
    const next = await visit(`/projects/${tenant.projectId}`, { headers: { cookie } });
    expect(next.status).toBe(429);
    expect(h1Of(await next.text())).toBe('Too many requests');
    // The allowance is the sign-in's, whichever door: the API with the same session is refused too.
    expect((await api('/api/v1/user', { token: session, method: 'GET' })).status).toBe(429);
  }, 60_000);
});
