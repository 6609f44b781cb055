#!/usr/bin/env node
// posture: the upload command-line client of the posture analysis service (docs/cli.md).
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ServiceClient, normalizeApi } from './lib/api.mjs';
import { prepareBundle, removeTempDirsSync } from './lib/bundle.mjs';
import { readPass } from './lib/challenge.mjs';
import { CliError, UsageError } from './lib/errors.mjs';
import { parseFailOn, useColor } from './lib/figures.mjs';
import { createOutput, formatSize } from './lib/progress.mjs';
import { fetchRuntimeSettings } from './lib/runtime.mjs';
import { artifactPath, runUpload } from './lib/upload.mjs';
import { decisionRow, listDecisions, parseTriageArgs, readVexFile, rejectFlags, table, vexReport } from './lib/triage.mjs';
import { VERSION } from './lib/version.mjs';

const HELP = `posture ${VERSION}: upload bundles to the posture analysis service, list its
decisions about findings, import VEX documents

Usage:
  posture upload PATH [options]
  posture decisions list [--state S] [--type T] [--advisory ID] [--package PURL]
                         [--subject NAME] [--limit N] [--json]
  posture vex import FILE [--json]

The decisions and vex commands read and decide with an API token (env
POSTURE_TOKEN, or --token): reading needs project:view, importing project:edit.
'decisions list' prints the project's current decisions, newest first;
'vex import' applies a CycloneDX or OpenVEX document (docs/triage.md) once (a
retry of the same file is answered from the first import) and prints how many
statements were applied, already in place, superseded or not matched, and why.

PATH is a CycloneDX JSON file (or a .tar.gz/.zip bundle), uploaded as is, or a
directory, packed into a .tar.gz with its *.json files, runtime/*.jsonl and a
generated manifest.json.

With --runtime the service's runtime settings are read first and applied: the
directory's runtime records are packed without the excluded libraries, with only
the recorded fields, equal records merged into one count and at most the
settings' number of distinct records; the bundle size limit, and how many parts
are sent at once, are the settings' too.

Options:
  --api URL           service address (env POSTURE_API)
  --project ID        project id (env POSTURE_PROJECT; default: the pass's or the
                      API token's project)
  --pass PASS         upload pass (env POSTURE_PASS, preferred: flags show in ps)
  --token TOKEN       API token for decisions and vex (env POSTURE_TOKEN, preferred)
  --runtime           start a RUNTIME_SURVEY (default INVENTORY_SURVEY) and apply
                      the service's runtime settings (see above)
  --target NAME       the subject surveyed (survey target, manifest subject)
  --tag TAG           survey tag (also the manifest tag)
  --ci-run-id ID      CI run id (default: GITHUB_RUN_ID, CI_PIPELINE_ID or BUILD_ID)
  --ci-url URL        CI run address for the manifest (default from the CI's env)
  --notes TEXT        survey notes
  --wait              follow the survey until it finishes (exit 1 unless COMPLETED),
                      then print its figures (entries per section, advisories per
                      severity, changes since the subject's previous survey)
  --fail-on LIST      gate a release (implies --wait): exit 3 when the survey found
                      any of LIST, comma-separated: red, yellow, transition, green,
                      unclassified, critical, high, medium, low, unknown, high+
                      (that severity or worse), new-<any of those> (not in the
                      subject's previous survey); e.g. --fail-on new-red,critical
  --timeout SECONDS   how long --wait waits (default 1800)
  --sarif FILE        write the survey's findings as SARIF 2.1.0 to FILE (for code
                      scanning; implies --wait), also when --fail-on trips
  --junit FILE        write them as JUnit XML to FILE (implies --wait): a testcase per
                      group of findings, failed for what --fail-on names (without it:
                      red cryptography, critical and high advisories)
  --summary-md FILE   write the markdown summary to FILE (implies --wait): figures,
                      what is new, top ranked fixes, links to the reports (docs/ci.md)

decisions list:
  --state S           only this state (in_triage, exploitable, resolved,
                      resolved_with_pedigree, false_positive, not_affected, withdrawn)
  --type T            vulnerability or crypto
  --advisory ID       only decisions about this advisory (any alias)
  --package PURL      only decisions about this package (its version ignored)
  --subject NAME      only decisions about this subject
  --limit N           at most N decisions (default: all, page after page)

All commands:
  --json              print only JSON lines on stdout
  -h, --help          show this help
  --version           show the version

Exit codes: 0 success (and the --fail-on gate passed), 1 service/network failure or
survey not completed, 2 usage error, 3 --fail-on found what it names, 4 --fail-on
could not be checked (the survey's report steps carry no figures). decisions list
and vex import: 0 done, 1 service/network failure (the service's message), 2 usage
error.
`;

// Timers cannot go past 2^31 ms; a week is more than any CI job runs.
const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;

