// `npm run bench:growth`: how each store grows per organization, per project and per survey, measured on
// `wrangler dev` with real data (the OSV starter set, fixture SBOMs and CBOMs, a synthetic SBOM), and
// which limit each scenario of docs/scaling.md reaches first. The figures come from the stores
// themselves (`GET /api/v1/dev/store-figures`): the project object's `databaseSize` and each table's rows
// and value bytes, D1's `size_after` and its tables, the project's R2 objects by kind.
//
// Each survey is measured twice: the first survey of its subject, and a re-survey of the same bundle
// (what CI does on every commit; the previous contents are replaced, so a re-survey adds less).
// Settings: BENCH_PORT (8820), BENCH_COMPONENTS (5000, the synthetic SBOM), ORG_COUNT (5), REPEATS (20 re-surveys
// of one small SBOM for the steady growth per survey),
// OSV_RECORDS (400000, the OSV records of the refreshed ecosystems, an estimate: see docs/scaling.md).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { readDevVars, root } from '../scripts/local.mjs';
import { benchService, cli, createPass, generateSbom, projectQuiet, storeFigures, until } from './harness.mjs';

const PORT = Number(process.env.BENCH_PORT || 8820);
const COMPONENTS = Number(process.env.BENCH_COMPONENTS || 5000);
const ORG_COUNT = Number(process.env.ORG_COUNT || 5);
const OSV_RECORDS = Number(process.env.OSV_RECORDS || 400_000);
const REPEATS = Number(process.env.REPEATS || 20);
const GB = 1e9;
const LIMITS = { projectStore: 10 * GB, projectGuard: 9 * GB, controlDb: 10 * GB };

const svc = await benchService(PORT, 'growth');
const { DEV_SECRET } = readDevVars();
const session = { authorization: `Bearer ${svc.session}`, 'content-type': 'application/json' };

const figures = (projectId = svc.projectId) => storeFigures(svc, DEV_SECRET, projectId);

/** What changed between two figures: size, and rows and bytes per table (only tables that moved). */
function delta(before, after) {
  const tables = (a, b) => Object.fromEntries(Object.keys(b).map((name) => [name, {
    rows: b[name].rows - (a[name]?.rows ?? 0), bytes: b[name].bytes - (a[name]?.bytes ?? 0),
  }]).filter(([, d]) => d.rows || d.bytes));
  const r2 = Object.fromEntries(Object.keys(after.r2).map((kind) => [kind, {
    objects: after.r2[kind].objects - (before.r2[kind]?.objects ?? 0), bytes: after.r2[kind].bytes - (before.r2[kind]?.bytes ?? 0),
  }]));
  return {
    projectSize: after.project.databaseSize - before.project.databaseSize, project: tables(before.project.tables, after.project.tables),
    controlSize: after.control.databaseSize - before.control.databaseSize, control: tables(before.control.tables, after.control.tables), r2,
  };
}

const quiet = () => projectQuiet(svc, DEV_SECRET);

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
const sum = (tables, names) => names.reduce((n, name) => n + (tables[name]?.bytes ?? 0), 0);

