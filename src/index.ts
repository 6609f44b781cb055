// The Worker entry: HTTP (Hono) and, as the data plane lands, queue consumers and cron triggers;
// re-exports the Durable Object classes bound in wrangler.toml.
import { app } from './app';
import type { Env } from './env';

export { ProjectObject } from './project/project-object';

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
