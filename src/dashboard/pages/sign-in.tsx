// The dashboard's sign-in pages: the email form, "check your email", the emailed link's page and
// signing out. The link carries its one-time token in the fragment, which never reaches a server: the
// page's script (static/sign-in.js) copies it into the hidden form and shows that form's button; opening
// the link uses nothing up (mail scanners open links too), the button does. One layout with the MCP pages.
import { Hono } from 'hono';
import { checkEmailPage as checkEmail, messagePage } from '../../mcp/pages';
import { Document, EmailSignInForm, HiddenInput } from '../../mcp/pages/layout';
import { callApi, messageOf, type ApiAnswer } from '../api';
import { ASSET_PATHS } from '../assets.gen';
import type { DashContext, DashEnv } from '../context';
import { renderPage, respond } from '../respond';
import { forgetSession, keepDisplay, keepSession, sessionOf, takeReturn } from '../session-cookie';
import { UUID_PATTERN } from '../../lib/ids';

/** The pages that need no session. */
export const SIGNED_OUT_PATHS = new Set(['/sign-in', '/sign-in/email', '/session', '/sign-out', '/assistant/connect']);

interface Session { jwt: string; expiresAt: string; projectId: string | null }
interface Preferences { timezone?: string }

export function signInPage(input: { email?: string; error?: string; project?: string }): string {
  const error = input.error?.trim() ? input.error : undefined;
  const sessionAction = input.project ? `/session?project=${encodeURIComponent(input.project)}` : '/session';
  return renderPage(
    <Document title="Sign in" script={ASSET_PATHS['sign-in.js']}>
      <h1>Sign in to Posture</h1>
      {/* Shown by the script when the address holds a sign-in link's token. */}
      <form method="post" action={sessionAction} id="link-form" hidden>
        <HiddenInput name="token" value="" />
        <p class="lead">You opened a sign-in link. Continue to sign in in this browser.</p>
        <button type="submit" class="btn btn-primary btn-block">
          Continue signing in
        </button>
      </form>
      <EmailSignInForm action="/sign-in/email" id="email-form" email={input.email} error={error} />
    </Document>,
  );
}

/** "Check your email", the MCP pages' own, offering another link here. */
export const checkEmailPage = (input: { email: string; local: boolean }): string => checkEmail({ ...input, again: <a href="/sign-in">ask for another link</a> });

const formText = async (c: DashContext, name: string) => {
  const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
  const value = form[name];
  return typeof value === 'string' ? value.trim() : '';
};

const call = <T,>(c: DashContext, method: string, path: string, options: { session?: string; body?: unknown } = {}) => callApi<T>(c as never, c.var.entry, method, path, options);

const failed = (c: DashContext, answer: ApiAnswer<unknown>) => {
  const { status } = answer;
  const message = messageOf(answer);
  const shown = ([400, 403, 404, 429] as const).find((s) => s === status) ?? 502;
  return respond(c, messagePage({ title: status === 429 ? 'Too many requests' : 'That did not work', message, status: 'error', retryHref: '/sign-in' }), shown);
};

/**
 * A session on `projectId`: a switch within the sign-in's organization, else in each other organization
 * the person belongs to (an invitation names a project of the organization that invited). Null when
 * the person reaches no such project.
 */
async function sessionOnProject(c: DashContext, signedIn: Session, projectId: string): Promise<Session | null> {
  const here = await call<Session>(c, 'POST', `/api/v1/project/${projectId}/session`, { session: signedIn.jwt });
  if (here.status === 200) return here.body;
  const orgs = await call<{ organizations: { id: string; current: boolean }[] }>(c, 'GET', '/api/v1/user/organization', { session: signedIn.jwt });
  // Newest membership first: an invitation just made it.
  for (const org of orgs.status === 200 ? orgs.body.organizations.filter((o) => !o.current).reverse() : []) {
    const there = await call<Session>(c, 'POST', `/api/v1/org/${org.id}/session`, { session: signedIn.jwt });
    if (there.status !== 200) continue;
    const onProject = await call<Session>(c, 'POST', `/api/v1/project/${projectId}/session`, { session: there.body.jwt });
    if (onProject.status === 200) return onProject.body;
  }
  return null;
}

export const signInRoutes = new Hono<DashEnv>()
  .get('/sign-in', (c) => respond(c, signInPage({ project: c.req.query('project') })))
  // Answered at its own address: the emailed link (`/sign-in#token=…`) opened in this tab is then a new page, not a fragment change.
  .post('/sign-in/email', async (c) => {
    const email = await formText(c, 'email');
    if (!email) return respond(c, signInPage({ error: 'Enter your email address.' }), 400);
    const answer = await call(c, 'POST', '/api/v1/auth/sign-in', { body: { email } });
    if (answer.status === 400) return respond(c, signInPage({ email, error: 'Enter a valid email address, like alice@example.com.' }), 400);
    if (answer.status !== 202) return failed(c, answer);
    return respond(c, checkEmailPage({ email, local: Boolean(c.env.DEV_SECRET) }));
  })
  .post('/session', async (c) => {
    const token = await formText(c, 'token');
    const answer = await call<Session>(c, 'POST', '/api/v1/auth/sign-in/exchange', { body: { token } });
    if (answer.status === 401 || answer.status === 400) {
      return respond(c, messagePage({ title: 'This sign-in link does not work', message: 'It was used already, has expired, or was cut short. Ask for a new one.', status: 'error', retryHref: '/sign-in' }), 400);
    }
    if (answer.status !== 200) return failed(c, answer);
    // An invitation's link lands on its project, in the organization that invited (the sign-in opens in
    // the one the person used last); a sign-in asked for by a page returns there.
    const project = c.req.query('project')?.toLowerCase();
    const invited = project && UUID_PATTERN.test(project) ? await sessionOnProject(c, answer.body, project) : null;
    const session = invited ?? answer.body;
    keepSession(c, session.jwt, session.expiresAt);
    // Times are shown in the person's zone from the first page on.
    const preferences = await call<Preferences>(c, 'GET', '/api/v1/user/preference', { session: session.jwt });
    if (preferences.status === 200 && preferences.body.timezone) keepDisplay(c, { timezone: preferences.body.timezone });
    const back = takeReturn(c);
    return c.redirect(invited ? `/projects/${project}` : back ?? '/', 303);
  })
  .post('/sign-out', async (c) => {
    const session = sessionOf(c);
    if (session) await call(c, 'DELETE', '/api/v1/auth/session', { session });
    forgetSession(c);
    return c.redirect('/sign-in', 303);
  });
