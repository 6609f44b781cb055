// Importing a VEX document (issue 23, docs/triage.md "VEX"): each claim read from it (src/vex/read.ts)
// is matched against the project's current findings and subjects, and becomes a decision with the
// document as its source, or is answered as already in place, superseded or not matched, with the
// reason. Everything is planned first and written in one transaction: nothing is half applied. One
// rescoring follows, however many decisions changed.
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { JsonObject } from '../lib/json';
import { newOrderedId, nowIso } from '../lib/ids';
import { packageItemKey } from '../scoring/findings';
import { parseVers, versContains } from '../triage/vers';
import type { NormalScope } from '../triage/decision';
import type { VexClaim, VexDocument, VexProduct } from '../vex/read';
import { findingsReweighed } from './portfolios';
import { decisions, jobs, subjects } from './schema';
import type { ProjectState } from './state';
import { scopeOf, type Decider, type DecisionChange } from './decisions';

type DecisionRow = typeof decisions.$inferSelect;
type Outcome = 'applied' | 'already_in_place' | 'superseded' | 'not_matched';

/** How many results the answer lists (the counts cover them all). */
export const LISTED_RESULTS = 1_000;
/** Rows per insert: a decision row has 18 columns, and Durable Object SQLite binds at most 100 parameters a statement. */
const WRITE_CHUNK = 5;

/** A current vulnerability finding as matching reads it. */
interface Finding { subject: string; itemKey: string; version: string | null; ecosystem: string | null }

/** What the subjects' latest surveys say they are: names, package URLs, BOM serial numbers and the product's version. */
interface SubjectProduct { subject: string; names: Set<string>; purls: Set<string>; serials: Set<string>; version: string | null }

