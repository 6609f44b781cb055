// The authorize pages of the MCP server's OAuth flow (spec part 5 rule 9): the person signs in with
// the same email link as the dashboard, then picks the organization and ticks what the assistant may
// do. The OAuth request waits in KV between the steps, bound to the browser that started it by a
// cookie, so a link opened elsewhere (or sent to someone else) approves nothing.
import { AuthorizationError, CimdFetchError, type AuthRequest, type OAuthHelpers } from '@cloudflare/workers-oauth-provider';
import { inArray } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { personPermissions, reachableProjectIds } from '../auth/access';
import { bumpAccessEpoch } from '../auth/access-cache';
import { consumeSignInLink, requestSignIn } from '../auth/sign-in';
import { connectApp } from '../control/connected-apps';
import { controlDb } from '../control/db';
import { organizations } from '../control/schema';
import { activeMemberships, normalizeEmail } from '../control/tenancy';
import type { Env } from '../env';
import type { AppEnv } from '../lib/context';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import { createRouter } from '../lib/router';
import { apiBaseUrl, AUTHORIZE_PATH, keepClientForGrant, oauthApi, onApiOrigin, type AssistantProps } from './oauth';
import { htmlPage } from './page-response';
import { approvePage, checkEmailPage, CONTINUE_PAGE_CSP, continuePage, messagePage, signInPage, type ClientFacts } from './pages';
import { isScope, SCOPE_INFO, SCOPES, type Scope } from '../auth/scopes';

/** How long a started authorization waits for its email link and approval. */
const PENDING_SECONDS = 30 * 60;
const COOKIE = 'posture_authorize';

interface Pending {
  request: AuthRequest;
  client: ClientFacts;
  email?: string;
  userId?: string;
  /** The dashboard vouched for a signed-in person (vouchForAuthorization): one code, for two minutes. */
  handoff?: Handoff;
}

interface Handoff {
  /** SHA-256 (hex) of the one-time code; the code itself is only in the browser's redirect. */
  codeHash: string;
  userId: string;
  email: string;
  expiresAt: number;
}

/** How long the code the dashboard hands over is good for (one redirect away). */
const HANDOFF_SECONDS = 120;
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const pendingKey = (id: string) => `posture:authorize:${id}`;

async function savePending(env: Env, id: string, pending: Pending): Promise<void> {
  await env.OAUTH_KV.put(pendingKey(id), JSON.stringify(pending), { expirationTtl: PENDING_SECONDS });
}

async function readPending(env: Env, id: string | undefined): Promise<Pending | null> {
  return id && REQUEST_ID.test(id) ? env.OAUTH_KV.get<Pending>(pendingKey(id), 'json') : null;
}

const sha256Hex = async (text: string) =>
  [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))].map((b) => b.toString(16).padStart(2, '0')).join('');

/**
 * For the dashboard's "continue with your dashboard sign-in" page: what a waiting authorization asks
 * (the client's self-asserted name, where access goes), or null when there is none by that id.
 */
export async function pendingClient(env: Env, id: string | undefined): Promise<ClientFacts | null> {
  return (await readPending(env, id))?.client ?? null;
}

/**
 * The dashboard vouches that the person signed in there (its session checked by the API) continues
 * this waiting authorization. Answers the address the browser goes on to: `/authorize/dashboard` on
 * the API host with the request id and a one-time code (random, 2 minutes, bound to this request,
 * stored only as its hash). The code is worth nothing without the browser's own authorize cookie, and
 * it carries no credential: the session token never leaves the dashboard's cookie. Null when the
 * request is gone.
 */
export async function vouchForAuthorization(env: Env, id: string, person: { id: string; email: string }): Promise<string | null> {
  const pending = await readPending(env, id);
  if (!pending) return null;
  const code = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const handoff: Handoff = { codeHash: await sha256Hex(code), userId: person.id, email: normalizeEmail(person.email), expiresAt: Date.now() + HANDOFF_SECONDS * 1000 };
  await savePending(env, id, { ...pending, handoff });
  return `${apiBaseUrl(env)}${AUTHORIZE_PATH}/dashboard?${new URLSearchParams({ request: id, code })}`;
}

/** The cookies hono's setCookie/deleteCookie put on the context's answer (copied onto the Response built here). */
const setCookies = (c: Context<AppEnv>): string[] => (c.res.headers as unknown as { getSetCookie(): string[] }).getSetCookie();

/** Every answer is a page (src/mcp/page-response.ts), with the cookies set on the context. */
function page(c: Context<AppEnv>, html: string, status: 200 | 400 = 200, extra?: Headers, csp?: string): Response {
  return htmlPage(html, { status, requestId: c.var.requestId, headers: extra, csp, cookies: setCookies(c) });
}

