// `npm run bench:dashboard`: the dashboard as a person's browser sees it (issue 21's targets). Starts
// `npm run dev` with its demo data (scripts/browser/harness.mjs: a free port, throwaway state), adds the
// scale cases (a report with a 20,000-entry section from a generated CBOM uploaded with the CLI, and a
// 1,000-subject portfolio written by POST /api/v1/dev/bench-seed), and signs Debian's headless Chromium
// in with the link `npm run dev` printed. Then, per page found from the navigation plus the scale pages:
// the first load with an empty cache (bytes gzipped: all, JS, CSS, the HTML; any request to another
// origin), then LOADS loads after one warm-up (domInteractive and load p50/p95). Then the interactions,
// RUNS times each: simulating 3 fixes, a report search, and a job change reaching an open surveys page.
//   LOADS=20 RUNS=20 ENTRIES=20000 SUBJECTS=1000 TEST_BROWSER_PORT=… CHROMIUM=/usr/bin/chromium
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { devCall } from '../scripts/local.mjs';
import { discoverPages, launch, openSignInLink, startService } from '../scripts/browser/harness.mjs';
import { cli, createPass, followJobStream, quantile, until } from './harness.mjs';

const LOADS = Number(process.env.LOADS ?? 20);
const ENTRIES = Number(process.env.ENTRIES ?? 20_000);
const SUBJECTS = Number(process.env.SUBJECTS ?? 1000);
const SEED_PART = 200;
const TARGETS = { totalKb: 60, jsKb: 20, cssKb: 10, listHtmlKb: 50, interactiveMs: 400, loadMs: 700, simulateMs: 500, searchMs: 400, jobMs: 1000 };