/** @type {import('node:util').ParseArgsConfig['options']} */
const OPTIONS = {
  api: { type: 'string' },
  project: { type: 'string' },
  pass: { type: 'string' },
  runtime: { type: 'boolean' },
  target: { type: 'string' },
  tag: { type: 'string' },
  'ci-run-id': { type: 'string' },
  'ci-url': { type: 'string' },
  notes: { type: 'string' },
  wait: { type: 'boolean' },
  'fail-on': { type: 'string', multiple: true },
  timeout: { type: 'string' },
  sarif: { type: 'string' },
  junit: { type: 'string' },
  'summary-md': { type: 'string' },
  json: { type: 'boolean' },
  token: { type: 'string' },
  state: { type: 'string' },
  type: { type: 'string' },
  advisory: { type: 'string' },
  package: { type: 'string' },
  subject: { type: 'string' },
  limit: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
};

/** The flags upload takes, besides --api, --project, --json, --help and --version. */
const UPLOAD_FLAGS = ['pass', 'runtime', 'target', 'tag', 'ci-run-id', 'ci-url', 'notes', 'wait', 'fail-on', 'timeout', 'sarif', 'junit', 'summary-md'];

/**
 * @typedef {object} UploadArgs
 * @property {'upload'} command
 * @property {string} path
 * @property {string} api
 * @property {string} pass
 * @property {string} projectId
 * @property {string} challenge the pass's `chl`
 * @property {boolean} runtime
 * @property {string} [target]
 * @property {string} [tag]
 * @property {string} [notes]
 * @property {string} [ciRunId]
 * @property {string} [ciUrl]
 * @property {boolean} wait
 * @property {import('./lib/figures.mjs').GateToken[]} failOn empty without --fail-on
 * @property {number} timeoutMs
 * @property {import('./lib/upload.mjs').CiFiles} ciFiles files for --sarif, --junit, --summary-md
 * @property {boolean} json
 */

/**
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ command: 'help' } | { command: 'version' } | UploadArgs | import('./lib/triage.mjs').TriageArgs}
 */
function parse(argv, env) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    // node's messages add a paragraph of advice after the first sentence.
    const first = String(/** @type {Error} */ (err).message).split(/\.\s/)[0];
    throw new UsageError(`${first.charAt(0).toLowerCase()}${first.slice(1)} (see posture --help)`);
  }
  const values = /** @type {Record<string, string | boolean | string[] | undefined>} */ (parsed.values);
  const str = (/** @type {string} */ name) => /** @type {string | undefined} */ (values[name]) || undefined;
  if (values.help) return { command: 'help' };
  if (values.version) return { command: 'version' };

  const [command, ...rest] = parsed.positionals;
  if (!command) throw new UsageError('missing command: posture upload PATH (see posture --help)');
  if (command === 'decisions' || command === 'vex') return parseTriageArgs(command, rest, values, env);
  if (command !== 'upload') throw new UsageError(`unknown command '${command}' (see posture --help)`);
  rejectFlags('upload', values, UPLOAD_FLAGS);
  if (rest.length !== 1) throw new UsageError(rest.length ? `upload takes one PATH, got ${rest.length}` : 'upload: missing PATH');

  const api = str('api') || env.POSTURE_API;
  if (!api) throw new UsageError('missing --api (or POSTURE_API)');
  normalizeApi(api);
  const pass = str('pass') || env.POSTURE_PASS;
  if (!pass) throw new UsageError('missing the upload pass: set POSTURE_PASS (or --pass)');
  const claims = readPass(pass);
  const projectId = str('project') || env.POSTURE_PROJECT || claims.prj;
  if (!projectId) throw new UsageError('missing --project (or POSTURE_PROJECT)');

  // Checked before anything is sent: a typo must not upload and then gate on nothing.
  const failOnValues = /** @type {string[] | undefined} */ (values['fail-on']);
  const failOn = failOnValues ? parseFailOn(failOnValues, { runtime: Boolean(values.runtime) }) : [];

  let timeoutSeconds = 1800;
  if (values.timeout !== undefined) {
    timeoutSeconds = Number(values.timeout);
    if (!(timeoutSeconds > 0 && timeoutSeconds <= MAX_TIMEOUT_SECONDS)) {
      throw new UsageError(`--timeout: not a number of seconds above 0, at most ${MAX_TIMEOUT_SECONDS}: ${values.timeout}`);
    }
  }
  const ciFiles = { sarif: str('sarif'), junit: str('junit'), markdown: str('summary-md') };
  const named = Object.values(ciFiles).filter(Boolean);
  if (new Set(named).size !== named.length) throw new UsageError('--sarif, --junit and --summary-md must name different files');
  return {
    command: 'upload', path: rest[0], api, pass, projectId, challenge: claims.chl,
    runtime: Boolean(values.runtime), target: str('target'), tag: str('tag'), notes: str('notes'),
    ciRunId: str('ci-run-id') || env.GITHUB_RUN_ID || env.CI_PIPELINE_ID || env.BUILD_ID || undefined,
    ciUrl: str('ci-url') || ciUrlFromEnv(env),
    // The figures and the CI outputs exist only once the survey completes: --fail-on and the files wait for it.
    wait: Boolean(values.wait) || failOn.length > 0 || named.length > 0, failOn, ciFiles, timeoutMs: timeoutSeconds * 1000, json: Boolean(values.json),
  };
}