const startAgain = (c: Context<AppEnv>, message: string) =>
  page(c, messagePage({ title: 'Start again from your assistant', message, status: 'error' }), 400);

/** The waiting authorization a form names, if this browser started it. */
async function pendingOf(c: Context<AppEnv>, id: string | undefined): Promise<Pending | null> {
  if (!id || getCookie(c, COOKIE) !== id) return null;
  return c.env.OAUTH_KV.get<Pending>(pendingKey(id), 'json');
}

const NOT_THIS_BROWSER = 'This sign-in is not waiting in this browser any more: it expired (after 30 minutes), was finished, or the link was opened in another browser. Connect the assistant again and open the emailed link in the same browser.';

async function clientFacts(api: OAuthHelpers, request: AuthRequest): Promise<ClientFacts> {
  const consent = await api.describeConsent(request);
  // The host with its port: on this computer the port is what tells two apps apart.
  return { clientName: consent.clientName, redirectHost: new URL(consent.redirectUri).host, redirectIsLoopback: consent.redirectIsLoopback };
}

/** The organizations a person may approve an assistant for, by name. */
async function organizationsOf(env: Env, userId: string) {
  const db = controlDb(env.DB);
  const ids = (await activeMemberships(db, userId)).map((m) => m.orgId);
  if (!ids.length) return [];
  const rows = await db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(inArray(organizations.id, ids));
  return ids.map((id) => rows.find((r) => r.id === id)!).filter(Boolean);
}

async function approvalPage(c: Context<AppEnv>, id: string, pending: Pending, input: { selectedOrgId?: string; ticked?: readonly Scope[]; error?: string } = {}) {
  const api = oauthApi(c.env);
  const user = await controlDb(c.env.DB).query.users.findFirst({ where: (u, { eq }) => eq(u.id, pending.userId!) });
  const orgs = await organizationsOf(c.env, pending.userId!);
  if (!user || !orgs.length) return startAgain(c, 'This person belongs to no organization, so there is nothing an assistant could work with.');
  const consent = await api.beginConsent(pending.request);
  const connectedApps = await connectedAppsHref(c.env, orgs.find((o) => o.id === input.selectedOrgId)?.id ?? orgs[0]!.id, pending.userId!);
  const ticked = input.ticked ?? SCOPES.filter((scope) => SCOPE_INFO[scope].byDefault);
  return page(c, approvePage({
    ...pending.client, action: `${AUTHORIZE_PATH}/approve`, requestId: id, handle: consent.handle,
    person: { email: user.email, name: user.name }, organizations: orgs, selectedOrgId: input.selectedOrgId,
    scopes: SCOPES.map((scope) => ({ value: scope, label: SCOPE_INFO[scope].label, description: SCOPE_INFO[scope].description, checked: ticked.includes(scope) })),
    error: input.error, connectedAppsHref: connectedApps,
  }), input.error ? 400 : 200, consent.headers);
}

/**
 * Where the person sees and disconnects their connected apps: the Credentials page of a project where
 * they may (it needs `project:edit`), else the dashboard's start. At most the first 20 projects are asked.
 */
async function connectedAppsHref(env: Env, orgId: string, userId: string): Promise<string> {
  const dashboard = env.DASHBOARD_URL.replace(/\/+$/, '');
  for (const projectId of (await reachableProjectIds(env.DB, orgId, userId)).slice(0, 20)) {
    if ((await personPermissions(env.DB, orgId, userId, projectId)).project.has('project:edit')) return `${dashboard}/projects/${projectId}/credentials`;
  }
  return `${dashboard}/`;
}

/**
 * The authorization is over (approved or denied): its waiting request and this browser's cookie go,
 * and the browser is sent back to the assistant (`headers` carry the provider's Location and cookies).
 */
async function finished(c: Context<AppEnv>, id: string, headers: Headers): Promise<Response> {
  await c.env.OAUTH_KV.delete(pendingKey(id));
  deleteCookie(c, COOKIE, { path: AUTHORIZE_PATH });
  const answer = new Headers(headers);
  for (const cookie of setCookies(c)) answer.append('set-cookie', cookie);
  return new Response(null, { status: 302, headers: answer });
}

/**
 * OAuth failures are shown here, never sent to the client's redirect URI: anyone may register a client
 * with any https redirect, so an automatic redirect would make this an open redirector (RFC 9700
 * 4.11.2). Only the person's own decisions (Deny, Allow) go back to the client, from a page naming where.
 */
