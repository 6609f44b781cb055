// `npm run bench:busy`: does the service keep answering while it analyses a large bundle? Uploads a
// generated SBOM (150,000 components, about 21 MB; BENCH_COMPONENTS to change) with the project's CLI
// to `wrangler dev`, and while it is analysed reads the project, its survey, its job list and the
// health check every 250 ms each. Prints the latency of those reads (p50, p99, max), the longest read of
// all and what it answered, how many were never answered, how many job-update events the job stream
// carried, and how long the analysis took. A read waits at most its project call deadline (20 s) on
// the service side, so none should go unanswered.
import { join } from 'node:path';
import { benchService, cli, createPass, followJobStream, generateSbom, until } from './harness.mjs';

const PORT = Number(process.env.BENCH_PORT || 8797);
const COMPONENTS = Number(process.env.BENCH_COMPONENTS || 150_000);
const INTERVAL_MS = 250;
/** A read not answered within this long counts as lost. */
const LOST_AFTER_MS = 30_000;

const service = await benchService(PORT, 'busy');
const { base: BASE, P, session } = service;

try {
  const get = (url) => fetch(url, { headers: { authorization: `Bearer ${session}` } });
  const pass = await createPass(P, session);
  const file = await generateSbom(join(service.work, 'large.cdx.json'), COMPONENTS, 'bench-large');

  const upload = await cli(['upload', file, '--api', BASE, '--project', service.projectId, '--target', 'bench-large'], pass);
  const queuedAt = performance.now();

  const stream = countStreamEvents(`${P}/v1/job/stream`, session);
  const targets = {
    'GET /api/v1/health': `${BASE}/api/v1/health`,
    'GET P (project)': P,
    'GET P/v1/job/{survey}': `${P}/v1/job/${upload.surveyId}`,
    'GET P/v1/job (list)': `${P}/v1/job?limit=50`,
  };
  const samples = Object.fromEntries(Object.keys(targets).map((name) => [name, { times: [], lost: 0 }]));
  const pending = new Set();
  let finished = null;
  let analysisSeconds = null;
  /** The longest answered read: which, how long, and what it answered. */
  let longest = null;
  const timers = Object.entries(targets).map(([name, url], i) => setTimeout(() => {
    const tick = () => {
      const started = performance.now();
      const read = timed(get(url), LOST_AFTER_MS).then(async (res) => {
        if (!res) return samples[name].lost++;
        const body = await res.json().catch(() => null);
        const ms = performance.now() - started;
        samples[name].times.push(ms);
        if (!longest || ms > longest.ms) longest = { name, ms, status: res.status, code: body?.code ?? null };
        if (name === 'GET P/v1/job/{survey}' && body && ['COMPLETED', 'FAILED'].includes(body.status) && !finished) {
          finished = body;
          analysisSeconds = (performance.now() - queuedAt) / 1000;
        }
      });
      pending.add(read);
      read.finally(() => pending.delete(read));
    };
    tick();
    timers.push(setInterval(tick, INTERVAL_MS));
  }, (INTERVAL_MS / 4) * i));
  await until(() => finished, 'the analysis did not finish within 10 minutes', 600_000, 100);
  for (const timer of timers) clearInterval(timer), clearTimeout(timer);
  await Promise.all([...pending]);
  const events = stream.stop();

  const analyze = finished.steps?.find((s) => s.step_type === 'ANALYZE');
  console.log(`\nbench:busy: ${COMPONENTS} components (${(upload.bytes / 1e6).toFixed(1)} MB), survey ${finished.status}`);
  console.log(`analysis: ${analysisSeconds.toFixed(1)} s from upload complete to survey finished (client side); ANALYZE step ${stepSeconds(analyze)} s (server side)`);
  console.log(`job stream: ${events.updates} job-update events during the analysis (${events.progressValues} distinct progress values of the ANALYZE step)\n`);
  console.log('| read (every 250 ms) | answered | lost | p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, { times, lost }] of Object.entries(samples)) {
    const sorted = [...times].sort((a, b) => a - b);
    console.log(`| ${name} | ${times.length} | ${lost} | ${pct(sorted, 50)} | ${pct(sorted, 99)} | ${sorted.at(-1)?.toFixed(0) ?? '-'} |`);
  }
  const lost = Object.values(samples).reduce((n, s) => n + s.lost, 0);
  console.log(`\nlongest read: ${longest ? `${longest.ms.toFixed(0)} ms, ${longest.name}, answered ${longest.status}${longest.code ? ` ${longest.code}` : ''}` : 'none answered'}; ${lost} read(s) not answered within ${LOST_AFTER_MS / 1000} s`);
} finally {
  await service.stop();
}

function pct(sorted, p) {
  if (!sorted.length) return '-';
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(0);
}

function stepSeconds(step) {
  if (!step?.started_at || !step?.finished_at) return '?';
  return ((Date.parse(step.finished_at) - Date.parse(step.started_at)) / 1000).toFixed(1);
}

/** The response, or null when none came within `ms`. */
function timed(promise, ms) {
  return Promise.race([promise.catch(() => null), new Promise((r) => setTimeout(() => r(null), ms))]);
}

/** Counts job-update events on the project's job stream until stopped. */
function countStreamEvents(url, session) {
  const counts = { updates: 0, progress: new Set() };
  const stream = followJobStream(url, session, (job) => {
    counts.updates++;
    if (job.step_type === 'ANALYZE') counts.progress.add(job.progress);
  });
  return { stop: () => (stream.stop(), { updates: counts.updates, progressValues: counts.progress.size }) };
}