/**
 * @param {import('./lib/triage.mjs').TriageArgs} args
 * @returns {Promise<number>} the exit code
 */
async function runTriage(args) {
  const client = new ServiceClient({ api: args.api, projectId: args.projectId, pass: args.token });
  if (args.command === 'vex import') {
    const { document, idempotencyKey } = await readVexFile(/** @type {string} */ (args.file));
    const answer = await client.json('importing the VEX document', 'POST', 'v1/vex', document, { idempotencyKey });
    process.stdout.write(args.json ? `${JSON.stringify(answer)}\n` : `${vexReport(answer)}\n`);
    return 0;
  }
  const rows = [];
  for await (const decision of listDecisions(client, args.filters, args.limit)) {
    // Thousands of lines outrun a pipe: wait for it rather than buffer them all.
    if (args.json && !process.stdout.write(`${JSON.stringify(decision)}\n`)) await once(process.stdout, 'drain');
    else if (!args.json) rows.push(decisionRow(decision));
  }
  if (!args.json) process.stdout.write(rows.length ? `${table(rows)}\n` : 'no decisions\n');
  return 0;
}

/** @param {NodeJS.ProcessEnv} env */
function ciUrlFromEnv(env) {
  if (env.GITHUB_RUN_ID && env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY) {
    return `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  }
  return env.CI_PIPELINE_URL || env.BUILD_URL || undefined;
}

/**
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<number>} the exit code
 */
async function main(argv, env) {
  /** @type {import('./lib/progress.mjs').Output | null} */
  let output = null;
  const interrupted = (/** @type {number} */ code) => () => {
    output?.interrupt();
    removeTempDirsSync();
    process.stderr.write('\nposture: interrupted\n');
    process.exit(code);
  };
  process.once('SIGINT', interrupted(130));
  process.once('SIGTERM', interrupted(143));
  try {
    const args = parse(argv, env);
    if (args.command === 'help') {
      process.stdout.write(HELP);
      return 0;
    }
    if (args.command === 'version') {
      process.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (args.command !== 'upload') return await runTriage(args);
    output = createOutput({ json: args.json, color: useColor(process.stdout, env) });
    const { path: input, runtime, target, tag, ciRunId, ciUrl, notes } = args;
    const client = new ServiceClient({ api: args.api, projectId: args.projectId, pass: args.pass });

    // A runtime survey's records are packed as the service's settings say: read them first (a
    // mistyped PATH is still a usage error before anything is sent).
    if (runtime && !(await stat(input).catch(() => null))) throw new UsageError(`${input}: no such file or directory`);
    const settings = runtime ? await fetchRuntimeSettings(client) : undefined;
    const bundle = await prepareBundle(input, { target, tag, ciRunId, ciUrl, runtime }, { runtime: settings });
    if (settings) output.runtime(settings, bundle.runtime, input);
    output.info(bundle.files
      ? `packed ${bundle.files.length} file${bundle.files.length === 1 ? '' : 's'} from ${input} into a ${formatSize(bundle.size)} .tar.gz`
      : `uploading ${input} (${formatSize(bundle.size)})`);
    try {
      await runUpload({
        client, upload: settings?.upload,
        challenge: args.challenge, bundle, output, wait: args.wait, timeoutMs: args.timeoutMs, failOn: args.failOn,
        ciFiles: { ...args.ciFiles, artifact: artifactPath(input, Boolean(bundle.files)) },
        survey: {
          jobType: runtime ? 'RUNTIME_SURVEY' : 'INVENTORY_SURVEY',
          ...(target && { target }), ...(tag && { tag }), ...(ciRunId && { jsonTags: { ci_run_id: ciRunId } }), ...(notes && { notes }),
        },
      });
    } finally {
      await bundle.cleanup();
    }
    return 0;
  } catch (err) {
    if (err instanceof CliError) {
      (output ?? createOutput({ json: false })).error(err);
      return err.exitCode;
    }
    const e = /** @type {Error} */ (err);
    (output ?? createOutput({ json: false })).error({ message: `unexpected error: ${e?.message ?? e}`, code: 'internal' });
    if (env.POSTURE_DEBUG) process.stderr.write(`${e?.stack}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2), process.env);
// process.exit drops what a pipe has not taken yet (a long --json list): flush stdout first.
await new Promise((resolve) => process.stdout.write('', resolve));
process.exit(code);