const say = (line) => console.error(line);
const started = Date.now();
const service = await startService({ log: say });
const base = `http://127.0.0.1:${service.port}`;
let browser;
try {
  say(`service ready after ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const seeded = await devCall(base, '/api/v1/dev/seed');
  const { jwt: session } = await devCall(base, '/api/v1/dev/session');
  const scale = await makeScale(seeded.projectId, session);
  browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await openSignInLink(page, service.devLink);
  const found = await discoverPages(page, `${service.dashboard}/`, service.origin);
  await page.close();
  const paths = new Map(found.filter((p) => p.status === 200).map((p) => [p.kind, new URL(p.url).pathname + new URL(p.url).search]));
  for (const [name, path] of Object.entries(scale.pages)) paths.set(name, path);
  say(`measuring ${paths.size} pages...`);
  const rows = [];
  for (const [kind, path] of paths) rows.push(await measurePage(browser, kind, path));
  printPages(rows);
  printInteractions(await measureInteractions(browser, scale));
} finally {
  await browser?.close();
  await service.stop();
}

/**
 * The scale cases in a project of their own: a report whose red section has ENTRIES entries (a
 * generated CBOM of RSA-2048 keys uploaded with the CLI), and SUBJECTS subjects written by the bench
 * seed into that project's built-in portfolio. Answers the pages to measure and what the interactions use.
 */
async function makeScale(demoProjectId, session) {
  const auth = { authorization: `Bearer ${session}`, 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, { method, headers: auth, body: body && JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };
  const orgId = (await call('GET', `/api/v1/project/${demoProjectId}`)).orgId;
  // Two projects: the report's 20,000 findings on one subject would otherwise also be scored into the
  // 1,000-subject portfolio, and the portfolio pages measure the 1,000 subjects alone.
  const newProject = async (label) => {
    const created = await call('POST', `/api/v1/org/${orgId}/project`, { name: `Bench ${label} ${Date.now().toString(36)}` });
    const P = `${base}/api/v1/project/${created.uuid}`;
    await until(async () => (await fetch(`${P}/v1/job?limit=1`, { headers: { authorization: `Bearer ${created.jwt}` } })).status === 200, `the ${label} project was not set up in time`, 30_000);
    return { projectId: created.uuid, session: created.jwt, P };
  };
  const reportProject = await newProject('report');
  say(`scale: a CBOM of ${ENTRIES} entries...`);
  const file = join(tmpdir(), `bench-dashboard-${process.pid}.cbom.json`);
  writeFileSync(file, JSON.stringify(bigCbom(ENTRIES)));
  const pass = await createPass(reportProject.P, reportProject.session);
  const upload = await cli(['upload', file, '--api', base, '--project', reportProject.projectId, '--target', 'bench-cbom', '--wait'], pass);
  const survey = await until(async () => {
    const job = await (await fetch(`${reportProject.P}/v1/job/${upload.surveyId}`, { headers: { authorization: `Bearer ${reportProject.session}` } })).json();
    return job.status === 'COMPLETED' ? job : null;
  }, 'the big survey did not complete', 600_000, 1000);
  // The survey's first completed REPORT step is its crypto report (a CBOM's only one).
  const reportId = survey.steps.find((s) => s.step_type === 'REPORT' && s.status === 'COMPLETED').id;
  const { projectId, session: scaleSession, P } = await newProject('subjects');
  say(`scale: ${SUBJECTS} subjects...`);
  // In calls of at most 200 subjects (each its own name prefix): one call for 1,000 outlasts the
  // client's 300 s wait for an answer. The advisories are written once; the last call asks for scoring.
  for (let from = 0, part = 1; from < SUBJECTS; from += SEED_PART, part++) {
    const subjects = Math.min(SEED_PART, SUBJECTS - from);
    const last = from + subjects >= SUBJECTS;
    await devCall(base, `/api/v1/dev/bench-seed?projectId=${projectId}&prefix=bench-app-${part}&subjects=${subjects}&findings=${subjects * 50}&vulndb=${from === 0}&score=${last}`);
    say(`scale: ${from + subjects} subjects seeded`);
  }
  const portfolios = await until(async () => {
    const list = await (await fetch(`${P}/v1/portfolio`, { headers: { authorization: `Bearer ${scaleSession}` } })).json();
    const implicit = list.portfolios?.find((p) => p.is_implicit);
    return implicit?.scoring === 'scored' ? implicit : null;
  }, 'the 1,000-subject portfolio was not scored', 600_000, 1000);
  const portfolioId = portfolios.portfolio_id;
  const prefix = `/projects/${projectId}`;
  return {
    projectId, reportProjectId: reportProject.projectId, reportId, portfolioId,
    pages: {
      [`scale: report, red section (${ENTRIES} entries)`]: `/projects/${reportProject.projectId}/reports/${reportId}?section=red`,
      [`scale: portfolio (${SUBJECTS} subjects)`]: `${prefix}/portfolios/${portfolioId}`,
      [`scale: ranked fixes (${SUBJECTS} subjects)`]: `${prefix}/portfolios/${portfolioId}/fixes`,
      [`scale: subjects (${SUBJECTS})`]: `${prefix}/subjects`,
    },
  };
}

/** A CycloneDX 1.6 CBOM of `count` distinct RSA-2048 public keys: every one a red entry. */
function bigCbom(count) {
  const components = [{ type: 'cryptographic-asset', 'bom-ref': 'alg-rsa', name: 'RSA-2048', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'pke', parameterSetIdentifier: '2048' } } }];
  for (let i = 0; i < count; i++) {
    components.push({
      type: 'cryptographic-asset', 'bom-ref': `key-${i}`, name: `key-${i}`,
      cryptoProperties: { assetType: 'related-crypto-material', relatedCryptoMaterialProperties: { type: 'public-key', algorithmRef: 'alg-rsa', size: 2048, value: `key-${i}` } },
      evidence: { occurrences: [{ location: `keys/key-${i}.pem` }] },
    });
  }
  return { bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'bench-cbom' } }, components };
}

/** One page: the first load in a fresh context (empty cache), then one warm-up and LOADS timed loads. */
async function measurePage(browser, name, path) {
  const url = `${service.dashboard}${path}`;
  const signedIn = await freshSignIn(browser);
  const cold = await browser.newContext({ viewport: { width: 1280, height: 800 }, storageState: await signedIn.storageState() });
  const first = await cold.newPage();
  const bytes = { total: 0, js: 0, css: 0, html: 0, other: 0 };
  const elsewhere = [];
  const pending = [];
  first.on('response', (response) => {
    pending.push((async () => {
      const target = new URL(response.url());
      if (target.origin !== service.origin) elsewhere.push(response.url());
      const body = await response.body().catch(() => Buffer.alloc(0));
      const gz = gzipSync(body).length;
      const type = response.headers()['content-type'] ?? '';
      const kind = type.includes('javascript') ? 'js' : type.includes('css') ? 'css' : type.includes('html') ? 'html' : 'other';
      bytes[kind] += gz;
      bytes.total += gz;
    })());
  });
  const answer = await first.goto(url, { waitUntil: 'load' });
  await Promise.all(pending);
  const status = answer?.status();
  await cold.close();
  const page = await signedIn.newPage();
  const interactive = [];
  const loaded = [];
  for (let i = 0; i <= LOADS; i++) {
    await page.goto(url, { waitUntil: 'load' });
    const t = await page.evaluate(() => {
      const [n] = performance.getEntriesByType('navigation');
      return { interactive: n.domInteractive, load: n.loadEventEnd };
    });
    if (i === 0) continue; // the warm-up
    interactive.push(t.interactive);
    loaded.push(t.load);
  }
  await signedIn.close();
  return { name, path, status, bytes, elsewhere, interactive, loaded };
}

/**
 * A browser context signed in afresh through a one-time dev link: each sign-in has its own rate-limit
 * allowance (600 requests a minute), which 21 loads of a page at four API calls each stay well within.
 */
async function freshSignIn(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const { url } = await devCall(base, '/api/v1/dev/sign-in-link');
  await openSignInLink(page, url);
  await page.close();
  return context;
}

function kb(n) {
  return (n / 1024).toFixed(1);
}
function ms(n) {
  return n.toFixed(0);
}

function printPages(rows) {
  console.log(`\nPages (${LOADS} loads each after a warm-up; first load with an empty cache, bytes gzipped)`);
  console.log(['page', 'status', 'interactive p50/p95 ms', 'load p50/p95 ms', 'first load KB (html/js/css)', 'other origins'].join(' | '));
  const misses = [];
  for (const r of rows) {
    const i95 = quantile(r.interactive, 0.95);
    const l95 = quantile(r.loaded, 0.95);
    console.log([r.name, r.status, `${ms(quantile(r.interactive, 0.5))}/${ms(i95)}`, `${ms(quantile(r.loaded, 0.5))}/${ms(l95)}`,
      `${kb(r.bytes.total)} (${kb(r.bytes.html)}/${kb(r.bytes.js)}/${kb(r.bytes.css)})`, r.elsewhere.length].join(' | '));
    if (i95 > TARGETS.interactiveMs) misses.push(`${r.name}: domInteractive p95 ${ms(i95)} ms > ${TARGETS.interactiveMs}`);
    if (l95 > TARGETS.loadMs) misses.push(`${r.name}: load p95 ${ms(l95)} ms > ${TARGETS.loadMs}`);
    if (r.bytes.total / 1024 > TARGETS.totalKb) misses.push(`${r.name}: first load ${kb(r.bytes.total)} KB > ${TARGETS.totalKb}`);
    if (r.bytes.js / 1024 > TARGETS.jsKb) misses.push(`${r.name}: JS ${kb(r.bytes.js)} KB > ${TARGETS.jsKb}`);
    if (r.bytes.css / 1024 > TARGETS.cssKb) misses.push(`${r.name}: CSS ${kb(r.bytes.css)} KB > ${TARGETS.cssKb}`);
    if (r.bytes.html / 1024 > TARGETS.listHtmlKb) misses.push(`${r.name}: HTML ${kb(r.bytes.html)} KB > ${TARGETS.listHtmlKb}`);
    if (r.elsewhere.length) misses.push(`${r.name}: requests to another origin: ${r.elsewhere.join(', ')}`);
  }
  console.log(misses.length ? `\nMissed:\n  ${misses.join('\n  ')}` : '\nEvery page within its targets.');
}

/** Times from a person's action (or the API's event) to what the page shows, each RUNS times. */
async function measureInteractions(browser, scale) {
  const RUNS = Number(process.env.RUNS ?? 20);
  let context = await freshSignIn(browser);
  let page = await context.newPage();
  // htmx 4 fires htmx:after:swap on the element that made the request (the button, the form), not on
  // the target: the first swap after the action is its answer.
  const swapped = () => page.evaluate(() => new Promise((resolve) => {
    const started = performance.now();
    document.addEventListener('htmx:after:swap', () => resolve(performance.now() - started), { once: true });
    window.__go?.();
  }));
  const result = { simulate: [], search: [], job: [] };

  // Simulating 3 fixes on the 1,000-subject portfolio: tick the top three rows, press Simulate.
  await page.goto(`${service.dashboard}/projects/${scale.projectId}/portfolios/${scale.portfolioId}/fixes`, { waitUntil: 'load' });
  for (let i = 0; i <= RUNS; i++) {
    await page.goto(`${service.dashboard}/projects/${scale.projectId}/portfolios/${scale.portfolioId}/fixes`, { waitUntil: 'load' });
    const boxes = page.locator('input[name="row"]');
    for (let n = 0; n < 3; n++) await boxes.nth(n + (i % 5)).check();
    await page.evaluate(() => { window.__go = () => document.querySelector('#fixes-form button[hx-get]')?.click(); });
    const took = await swapped();
    if (i) result.simulate.push(took);
  }

  await context.close();
  context = await freshSignIn(browser);
  page = await context.newPage();
  // Searching the report with the 20,000-entry section: the form submitted (Enter), results swapped in.
  const words = ['key-1', 'key-19999', 'RSA', 'key-42', 'keys/key-7'];
  for (let i = 0; i <= RUNS; i++) {
    await page.goto(`${service.dashboard}/projects/${scale.reportProjectId}/reports/${scale.reportId}`, { waitUntil: 'load' });
    await page.locator('#report-search').fill(words[i % words.length]);
    await page.evaluate(() => { window.__go = () => document.querySelector('form[role="search"]').requestSubmit(); });
    const took = await swapped();
    if (i) result.search.push(took);
  }

  await context.close();
  context = await freshSignIn(browser);
  page = await context.newPage();
  // A job change reaching an open surveys page: a small bundle uploaded with the CLI; the time from the
  // API's job-stream event announcing the new survey to its target name showing on the page.
  const { jwt: demoSession } = await devCall(base, '/api/v1/dev/session');
  const P = `${base}/api/v1/project/${scale.projectId}`;
  // A session on the scale project (an upload pass is made for the session's own project).
  const session = (await (await fetch(`${P}/session`, { method: 'POST', headers: { authorization: `Bearer ${demoSession}` } })).json()).jwt;
  const pass = await createPass(P, session);
  const events = watchJobStream(`${P}/v1/job/stream`, session);
  await page.goto(`${service.dashboard}/projects/${scale.projectId}/surveys`, { waitUntil: 'load' });
  await page.evaluate(() => {
    window.__seen = new Map();
    new MutationObserver(() => {
      const text = document.querySelector('main').textContent;
      for (const m of text.matchAll(/live-\d+-[a-z0-9]+/g)) if (!window.__seen.has(m[0])) window.__seen.set(m[0], performance.timeOrigin + performance.now());
    }).observe(document.querySelector('main'), { subtree: true, childList: true, characterData: true });
  });
  const sample = join(tmpdir(), `bench-dashboard-${process.pid}.small.json`);
  writeFileSync(sample, JSON.stringify(bigCbom(3)));
  for (let i = 0; i < Math.min(RUNS, 10); i++) {
    const target = `live-${i}-${Math.random().toString(36).slice(2, 8)}`;
    const upload = await cli(['upload', sample, '--api', base, '--project', scale.projectId, '--target', target], pass);
    const shown = await until(() => page.evaluate((t) => window.__seen.get(t) ?? null, target), `the survey of ${target} never showed on the surveys page`, 30_000, 50).catch(() => null);
    const announced = events.firstFor(upload.surveyId);
    if (shown && announced) result.job.push(shown - announced);
    else say(`job ${target}: ${shown ? 'no stream event seen' : 'never shown on the page'}`);
  }
  events.stop();
  await context.close();
  return result;
}

/** The API's job stream read in Node: when each job's first event arrived (wall clock, ms). */
function watchJobStream(url, session) {
  const first = new Map();
  const stream = followJobStream(url, session, (job) => {
    for (const id of [job.id, job.parent_id, job.parentId]) if (id && !first.has(id)) first.set(id, Date.now());
  });
  return { firstFor: (id) => first.get(id) ?? null, stop: stream.stop };
}

function printInteractions(result) {
  console.log('\nInteractions (p50 / p95 / max ms)');
  const line = (what, times, target) => {
    if (!times.length) return console.log(`${what}: not measured`);
    const p95 = quantile(times, 0.95);
    console.log(`${what}: ${ms(quantile(times, 0.5))} / ${ms(p95)} / ${ms(Math.max(...times))} (${times.length} runs; target p95 ≤ ${target})${p95 > target ? '  MISSED' : ''}`);
  };
  line(`simulate 3 fixes (${SUBJECTS} subjects)`, result.simulate, TARGETS.simulateMs);
  line(`report search (${ENTRIES}-entry section), from submit`, result.search, TARGETS.searchMs);
  line('job change on the open surveys page', result.job, TARGETS.jobMs);
}
