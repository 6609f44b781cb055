// `npm run bench:api`: throughput and latency of authenticated reads against `wrangler dev`, beside a
// bare route that answers fixed JSON without auth (the runtime's own ceiling). 16 connections.
//   GET /api/v1/user/project              (session: JWT verify, credential lookup, reachable projects)
//   GET /api/v1/org/{orgId}/activity?limit=100  with 10,000 activity rows
// Requests rotate over many sessions, as many users would: each credential is limited to 600 a minute.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devCall, ensureDevVars, startWranglerDev, waitForService, wrangler } from '../scripts/local.mjs';

const PORT = Number(process.env.BENCH_PORT || 8795);
const BASE = `http://127.0.0.1:${PORT}`;
const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const ACTIVITY_ROWS = 10_000;
const SESSIONS = 64;

const persistTo = mkdtempSync(join(tmpdir(), 'posture-bench-'));
ensureDevVars();
await wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistTo]);
const server = startWranglerDev({ port: PORT, persistTo });
const stop = () => {
  server.kill('SIGTERM');
  rmSync(persistTo, { recursive: true, force: true });
};

try {
  await waitForService(BASE);
  const demo = await devCall(BASE, '/api/v1/dev/seed');
  const tokens = [];
  for (let i = 0; i < SESSIONS; i++) tokens.push((await devCall(BASE, '/api/v1/dev/session')).jwt);
  await seedActivity(demo.orgId, demo.projectId);

  const results = [];
  results.push(await measure('bare route (no auth)', '/api/v1/health', []));
  results.push(await measure('GET /api/v1/user/project', '/api/v1/user/project', tokens));
  results.push(await measure(`GET O/activity?limit=100 (${ACTIVITY_ROWS} rows)`, `/api/v1/org/${demo.orgId}/activity?limit=100`, tokens));
  report(results);
} finally {
  stop();
}

async function seedActivity(orgId, projectId) {
  // Written straight into local D1 in one file: 10k API calls would measure the writes, not the reads.
  const start = Date.now() - ACTIVITY_ROWS * 1000;
  const actions = ['project.updated', 'team.member.added', 'credential.created', 'team.updated'];
  const lines = [];
  for (let i = 0; i < ACTIVITY_ROWS; i++) {
    const at = new Date(start + i * 1000);
    const id = uuidV7(at.getTime());
    const project = i % 3 === 0 ? 'NULL' : `'${projectId}'`;
    lines.push(`INSERT INTO activity (id, org_id, project_id, actor_id, actor_kind, action, data, trace_id, created_at) VALUES ('${id}', '${orgId}', ${project}, NULL, 'system', '${actions[i % actions.length]}', '{"n":${i}}', NULL, '${at.toISOString()}');`);
  }
  const file = join(persistTo, 'activity.sql');
  writeFileSync(file, lines.join('\n'));
  await wrangler(['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--file', file, '--yes']);
}

function uuidV7(ms) {
  const hex = ms.toString(16).padStart(12, '0') + randomUUID().replace(/-/g, '').slice(12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function measure(label, path, tokens) {
  // A short warm-up so the first compile and cache fill are not in the figures.
  await run(path, tokens, 2);
  const result = await run(path, tokens, SECONDS);
  const statuses = Object.entries(result.statusCodeStats ?? {}).map(([s, v]) => `${s}:${v.count}`).join(' ');
  return { label, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors, statuses };
}

function run(path, tokens, duration) {
  let next = 0;
  return autocannon({
    url: `${BASE}${path}`,
    connections: CONNECTIONS,
    duration,
    requests: [{
      setupRequest: (request) => {
        if (tokens.length) request.headers = { ...request.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` };
        return request;
      },
    }],
  });
}

function report(results) {
  const bare = results[0];
  console.log(`\nAPI benchmark: ${CONNECTIONS} connections, ${SECONDS} s per route, wrangler dev on ${BASE}\n`);
  console.log('route'.padEnd(44), 'req/s'.padStart(8), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), '% of bare'.padStart(10), '  non-2xx');
  for (const r of results) {
    const share = ((r.rps / bare.rps) * 100).toFixed(0);
    console.log(r.label.padEnd(44), r.rps.toFixed(0).padStart(8), String(r.p50).padStart(8), String(r.p99).padStart(8), `${share}%`.padStart(10), `  ${r.errors} ${r.statuses}`);
  }
  const authed = results.slice(1);
  const ok = authed.every((r) => r.rps >= 0.5 * bare.rps && r.p99 < 50 && r.errors === 0);
  console.log(`\nTarget (authenticated >= 50% of bare throughput, p99 < 50 ms, no errors): ${ok ? 'met' : 'NOT met'}`);
}
