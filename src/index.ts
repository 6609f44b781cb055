// The Worker entry: HTTP (Hono), the MCP server behind OAuth, cron triggers and queue consumers;
// re-exports the Durable Object classes bound in wrangler.toml.
import { app } from './app';
import type { Env } from './env';
import { mcpApiHandler } from './mcp/handler';
import { isOAuthPath, oauthProvider, setOAuthHandlers } from './mcp/oauth';
import { consumeBatch } from './queues';
import { runScheduled } from './scheduled';

export { AccessEpoch } from './auth/access-cache';
export { ProjectObject } from './project/project-object';

// The OAuth provider owns /mcp (token checked), /oauth/* and its discovery documents; the API's own
// routes never pass through it.
setOAuthHandlers(mcpApiHandler, { fetch: (request, env, ctx) => app.fetch(request, env, ctx) });

export default {
  fetch: (request, env, ctx) => (isOAuthPath(new URL(request.url).pathname) ? oauthProvider(env).fetch(request, env, ctx) : app.fetch(request, env, ctx)),
  scheduled: (controller, env) => runScheduled(controller, env),
  queue: (batch, env, ctx) => consumeBatch(batch, env, ctx),
} satisfies ExportedHandler<Env>;
