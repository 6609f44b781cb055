// The Worker entry: HTTP (Hono), cron triggers and, as the data plane lands, queue consumers;
// re-exports the Durable Object classes bound in wrangler.toml.
import { app } from './app';
import type { Env } from './env';
import { consumeBatch } from './queues';
import { runScheduled } from './scheduled';

import { PostureMcp } from './mcp/agent';

export { AccessEpoch } from './auth/access-cache';
export { ProjectObject } from './project/project-object';
export { PostureMcp };

// The MCP endpoint speaks JSON-RPC over Streamable HTTP, not the REST API: it stays outside Hono.
const mcp = PostureMcp.serve('/mcp', { binding: 'MCP_OBJECT' });
const isMcp = (request: Request) => /^\/mcp(\/|$)/.test(new URL(request.url).pathname);

export default {
  fetch: (request, env, ctx) => (isMcp(request) ? mcp.fetch(request, env, ctx) : app.fetch(request, env, ctx)),
  scheduled: (controller, env) => runScheduled(controller, env),
  queue: (batch, env, ctx) => consumeBatch(batch, env, ctx),
} satisfies ExportedHandler<Env>;
