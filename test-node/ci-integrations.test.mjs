// The CI integrations (integrations/, docs/ci.md) against the fake service (test-node/fake-service.mjs):
// the GitHub Action's script (integrations/github/run.mjs) run as a runner runs it (the composite
// action's INPUT_* variables, GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files, RUNNER_TEMP): it must write
// the summary and the outputs, the SARIF file when asked, and leave failing the job to the action's
// last step (exit-code); the shell script for other systems; the GitLab template's wiring.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundlePath, cliDependencies, readInputs, relocateSarif } from '../integrations/github/run.mjs';
import { mintPass, startFake } from './fake-service.mjs';
import { bom, finished, tempDir } from './helpers.mjs';

const RUN = path.resolve(import.meta.dirname, '../integrations/github/run.mjs');
const PROJECT = randomUUID();
/** @type {string} */ let dir;
/** @type {string} */ let pass;
/** @type {Awaited<ReturnType<typeof startFake>> | null} */ let fake = null;

beforeAll(async () => {
  dir = await tempDir();
  pass = await mintPass(PROJECT);
  await writeFile(path.join(dir, 'app.cdx.json'), bom('payments-api'));
  await writeFile(path.join(dir, 'crypto.cbom.json'), bom('payments-api'));
});
afterEach(async () => {
  await fake?.close();
  fake = null;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const FINDINGS = {
  crypto: { red: ['RSA-2048', 'SHA-1'], green: ['AES-256-GCM'] },
  vulns: { critical: ['pkg:npm/a@1 GHSA-1'], high: ['pkg:npm/b@2 GHSA-2'] },
  components: 12, fixable: 1,
};

/**
 * Runs the script with what a runner gives a composite action's step, in a fresh runner directory.
 * @param {Record<string, string>} inputs INPUT_* without the prefix
 */
async function runAction(inputs) {
  const runner = path.join(dir, randomUUID());
  await mkdir(path.join(runner, 'temp'), { recursive: true });
  const summary = path.join(runner, 'step_summary.md');
  const output = path.join(runner, 'output.txt');
  await writeFile(summary, '');
  await writeFile(output, '');
  const env = {
    PATH: process.env.PATH ?? '', CI: 'true', GITHUB_ACTIONS: 'true', RUNNER_TEMP: path.join(runner, 'temp'),
    GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: output, GITHUB_RUN_ID: '4242', GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/payments',
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.replace(/-/g, '_').toUpperCase()}`, v])),
  };
  const res = await finished(spawn(process.execPath, [RUN], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  const outputs = Object.fromEntries((await readFile(output, 'utf8')).split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return { ...res, summary: await readFile(summary, 'utf8'), outputs, runner };
}

describe('the GitHub Action', () => {
  it('uploads the paths, writes the job summary and the outputs, and the SARIF file when asked', async () => {
    fake = await startFake({ projectId: PROJECT, stepDelayMs: 10, findings: FINDINGS });
    const res = await runAction({
      api: fake.url, pass, paths: `${path.join(dir, 'app.cdx.json')}\n${path.join(dir, 'crypto.cbom.json')}`, target: 'payments-api', tag: 'main', sarif: 'true',
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const [surveyId] = fake.state.surveys.keys();
    expect(res.summary).toBe(`## Posture: payments-api\n\nSurvey \`${surveyId}\` completed.\n\n`);
    expect(res.outputs).toEqual({
      'survey-id': surveyId, status: 'COMPLETED', passed: 'true', 'exit-code': '0',
      red: '2', yellow: '0', transition: '0', green: '1', unclassified: '0', critical: '1', high: '1', medium: '0', low: '0', unknown: '0',
      'sarif-file': path.join(res.runner, 'temp', 'posture.sarif'),
    });
    expect(JSON.parse(await readFile(res.outputs['sarif-file'], 'utf8'))).toMatchObject({ version: '2.1.0', runs: [{ properties: { survey_id: surveyId } }] });
    // Two files go as one bundle; the survey carries the target, the tag and the run.
    expect(fake.state.surveyRequests.get(surveyId)).toMatchObject({ jobType: 'INVENTORY_SURVEY', target: 'payments-api', tag: 'main', jsonTags: { ci_run_id: '4242' } });
    expect(fake.state.bundles).toHaveLength(1);
    // The pass never goes on a command line: the fake saw it only as a bearer token.
    expect(fake.state.requests.every((r) => !r.path.includes(pass))).toBe(true);
  });

  it('when --fail-on trips: writes everything, sets passed=false and exit-code=3, and still exits 0 so SARIF is uploaded first', async () => {
    fake = await startFake({ projectId: PROJECT, stepDelayMs: 10, findings: FINDINGS });
    const res = await runAction({ api: fake.url, pass, paths: dir, target: 'payments-api', 'fail-on': 'new-red,critical', sarif: 'yes' });
    expect(res.code).toBe(0);
    expect(res.outputs).toMatchObject({ status: 'COMPLETED', passed: 'false', 'exit-code': '3', red: '2' });
    expect(res.outputs['sarif-file']).not.toBe('');
    expect(res.summary).toContain(' --fail-on new-red,critical\n');
    expect(fake.state.ciReads.map((r) => [r.format, r.failOn])).toEqual([['sarif', 'new-red,critical'], ['markdown', 'new-red,critical']]);
  });

  it('a failed survey: a summary that says so, passed=false, the CLI\'s exit code; no SARIF without sarif: true', async () => {
    fake = await startFake({ projectId: PROJECT, stepDelayMs: 10, outcome: 'FAILED' });
    const res = await runAction({ api: fake.url, pass, paths: path.join(dir, 'app.cdx.json'), summary: 'true' });
    expect(res.code).toBe(0);
    const [surveyId] = fake.state.surveys.keys();
    expect(res.outputs).toMatchObject({ 'survey-id': surveyId, status: 'FAILED', passed: 'false', 'exit-code': '1', 'sarif-file': '' });
    expect(res.summary).toContain(`Survey \`${surveyId}\` did not complete: analysis failed.`);
    expect(fake.state.ciReads).toEqual([]);
  });

  it('refuses a missing path or pass with a GitHub error annotation and exit 1', async () => {
    const res = await runAction({ api: 'http://127.0.0.1:9', pass, paths: path.join(dir, 'nope.json') });
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`::error::posture: ${path.join(dir, 'nope.json')}: no such file or directory\n`);
    expect((await runAction({ api: 'http://127.0.0.1:9', paths: dir })).stderr).toContain('the `pass` input is required');
  });

  it('reads its inputs like the composite action passes them, and knows the CLI\'s dependencies', () => {
    expect(readInputs({ INPUT_API: ' https://x ', INPUT_PATHS: 'a.json, b.json\nc.json', INPUT_SARIF: 'TRUE', INPUT_SUMMARY: 'false', INPUT_FAIL_ON: 'red', RUNNER_TEMP: '/t' }))
      .toMatchObject({ api: 'https://x', paths: ['a.json', 'b.json', 'c.json'], sarif: true, summary: false, failOn: 'red', sarifFile: '/t/posture.sarif' });
    expect(readInputs({}).summary).toBe(true);
    expect(cliDependencies()).toEqual(['cli-progress', 'jose', 'tar']);
    expect(() => bundlePath([], dir)).toThrow(/names no SBOM/);
  });

  it('puts SARIF locations of a several-file bundle back on the repository\'s files', async () => {
    const file = path.join(dir, `${randomUUID()}.sarif`);
    const at = (uri) => ({ locations: [{ physicalLocation: { artifactLocation: { uri } } }] });
    await writeFile(file, JSON.stringify({ version: '2.1.0', runs: [{ results: [at('001-app.cdx.json'), at('002-crypto%20map.cbom.json'), at('bom.json'), at('src/Main.java')] }] }));
    relocateSarif(file, new Map([['001-app.cdx.json', 'build/app.cdx.json'], ['002-crypto map.cbom.json', 'build/crypto map.cbom.json']]));
    const log = JSON.parse(await readFile(file, 'utf8'));
    expect(log.runs[0].results.map((r) => r.locations[0].physicalLocation.artifactLocation.uri))
      .toEqual(['build/app.cdx.json', 'build/crypto%20map.cbom.json', 'build/app.cdx.json', 'src/Main.java']);
  });

  it('action.yml: a composite action whose steps run the script, upload SARIF when asked, then fail the job on the exit code', async () => {
    const action = parse(await readFile(path.resolve(import.meta.dirname, '../integrations/github/action.yml'), 'utf8'));
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['api', 'project', 'pass', 'paths', 'target', 'fail-on', 'sarif', 'summary']));
    expect(action.inputs.summary.default).toBe('true');
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['survey-id', 'passed', 'red', 'critical']));
    const steps = action.runs.steps;
    const script = steps.find((s) => s.id === 'posture');
    expect(script.run).toBe('node "$GITHUB_ACTION_PATH/run.mjs"');
    for (const name of Object.keys(action.inputs).filter((n) => n !== 'node-version')) expect(script.env[`INPUT_${name.replace(/-/g, '_').toUpperCase()}`]).toBe(`\${{ inputs.${name} }}`);
    const upload = steps.findIndex((s) => String(s.uses).startsWith('github/codeql-action/upload-sarif@'));
    const fail = steps.findIndex((s) => String(s.if).includes('exit-code'));
    expect(upload).toBeGreaterThan(steps.indexOf(script));
    expect(fail).toBeGreaterThan(upload);
    expect(steps.some((s) => String(s.uses ?? '').startsWith('docker://'))).toBe(false);
  });
});

