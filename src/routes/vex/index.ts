// VEX import and export (triage, issue 23): thin handlers over vex.service.ts.
import type { JsonObject } from '../../lib/json';
import { createRouter } from '../../lib/router';
import { changerOf } from '../../control/changes';
import { exportVex, importVex } from './vex.service';
import * as routes from './vex.routes';

export const vexRouter = createRouter()
  .openapi(routes.importVex, async (c) => {
    const { projectId } = c.req.valid('param');
    const idempotencyKey = c.req.valid('header')['idempotency-key'];
    return c.json(await importVex(c.env, changerOf(c.var, projectId), { document: c.req.valid('json'), idempotencyKey }) as JsonObject as never, 200);
  })
  .openapi(routes.exportVex, async (c) => {
    const { projectId, compositionReportId } = c.req.valid('param');
    const vex = await exportVex(c.env, { orgId: c.var.principal.orgId, projectId, reportId: compositionReportId, format: c.req.valid('query').format });
    return c.body(vex.body, 200, { 'content-type': vex.contentType, 'content-disposition': `attachment; filename="${vex.fileName}"` }) as never;
  });
