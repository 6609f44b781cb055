// `npm run bench:resurvey`: what a re-survey costs next to the first survey of a bundle (issue 22,
// "Re-surveys pay for what changed"; docs/decisions.md, "Unchanged bundles reuse the subject's
// contents" and "A changed bundle writes what changed"). On `wrangler dev` with fresh state, for each
// synthetic SBOM size: the first survey, the same file again (CI on every commit), then a copy with 1%
// of its components changed (versions bumped, components removed and added). Each is measured once
// its renderings, scoring and queued deletions are done:
// - rows written to the project object: each table's rows added or removed (`GET /api/v1/dev/store-figures`
//   before and after). Updates of existing rows (a job's status) are not in it, nor index entries
//   (each `contents` row writes two, each report entry one);
// - the ANALYZE step's time and the survey's (upload complete to survey complete), server timestamps.
// Targets: the unchanged re-survey writes at most 5% of the rows and takes at most 25% of the time of
// the first; the 1%-changed one writes at most 10% of the rows. Settings: BENCH_PORT (8911),
// BENCH_SIZES (5000,20000).
import { join } from 'node:path';
import { readDevVars } from '../scripts/local.mjs';
import { benchService, cli, createPass, generateSbom, projectQuiet, storeFigures, until } from './harness.mjs';

const PORT = Number(process.env.BENCH_PORT || 8911);
const SIZES = (process.env.BENCH_SIZES || '5000,20000').split(',').map(Number);
const TARGETS = { rows: 0.05, time: 0.25, changedRows: 0.1 };

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
    // Where the time went: each step from the upload's end, its start and its length.
    steps: job.steps.filter((s) => s.step_type !== 'UPLOAD' && s.started_at)
      .map((s) => `${s.step_label ?? s.step_type} +${ms(upload.finished_at, s.started_at)}..${ms(upload.finished_at, s.finished_at)} ms`).join(', '),
    surveyMs: ms(upload.finished_at, job.finished_at),
  };
}

const verdict = (ok) => (ok ? 'met' : 'MISSED');
let missed = 0;
try {
  const pass = await createPass(svc.P, svc.session);
  for (const size of SIZES) {
    const file = await generateSbom(join(svc.work, `resurvey-${size}.cdx.json`), size, `resurvey-${size}`);
    const changedFile = await generateSbom(join(svc.work, `resurvey-${size}-changed.cdx.json`), size, `resurvey-${size}`, { changed: 0.01 });
    const first = await survey(file, `resurvey-${size}`, pass);
    const again = await survey(file, `resurvey-${size}`, pass);
    const changed = await survey(changedFile, `resurvey-${size}`, pass);
    if (first.reusedFrom || !again.reusedFrom || changed.reusedFrom) {
      throw new Error(`expected a full first survey, a reused second one and an analysed third one (reused_from: ${first.reusedFrom}, ${again.reusedFrom}, ${changed.reusedFrom})`);
    }
    console.log(`\n${size.toLocaleString('en')} components`);
    for (const [name, r] of [['first survey', first], ['unchanged again', again], ['1% changed', changed]]) {
      console.log(`- ${name}: rows ${r.rows.toLocaleString('en')} (contents ${r.contents.toLocaleString('en')}, report entries ${r.reportEntries.toLocaleString('en')}), `
        + `ANALYZE ${r.analyzeMs} ms, survey ${r.surveyMs} ms (upload complete to survey complete)`);
      console.log(`  rows by table: ${JSON.stringify(r.changes)}`);
      console.log(`  steps: ${r.steps}`);
    }
    const rowsOk = again.rows <= TARGETS.rows * first.rows;
    const timeOk = again.surveyMs <= TARGETS.time * first.surveyMs;
    const changedOk = changed.rows <= TARGETS.changedRows * first.rows;
    missed += Number(!rowsOk) + Number(!timeOk) + Number(!changedOk);
    console.log(`- unchanged, rows: ${pct(again.rows, first.rows)} of the first survey's (target at most ${TARGETS.rows * 100}%): ${verdict(rowsOk)}`);
    console.log(`- unchanged, survey time: ${pct(again.surveyMs, first.surveyMs)} of the first survey's (target at most ${TARGETS.time * 100}%): ${verdict(timeOk)}; `
      + `ANALYZE step ${pct(again.analyzeMs, first.analyzeMs)}`);
    console.log(`- 1% changed, rows: ${pct(changed.rows, first.rows)} of the first survey's (target at most ${TARGETS.changedRows * 100}%): ${verdict(changedOk)}; `
      + `survey time ${pct(changed.surveyMs, first.surveyMs)}, ANALYZE step ${pct(changed.analyzeMs, first.analyzeMs)} (no target)`);
  }
  console.log(missed ? `\n${missed} target(s) missed.` : '\nAll targets met.');
} finally {
  await svc.stop();
}
