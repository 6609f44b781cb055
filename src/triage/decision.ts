// Decisions about findings (triage): what a team decided a vulnerability or a cryptographic finding
// means for a project, in CycloneDX's impact-analysis terms. The rules a decision must follow, and its
// scope normalised for storage and matching, as plain functions; the project object keeps the record.
import { packageOf } from '../analysis/vulns/ecosystem';
import { packageItemKey } from '../scoring/findings';
import { invalidRequest } from '../lib/errors';
import { parseVers } from './vers';

/** CycloneDX's impact analysis states (`vulnerabilities[].analysis.state`). */
export const DECISION_STATES = ['in_triage', 'exploitable', 'resolved', 'resolved_with_pedigree', 'false_positive', 'not_affected'] as const;
/** A deleted decision: its last version, kept in the history, applies to nothing. */
export const WITHDRAWN = 'withdrawn';
/** CycloneDX's justifications, each one of OpenVEX's (docs/triage.md). */
export const JUSTIFICATIONS = [
  'code_not_present', 'code_not_reachable', 'requires_configuration', 'requires_dependency', 'requires_environment',
  'protected_by_compiler', 'protected_at_runtime', 'protected_at_perimeter', 'protected_by_mitigating_control',
] as const;
export const RESPONSES = ['can_not_fix', 'will_not_fix', 'update', 'rollback', 'workaround_available'] as const;

export type DecisionState = (typeof DECISION_STATES)[number];
export type StoredState = DecisionState | typeof WITHDRAWN;

/** What a decision is about, as asked. */
export type FindingScope =
  | { type: 'vulnerability'; advisory_id: string; package?: string | null; version?: string | null; version_range?: string | null; subject?: string | null }
  | { type: 'crypto'; algorithm?: string | null; asset?: string | null; subject?: string | null };

/** The assessment a decision records; every version carries all of it. */
export interface Assessment {
  state: DecisionState;
  justification?: string | null;
  response?: string[] | null;
  detail?: string | null;
  expires?: string | null;
}

/** The scope as stored: the package without its version (the fix row's key), and exactly one version rule. */
export interface NormalScope {
  type: 'vulnerability' | 'crypto';
  advisory_id: string | null;
  package: string | null;
  version: string | null;
  version_range: string | null;
  algorithm: string | null;
  asset: string | null;
  subject: string | null;
}

const text = (value: string | null | undefined) => (typeof value === 'string' && value.trim() ? value.trim() : null);

/** The finding's scope, normalised; 400 naming the first rule it breaks. */
export function normalScope(finding: FindingScope): NormalScope {
  const subject = text(finding.subject);
  if (finding.type === 'crypto') {
    const algorithm = text(finding.algorithm);
    const asset = text(finding.asset);
    if (!algorithm && !asset) throw invalidRequest('A cryptographic finding is named by `algorithm` (as its ranked fix row names it, for example RSA) or `asset` (its key in the survey).');
    return { type: 'crypto', advisory_id: null, package: null, version: null, version_range: null, algorithm, asset, subject };
  }
  const advisory = text(finding.advisory_id);
  if (!advisory) throw invalidRequest('A vulnerability is named by `advisory_id` (the advisory id or any of its aliases).');
  let version = text(finding.version);
  const range = text(finding.version_range);
  const purl = text(finding.package);
  if (!purl && (version || range)) throw invalidRequest('`version` and `version_range` narrow a `package`: name the package too.');
  if (version && range) throw invalidRequest('Give `version` or `version_range`, not both.');
  let pkg: string | null = null;
  if (purl) {
    if (!purl.startsWith('pkg:')) throw invalidRequest(`\`package\` is a package URL (pkg:type/name), not ${purl}.`);
    // A purl with a version scopes the decision to that version, unless a range says otherwise.
    const own = packageOf(purl)?.version ?? versionOfPurl(purl);
    if (own && !range && !version) version = own;
    else if (own && (range || (version && version !== own))) throw invalidRequest(`\`package\` ${purl} names version ${own}: give the package without it when \`version\` or \`version_range\` is given.`);
    pkg = packageItemKey(purl);
  }
  if (range) {
    const parsed = parseVers(range);
    if (typeof parsed === 'string') throw invalidRequest(`\`version_range\`: ${parsed}.`);
  }
  return { type: 'vulnerability', advisory_id: advisory, package: pkg, version, version_range: range, algorithm: null, asset: null, subject };
}

/** A purl's version, read from the purl itself (also where OSV has no ecosystem for it: a generic package). */
export function versionOfPurl(purl: string): string | null {
  const bare = purl.split(/[?#]/)[0]!;
  const at = bare.lastIndexOf('@');
  return at > bare.lastIndexOf('/') ? decodeURIComponent(bare.slice(at + 1)) || null : null;
}

/** The assessment, checked against the scope; 400 naming the first rule it breaks. */
export function normalAssessment(scope: NormalScope, input: Assessment, now: Date): Required<Assessment> {
  const justification = text(input.justification);
  const response = [...new Set(input.response ?? [])];
  const expires = text(input.expires);
  if (input.state === 'not_affected' && !justification) throw invalidRequest('`justification` is required when `state` is not_affected (why the finding does not affect the product).');
  if (expires) {
    if (scope.type !== 'crypto') throw invalidRequest('`expires` belongs to accepted cryptographic findings; a vulnerability decision does not expire.');
    if (input.state === 'in_triage') throw invalidRequest('An acceptance needs an assessment: `expires` cannot go with state in_triage.');
    const at = Date.parse(expires);
    if (!Number.isFinite(at)) throw invalidRequest(`\`expires\` is a date (YYYY-MM-DD) or a date and time, not ${expires}.`);
    if (at <= now.getTime()) throw invalidRequest('`expires` must lie in the future.');
  }
  return { state: input.state, justification, response, detail: text(input.detail), expires };
}

/**
 * Whether a decision takes its finding out of scores, ranked fixes, summaries and the CLI gate:
 * `not_affected`, `false_positive` or `resolved` (with or without pedigree), and a cryptographic
 * finding accepted as `exploitable` until its `expires`. A decision with `expires` counts again after it.
 */
export function suppresses(decision: { state: StoredState; expires: string | null }, now: Date): boolean {
  if (decision.expires && Date.parse(decision.expires) <= now.getTime()) return false;
  if (decision.state === 'exploitable') return decision.expires !== null;
  return decision.state === 'not_affected' || decision.state === 'false_positive' || decision.state === 'resolved' || decision.state === 'resolved_with_pedigree';
}

/** Whether the decision a finding falls under (if any) suppresses it. */
export const suppressedBy = (decision: { state: StoredState; expires: string | null } | null, now: Date): boolean => decision !== null && suppresses(decision, now);
