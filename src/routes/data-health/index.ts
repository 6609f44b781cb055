// Data health (spec 4.12): runs, the per-subject summary and reference resolution, read from the
// project object. "Portfolios set up" is taken to mean the project's storage is set up: until then
// runs and summary answer 404 (portfolios are not set up yet) and resolve 503 `provisioning` (docs/decisions.md).
import { createRouter } from '../../lib/router';
import { withPortfolioData, withProject } from '../../project/client';
import type { HealthRunAnswer, RunPage, SubjectHealth } from '../../project/health';
import type { ResolveAnswer } from '../../project/health-resolve';
import * as routes from './data-health.routes';

export type { HealthRunAnswer };

export const dataHealthRouter = createRouter()
  .openapi(routes.resolve, async (c) => {
    const { projectId } = c.req.valid('param');
    const { ref } = c.req.valid('query');
    return c.json(await withProject<ResolveAnswer>(c.env, projectId, (stub) => stub.resolveHealthRef(ref)), 200);
  })
  .openapi(routes.listRuns, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await withPortfolioData<RunPage>(c.env, projectId, (stub) => stub.listHealthRuns(c.req.valid('query'))), 200);
  })
  .openapi(routes.summary, async (c) => {
    const { projectId } = c.req.valid('param');
    return c.json(await withPortfolioData<{ subjects: SubjectHealth[]; generated_at: string }>(c.env, projectId, (stub) => stub.healthSummary()), 200);
  });
