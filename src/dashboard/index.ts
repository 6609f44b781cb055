// The dashboard: server-rendered pages answered on DASHBOARD_HOST (every path but /api/*, which stays
// the API). This is its first part, signing in: the email form, the emailed link's page exchanging the
// token for the session cookie, the landing page, and signing out (issue 21 builds the rest on it).
// Pages call the API in-process (api.ts); a state-changing request from another origin is refused.
import { Hono, type Context } from 'hono';
import { decodeJwt } from 'jose';
import type { AppEnv } from '../lib/context';
import { CONTINUE_PAGE_CSP, messagePage } from '../mcp/pages';
import { requestId } from '../middleware/request-id';
import { callApi, type ApiErrorBody, type Entry } from './api';
import { homePage } from './pages/home';
import { checkEmailPage, signInPage } from './pages/sign-in';
import { forgetSession, keepSession, sessionOf } from './session-cookie';

/** Pages load scripts of this origin only, and forms post to it only. */
export const DASHBOARD_CSP = `${CONTINUE_PAGE_CSP}; form-action 'self'`;

interface Session { jwt: string; expiresAt: string; projectId: string | null }
interface MyProjects { org_name: string; projects: { uuid: string; name: string }[] }
interface Profile { name: string; email: string }

function page(c: Context<AppEnv>, html: string, status: 200 | 400 | 403 | 404 | 429 | 500 | 502 | 503 = 200): Response {
  c.header('Content-Security-Policy', DASHBOARD_CSP);
  c.header('Cache-Control', 'no-store');
  // With the service's default `no-referrer`, browsers send `Origin: null` on a form post, and the
  // origin check could not tell the dashboard's own forms from another site's.
  c.header('Referrer-Policy', 'same-origin');
  return c.html(html, status);
}

const failure = (c: Context<AppEnv>, status: number, body: unknown, retryHref = '/sign-in') => {
  const message = (body as ApiErrorBody | null)?.error?.message ?? 'Something went wrong.';
  const shown = ([400, 403, 404, 429, 503] as const).find((s) => s === status) ?? 500;
  return page(c, messagePage({ title: status === 429 ? 'Too many requests' : 'That did not work', message, status: 'error', retryHref }), shown);
};

/** A form post from another site (or with no Origin a browser would send) changes nothing. */
function fromDashboard(c: Context<AppEnv>): boolean {
  return c.req.header('origin') === new URL(c.env.DASHBOARD_URL).origin;
}

const formText = async (c: Context<AppEnv>, name: string) => {
  const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
  const value = form[name];
  return typeof value === 'string' ? value.trim() : '';
};

export function dashboardApp(entry: Entry) {
  const app = new Hono<AppEnv>();
  app.use('*', requestId());
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST' && !fromDashboard(c)) {
      return page(c, messagePage({ title: 'Refused', message: 'This form was sent from another site; nothing was changed.', status: 'error', retryHref: '/' }), 403);
    }
    return next();
  });

  app.get('/sign-in', (c) => page(c, signInPage({ project: c.req.query('project') })));

  // Answered at its own address: the emailed link (`/sign-in#token=…`) opened in this tab is then a new page, not a fragment change.
  app.post('/sign-in/email', async (c) => {
    const email = await formText(c, 'email');
    if (!email) return page(c, signInPage({ error: 'Enter your email address.' }), 400);
    const answer = await callApi(c, entry, 'POST', '/api/v1/auth/sign-in', { body: { email } });
    if (answer.status === 400) return page(c, signInPage({ email, error: 'Enter a valid email address, like alice@example.com.' }), 400);
    if (answer.status !== 202) return failure(c, answer.status, answer.body);
    return page(c, checkEmailPage({ email, local: Boolean(c.env.DEV_SECRET) }));
  });

  app.post('/session', async (c) => {
    const token = await formText(c, 'token');
    const answer = await callApi<Session>(c, entry, 'POST', '/api/v1/auth/sign-in/exchange', { body: { token } });
    if (answer.status === 401 || answer.status === 400) {
      return page(c, messagePage({ title: 'This sign-in link does not work', message: 'It was used already, has expired, or was cut short. Ask for a new one.', status: 'error', retryHref: '/sign-in' }), 400);
    }
    if (answer.status !== 200) return failure(c, answer.status, answer.body);
    keepSession(c, answer.body.jwt, answer.body.expiresAt);
    return c.redirect('/', 303);
  });

  app.get('/', async (c) => {
    const session = sessionOf(c);
    if (!session) return c.redirect('/sign-in', 303);
    const [user, mine] = await Promise.all([
      callApi<Profile>(c, entry, 'GET', '/api/v1/user', { session }),
      callApi<MyProjects>(c, entry, 'GET', '/api/v1/user/project', { session }),
    ]);
    const refused = [user, mine].find((a) => a.status !== 200);
    if (refused?.status === 401) {
      forgetSession(c);
      return c.redirect('/sign-in', 303);
    }
    if (refused) return failure(c, refused.status, refused.body, '/');
    // The API verified the session just now; its project claim only marks the current project.
    const { prj } = decodeJwt(session);
    return page(c, homePage({
      user: user.body, orgName: mine.body.org_name, projects: mine.body.projects.map((p) => ({ id: p.uuid, name: p.name })), currentProjectId: typeof prj === 'string' ? prj : null,
    }));
  });

  app.post('/sign-out', async (c) => {
    const session = sessionOf(c);
    if (session) await callApi(c, entry, 'DELETE', '/api/v1/auth/session', { session });
    forgetSession(c);
    return c.redirect('/sign-in', 303);
  });

  app.notFound((c) => page(c, messagePage({ title: 'Page not found', message: 'There is no page at this address.', status: 'error', retryHref: '/' }), 404));
  return app;
}