describe('the shell script and the GitLab template', () => {
  const SCRIPT = path.resolve(import.meta.dirname, '../integrations/shell/posture-ci.sh');

  it('posture-ci.sh writes the SARIF, JUnit and markdown files, prints the summary, and exits with the gate\'s code', async () => {
    fake = await startFake({ projectId: PROJECT, stepDelayMs: 10, findings: FINDINGS });
    const out = path.join(dir, randomUUID());
    const env = { PATH: process.env.PATH ?? '', TMPDIR: dir, POSTURE_API: fake.url, POSTURE_PASS: pass, POSTURE_TARGET: 'payments-api', POSTURE_FAIL_ON: 'critical', POSTURE_OUT: out };
    const res = await finished(spawn('sh', [SCRIPT, path.join(dir, 'app.cdx.json'), path.join(dir, 'crypto.cbom.json')], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(res.code).toBe(3);
    const [surveyId] = fake.state.surveys.keys();
    expect(res.stderr).toBe(`posture: survey ${surveyId}: --fail-on tripped: critical 1 (gate)\n`);
    expect(res.stdout).toMatch(new RegExp(`\\n## Posture: payments-api\\n\\nSurvey \`${surveyId}\` completed\\. --fail-on critical\\n$`));
    expect(JSON.parse(await readFile(path.join(out, 'posture.sarif'), 'utf8')).runs[0].properties.survey_id).toBe(surveyId);
    expect(await readFile(path.join(out, 'posture-junit.xml'), 'utf8')).toContain(`posture survey ${surveyId}`);
    expect(fake.state.bundles).toHaveLength(1);
    const usage = await finished(spawn('sh', [SCRIPT], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(usage.code).toBe(2);
  });

  it('the GitLab template runs the shell script and reports the JUnit file it writes, kept when the job fails', async () => {
    const template = parse(await readFile(path.resolve(import.meta.dirname, '../integrations/gitlab/posture.gitlab-ci.yml'), 'utf8'));
    const job = template['.posture'];
    expect(job.script.at(-1)).toContain('integrations/shell/posture-ci.sh');
    expect(job.artifacts.when).toBe('always');
    expect(job.artifacts.reports.junit).toBe(`${job.variables.POSTURE_OUT}/posture-junit.xml`);
    expect(job.artifacts.paths).toEqual([`${job.variables.POSTURE_OUT}/`]);
  });
});