function authorizationFailure(c: Context<AppEnv>, error: unknown): Response {
  if (error instanceof AuthorizationError || error instanceof CimdFetchError) {
    const message = error instanceof AuthorizationError ? error.description : 'The assistant\'s metadata document could not be fetched.';
    return page(c, messagePage({ title: 'This connection request cannot be used', message, status: 'error' }), 400);
  }
  throw error;
}

const formText = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === 'string' ? value : undefined;
};

/**
 * The pages live on `API_URL`'s origin only: the sign-in cookie and the emailed link must meet there.
 * Reached on another host (127.0.0.1 for localhost), a page says which address to use.
 */
const onApiHost: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = new URL(c.req.url);
  if (onApiOrigin(url, c.env)) return next();
  const base = apiBaseUrl(c.env);
  return page(c, messagePage({
    title: `Use ${base}`,
    message: `This page was opened at ${url.origin}, but Posture signs assistants in only at ${base}. Connect your assistant to ${base}/mcp (remove it and add it again with that address), then start again.`,
    status: 'error',
  }), 400);
};

/** The dashboard's page that continues this authorization with the person signed in there. */
const dashboardHref = (env: Env, id: string) => `${env.DASHBOARD_URL.replace(/\/+$/, '')}/assistant/connect?${new URLSearchParams({ request: id })}`;

