// `posture decisions list` and `posture vex import`: the triage commands, with an API token (docs/cli.md).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { UsageError } from './errors.mjs';

/** The decision list's filters, by flag. */
export const DECISION_FILTERS = { state: 'state', type: 'type', advisory: 'advisory_id', package: 'package', subject: 'subject' };

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
