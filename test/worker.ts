// The Worker the workerd tests run (vitest.config.mts `main`): the production entry, except that the
// render queue's deliveries are acked unread unless their project asked for them. Every survey
// queues five renderings of each of its three reports, and rendering them beside every test was the
// largest share of the suite's CPU while few tests read a document (docs/decisions.md, "Renderings
// on demand in the tests"). A test that reads documents delivers its project's render work itself to
// the same consumer (`renderDocuments` in test/pipeline.ts), or lets the real queue render its
// project's documents (`liveRenders`, for the tests of the render queue itself).
import type { Env } from '../src/env';
import worker from '../src/index';
import { RENDER_QUEUE } from '../src/queues/render';

export { AccessEpoch, ProjectObject } from '../src/index';

/** The R2 key whose presence lets the real render queue render a project's documents. */
export const liveRendersKey = (projectId: string) => `test/renders-live/${projectId}`;

async function rendersLive(env: Env, body: unknown): Promise<boolean> {
  const projectId = (body as { projectId?: unknown } | null)?.projectId;
  return typeof projectId === 'string' && (await env.BUNDLES.head(liveRendersKey(projectId))) !== null;
}

export default {
  ...worker,
  queue: async (batch, env, ctx) => {
    if (batch.queue !== RENDER_QUEUE) return worker.queue(batch, env, ctx);
    // One message a batch (wrangler.toml max_batch_size = 1): the batch is rendered or held whole.
    const live = await Promise.all(batch.messages.map((m) => rendersLive(env, m.body)));
    if (live.every(Boolean)) return worker.queue(batch, env, ctx);
    batch.ackAll();
  },
} satisfies ExportedHandler<Env>;
