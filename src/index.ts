// The Worker entry: HTTP (Hono), the MCP server behind OAuth, cron triggers and queue consumers;
// re-exports the Durable Object classes bound in wrangler.toml.
import { app } from './app';
import type { dashboardApp } from './dashboard';
import type { Env } from './env';
import { errorResponse } from './lib/errors';
import { withSecurityHeaders } from './lib/security-headers';
import { isDashboardHost } from './middleware/auth';
import { answerOAuth, AUTHORIZE_PATH, dashboardRefusal, isOAuthPath, MCP_PATH, setOAuthHandlers } from './mcp/oauth';
import { tooManyRequestsPage } from './mcp/page-response';
import { checkPublicRoute } from './middleware/public-limits';
import { requestIdOf } from './middleware/request-id';
import { consumeBatch } from './queues';
import { runScheduled } from './scheduled';

export { AccessEpoch } from './auth/access-cache';
export { ProjectObject } from './project/project-object';

// The dashboard's pages and the MCP server (with the MCP SDK under it) are loaded by the first request
// that needs them: the API's requests, the queue consumers and the Durable Objects never evaluate them,
// so a cold isolate starts sooner, and so does each test file's (docs/decisions.md, "The Worker's entry
// loads the dashboard and the MCP server on first use").
const mcpServer = {
  fetch: async (request: Request, env: Env, ctx: ExecutionContext) => (await import('./mcp/handler')).mcpApiHandler.fetch(request, env, ctx),
};

// The OAuth provider owns /mcp (token checked), /oauth/* and its discovery documents; the API's own
// routes never pass through it.
setOAuthHandlers(mcpServer, { fetch: (request, env, ctx) => app.fetch(request, env, ctx) });

/** On the dashboard host every path is a page but the API's, the OAuth server's and the MCP approval pages. */
const isDashboardPage = (pathname: string) => !pathname.startsWith('/api/') && !isOAuthPath(pathname) && !pathname.startsWith(AUTHORIZE_PATH);

// Pages call the API through this same entry (public limits included), never domain functions.
let dashboard: Promise<ReturnType<typeof dashboardApp>> | undefined;
const dashboardPages = () =>
  (dashboard ??= import('./dashboard').then(({ dashboardApp }) => dashboardApp((request, env, ctx) => answer(request, new URL(request.url), env, ctx))));

async function answer(request: Request, url: URL, env: Env, ctx: ExecutionContext): Promise<Response> {
  // The routes that need no credential are limited per client address before anything else runs.
  const refused = await checkPublicRoute(request, url, env);
  if (refused) {
    const id = requestIdOf(request.headers.get('x-request-id'));
    const retryAfter = Number(refused.options.headers?.['Retry-After'] ?? 60);
    return url.pathname.startsWith(AUTHORIZE_PATH) ? tooManyRequestsPage(id, refused.message, retryAfter) : errorResponse(refused, { 'X-Request-Id': id });
  }
  if (isDashboardHost(request.url, env.DASHBOARD_HOST) && isDashboardPage(url.pathname)) return (await dashboardPages()).fetch(request, env, ctx);
  // People who open the API's address find the dashboard.
  if (url.pathname === '/' && request.method === 'GET') return Response.redirect(env.DASHBOARD_URL, 302);
  if (!isOAuthPath(url.pathname)) return app.fetch(request, env, ctx);
  // Refused before the provider looks at the token: on the dashboard host it would only say 401.
  if (url.pathname.startsWith(MCP_PATH) && isDashboardHost(request.url, env.DASHBOARD_HOST)) return dashboardRefusal(env);
  return answerOAuth(request, url, env, ctx);
}

export default {
  fetch: async (request, env, ctx) => {
    const url = new URL(request.url);
    return withSecurityHeaders(await answer(request, url, env, ctx), url, env);
  },
  scheduled: (controller, env) => runScheduled(controller, env),
  queue: (batch, env, ctx) => consumeBatch(batch, env, ctx),
} satisfies ExportedHandler<Env>;