try {
  // ---- OSV records (D1, shared by every organization) ----
  const beforeOsv = await figures();
  execFileSync(process.execPath, [join(root, 'scripts/vulndb-import.mjs'), join(root, 'vulndb/starter'), '--persist-to', join(svc.work, 'state'), '--quiet'], { stdio: 'inherit' });
  const osv = delta(beforeOsv, await figures());
  const osvRecords = osv.control.vuln_records?.rows ?? 0;
  const osvPerRecord = osv.controlSize / osvRecords;

  // ---- organizations and projects (D1; an empty project object) ----
  const beforeOrgs = await figures();
  for (let i = 0; i < ORG_COUNT; i++) {
    const res = await fetch(`${svc.base}/api/v1/dev/session`, { method: 'POST', headers: { 'x-dev-secret': DEV_SECRET, 'content-type': 'application/json' }, body: JSON.stringify({ email: `growth-${Date.now()}-${i}@example.test` }) });
    if (!res.ok) throw new Error(`sign-up: ${res.status} ${await res.text()}`);
  }
  const orgs = delta(beforeOrgs, await figures());
  const { orgId } = await (await fetch(`${svc.base}/api/v1/dev/seed`, { method: 'POST', headers: { 'x-dev-secret': DEV_SECRET } })).json();
  const beforeProjects = await figures();
  let newProject = null;
  for (let i = 0; i < ORG_COUNT; i++) {
    const res = await fetch(`${svc.base}/api/v1/org/${orgId}/project`, { method: 'POST', headers: session, body: JSON.stringify({ name: `growth ${Date.now()} ${i}` }) });
    if (!res.ok) throw new Error(`project: ${res.status} ${await res.text()}`);
    const made = await res.json();
    newProject ??= { id: made.uuid, headers: { authorization: `Bearer ${made.jwt}` } };
  }
  const projects = delta(beforeProjects, await figures());
  await until(async () => (await fetch(`${svc.base}/api/v1/project/${newProject.id}/v1/job?limit=1`, { headers: newProject.headers })).status === 200, 'the new project was not set up', 30_000);
  const emptyProject = (await figures(newProject.id)).project.databaseSize;

  // ---- surveys: first and repeated, per bundle ----
  const pass = await createPass(svc.P, svc.session);
  const synthetic = await generateSbom(join(svc.work, `synthetic-${COMPONENTS}.cdx.json`), COMPONENTS, `growth-synthetic-${COMPONENTS}`);
  const bundles = [
    join(root, 'test/fixtures/sbom/npm__juice-shop-14.1.1.cdx-1.4.json'),
    join(root, 'test/fixtures/sbom/maven__dependency-track-apiserver-4.5.0.cdx-1.4.json'),
    join(root, 'test/fixtures/sbom/deb__pop-os-22.04-host.cdx-1.4.json'),
    join(root, 'test/fixtures/cbom/ibm-cbomkit-theia__temurin-jdk-image.cbom.json'),
    synthetic,
  ];
  /** One survey of `file` as subject `target`, measured once its renderings, scoring and deletions are done. */
  async function survey(file, target) {
    await until(quiet, 'the previous survey\'s work did not finish in 5 minutes', 300_000, 250);
    const before = await figures();
    const { surveyId } = await cli(['upload', file, '--api', svc.base, '--project', svc.projectId, '--target', target, '--wait', '--timeout', '600'], pass);
    await until(quiet, 'the survey\'s work did not finish in 5 minutes', 300_000, 250);
    const job = await (await fetch(`${svc.P}/v1/job/${surveyId}`, { headers: session })).json();
    const stored = job.steps.find((s) => s.step_type === 'ANALYZE')?.metadata?.stored ?? {};
    return { status: job.status, items: (stored.components ?? 0) + (stored.cryptoAssets ?? 0), ...delta(before, await figures()) };
  }
  const rows = [];
  for (const [i, file] of bundles.entries()) {
    const name = file.split('/').pop();
    for (const run of ['first', 'again']) rows.push({ name, run, ...(await survey(file, `growth-${i}`)) });
  }
  // Steady state: many re-surveys of one small bundle, so D1's and the object's 4 kB pages average out.
  const repeated = [];
  for (let i = 0; i < REPEATS; i++) repeated.push(await survey(bundles[1], 'growth-1'));
  const steady = {
    projectSize: repeated.reduce((n, r) => n + r.projectSize, 0) / REPEATS,
    controlSize: repeated.reduce((n, r) => n + r.controlSize, 0) / REPEATS,
    activityRows: repeated.reduce((n, r) => n + (r.control.activity?.rows ?? 0), 0) / REPEATS,
    tables: Object.fromEntries([...new Set(repeated.flatMap((r) => Object.keys(r.project)))].map((n) => [n, {
      rows: repeated.reduce((m, r) => m + (r.project[n]?.rows ?? 0), 0) / REPEATS, bytes: repeated.reduce((m, r) => m + (r.project[n]?.bytes ?? 0), 0) / REPEATS,
    }])),
  };

  // ---- the figures ----
  console.log(`\nbench:growth on this machine (numbers from local workerd's SQLite; D1 and Durable Objects in production store the same rows)`);
  console.log(`\nOSV records (D1): ${osvRecords} real records of the starter set: ${mb(osv.controlSize)} of D1 (${kb(osvPerRecord)} a record with its package rows and indexes; values: records ${kb((osv.control.vuln_records?.bytes ?? 0) / osvRecords)}, vuln_packages ${osv.control.vuln_packages?.rows ?? 0} rows ${kb((osv.control.vuln_packages?.bytes ?? 0) / osvRecords)} a record)`);
  console.log(`  at ${OSV_RECORDS.toLocaleString('en')} records (estimate for the refreshed ecosystems): ${(OSV_RECORDS * osvPerRecord / GB).toFixed(2)} GB of D1`);
  const perOrg = orgs.controlSize / ORG_COUNT;
  console.log(`\nPer organization (sign-up: organization, person, teams, roles, first project, credentials, activity), ${ORG_COUNT} measured: ${kb(perOrg)} of D1 file; values ${kb(Object.values(orgs.control).reduce((n, t) => n + t.bytes, 0) / ORG_COUNT)} in ${Object.entries(orgs.control).map(([n, t]) => `${n} ${(t.rows / ORG_COUNT).toFixed(1)}`).join(', ')} rows`);
  const perProject = projects.controlSize / ORG_COUNT;
  console.log(`Per project (D1): ${kb(perProject)} of D1 file; values ${kb(Object.values(projects.control).reduce((n, t) => n + t.bytes, 0) / ORG_COUNT)}; an empty project object: ${kb(emptyProject)}`);
  const credentials = (await figures()).control.tables.credentials;
  const activity = (await figures()).control.tables.activity;
  console.log(`A credential row: ${(credentials.bytes / credentials.rows).toFixed(0)} bytes of values; an activity entry: ${(activity.bytes / activity.rows).toFixed(0)} bytes of values (D1 adds indexes and pages)`);

  console.log('\nPer survey (project object SQLite, D1, R2):');
  console.log('bundle                                              run     items  object +size  contents     entries      jobs+other   D1 activity  R2 bundle   R2 report   R2 documents');
  for (const r of rows) {
    const other = Object.entries(r.project).filter(([n]) => !['contents', 'report_entries'].includes(n)).reduce((n, [, t]) => n + t.bytes, 0);
    console.log(`${r.name.slice(0, 50).padEnd(52)}${r.run.padEnd(8)}${String(r.items).padStart(5)}  ${mb(r.projectSize).padStart(12)}  ${kb(sum(r.project, ['contents'])).padStart(11)}  ${kb(sum(r.project, ['report_entries'])).padStart(11)}  ${kb(other).padStart(11)}  ${`${r.control.activity?.rows ?? 0} (${kb(r.control.activity?.bytes ?? 0)})`.padStart(11)}  ${mb(r.r2.bundles?.bytes ?? 0).padStart(9)}  ${mb(r.r2['report.json']?.bytes ?? 0).padStart(9)}  ${mb(r.r2.documents?.bytes ?? 0).padStart(12)}`);
    if (process.env.BENCH_TABLES === '1') console.log(`    ${Object.entries(r.project).map(([n, t]) => `${n} ${t.rows}/${kb(t.bytes)}`).join(', ')}`);
  }

  console.log(`\nSteady growth per re-survey (${REPEATS} re-surveys of ${bundles[1].split('/').pop()}): object ${kb(steady.projectSize)}, D1 ${kb(steady.controlSize)} (${steady.activityRows.toFixed(1)} activity entries)`);
  console.log(`  object tables (rows/value bytes a survey): ${Object.entries(steady.tables).filter(([, t]) => t.bytes > 0).sort((a, b) => b[1].bytes - a[1].bytes).map(([n, t]) => `${n} ${t.rows.toFixed(1)}/${kb(t.bytes)}`).join(', ')}`);

  // ---- which limit first ----
  const again = rows.filter((r) => r.run === 'again');
  const worst = again.reduce((a, b) => (b.projectSize > a.projectSize ? b : a));
  console.log('\nOne project surveyed 1,000 times a day (re-surveys of one subject), a year of retention:');
  for (const [label, bytes] of [[`an SBOM without findings (steady growth above)`, steady.projectSize], [`the largest growth above (${worst.name})`, worst.projectSize]]) {
    console.log(`  ${label}: ${(bytes * 1000 / GB).toFixed(2)} GB a day; the 9 GB guard (PROJECT_STORE_MAX_BYTES) is reached in ${(LIMITS.projectGuard / (1000 * bytes)).toFixed(0)} days; a year would need ${(bytes * 365_000 / GB).toFixed(0)} GB`);
  }
  console.log(`  its organization's activity log: ${(steady.activityRows * 365_000).toLocaleString('en')} entries and ${(steady.controlSize * 365_000 / GB).toFixed(2)} GB of D1 a year`);
  const orgYear = (surveysPerDay) => perOrg + 2 * perProject + surveysPerDay * 365 * steady.controlSize;
  const osvBytes = OSV_RECORDS * osvPerRecord;
  for (const [label, surveysPerDay] of [['a small organization (20 surveys a day)', 20], ['a CI-heavy one (1,000 a day)', 1000]]) {
    const perYear = orgYear(surveysPerDay);
    console.log(`\nD1 with ${label}: ${mb(perYear)} an organization in its first year; the OSV data ${(osvBytes / GB).toFixed(2)} GB`);
    for (const n of [100, 10_000, 1_000_000]) {
      const total = osvBytes + n * perYear;
      const full = (LIMITS.controlDb - osvBytes) / (n * perYear);
      console.log(`  ${n.toLocaleString('en').padStart(9)} organizations: ${(total / GB).toFixed(2)} GB after a year${total > LIMITS.controlDb ? ` (10 GB reached after ${full * 365 < 1 ? `${(full * 365 * 24).toFixed(1)} hours` : `${(full * 365).toFixed(0)} days`})` : ''}`);
    }
  }
} finally {
  await svc.stop();
}
