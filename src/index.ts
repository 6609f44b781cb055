// The Worker entry: HTTP (Hono), cron triggers and, as the data plane lands, queue consumers;
// re-exports the Durable Object classes bound in wrangler.toml.
import { app } from './app';
import type { Env } from './env';
import { runScheduled } from './scheduled';

export { AccessEpoch } from './auth/access-cache';
export { ProjectObject } from './project/project-object';

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  scheduled: (controller, env) => runScheduled(controller, env),
} satisfies ExportedHandler<Env>;