const bare = (purl: string) => purl.split(/[?#]/)[0]!;
const withoutVersion = (purl: string) => {
  const b = bare(purl);
  const at = b.lastIndexOf('@');
  return at > b.lastIndexOf('/') ? b.slice(0, at) : b;
};

function subjectProducts(state: ProjectState): SubjectProduct[] {
  const rows = state.db.select({ name: subjects.name, metadata: jobs.metadata }).from(subjects)
    .leftJoin(jobs, and(eq(jobs.parentId, subjects.latestSurveyId), eq(jobs.stepType, 'ANALYZE'))).all();
  return rows.map(({ name, metadata }) => {
    const products = Array.isArray(metadata?.products) ? metadata.products as JsonObject[] : [];
    const product: SubjectProduct = { subject: name, names: new Set([name.toLowerCase()]), purls: new Set(), serials: new Set(), version: null };
    for (const p of products) {
      if (typeof p.name === 'string') product.names.add(p.name.toLowerCase());
      if (typeof p.purl === 'string') product.purls.add(bare(p.purl)).add(withoutVersion(p.purl));
      if (typeof p.serialNumber === 'string') product.serials.add(p.serialNumber.replace(/^urn:uuid:/i, '').toLowerCase());
      if (typeof p.version === 'string' && product.version === null) product.version = p.version;
    }
    return product;
  });
}

/** Every subject's current vulnerability findings, by advisory id and alias (upper case). */
function findingsByAdvisory(state: ProjectState): Map<string, Finding[]> {
  const byId = new Map<string, Finding[]>();
  const rows = state.sql.exec<{ subject: string; data: string }>(
    `SELECT s.subject, r.data FROM subject_contents s JOIN content_rows r ON r.survey_id = s.survey_id AND r.attempt = s.attempt AND r.kind = s.kind
      WHERE s.kind = 'vuln_finding'`,
  );
  for (const row of rows) {
    const data = JSON.parse(row.data) as JsonObject;
    if (typeof data.advisory_id !== 'string' || typeof data.purl !== 'string') continue;
    const finding: Finding = {
      subject: row.subject, itemKey: packageItemKey(data.purl), version: typeof data.version === 'string' ? data.version : null,
      ecosystem: typeof data.ecosystem === 'string' ? data.ecosystem : null,
    };
    const ids = new Set([data.advisory_id, ...(Array.isArray(data.aliases) ? data.aliases as string[] : [])].map((id) => String(id).toUpperCase()));
    for (const id of ids) {
      const list = byId.get(id);
      if (list) list.push(finding);
      else byId.set(id, [finding]);
    }
  }
  return byId;
}

/** The subjects a product names, by BOM serial number, package URL (with or without its version) or name. */
function subjectsOf(product: VexProduct, all: SubjectProduct[]): SubjectProduct[] {
  if (product.serial) return all.filter((s) => s.serials.has(product.serial!));
  if (product.purl) return all.filter((s) => s.purls.has(bare(product.purl!)) || s.purls.has(withoutVersion(product.purl!)));
  const name = (product.name ?? product.label).toLowerCase();
  return all.filter((s) => s.names.has(name));
}

/** Whether a subject's product version is one the claim names (every version when it names none). */
function atNamedVersion(product: VexProduct, subject: SubjectProduct): boolean {
  if (!product.versions.length) return true;
  if (subject.version === null) return false;
  return product.versions.some((rule) => {
    if ('version' in rule) return rule.version === subject.version;
    const range = parseVers(rule.range);
    return typeof range !== 'string' && versContains(range, subject.version!, null);
  });
}

type Match = { scopes: NormalScope[] } | { reason: string };

/** The decisions' scopes a claim stands for, or why it matches nothing here. */
function matchClaim(claim: VexClaim, products: SubjectProduct[], byAdvisory: Map<string, Finding[]>): Match {
  const findings = [claim.vulnerability, ...claim.aliases].flatMap((id) => byAdvisory.get(id.toUpperCase()) ?? []);
  let within: Set<string> | null = null;
  let product = claim.product;
  if (product) {
    const named = subjectsOf(product, products);
    if (!named.length && claim.either) product = null;
    else if (!named.length) return { reason: `No subject of this project is the product ${product.label} (by name, package URL or BOM serial number).` };
    else {
      const atVersion = named.filter((s) => atNamedVersion(product!, s));
      if (!atVersion.length) {
        const versions = named.map((s) => `${s.subject} ${s.version ?? '(version unknown)'}`).join(', ');
        return { reason: `The statement is about other versions of ${product.label} than the ones surveyed: ${versions}.` };
      }
      within = new Set(atVersion.map((s) => s.subject));
    }
  }
  const component = claim.component && (!claim.either || !within) ? claim.component : null;
  const key = component && packageItemKey(component.purl);
  const range = component?.range ? parseVers(component.range) : null;
  const matched = findings.filter((f) => (!within || within.has(f.subject))
    && (!component || (f.itemKey === key
      && (component.version === null || f.version === component.version)
      && (range === null || (typeof range !== 'string' && f.version !== null && versContains(range, f.version, f.ecosystem))))));
  if (!matched.length) {
    const where = component ? component.label : product ? product.label : 'this project';
    return { reason: `No current finding of ${claim.vulnerability} (or its aliases) in ${where}.` };
  }
  const subjectsHit = within ? [...new Set(matched.map((f) => f.subject))].sort() : [null];
  return {
    scopes: subjectsHit.map((subject): NormalScope => ({
      type: 'vulnerability', advisory_id: claim.vulnerability, package: key, version: component?.version ?? null, version_range: component?.range ?? null,
      algorithm: null, asset: null, subject,
    })),
  };
}

const scopeKey = (s: NormalScope) => JSON.stringify([s.advisory_id!.toUpperCase(), s.package, s.version, s.version_range, s.subject]);
const sameAssessment = (a: DecisionRow, b: Pick<DecisionRow, 'state' | 'justification' | 'response' | 'detail'>) =>
  a.state === b.state && a.justification === b.justification && a.detail === b.detail && JSON.stringify(a.response) === JSON.stringify(b.response);

/**
 * Whether a statement is later than the one a decision holds: the same document in a higher version,
 * else the later timestamp (a statement without one is taken as current). OpenVEX's rules.
 */
function isLater(incoming: JsonObject, held: JsonObject | null): boolean {
  if (!held) return true;
  if (incoming.document_id && incoming.document_id === held.document_id && typeof incoming.version === 'number' && typeof held.version === 'number' && incoming.version !== held.version) {
    return incoming.version > held.version;
  }
  const at = (s: JsonObject) => (typeof s.timestamp === 'string' ? Date.parse(s.timestamp) : NaN);
  const [a, b] = [at(incoming), at(held)];
  return !Number.isFinite(a) || !Number.isFinite(b) || a >= b;
}

/** A source's identity across its documents: its author, else its document id. */
const sourceKey = (source: JsonObject | null) => (source ? String(source.author ?? source.document_id ?? `${source.format}:unnamed`) : '');

export function importVex(state: ProjectState, input: { document: VexDocument; digest: string; decidedBy: Decider; idempotencyKey?: string }): Promise<DecisionChange> {
  const run = async () => planAndApply(state, input.document, input.decidedBy);
  if (!input.idempotencyKey) return run().then((answer) => ({ answer, replayed: false }));
  return state.idempotency.runOnce('vex.import', input.idempotencyKey, { digest: input.digest }, run);
}

async function planAndApply(state: ProjectState, document: VexDocument, decidedBy: Decider): Promise<JsonObject> {
  const products = subjectProducts(state);
  const byAdvisory = findingsByAdvisory(state);
  // The decisions this document's source made before (their current versions, withdrawn ones too: a later statement revives them), by scope.
  const ours = sourceKey({ ...document.source });
  const held = new Map<string, DecisionRow>();
  const currentImported = state.db.select().from(decisions)
    .where(and(isNotNull(decisions.source), sql`${decisions.version} = (SELECT max(e.version) FROM decisions e WHERE e.id = ${decisions.id})`)).all();
  for (const row of currentImported) if (sourceKey(row.source) === ours) held.set(scopeKey(scopeOf(row)), row);

  const now = nowIso();
  const results: JsonObject[] = [];
  const counts: Record<Outcome, number> = { applied: 0, already_in_place: 0, superseded: 0, not_matched: 0 };
  const note = (outcome: Outcome, result: JsonObject) => {
    counts[outcome]++;
    if (results.length < LISTED_RESULTS) results.push({ ...result, outcome });
  };
  for (const u of document.unusable) note('not_matched', { statement: u.statement, vulnerability: u.vulnerability, product: null, reason: u.reason });
  const writes = new Map<string, DecisionRow>();
  const subjectsTouched = new Set<string | null>();
  for (const claim of document.claims) {
    const base = { statement: claim.statement, vulnerability: claim.vulnerability, product: claim.component?.label ?? claim.product?.label ?? null };
    const match = matchClaim(claim, products, byAdvisory);
    if ('reason' in match) {
      note('not_matched', { ...base, reason: match.reason });
      continue;
    }
    const source: JsonObject = { ...document.source, timestamp: claim.timestamp, statement: claim.statement };
    for (const scope of match.scopes) {
      const key = scopeKey(scope);
      const current = writes.get(key) ?? held.get(key) ?? null;
      const assessment = { state: claim.assessment.state, justification: claim.assessment.justification, response: claim.assessment.response, detail: claim.assessment.detail };
      if (current && !isLater(source, current.source)) {
        note('superseded', { ...base, decision_id: current.id, reason: `A later statement from the same source is in place (decision ${current.id}, ${String(current.source?.timestamp ?? 'undated')}).` });
        continue;
      }
      if (current && current.state !== 'withdrawn' && sameAssessment(current, assessment)) {
        note('already_in_place', { ...base, decision_id: current.id });
        continue;
      }
      const row: DecisionRow = current
        ? { ...current, version: current.version + (writes.has(key) ? 0 : 1), ...assessment, expires: null, source, decidedBy, decidedAt: now }
        : {
          id: newOrderedId(), version: 1, findingType: 'vulnerability', advisoryId: scope.advisory_id, package: scope.package, packageVersion: scope.version,
          versionRange: scope.version_range, algorithm: null, asset: null, subject: scope.subject, ...assessment, expires: null, source, decidedBy, decidedAt: now,
        };
      writes.set(key, row);
      subjectsTouched.add(scope.subject);
      note('applied', { ...base, decision_id: row.id });
    }
  }
  if (writes.size) {
    const rows = [...writes.values()];
    state.db.transaction(() => {
      for (let i = 0; i < rows.length; i += WRITE_CHUNK) state.db.insert(decisions).values(rows.slice(i, i + WRITE_CHUNK)).run();
    });
    await findingsReweighed(state, subjectsTouched.size === 1 ? [...subjectsTouched][0]! : null, 'decision');
  }
  return {
    format: document.source.format, spec_version: document.source.spec_version,
    source: { author: document.source.author, document_id: document.source.document_id, timestamp: document.source.timestamp, version: document.source.version },
    statements: document.statements, ...counts, results, results_truncated: results.length < Object.values(counts).reduce((a, b) => a + b, 0),
  };
}
