// `npm run dev`: the API on http://localhost:8787 (or $PORT) with local D1, R2, Queues and Durable
// Objects. Creates `.dev.vars` when missing, applies migrations, starts wrangler, seeds the demo tenant.
// The local state is kept in .wrangler/state, or in $PERSIST_TO (a throwaway instance beside another).
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import {
  dashboardAddress, devCall, ensureDevVars, forwardIpv6Loopback, historyMovements, localBase, root, signInLinkLines, startWranglerDev, waitForService, wrangler,
} from './local.mjs';

// Sample data for the demo project, uploaded once through the real client and pipeline.
const SAMPLES = [
  ['test/fixtures/sbom/npm__juice-shop-14.1.1.cdx-1.4.json', 'juice-shop'],
  ['test/fixtures/cbom/pkic-cbom__nginx-pass.cbom.json', 'nginx'],
  ['test/fixtures/cbom/ibm-cbomkit__kafka-cbom.json', 'kafka'],
  ['test/fixtures/sbom/maven__dependency-track-apiserver-4.5.0.cdx-1.4.json', 'dependency-track'],
  ['scripts/demo/payments-gateway.cbom.json', 'payments-gateway'],
];
// The demo portfolio exists before the first upload, so its history is made of what happened to it:
// surveys of its members, ratings, a membership change and a second survey of one subject (at least five
// movements per axis, docs/scoring.md "History"), then the daily snapshot.
const DEMO_PORTFOLIO = {
  name: 'Customer-facing',
  members: [
    { type: 'subject', value: 'juice-shop' },
    { type: 'subject', value: 'nginx' },
    { type: 'subject', value: 'payments-gateway' },
    { type: 'package', value: 'pkg:npm/lodash' },
  ],
};
const RATINGS = [
  ['payments-gateway', 'high', 'Takes card payments from customers: PCI DSS scope.'],
  ['nginx', 'high', 'Terminates TLS for every customer request.'],
  ['dependency-track', 'low', 'An internal tool, reachable only from the office network.'],
];
/** Added to the demo portfolio after the ratings (a membership movement), then rated. */
const ADDED_MEMBER = { type: 'subject', value: 'kafka' };
const ADDED_RATING = ['kafka', 'low', 'An event bus inside the private network; no customer reaches it.'];
const SECOND_ROUND = ['scripts/demo/payments-gateway-3.3.0.cbom.json', 'payments-gateway'];
/** How long seeding waits for a scoring to finish. */
const SCORING_WAIT_MS = 60_000;

const port = Number(process.env.PORT || 8787);
const base = localBase(port);
const persistTo = process.env.PERSIST_TO ? resolve(process.env.PERSIST_TO) : undefined;
const persistFlags = persistTo ? ['--persist-to', persistTo] : [];

ensureDevVars();
console.error(`Applying D1 migrations to the local database${persistTo ? ` in ${persistTo}` : ''}...`);
await wrangler(['d1', 'migrations', 'apply', 'DB', '--local', ...persistFlags]);
// The starter vulnerability data, before the demo is seeded (its samples are matched against it).
// Incremental: on later starts only new or newer records are written.
console.error('Importing the starter vulnerability data (vulndb/starter)...');
const imported = await new Promise((resolve) => {
  const child = spawn(process.execPath, [join(root, 'scripts/vulndb-import.mjs'), join(root, 'vulndb/starter'), '--quiet', ...persistFlags], { stdio: 'inherit' });
  child.on('exit', (code) => resolve(code === 0));
});
if (!imported) console.error('The starter vulnerability data could not be imported: the demo project will show no known vulnerabilities.');

// The MCP server's OAuth issuer and resource follow the port (README: connect to http://localhost:<port>/mcp),
// and so does the dashboard (its sign-in links, the origin its forms must come from).
const dev = startWranglerDev({ port, persistTo, inherit: true, vars: { API_URL: `http://localhost:${port}`, DASHBOARD_URL: dashboardAddress(port) } });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => dev.kill(signal));
dev.on('exit', (code) => process.exit(code ?? 0));
// localhost is both loopback addresses: wrangler takes 127.0.0.1, this takes ::1.
await forwardIpv6Loopback(port);

