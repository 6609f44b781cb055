#!/usr/bin/env node
// The GitHub Action's work (integrations/github/action.yml, docs/ci.md): runs the posture CLI of this
// checkout (the action's own version) on the SBOMs or CBOMs it is given, with the upload pass from a
// secret, waits for the survey, writes its markdown summary to the job summary and its outputs
// (`survey-id`, `passed`, counts) to $GITHUB_OUTPUT, and the SARIF file when asked. It always exits 0
// once the survey is known: the action fails the job afterwards (`exit-code`), so SARIF is uploaded
// even when the --fail-on gate trips. Plain node, no dependency: a test runs it with the environment a
// runner gives (test-node/github-action.test.mjs).
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { prepareCli } from '../lib/cli.mjs';

export { cliDependencies } from '../lib/cli.mjs';
const SECTIONS = ['red', 'yellow', 'transition', 'green', 'unclassified'];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'unknown'];

/**
 * The action's inputs as the composite action passes them (INPUT_* variables).
 * @param {NodeJS.ProcessEnv} env
 */
export function readInputs(env) {
  const input = (/** @type {string} */ name) => (env[`INPUT_${name.replace(/-/g, '_').toUpperCase()}`] ?? '').trim();
  const bool = (/** @type {string} */ name, /** @type {boolean} */ fallback) => {
    const v = input(name).toLowerCase();
    return v === '' ? fallback : ['true', 'yes', '1', 'on'].includes(v);
  };
  const temp = env.RUNNER_TEMP || tmpdir();
  return {
    api: input('api'), project: input('project'), pass: input('pass'),
    paths: input('paths').split(/[\n,]/).map((p) => p.trim()).filter(Boolean),
    target: input('target'), tag: input('tag'), failOn: input('fail-on'),
    sarif: bool('sarif', false), summary: bool('summary', true),
    sarifFile: input('sarif-file') || path.join(temp, 'posture.sarif'),
    temp,
  };
}

/**
 * What to upload: one path as it is (a file, or a directory the CLI packs); several files are copied
 * into one directory, packed as one bundle. `copies` maps each copy's name in the bundle to the path
 * it came from (relative to the workspace, `/`-separated), for the SARIF's locations.
 * @param {string[]} paths
 * @param {string} temp
 * @returns {{ upload: string, copies: Map<string, string> }}
 */
export function bundlePath(paths, temp) {
  if (!paths.length) throw new Error('the `paths` input names no SBOM, CBOM or directory');
  for (const p of paths) if (!existsSync(p)) throw new Error(`${p}: no such file or directory`);
  if (paths.length === 1) return { upload: paths[0], copies: new Map() };
  const dir = mkdtempSync(path.join(temp, 'posture-bundle-'));
  const copies = new Map();
  paths.forEach((p, i) => {
    if (statSync(p).isDirectory()) throw new Error(`${p}: name one directory alone, or files`);
    const name = `${String(i + 1).padStart(3, '0')}-${path.basename(p)}`;
    cpSync(p, path.join(dir, name));
    copies.set(name, path.relative(process.cwd(), path.resolve(p)).split(path.sep).join('/'));
  });
  return { upload: dir, copies };
}

/**
 * Several files went as one bundle from a temporary directory: the SARIF places findings that name no
 * file on the copy's name (or, with no document known, on FALLBACK_ARTIFACT): put them back on the
 * files of the repository.
 * @param {string} file the SARIF file
 * @param {Map<string, string>} copies
 */
export function relocateSarif(file, copies) {
  if (!copies.size) return;
  const log = JSON.parse(readFileSync(file, 'utf8'));
  const first = [...copies.values()][0];
  for (const run of log.runs ?? []) {
    for (const result of run.results ?? []) {
      for (const location of result.locations ?? []) {
        const artifact = location.physicalLocation?.artifactLocation;
        if (!artifact || typeof artifact.uri !== 'string') continue;
        const uri = decodeURIComponent(artifact.uri);
        if (copies.has(uri)) artifact.uri = encodeUri(copies.get(uri));
        else if (uri === 'bom.json') artifact.uri = encodeUri(first);
      }
    }
  }
  writeFileSync(file, JSON.stringify(log));
}

const encodeUri = (/** @type {string} */ p) => p.split('/').map(encodeURIComponent).join('/');