export const authorizeRouter = createRouter();
// `/authorize/*` matches `/authorize` itself too.
authorizeRouter.use(`${AUTHORIZE_PATH}/*`, onApiHost);
authorizeRouter
  .get(AUTHORIZE_PATH, async (c) => {
    const api = oauthApi(c.env);
    let request: AuthRequest;
    let client: ClientFacts;
    try {
      request = await api.parseAuthRequest(c.req.raw);
      // OAuth 2.1 and MCP: PKCE (S256) for every client, confidential ones included (the provider asks it of public ones only).
      if (!request.codeChallenge) throw new AuthorizationError('invalid_request', { description: 'This assistant did not use PKCE (code_challenge with S256), which every client must.' });
      client = await clientFacts(api, request);
    } catch (error) {
      return authorizationFailure(c, error);
    }
    const id = newId();
    await savePending(c.env, id, { request, client });
    setCookie(c, COOKIE, id, { path: AUTHORIZE_PATH, httpOnly: true, sameSite: 'Lax', secure: new URL(c.req.url).protocol === 'https:', maxAge: PENDING_SECONDS });
    return page(c, signInPage({ ...client, action: `${AUTHORIZE_PATH}/sign-in`, requestId: id, dashboardHref: dashboardHref(c.env, id) }));
  })
  .post(`${AUTHORIZE_PATH}/sign-in`, async (c) => {
    const form = await c.req.formData();
    const id = formText(form, 'request');
    const pending = await pendingOf(c, id);
    if (!pending || !id) return startAgain(c, NOT_THIS_BROWSER);
    const email = (formText(form, 'email') ?? '').trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320) {
      return page(c, signInPage({ ...pending.client, action: `${AUTHORIZE_PATH}/sign-in`, requestId: id, email, error: 'Enter a valid email address.', dashboardHref: dashboardHref(c.env, id) }), 400);
    }
    const base = apiBaseUrl(c.env);
    // The token travels in the fragment, which browsers never send: no server or proxy log holds it.
    await requestSignIn(controlDb(c.env.DB), c.env, email, {
      linkFor: (token) => `${base}${AUTHORIZE_PATH}/continue?request=${encodeURIComponent(id)}#token=${encodeURIComponent(token)}`,
      clientName: pending.client.clientName,
    });
    await savePending(c.env, id, { ...pending, email: normalizeEmail(email) });
    // The same answer whether or not the address can sign in: nobody learns who has an account.
    return page(c, checkEmailPage({ email, local: ['localhost', '127.0.0.1'].includes(new URL(base).hostname) }));
  })
  .get(`${AUTHORIZE_PATH}/continue`, async (c) => {
    // Opening the link uses nothing up (mail scanners open links): the person confirms with a button.
    // The page's one script moves the link's token from the fragment into the form that button posts.
    const id = c.req.query('request');
    const pending = await pendingOf(c, id);
    if (!pending || !id) return startAgain(c, NOT_THIS_BROWSER);
    return page(c, continuePage({ ...pending.client, action: `${AUTHORIZE_PATH}/continue`, requestId: id }), 200, undefined, CONTINUE_PAGE_CSP);
  })
  .post(`${AUTHORIZE_PATH}/continue`, async (c) => {
    const form = await c.req.formData();
    const id = formText(form, 'request');
    const pending = await pendingOf(c, id);
    if (!pending || !id) return startAgain(c, NOT_THIS_BROWSER);
    let userId: string;
    try {
      const signedIn = await consumeSignInLink(controlDb(c.env.DB), c.env, formText(form, 'token') ?? '', c.var.requestId);
      // The link must be the one sent for this authorization's address.
      if (signedIn.email !== pending.email) throw new ApiError('unauthorized', 'This link was sent for another address.');
      userId = signedIn.user.id;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return page(c, messagePage({ title: 'The sign-in link cannot be used', message: `${error.message} Ask for a new link from the assistant's sign-in page.`, status: 'error' }), 400);
    }
    const signedIn = { ...pending, userId };
    await savePending(c.env, id, signedIn);
    return approvalPage(c, id, signedIn);
  })
  .get(`${AUTHORIZE_PATH}/dashboard`, async (c) => {
    // The dashboard vouched (vouchForAuthorization) and sent the browser here with the one-time code.
    const id = c.req.query('request');
    const stored = await readPending(c.env, id);
    const handoff = stored?.handoff;
    // Presented once, whatever the outcome: a code that failed here (another browser) is gone too.
    if (stored && handoff) await savePending(c.env, id!, { ...stored, handoff: undefined });
    const pending = await pendingOf(c, id);
    if (!pending || !id || !stored) return startAgain(c, NOT_THIS_BROWSER);
    const code = c.req.query('code') ?? '';
    if (!handoff || handoff.expiresAt < Date.now() || !code || (await sha256Hex(code)) !== handoff.codeHash) {
      return page(c, messagePage({ title: 'This step cannot be used', message: 'It was used already or took too long. Use "Continue with your dashboard sign-in" again, or ask for an email link.', status: 'error' }), 400);
    }
    await savePending(c.env, id, { ...stored, handoff: undefined, userId: handoff.userId, email: handoff.email });
    // The code leaves the address bar and the history: the approval page has its own address.
    return new Response(null, { status: 303, headers: { location: `${AUTHORIZE_PATH}/approve?${new URLSearchParams({ request: id })}`, 'cache-control': 'no-store', 'referrer-policy': 'same-origin' } });
  })
  .get(`${AUTHORIZE_PATH}/approve`, async (c) => {
    // The approval step of a request this browser signed in for (by the email link or the dashboard).
    const id = c.req.query('request');
    const pending = await pendingOf(c, id);
    if (!pending?.userId || !id) return startAgain(c, NOT_THIS_BROWSER);
    return approvalPage(c, id, pending);
  })
  .post(`${AUTHORIZE_PATH}/approve`, async (c) => {
    const form = await c.req.formData();
    const id = formText(form, 'request');
    const pending = await pendingOf(c, id);
    if (!pending?.userId || !id) return startAgain(c, NOT_THIS_BROWSER);
    const api = oauthApi(c.env);
    const handle = formText(form, 'handle') ?? '';
    try {
      if (formText(form, 'decision') !== 'approve') return finished(c, id, (await api.denyConsent(c.req.raw, handle)).headers);
      const orgs = await organizationsOf(c.env, pending.userId);
      const orgId = formText(form, 'org');
      const scopes = [...new Set(form.getAll('scope').map(String).filter(isScope))];
      // No organization of theirs, or nothing ticked: ask again on a fresh page, saying what is missing.
      if (!orgs.some((o) => o.id === orgId)) return approvalPage(c, id, pending, { selectedOrgId: orgId, ticked: scopes, error: 'Choose an organization.' });
      if (!scopes.length) return approvalPage(c, id, pending, { selectedOrgId: orgId, ticked: scopes, error: 'Choose at least one permission.' });
      const approved = await api.approveConsent(c.req.raw, handle, { scope: scopes });
      const db = controlDb(c.env.DB);
      const app = await connectApp(db, { orgId: orgId!, userId: pending.userId, clientId: approved.request.clientId, clientName: pending.client.clientName, scopes, traceId: c.var.requestId });
      // The activity log (and anything else cached for the organization) must show the approval now.
      await bumpAccessEpoch(c.env, orgId!);
      const props: AssistantProps = { appJti: app.jti };
      // The grant's user is the approval itself: disconnecting it revokes exactly its grants.
      const { redirectTo } = await api.completeAuthorization({ request: approved.request, userId: app.jti, metadata: { orgId, personId: pending.userId }, scope: scopes, props });
      await keepClientForGrant(c.env, approved.request.clientId);
      const headers = new Headers(approved.headers);
      headers.set('location', redirectTo);
      return finished(c, id, headers);
    } catch (error) {
      return authorizationFailure(c, error);
    }
  });