try {
  await waitForService(base);
  const seeded = await devCall(base, '/api/v1/dev/seed');
  console.error(
    [
      '',
      `Posture service ready on http://localhost:${port}  (API reference: http://localhost:${port}/api/v1/docs)`,
      `Demo organization ${seeded.orgId}, demo project ${seeded.projectId}, admin ${seeded.adminEmail}${seeded.created ? ' (seeded now)' : ''}.`,
      // dev:session reads PORT too, so the hint names it when the port is not the default.
      `A session token for the admin:  ${port === 8787 ? '' : `PORT=${port} `}npm run -s dev:session`,
      `MCP server for AI assistants: http://localhost:${port}/mcp  (sign in as ${seeded.adminEmail}: the link arrives as an .eml file whose path this log shows; README, "Connect an AI assistant")`,
      '',
    ].join('\n'),
  );
  const demo = await demoClient(seeded.projectId);
  await seedDemoData(demo);
  console.error(await demoSummary(demo));
} catch (error) {
  console.error(String(error.message ?? error));
}
// Last: where the dashboard is and a one-time link that signs the demo admin in (valid 15 minutes).
try {
  const link = await devCall(base, '/api/v1/dev/sign-in-link');
  console.error(['', `Dashboard: ${dashboardAddress(port)}`, ...signInLinkLines(link, { port }), ''].join('\n'));
} catch (error) {
  console.error(`No sign-in link: ${error.message ?? error}`);
}

/** Calls the demo project's API as the seeded admin (a session: ratings need one). */
async function demoClient(projectId) {
  const { jwt: session } = await devCall(base, '/api/v1/dev/session');
  const raw = (method, path, body) => fetch(`${base}/api/v1/project/${projectId}${path}`, {
    method, headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body),
  });
  /** The answer's JSON; anything but 2xx throws with the request and the answer. */
  const call = async (method, path, body) => {
    const res = await raw(method, path, body);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : null;
  };
  return { projectId, raw, call };
}

/** Uploads one bundle through the real client, waiting for its survey; true when it completed. */
async function upload(demo, pass, [file, target]) {
  const code = await new Promise((resolve) => {
    const cli = spawn(process.execPath, [join(root, 'cli/posture.mjs'), 'upload', join(root, file), '--api', base, '--project', demo.projectId, '--target', target, '--tag', 'demo', '--wait', '--json'], {
      env: { ...process.env, POSTURE_PASS: pass }, stdio: 'ignore',
    });
    cli.on('close', resolve);
  });
  console.error(`Demo data: ${target} ${code === 0 ? 'analysed' : 'failed to upload'}.`);
  return code === 0;
}

/**
 * Seeds the demo project once, when it has no survey yet: the demo portfolio, then each sample uploaded
 * through the real client, ratings, a membership change and a second survey, each scored before the next
 * (so each is a movement of its own in the portfolios' history), then the daily snapshot.
 */
async function seedDemoData(demo) {
  let jobs;
  for (let attempt = 0; attempt < 50; attempt++) {
    jobs = await demo.raw('GET', '/v1/job?topLevel=true&jobType=INVENTORY_SURVEY,RUNTIME_SURVEY&limit=1');
    if (jobs.status !== 503) break; // the project's storage is being set up
    await sleep(200);
  }
  if (!jobs.ok || (await jobs.json()).pagination.total > 0) return;
  demo.pass = (await demo.call('POST', '/credential/spice-pass', { duration_days: 1, name: 'Demo data' })).jwt;
  const existing = [...(await portfoliosOf(demo)).values()];
  const portfolio = existing.find((p) => p.name === DEMO_PORTFOLIO.name && !p.is_implicit) ?? (await demo.call('POST', '/v1/portfolio', DEMO_PORTFOLIO));
  const implicit = existing.find((p) => p.is_implicit);
  const members = new Set(DEMO_PORTFOLIO.members.filter((m) => m.type === 'subject').map((m) => m.value));
  /** Runs `action`, then waits until the portfolios it touches (the built-in one unless `demoOnly`, the demo one when `touchesDemo`) are scored again. */
  const step = async (what, touchesDemo, action, demoOnly = false) => {
    const ids = [...(demoOnly ? [] : [implicit.portfolio_id]), ...(touchesDemo ? [portfolio.portfolio_id] : [])];
    const before = new Map([...(await portfoliosOf(demo)).values()].map((p) => [p.portfolio_id, p.scored_at]));
    const done = await action();
    if (done !== false) await scored(demo, ids, `the rescoring after ${what}`, before);
  };
  for (const sample of SAMPLES) await step(`the survey of ${sample[1]}`, members.has(sample[1]), () => upload(demo, demo.pass, sample));
  for (const [subject, value, rationale] of RATINGS) {
    await step(`rating ${subject}`, members.has(subject), () => demo.call('PUT', `/v1/subject/${encodeURIComponent(subject)}/criticality`, { value, rationale }));
  }
  await step(`adding ${ADDED_MEMBER.value}`, true, () => demo.call('POST', `/v1/portfolio/${portfolio.portfolio_id}/member`, ADDED_MEMBER), true);
  const [subject, value, rationale] = ADDED_RATING;
  await step(`rating ${subject}`, true, () => demo.call('PUT', `/v1/subject/${encodeURIComponent(subject)}/criticality`, { value, rationale }));
  await step(`the second survey of ${SECOND_ROUND[1]}`, true, () => upload(demo, demo.pass, SECOND_ROUND));
  console.error(`Demo data: portfolio "${portfolio.name}", ${RATINGS.map(([s, v]) => `${s} rated ${v}`).join(', ')}, ${ADDED_MEMBER.value} added and rated ${ADDED_RATING[1]}, ${SECOND_ROUND[1]} surveyed again.`);
  await dailySnapshot(demo);
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls until `done()` answers something truthy (and answers it), or throws after `ms`. */
async function until(what, done, ms = SCORING_WAIT_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    const answer = await done();
    if (answer) return answer;
    if (Date.now() > deadline) throw new Error(`gave up after ${ms / 1000} s waiting for ${what}.`);
    await sleep(250);
  }
}

