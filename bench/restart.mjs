// `npm run bench:restart`: a survey interrupted by a restart recovers. Uploads a generated SBOM
// (150,000 components; BENCH_COMPONENTS to change) to `wrangler dev`, stops the whole dev server
// (wrangler and workerd, SIGINT to the process group as Ctrl-C would) once the analysis is under way,
// starts it again on the same local state, and measures how long until the survey completes with no
// new upload: the lapsed lease is noticed by the project object's alarm, which sends the work again.
import { join } from 'node:path';
import { waitForService } from '../scripts/local.mjs';
import { benchService, cli, createPass, generateSbom, until } from './harness.mjs';

const PORT = Number(process.env.BENCH_PORT || 8798);
const COMPONENTS = Number(process.env.BENCH_COMPONENTS || 150_000);
/** Stop the server once the analysis step reports this much progress. */
const STOP_AT_PROGRESS = Number(process.env.BENCH_STOP_AT || 30);

const service = await benchService(PORT, 'restart', { group: true });
const { base: BASE, P, session } = service;

try {
  const get = async (path) => {
    const res = await fetch(`${P}${path}`, { headers: { authorization: `Bearer ${session}` } }).catch(() => null);
    return res?.ok ? res.json() : null;
  };
  const pass = await createPass(P, session);
  const file = await generateSbom(join(service.work, 'large.cdx.json'), COMPONENTS, 'bench-restart');
  const upload = await cli(['upload', file, '--api', BASE, '--project', service.projectId], pass);
  const analyze = (survey) => survey?.steps?.find((s) => s.step_type === 'ANALYZE');

  const before = await until(async () => {
    const step = analyze(await get(`/v1/job/${upload.surveyId}`));
    return step?.status === 'RUNNING' && step.progress >= STOP_AT_PROGRESS ? step : null;
  }, 'the analysis did not get under way', 120_000, 100);
  const stoppedAt = await service.restart();
  await waitForService(BASE);
  const upAt = performance.now();
  const done = await until(async () => {
    const survey = await get(`/v1/job/${upload.surveyId}`);
    return survey && ['COMPLETED', 'FAILED'].includes(survey.status) ? survey : null;
  }, 'the survey did not finish within 5 minutes of the restart', 300_000, 250);
  const finishedAt = performance.now();
  const step = analyze(done);
  const bundles = await get('/v1/bundle');

  console.log(`\nbench:restart: ${COMPONENTS} components (${(upload.bytes / 1e6).toFixed(1)} MB); server stopped at ${before.progress}% of the analysis`);
  console.log(`restart: the service answered again ${((upAt - stoppedAt) / 1000).toFixed(1)} s after the stop`);
  console.log(`recovery: survey ${done.status} ${((finishedAt - stoppedAt) / 1000).toFixed(1)} s after the stop (${((finishedAt - upAt) / 1000).toFixed(1)} s after the service was back)`);
  console.log(`the analysis step: attempt ${step?.metadata?.attempt ?? '?'}, sent again ${step?.metadata?.resends ?? 0} time(s), ${JSON.stringify(step?.metadata?.stored ?? {})} stored; bundles in the project: ${bundles?.bundles?.length ?? '?'} (no new upload)`);
} finally {
  await service.stop();
}
