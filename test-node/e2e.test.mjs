// End to end: the real CLI against the real service under `wrangler dev` (local D1, R2, Queues and
// Durable Objects), with the real fixtures copied into test/fixtures.
import { execFileSync, spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devCall, ensureDevVars, root, startWranglerDev, waitForService, wrangler } from '../scripts/local.mjs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@cfworker/json-schema';
import { runCli, tempDir } from './helpers.mjs';
import sarifSchema from '../test/fixtures/schemas/sarif-2.1.0.json' with { type: 'json' };
import { validateXML } from 'xmllint-wasm';

// Runs beside each other (helpers sharing a machine) each take their own ports.
const PORT = Number(process.env.POSTURE_E2E_PORT ?? 18297);
const INSPECTOR_PORT = process.env.POSTURE_E2E_INSPECTOR_PORT ? Number(process.env.POSTURE_E2E_INSPECTOR_PORT) : null;
const BASE = `http://127.0.0.1:${PORT}`;
const fixture = (p) => path.join(root, 'test/fixtures', p);
const junitSchema = await readFile(fixture('schemas/jenkins-junit.xsd'), 'utf8');

/** @type {import('node:child_process').ChildProcess} */
let server;
let persistTo = '';
let project = '';
let session = '';
let pass = '';

async function call(method, p, body, token = session) {
  const res = await fetch(`${BASE}${p}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** Everything wrangler dev printed. */
let serverOutput = '';

beforeAll(async () => {
  persistTo = await tempDir();
  ensureDevVars();
  await wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistTo]);
  server = startWranglerDev({ port: PORT, persistTo, pipe: true, asPerson: true, inspectorPort: INSPECTOR_PORT });
  // What a person running the service sees in their terminal (read by the last test).
  for (const stream of [server.stdout, server.stderr]) stream?.on('data', (chunk) => { serverOutput += chunk; });
  await waitForService(BASE);
  const demo = await devCall(BASE, '/api/v1/dev/seed');
  project = demo.projectId;
  session = (await devCall(BASE, '/api/v1/dev/session')).jwt;
  const created = await call('POST', `/api/v1/project/${project}/credential/spice-pass`, { duration_days: 1 });
  expect(created.status).toBe(201);
  pass = created.body.jwt;
  // The demo project's storage is set up on first use: wait for its INSTANCE_STARTUP job.
  for (let i = 0; i < 50; i++) {
    if ((await call('GET', `/api/v1/project/${project}/v1/job?limit=1`)).status === 200) break;
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  if (persistTo) await rm(persistTo, { recursive: true, force: true });
});

const upload = (target, extra = []) =>
  runCli(['upload', target, '--api', BASE, '--project', project, '--wait', '--json', '--timeout', '120', ...extra], { POSTURE_PASS: pass });

describe('the upload CLI against wrangler dev', () => {
  it('uploads a CycloneDX SBOM and follows the survey to COMPLETED', async () => {
    const run = await upload(fixture('sbom/npm__juice-shop-14.1.1.cdx-1.4.json'), ['--tag', 'e2e', '--ci-run-id', 'run-1']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.lines();
    const done = lines.find((l) => l.event === 'done');
    expect(done.status).toBe('COMPLETED');
    const surveyId = lines.find((l) => l.event === 'survey').surveyId;
    const job = await call('GET', `/api/v1/project/${project}/v1/job/${surveyId}`);
    expect(job.body).toMatchObject({ status: 'COMPLETED', tag: 'e2e' });
    expect(job.body.steps.map((s) => [s.step_label, s.status])).toEqual([
      ['upload', 'COMPLETED'], ['analyze', 'COMPLETED'], ['pqc-inventory', 'COMPLETED'], ['cbom', 'COMPLETED'], ['composition', 'COMPLETED'],
    ]);
    // The reports' headline figures travel on the steps; the report itself reads through the API.
    const composition = job.body.steps.find((s) => s.step_label === 'composition');
    expect(composition.metadata.figures).toMatchObject({ components: 978, severities: expect.any(Object) });
    const summary = await call('GET', `/api/v1/project/${project}/v1/report/${composition.id}/summary`);
    expect(summary.body).toMatchObject({ type: 'composition', subject: 'juice-shop', headline: { components: 978 } });
    const bundles = await call('GET', `/api/v1/project/${project}/v1/bundle`);
    expect(bundles.body.bundles[0]).toMatchObject({ mime_type: 'application/json' });
  }, 180_000);

  it('packs a directory of CBOMs with a manifest and analyses it for the --target subject', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'boms'), { recursive: true });
    await copyFile(fixture('cbom/pkic-cbom__nginx-pass.cbom.json'), path.join(dir, 'boms/nginx.json'));
    await copyFile(fixture('cbom/ibm-cbomkit__kafka-cbom.json'), path.join(dir, 'kafka.json'));
    const run = await upload(dir, ['--target', 'edge-gateway']);
    expect(run.code).toBe(0);
    const surveyId = run.lines().find((l) => l.event === 'survey').surveyId;
    const job = await call('GET', `/api/v1/project/${project}/v1/job/${surveyId}`);
    expect(job.body).toMatchObject({ status: 'COMPLETED', target: 'edge-gateway' });
    await rm(dir, { recursive: true, force: true });
  }, 180_000);

  it('exits 1 with the survey\'s message when the bundle is not CycloneDX', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'not-a-bom.json');
    await writeFile(file, JSON.stringify({ hello: 'world' }));
    const run = await upload(file);
    expect(run.code).toBe(1);
    const done = run.lines().find((l) => l.event === 'done');
    expect(done.status).toBe('FAILED');
    expect(run.stderr).toMatch(/posture: .*FAILED/);
    await rm(dir, { recursive: true, force: true });
  }, 180_000);

  it('is refused with the service\'s code when the pass was canceled', async () => {
    const created = await call('POST', `/api/v1/project/${project}/credential/spice-pass`, {});
    const jti = JSON.parse(Buffer.from(created.body.jwt.split('.')[1], 'base64url').toString()).jti;
    expect((await call('DELETE', `/api/v1/project/${project}/credential/${jti}`)).status).toBe(204);
    const run = await runCli(['upload', fixture('cbom/cyclonedx-bom-examples__key.cbom.json'), '--api', BASE, '--project', project], { POSTURE_PASS: created.body.jwt });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/token_revoked/);
  }, 60_000);
});

describe('the triage commands against wrangler dev', () => {
  it('lists a decision a person made through the API, with an API token of the project (its project by default)', async () => {
    const made = await call('POST', `/api/v1/project/${project}/v1/decision`, {
      finding: { type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: 'pkg:maven/org.apache.logging.log4j/log4j-core', version: '2.14.1', subject: 'e2e-cli-decisions' },
      state: 'exploitable', detail: 'reachable from the login form',
    });
    expect(made.status).toBe(201);
    const token = await call('POST', `/api/v1/project/${project}/credential/api-token`, { permissions: ['project:view'], name: 'e2e decisions list' });
    expect(token.status).toBe(201);
    const asToken = { POSTURE_TOKEN: token.body.bearer_token };

    const listed = await runCli(['decisions', 'list', '--api', BASE, '--subject', 'e2e-cli-decisions', '--json'], asToken);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    const [decision, ...others] = listed.lines();
    expect(others).toEqual([]);
    expect(decision).toMatchObject({
      id: made.body.id, state: 'exploitable', suppressed: false, source: null, detail: 'reachable from the login form',
      finding: { type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: 'pkg:maven/org.apache.logging.log4j/log4j-core', version: '2.14.1', subject: 'e2e-cli-decisions' },
      decided_by: { email: expect.any(String) },
    });
    const readable = await runCli(['decisions', 'list', '--api', BASE, '--subject', 'e2e-cli-decisions', '--state', 'exploitable', '--type', 'vulnerability'], asToken);
    expect(readable.code).toBe(0);
    const lines = readable.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(`${made.body.id}  exploitable  CVE-2021-44228 in pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1 in e2e-cli-decisions  ${decision.decided_at.slice(0, 10)}  ${decision.decided_by.email}`);
    const none = await runCli(['decisions', 'list', '--api', BASE, '--subject', 'e2e-cli-decisions', '--state', 'not_affected'], asToken);
    expect(none.stdout).toBe('no decisions\n');

    // The token may view only: the import is refused with the service's message, naming the permission.
    const dir = await tempDir();
    const file = path.join(dir, 'empty.openvex.json');
    await writeFile(file, JSON.stringify({ '@context': 'https://openvex.dev/ns/v0.2.0', '@id': 'https://example.com/vex/none', author: 'E2E', timestamp: '2026-11-01T00:00:00Z', version: 1, statements: [] }));
    const refused = await runCli(['vex', 'import', file, '--api', BASE], asToken);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^posture: importing the VEX document: .*\[permission project:edit\] \(permission_denied\)\n$/);
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('imports a VEX file once (a retry is answered from the first import) and lists the decision it made', async () => {
    // Advisories for lodash (the starter set, imported beside the running service as `npm run dev` does), and a survey that finds them.
    execFileSync(process.execPath, [path.join(root, 'scripts/vulndb-import.mjs'), path.join(root, 'vulndb/starter'), '--persist-to', persistTo, '--quiet']);
    const dir = await tempDir();
    const sbom = path.join(dir, 'shop.cdx.json');
    await writeFile(sbom, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'vex-shop' } },
      components: [{ type: 'library', name: 'lodash', version: '4.17.15', purl: 'pkg:npm/lodash@4.17.15' }] }));
    expect((await upload(sbom)).code).toBe(0);
    const queue = await call('GET', `/api/v1/project/${project}/v1/triage?type=vulnerability&subject=vex-shop&limit=1`);
    const [finding] = queue.body.findings;
    expect(finding).toMatchObject({ advisory_id: expect.any(String), package: 'pkg:npm/lodash@4.17.15' });
    const file = path.join(dir, 'supplier.openvex.json');
    await writeFile(file, JSON.stringify({
      '@context': 'https://openvex.dev/ns/v0.2.0', '@id': 'https://example.com/vex/e2e', author: 'E2E Supplier', timestamp: '2026-11-01T00:00:00Z', version: 1,
      statements: [{ vulnerability: { name: finding.advisory_id }, products: [{ '@id': finding.package }], status: 'not_affected', justification: 'vulnerable_code_not_present' }],
    }));
    const vex = (extra = []) => runCli(['vex', 'import', file, '--api', BASE, '--project', project, ...extra], { POSTURE_TOKEN: session });
    const first = await vex();
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('openvex 0.2.0 from E2E Supplier: 1 statement');
    expect(first.stdout).toContain('applied 1, already in place 0, superseded 0, not matched 0');
    const again = await vex(['--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ applied: 1, already_in_place: 0 });

    const listed = await runCli(['decisions', 'list', '--api', BASE, '--project', project, '--advisory', finding.advisory_id, '--json'], { POSTURE_TOKEN: session });
    expect(listed.code).toBe(0);
    const decisions = listed.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ state: 'not_affected', suppressed: true, source: { author: 'E2E Supplier', format: 'openvex' }, finding: { advisory_id: finding.advisory_id } });
    const readable = await runCli(['decisions', 'list', '--api', BASE, '--project', project, '--limit', '5'], { POSTURE_TOKEN: session });
    expect(readable.code).toBe(0);
    expect(readable.stdout).toMatch(/^ID\s+STATE\s+FINDING\s+DECIDED\s+BY\n/);
    expect(readable.stdout).toContain(`${decisions[0].id}  not_affected (suppressed)`);
    expect(readable.stdout).toContain('VEX E2E Supplier');

    const noToken = await runCli(['decisions', 'list', '--api', BASE, '--project', project], {});
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/POSTURE_TOKEN/);
    const refused = await runCli(['vex', 'import', file, '--api', BASE, '--project', project], { POSTURE_TOKEN: pass });
    expect(refused.code).toBe(1);
    await rm(dir, { recursive: true, force: true });
  }, 120_000);
});

/** One GET with the raw bytes as they arrive (Node's http does not decode them). */
function rawGet(p, headers) {
  return new Promise((resolve, reject) => {
    get(`${BASE}${p}`, { headers: { authorization: `Bearer ${session}`, ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('compressed answers over HTTP', () => {
  it('sends a portfolio\'s state gzip-compressed once (not twice) to a client that accepts gzip, and plain to one that does not', async () => {
    const P = `/api/v1/project/${project}/v1/portfolio`;
    let builtIn;
    for (let i = 0; i < 100 && builtIn?.scoring !== 'scored'; i++) {
      builtIn = (await call('GET', P)).body?.portfolios?.find((p) => p.is_implicit);
      if (builtIn?.scoring !== 'scored') await new Promise((r) => setTimeout(r, 200));
    }
    expect(builtIn?.scoring).toBe('scored');
    const plain = await rawGet(`${P}/${builtIn.portfolio_id}/state`, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const state = JSON.parse(plain.body.toString('utf8'));
    expect(state).toMatchObject({ portfolio_id: builtIn.portfolio_id, score: expect.any(Object) });
    const gzipped = await rawGet(`${P}/${builtIn.portfolio_id}/state`, { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzipped.body).toString('utf8'))).toEqual(state);
  }, 60_000);
});

describe('the CI integrations against wrangler dev', () => {
  it('the GitHub Action\'s script uploads with the pass, writes SARIF valid against the schema, the job summary and the outputs', async () => {
    const runner = await tempDir();
    const summary = path.join(runner, 'summary.md');
    const output = path.join(runner, 'output.txt');
    await writeFile(summary, '');
    await writeFile(output, '');
    const run = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(root, 'integrations/github/run.mjs')], {
        env: {
          PATH: process.env.PATH ?? '', RUNNER_TEMP: runner, GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: output,
          INPUT_API: BASE, INPUT_PASS: pass, INPUT_PROJECT: project, INPUT_PATHS: `${fixture('sbom/npm__juice-shop-14.1.1.cdx-1.4.json')}\n${fixture('cbom/ibm-cbomkit__kafka-cbom.json')}`,
          INPUT_TARGET: 'e2e-ci', INPUT_TAG: 'v1', INPUT_SARIF: 'true', INPUT_FAIL_ON: 'critical',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    // The gate trips when the server holds advisories for juice-shop (an earlier test imports them): the CLI says so on stderr.
    expect(run.stderr).toMatch(/^(|posture: survey \S+: --fail-on tripped: critical \d+ \(gate\)\n)$/);
    expect(run.code).toBe(0);
    const outputs = Object.fromEntries((await readFile(output, 'utf8')).trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(outputs).toMatchObject({ status: 'COMPLETED', 'sarif-file': path.join(runner, 'posture.sarif') });
    expect(['0', '3']).toContain(outputs['exit-code']);
    expect(outputs.passed).toBe(String(outputs['exit-code'] === '0'));
    expect(Number(outputs.red)).toBeGreaterThan(0);
    const markdown = await readFile(summary, 'utf8');
    expect(markdown).toMatch(/^## Posture: e2e-ci @ v1\n/);
    expect(markdown).toContain(`/v1/report/`);
    const log = JSON.parse(await readFile(outputs['sarif-file'], 'utf8'));
    const validator = new Validator(sarifSchema, '2020-12', false);
    const result = validator.validate(log);
    expect(result.errors.slice(0, 3)).toEqual([]);
    expect(log.runs[0].properties.survey_id).toBe(outputs['survey-id']);
    expect(log.runs[0].results.some((r) => r.locations[0].physicalLocation?.region?.startLine > 0)).toBe(true);
    // Every result has a file (code scanning refuses one without); one whose finding names none is on a
    // file given, as the repository names it (this server may hold no advisories: then none is).
    for (const r of log.runs[0].results) expect(r.locations[0].physicalLocation.artifactLocation.uri).toMatch(/^[^/]\S+$/);
    const given = ['test/fixtures/sbom/npm__juice-shop-14.1.1.cdx-1.4.json', 'test/fixtures/cbom/ibm-cbomkit__kafka-cbom.json'];
    for (const r of log.runs[0].results.filter((x) => x.locations[0].logicalLocations)) expect(given).toContain(r.locations[0].physicalLocation.artifactLocation.uri);
    // The same survey as JUnit (GitLab's test report), read with the pass that started it: valid against
    // the JUnit schema Jenkins and GitLab read, with the gate's suite.
    const junit = await fetch(`${BASE}/api/v1/project/${project}/v1/survey/${outputs['survey-id']}/ci?format=junit&failOn=critical,new-red`, { headers: { authorization: `Bearer ${pass}` } });
    expect(junit.status).toBe(200);
    const xml = await junit.text();
    const validation = await validateXML({ xml: [{ fileName: 'posture-junit.xml', contents: xml }], schema: [{ fileName: 'jenkins-junit.xsd', contents: junitSchema }] });
    expect(validation.errors.map((e) => e.message)).toEqual([]);
    expect(validation.valid).toBe(true);
    expect(xml).toContain('name="posture gate"');
    await rm(runner, { recursive: true, force: true });
  }, 180_000);
});

describe('the OpenAPI document under wrangler dev', () => {
  it('has no warnings under Redocly\'s recommended rules, and every operation a unique operationId', async () => {
    const source = await (await fetch(`${BASE}/api/v1/openapi.json`)).text();
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: `${BASE}/api/v1/openapi.json`, config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer ?? ''})`)).toEqual([]);
    const operations = Object.values(JSON.parse(source).paths).flatMap((item) => Object.values(item));
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['listPortfolios', 'getPortfolioState', 'rankPortfolioFixes', 'simulatePortfolioFixes', 'rateSubject', 'getReportSummary']));
  });

  it('serves the API reference with its viewer script from this host (no CDN)', async () => {
    const page = await (await fetch(`${BASE}/api/v1/docs`)).text();
    expect(page).toContain('src="/api/v1/docs/scalar.js"');
    const script = await fetch(`${BASE}/api/v1/docs/scalar.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await script.text()).length).toBeGreaterThan(3_000_000);
  });
});

describe('a first run prints no error', () => {
  it('wrangler dev does not try to fetch the cf object (offline: ENOTFOUND) nor warn about CIMD', () => {
    expect(serverOutput).toMatch(/Ready on/);
    expect(serverOutput).not.toMatch(/ENOTFOUND|workers\.cloudflare\.com|CIMD/);
  });
});
