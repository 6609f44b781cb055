// `npm run bench:resurvey`: what a re-survey of an unchanged bundle costs next to the first survey of it
// (issue 22, "Re-surveys pay for what changed"; docs/decisions.md, "Unchanged bundles reuse the
// subject's contents"). On `wrangler dev` with fresh state, for each synthetic SBOM size: the first
// survey, then the same file again (CI on every commit). Each is measured once its renderings, scoring
// and queued deletions are done:
// - rows written to the project object: each table's rows added or removed (`GET /api/v1/dev/store-figures`
//   before and after). Updates of existing rows (a job's status) are not in it, nor index entries
//   (each `contents` row writes two, each report entry one): both the same for the two surveys but for
//   the content rows, which the re-survey does not write;
// - the ANALYZE step's time and the survey's (upload complete to survey complete), server timestamps.
// Targets: the unchanged re-survey writes at most 5% of the rows and takes at most 25% of the time of
// the first. Settings: BENCH_PORT (8911), BENCH_SIZES (5000,20000).
import { join } from 'node:path';
import { readDevVars } from '../scripts/local.mjs';
import { benchService, cli, createPass, generateSbom, projectQuiet, storeFigures, until } from './harness.mjs';

const PORT = Number(process.env.BENCH_PORT || 8911);
const SIZES = (process.env.BENCH_SIZES || '5000,20000').split(',').map(Number);
const TARGETS = { rows: 0.05, time: 0.25 };

const svc = await benchService(PORT, 'resurvey');
const { DEV_SECRET } = readDevVars();
const session = { authorization: `Bearer ${svc.session}`, 'content-type': 'application/json' };

const tables = async () => (await storeFigures(svc, DEV_SECRET)).project.tables;

/** Rows added or removed per table between two figures (tables that moved only). */
function rowChanges(before, after) {
  return Object.fromEntries(Object.keys({ ...before, ...after })
    .map((name) => [name, (after[name]?.rows ?? 0) - (before[name]?.rows ?? 0)]).filter(([, n]) => n !== 0));
}

const quiet = () => projectQuiet(svc, DEV_SECRET);

const ms = (from, to) => Date.parse(to) - Date.parse(from);
const pct = (part, whole) => `${((100 * part) / whole).toFixed(1)}%`;

async function survey(file, target, pass) {
  await until(quiet, 'the previous survey\'s work did not finish in 5 minutes', 300_000, 250);
  const before = await tables();
  const { surveyId } = await cli(['upload', file, '--api', svc.base, '--project', svc.projectId, '--target', target, '--wait', '--timeout', '600'], pass);
  await until(quiet, 'the survey\'s work did not finish in 5 minutes', 300_000, 250);
  const job = await (await fetch(`${svc.P}/v1/job/${surveyId}`, { headers: session })).json();
  if (job.status !== 'COMPLETED') throw new Error(`survey ${surveyId} ${job.status}: ${job.message}`);
  const upload = job.steps.find((s) => s.step_type === 'UPLOAD');
  const analyze = job.steps.find((s) => s.step_type === 'ANALYZE');
  const changes = rowChanges(before, await tables());
  return {
    reusedFrom: analyze.metadata.reused_from ?? null,
    rows: Object.values(changes).reduce((n, d) => n + Math.abs(d), 0),
    contents: changes.contents ?? 0,
    reportEntries: changes.report_entries ?? 0,
    changes,
    analyzeMs: ms(analyze.started_at, analyze.finished_at),
    surveyMs: ms(upload.finished_at, job.finished_at),
  };
}

const verdict = (ok) => (ok ? 'met' : 'MISSED');
let missed = 0;
try {
  const pass = await createPass(svc.P, svc.session);
  for (const size of SIZES) {
    const file = await generateSbom(join(svc.work, `resurvey-${size}.cdx.json`), size, `resurvey-${size}`);
    const first = await survey(file, `resurvey-${size}`, pass);
    const again = await survey(file, `resurvey-${size}`, pass);
    if (first.reusedFrom || !again.reusedFrom) throw new Error(`expected a full first survey and a reused second one (reused_from: ${first.reusedFrom}, ${again.reusedFrom})`);
    console.log(`\n${size.toLocaleString('en')} components`);
    for (const [name, r] of [['first survey', first], ['unchanged again', again]]) {
      console.log(`- ${name}: rows ${r.rows.toLocaleString('en')} (contents ${r.contents.toLocaleString('en')}, report entries ${r.reportEntries.toLocaleString('en')}), `
        + `ANALYZE ${r.analyzeMs} ms, survey ${r.surveyMs} ms (upload complete to survey complete)`);
      console.log(`  rows by table: ${JSON.stringify(r.changes)}`);
    }
    const rowsOk = again.rows <= TARGETS.rows * first.rows;
    const timeOk = again.surveyMs <= TARGETS.time * first.surveyMs;
    missed += Number(!rowsOk) + Number(!timeOk);
    console.log(`- rows: ${pct(again.rows, first.rows)} of the first survey's (target at most ${TARGETS.rows * 100}%): ${verdict(rowsOk)}`);
    console.log(`- survey time: ${pct(again.surveyMs, first.surveyMs)} of the first survey's (target at most ${TARGETS.time * 100}%): ${verdict(timeOk)}; `
      + `ANALYZE step ${pct(again.analyzeMs, first.analyzeMs)}`);
  }
  console.log(missed ? `\n${missed} target(s) missed.` : '\nAll targets met.');
} finally {
  await svc.stop();
}