/** The portfolios by id, as the list answers them. */
async function portfoliosOf(demo) {
  return new Map((await demo.call('GET', '/v1/portfolio')).portfolios.map((p) => [p.portfolio_id, p]));
}

/** Waits until every portfolio answers `state` 200 (503 `unscored` / `rescoring` meanwhile) and, with `since`, was scored after it. */
async function scored(demo, ids, what, since = new Map()) {
  await until(what, async () => {
    const list = await portfoliosOf(demo);
    for (const id of ids) {
      const entry = list.get(id);
      if (entry?.scoring !== 'scored' || (since.has(id) && entry.scored_at === since.get(id))) return false;
      const res = await demo.raw('GET', `/v1/portfolio/${id}/state`);
      if (res.status === 503) return false;
      if (!res.ok) throw new Error(`GET /v1/portfolio/${id}/state: ${res.status} ${(await res.text()).slice(0, 500)}`);
    }
    return true;
  });
}

/** Runs the daily cron once (wrangler dev --test-scheduled): each portfolio gets a snapshot point and a posture report. */
async function dailySnapshot(demo) {
  const res = await fetch(`${base}/__scheduled?cron=${encodeURIComponent('17 3 * * *')}`);
  if (!res.ok) throw new Error(`GET /__scheduled: ${res.status} ${(await res.text()).slice(0, 300)}`);
  const job = await until('the daily snapshot', async () =>
    (await demo.call('GET', '/v1/job?jobType=PORTFOLIO_SNAPSHOT&limit=1')).jobs.find((j) => j.status === 'COMPLETED'));
  // Its posture reports are its steps.
  const reports = (job.steps ?? []).filter((s) => s.status === 'COMPLETED').map((s) => `${s.metadata.portfolio} ${s.id}`);
  console.error(`Demo data: daily snapshot taken; posture reports: ${reports.join(', ')} (read them at /api/v1/project/${demo.projectId}/v1/report/{id}).`);
}

/** One line: the demo portfolio's (or the built-in one's) overall score and its best ranked fix. */
async function demoSummary(demo) {
  const list = [...(await portfoliosOf(demo)).values()];
  const portfolio = list.find((p) => p.name === DEMO_PORTFOLIO.name && !p.is_implicit) ?? list.find((p) => p.is_implicit);
  const id = portfolio.portfolio_id;
  await scored(demo, [id], `the portfolio "${portfolio.name}" to be scored`);
  const state = await demo.call('GET', `/v1/portfolio/${id}/state`);
  const [top] = (await demo.call('GET', `/v1/portfolio/${id}/rank?limit=1&summary=true`)).rows;
  const shown = (n) => (n === null || n === undefined ? 'none' : Number(n).toFixed(1));
  const fix = top ? `top ranked fix ${top.item_key} (gain +${shown(top.gain?.overall ?? top.gain)})` : 'no ranked fixes';
  const moved = historyMovements((await demo.call('GET', `/v1/portfolio/${id}/history`)).rows);
  const history = Object.entries(moved).map(([axis, n]) => `${n} ${axis}`).join(', ');
  return `Demo portfolio "${portfolio.name}": overall ${shown(state.score.score)} (${state.score.band ?? 'no band'}), ${fix}, history movements ${history || 'none'}; see /api/v1/project/${demo.projectId}/v1/portfolio/${id}/state (/rank, /history).`;
}
