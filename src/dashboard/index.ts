// The dashboard: server-rendered pages answered on DASHBOARD_HOST (every path but /api/*, which stays
// the API). Public: signing in (pages/sign-in.tsx). Everything else needs the session cookie: the frame
// (who, where, what they may do) is loaded first, switching the session to the project a
// /projects/{projectId}/… address names, then the area's routes answer (pages/<area>.tsx, listed in
// areas.ts). Pages call the API in-process (api.ts); its refusals become pages (errors.ts); a
// state-changing request from another origin is refused.
import { Hono, type MiddlewareHandler } from 'hono';
import { requestId } from '../middleware/request-id';
import { ApiRefusal, type Entry } from './api';
import type { DashEnv } from './context';
import { refusalPage } from './errors';
import { loadFrame, pageSession, toSignIn } from './frame';
import { accountRoutes } from './pages/account';
import { activityRoutes } from './pages/activity';
import { assistantRoutes } from './pages/assistant';
import { dataHealthRoutes } from './pages/data-health';
import { reportsRoutes } from './pages/reports';
import { credentialsRoutes } from './pages/credentials';
import { peopleRoutes } from './pages/people';
import { settingsRoutes } from './pages/settings';
import { portfolioRoutes } from './pages/portfolios/index';
import { projectRoutes } from './pages/projects';
import { signInRoutes, SIGNED_OUT_PATHS } from './pages/sign-in';
import { subjectRoutes } from './pages/subjects';
import { triageRoutes } from './pages/triage';
import { messageResponse } from './respond';

const PROJECT_PATH = /^\/projects\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/i;
/** The organization-level routes under /projects/ (the list's own forms); any other segment there must be a project id. */
const PROJECTS_LIST_PATH = /^\/projects(?:\/(?:go|rename|delete|restore))?\/?$/;

/** A form post from another site (or with no Origin a browser would send) changes nothing. */
const sameOrigin: MiddlewareHandler<DashEnv> = async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.header('origin') !== new URL(c.env.DASHBOARD_URL).origin) {
    return messageResponse(c, { title: 'Refused', message: 'This form was sent from another site; nothing was changed.', status: 403, retryHref: '/' });
  }
  return next();
};

/** Every page but the signed-out ones: the session (switched to the address's project) and the frame. */
const signedIn: MiddlewareHandler<DashEnv> = async (c, next) => {
  if (SIGNED_OUT_PATHS.has(c.req.path)) return next();
  const projectId = PROJECT_PATH.exec(c.req.path)?.[1]?.toLowerCase();
  const session = await pageSession(c, projectId);
  if (!session) return toSignIn(c);
  c.set('frame', await loadFrame(c, session));
  // `/projects/abc/…` names no project: it must not fall through to the session's own.
  if (!projectId && c.req.path.startsWith('/projects/') && !PROJECTS_LIST_PATH.test(c.req.path)) {
    return messageResponse(c, { title: 'Not found', status: 404, message: 'There is nothing at this address that you can see.', retryHref: '/' });
  }
  return next();
};

export function dashboardApp(entry: Entry) {
  const app = new Hono<DashEnv>();
  app.use('*', requestId());
  app.use('*', async (c, next) => {
    c.set('entry', entry);
    c.set('nonce', crypto.randomUUID().replace(/-/g, ''));
    return next();
  });
  app.use('*', sameOrigin);
  app.use('*', signedIn);

  app.route('/', signInRoutes);
  app.route('/', accountRoutes);
  app.route('/', activityRoutes);
  app.route('/', dataHealthRoutes);
  app.route('/', assistantRoutes);
  app.route('/', reportsRoutes);
  app.route('/', credentialsRoutes);
  app.route('/', peopleRoutes);
  app.route('/', settingsRoutes);
  app.route('/', portfolioRoutes);
  app.route('/', subjectRoutes);
  app.route('/', triageRoutes);
  app.route('/', projectRoutes);

  app.onError((error, c) => {
    if (error instanceof ApiRefusal) return refusalPage(c, error);
    console.error(JSON.stringify({ level: 'error', requestId: c.var.requestId, message: 'dashboard page failed', error: String((error as Error)?.stack ?? error) }));
    return messageResponse(c, { title: 'Something went wrong', message: `The page could not be shown (request ${c.var.requestId}).`, status: 500, retryHref: '/' });
  });
  app.notFound((c) => messageResponse(c, { title: 'Page not found', message: 'There is no page at this address.', status: 404, retryHref: '/' }));
  return app;
}
