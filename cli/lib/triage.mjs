// `posture decisions list` and `posture vex import`: the triage commands, with an API token (docs/cli.md).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { normalizeApi } from './api.mjs';
import { UsageError } from './errors.mjs';

/** The decision list's filters, by flag. */
export const DECISION_FILTERS = { state: 'state', type: 'type', advisory: 'advisory_id', package: 'package', subject: 'subject' };
/** Flags every command takes. */
const COMMON_FLAGS = ['api', 'project', 'json', 'help', 'version'];

/**
 * A flag meant for another command is a usage error rather than silently ignored (a filter given to
 * `vex import`, a --fail-on given to `decisions list`: the caller expected it to do something).
 * @param {string} command
 * @param {Record<string, unknown>} values parseArgs' values
 * @param {string[]} allowed the command's own flags
 */
export function rejectFlags(command, values, allowed) {
  const other = Object.keys(values).find((flag) => values[flag] !== undefined && !COMMON_FLAGS.includes(flag) && !allowed.includes(flag));
  if (other) throw new UsageError(`${command} does not take --${other} (see posture --help)`);
}

/**
 * The project an API token was made for (its `prj` claim), read WITHOUT verifying it (only the
 * service can); undefined for a token that names none (a session) or is not a JWT.
 * @param {string} token
 */
export function projectOfToken(token) {
  try {
    const claims = JSON.parse(Buffer.from(token.trim().split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof claims?.prj === 'string' && claims.prj ? claims.prj : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @typedef {object} TriageArgs
 * @property {'decisions list' | 'vex import'} command
 * @property {string} api
 * @property {string} token
 * @property {string} projectId
 * @property {Record<string, string>} filters query parameters of the decision list
 * @property {number} limit Infinity without --limit
 * @property {string} [file] vex import's FILE
 * @property {boolean} json
 */

/**
 * `decisions list` and `vex import`'s command line (after the command word), which read and decide
 * with an API token.
 * @param {string} command `decisions` or `vex`
 * @param {string[]} rest the positionals after it
 * @param {Record<string, string | boolean | string[] | undefined>} values parseArgs' values
 * @param {Record<string, string | undefined>} env
 * @returns {TriageArgs}
 */
export function parseTriageArgs(command, rest, values, env) {
  const [sub, ...operands] = rest;
  const wanted = command === 'decisions' ? 'list' : 'import';
  if (sub !== wanted) throw new UsageError(`${command}: expected '${command} ${wanted}'${sub ? `, not '${sub}'` : ''} (see posture --help)`);
  if (command === 'vex' && operands.length !== 1) throw new UsageError(operands.length ? `vex import takes one FILE, got ${operands.length}` : 'vex import: missing FILE');
  if (command === 'decisions' && operands.length) throw new UsageError(`decisions list takes no operand: ${operands[0]}`);
  rejectFlags(`${command} ${wanted}`, values, command === 'decisions' ? ['token', ...Object.keys(DECISION_FILTERS), 'limit'] : ['token']);
  const str = (/** @type {string} */ name) => /** @type {string | undefined} */ (values[name]) || undefined;
  const api = str('api') || env.POSTURE_API;
  if (!api) throw new UsageError('missing --api (or POSTURE_API)');
  normalizeApi(api);
  const token = str('token') || env.POSTURE_TOKEN;
  if (!token) throw new UsageError(`${command} ${wanted} needs an API token: set POSTURE_TOKEN (or --token)`);
  const projectId = str('project') || env.POSTURE_PROJECT || projectOfToken(token);
  if (!projectId) throw new UsageError('missing --project (or POSTURE_PROJECT)');
  const type = str('type');
  if (type && type !== 'vulnerability' && type !== 'crypto') throw new UsageError(`--type: vulnerability or crypto, not ${type}`);
  /** @type {Record<string, string>} */
  const filters = {};
  for (const [flag, param] of Object.entries(DECISION_FILTERS)) if (str(flag)) filters[param] = /** @type {string} */ (str(flag));
  let limit = Infinity;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!(Number.isInteger(limit) && limit > 0)) throw new UsageError(`--limit: not a whole number above 0: ${values.limit}`);
  }
  return { command: `${command} ${wanted}` === 'vex import' ? 'vex import' : 'decisions list', api, token, projectId, filters, limit, file: operands[0], json: Boolean(values.json) };
}

/**
 * Every decision the filters select, newest first, following the cursor, at most `limit`.
 * @param {import('./api.mjs').ServiceClient} client
 * @param {Record<string, string>} filters query parameters
 * @param {number} limit
 */
export async function* listDecisions(client, filters, limit = Infinity) {
  let after = null;
  let listed = 0;
  for (;;) {
    const query = new URLSearchParams({ ...filters, limit: String(Math.min(1000, limit - listed)), ...(after ? { after } : {}) });
    const page = await client.json('listing decisions', 'GET', `v1/decision?${query}`);
    for (const decision of page.decisions) {
      yield decision;
      if (++listed >= limit) return;
    }
    if (!page.pagination.hasMore) return;
    after = page.pagination.lastId;
  }
}

/** What a decision is about, in a few words. @param {any} f */
export function findingText(f) {
  const where = f.subject ? ` in ${f.subject}` : '';
  if (f.type === 'crypto') return `${f.algorithm ?? f.asset}${where}`;
  const version = f.version ? `@${f.version}` : f.version_range ? ` ${f.version_range}` : '';
  return `${f.advisory_id}${f.package ? ` in ${f.package}${version}` : ''}${where}`;
}

/** One decision as a table row. @param {any} d */
export function decisionRow(d) {
  const by = d.source ? `VEX ${d.source.author ?? d.source.document_id ?? d.source.format}` : d.decided_by?.email ?? d.decided_by?.id ?? '';
  return [d.id, d.state + (d.suppressed ? ' (suppressed)' : ''), findingText(d.finding), d.decided_at.slice(0, 10), by];
}

/** Rows as aligned columns under a header. @param {string[][]} rows */
export function table(rows) {
  const all = [['ID', 'STATE', 'FINDING', 'DECIDED', 'BY'], ...rows];
  const widths = all[0].map((_, i) => Math.max(...all.map((r) => r[i].length)));
  return all.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')).join('\n');
}

/**
 * Reads a VEX file: its JSON, and an idempotency key from its bytes (a retried CI job applies it once).
 * @param {string} file
 */
export async function readVexFile(file) {
  const bytes = await readFile(file).catch((err) => {
    throw new UsageError(`${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  let document;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new UsageError(`${file}: not JSON (a VEX document is a CycloneDX or OpenVEX JSON file)`);
  }
  return { document, idempotencyKey: `vex-${createHash('sha256').update(bytes).digest('hex')}` };
}

/** The import's answer as lines a person reads. @param {any} answer */
export function vexReport(answer) {
  const source = answer.source.author ?? answer.source.document_id ?? 'an unnamed source';
  const lines = [
    `${answer.format} ${answer.spec_version} from ${source}: ${answer.statements} statement${answer.statements === 1 ? '' : 's'}`,
    `  applied ${answer.applied}, already in place ${answer.already_in_place}, superseded ${answer.superseded}, not matched ${answer.not_matched}`,
  ];
  for (const r of answer.results.filter((/** @type {any} */ x) => x.outcome === 'not_matched' || x.outcome === 'superseded')) {
    lines.push(`  ${r.outcome.replace('_', ' ')}: statement ${r.statement} (${r.vulnerability}${r.product ? `, ${r.product}` : ''}): ${r.reason}`);
  }
  if (answer.results_truncated) lines.push(`  (the first ${answer.results.length} results are listed)`);
  return lines.join('\n');
}
