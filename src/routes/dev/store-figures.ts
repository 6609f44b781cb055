// Local development only (behind DEV_SECRET): what `npm run bench:growth` reads to measure how the
// stores grow per organization, project and survey (docs/scaling.md): the project object's SQLite,
// the control database (D1) and the project's R2 objects.
import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/openapi';
import { createRouter } from '../../lib/router';
import { withProjectWork } from '../../project/client';
import { tableFigures, type TableFigures } from '../../project/store-limit';
import { devOnly } from '.';

const Figures = z.record(z.string(), z.object({ rows: z.number(), bytes: z.number() }));
const Kinds = z.record(z.string(), z.object({ objects: z.number(), bytes: z.number() }));

const storeFigures = defineRoute({
  operationId: 'devStoreFigures',
  method: 'get',
  path: '/api/v1/dev/store-figures',
  tags: ['Local development'],
  summary: 'How large the stores are (local instances only)',
  description: 'The project object\'s SQLite size (`databaseSize`) and each of its tables\' rows and value bytes; the control database\'s size (D1 `size_after`) and the same per table; '
    + 'the project\'s R2 objects by kind (`bundles`, `report.json`, `documents`). Reads every row: for benches. 404 unless the instance has a DEV_SECRET.',
  access: 'public',
  errors: [401, 404],
  middleware: [devOnly],
  request: { query: z.object({ projectId: z.uuid() }) },
  responses: {
    200: {
      description: 'The figures.',
      content: {
        'application/json': {
          schema: z.object({
            project: z.object({ databaseSize: z.number(), tables: Figures }),
            control: z.object({ databaseSize: z.number(), tables: Figures }),
            r2: Kinds,
          }),
        },
      },
    },
  },
});

/** The project's R2 objects by kind: bundles, full report documents, rendered documents. */
async function objectKinds(bucket: R2Bucket, projectId: string): Promise<Record<string, { objects: number; bytes: number }>> {
  const kinds: Record<string, { objects: number; bytes: number }> = {};
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: `projects/${projectId}/`, cursor, limit: 1000 });
    for (const object of page.objects) {
      const kind = object.key.includes('/bundles/') ? 'bundles' : object.key.endsWith('/report.json') ? 'report.json' : object.key.includes('/documents/') ? 'documents' : 'other';
      const figures = (kinds[kind] ??= { objects: 0, bytes: 0 });
      figures.objects++;
      figures.bytes += object.size;
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return kinds;
}

export const storeFiguresRouter = createRouter().openapi(storeFigures, async (c) => {
  const { projectId } = c.req.valid('query');
  const project = await withProjectWork<{ databaseSize: number; tables: Record<string, TableFigures> }>(c.env, projectId, (stub) => stub.storeFigures());
  const control = await tableFigures(async (query) => (await c.env.DB.prepare(query).all<Record<string, unknown>>()).results);
  const size = (await c.env.DB.prepare('SELECT 1').run()).meta.size_after ?? 0;
  return c.json({ project, control: { databaseSize: size, tables: control }, r2: await objectKinds(c.env.BUNDLES, projectId) }, 200);
});
