// The Worker entry: HTTP (Hono), the MCP server behind OAuth, cron triggers and queue consumers;
// re-exports the Durable Object classes bound in wrangler.toml.
import { app } from './app';
import type { Env } from './env';
import { withSecurityHeaders } from './lib/security-headers';
import { dashboardRefusal, mcpApiHandler } from './mcp/handler';
import { isDashboardHost } from './middleware/auth';
import { isOAuthPath, MCP_PATH, oauthProvider, setOAuthHandlers } from './mcp/oauth';
import { consumeBatch } from './queues';
import { runScheduled } from './scheduled';

export { AccessEpoch } from './auth/access-cache';
export { ProjectObject } from './project/project-object';

// The OAuth provider owns /mcp (token checked), /oauth/* and its discovery documents; the API's own
// routes never pass through it.
setOAuthHandlers(mcpApiHandler, { fetch: (request, env, ctx) => app.fetch(request, env, ctx) });

async function answer(request: Request, url: URL, env: Env, ctx: ExecutionContext): Promise<Response> {
  if (!isOAuthPath(url.pathname)) return app.fetch(request, env, ctx);
  // Refused before the provider looks at the token: on the dashboard host it would only say 401.
  if (url.pathname.startsWith(MCP_PATH) && isDashboardHost(request.url, env.DASHBOARD_HOST)) return dashboardRefusal(env);
  return oauthProvider(env).fetch(request, env, ctx);
}

export default {
  fetch: async (request, env, ctx) => {
    const url = new URL(request.url);
    return withSecurityHeaders(await answer(request, url, env, ctx), url, env);
  },
  scheduled: (controller, env) => runScheduled(controller, env),
  queue: (batch, env, ctx) => consumeBatch(batch, env, ctx),
} satisfies ExportedHandler<Env>;