/**
 * One `name=value` line per output (values are single lines here).
 * @param {string} file
 * @param {Record<string, string | number | boolean>} outputs
 */
function writeOutputs(file, outputs) {
  const text = Object.entries(outputs).map(([k, v]) => `${k}=${String(v).replace(/\r?\n/g, ' ')}\n`).join('');
  if (file) appendFileSync(file, text);
  else process.stdout.write(text);
}

/**
 * Runs the CLI with --json and answers its exit code and its JSON events.
 * @param {string} cli
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<{ code: number, events: any[] }>}
 */
function runCli(cli, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const events = out.split('\n').filter(Boolean).flatMap((line) => {
        try {
          return [JSON.parse(line)];
        } catch {
          return [];
        }
      });
      resolve({ code: code ?? 1, events });
    });
  });
}

/**
 * The action: answers the exit code the job should end with (0, or the CLI's: 1 failed, 3 gate).
 * @param {NodeJS.ProcessEnv} env
 * @param {(line: string) => void} [log]
 */
export async function main(env, log = (line) => process.stdout.write(`${line}\n`)) {
  const inputs = readInputs(env);
  if (!inputs.api) throw new Error('the `api` input is required');
  if (!inputs.pass) throw new Error('the `pass` input is required (an upload pass, from a secret)');
  const cli = prepareCli(inputs.temp, log);
  const { upload, copies } = bundlePath(inputs.paths, inputs.temp);
  mkdirSync(inputs.temp, { recursive: true });
  const summaryFile = path.join(mkdtempSync(path.join(inputs.temp, 'posture-summary-')), 'summary.md');
  const args = ['upload', upload, '--json', '--api', inputs.api, '--summary-md', summaryFile];
  if (inputs.project) args.push('--project', inputs.project);
  if (inputs.target) args.push('--target', inputs.target);
  if (inputs.tag) args.push('--tag', inputs.tag);
  if (inputs.failOn) args.push('--fail-on', inputs.failOn);
  if (inputs.sarif) args.push('--sarif', inputs.sarifFile);
  // The pass goes by the environment, never on a command line (ps shows those).
  const { POSTURE_TOKEN: _token, ...rest } = env;
  const { code, events } = await runCli(cli, args, { ...rest, POSTURE_PASS: inputs.pass });
  const surveyId = events.find((e) => e.event === 'survey')?.surveyId ?? '';
  const done = events.find((e) => e.event === 'done');
  const wrote = new Set(events.filter((e) => e.event === 'wrote').map((e) => e.file));
  if (inputs.sarif && wrote.has(inputs.sarifFile)) relocateSarif(inputs.sarifFile, copies);
  const pqc = done?.figures?.['pqc-inventory'];
  const comp = done?.figures?.composition;
  /** @type {Record<string, string | number | boolean>} */
  const outputs = {
    'survey-id': surveyId, status: done?.status ?? 'UNKNOWN',
    passed: code === 0 && done?.status === 'COMPLETED',
    'exit-code': code,
    ...Object.fromEntries(SECTIONS.map((s) => [s, pqc?.sections?.[s] ?? ''])),
    ...Object.fromEntries(SEVERITIES.map((s) => [s, comp?.severities?.[s] ?? ''])),
    'sarif-file': inputs.sarif && wrote.has(inputs.sarifFile) ? inputs.sarifFile : '',
  };
  writeOutputs(env.GITHUB_OUTPUT ?? '', outputs);
  if (inputs.summary) {
    const markdown = wrote.has(summaryFile)
      ? readFileSync(summaryFile, 'utf8')
      : `## Posture\n\n${surveyId ? `Survey \`${surveyId}\` ` : 'The upload '}did not complete${done?.message ? `: ${done.message}` : ''}. The job's log has the CLI's messages.\n`;
    if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${markdown}\n`);
    else log(markdown);
  }
  log(`posture: survey ${surveyId || '(none)'} ${done?.status ?? 'not finished'}; exit code ${code}`);
  return code;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const code = await main(process.env);
    // The job fails in the action's last step, after the SARIF upload: exit 0 here once outputs are written.
    process.exit(process.env.POSTURE_ACTION_EXIT === 'direct' ? code : 0);
  } catch (err) {
    process.stderr.write(`::error::posture: ${/** @type {Error} */ (err).message}\n`);
    process.exit(1);
  }
}
