// The project's decision record (triage, src/triage/decision.ts): each change a new version in
// `decisions`, the current one the highest. Creating and changing are idempotent per Idempotency-Key
// (a repeat answers what the first did and writes nothing).
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { ApiError, invalidParameter } from '../lib/errors';
import { base64url as base64 } from 'jose';
import { base64url, newOrderedId, nowIso } from '../lib/ids';
import type { JsonObject } from '../lib/json';
import { normalAssessment, normalScope, suppresses, WITHDRAWN, type Assessment, type FindingScope, type NormalScope, type StoredState } from '../triage/decision';
import { entryDecision, indexDecisions, type DecisionIndex, type ScopedDecision } from '../triage/match';
import { packageItemKey } from '../scoring/findings';
import { findingsReweighed } from './portfolios';
import { decisions, settings } from './schema';
import type { ProjectState } from './state';

type DecisionRow = typeof decisions.$inferSelect;

/** Who decided: the person (id, email) and the credential kind they used. */
export type Decider = JsonObject;

/** A decision as the API answers it (one version). */
export function decisionAnswer(row: DecisionRow, now = new Date()): JsonObject {
  const finding: JsonObject = row.findingType === 'vulnerability'
    ? { type: 'vulnerability', advisory_id: row.advisoryId, package: row.package, version: row.packageVersion, version_range: row.versionRange, subject: row.subject }
    : { type: 'crypto', algorithm: row.algorithm, asset: row.asset, subject: row.subject };
  return {
    id: row.id, version: row.version, finding, state: row.state, justification: row.justification, response: row.response, detail: row.detail,
    expires: row.expires, suppressed: suppresses({ state: row.state as StoredState, expires: row.expires }, now), source: row.source ?? null,
    decided_by: row.decidedBy, decided_at: row.decidedAt,
  };
}

const scopeColumns = (scope: NormalScope) => ({
  findingType: scope.type, advisoryId: scope.advisory_id, package: scope.package, packageVersion: scope.version, versionRange: scope.version_range,
  algorithm: scope.algorithm, asset: scope.asset, subject: scope.subject,
});

/** What a decision version is about, as matching reads it. */
export const scopeOf = (row: DecisionRow): NormalScope => ({
  type: row.findingType, advisory_id: row.advisoryId, package: row.package, version: row.packageVersion, version_range: row.versionRange,
  algorithm: row.algorithm, asset: row.asset, subject: row.subject,
});

/** The current (highest) version of a decision; 404 when there is none. */
function currentRow(state: ProjectState, id: string): DecisionRow {
  const row = state.db.select().from(decisions).where(eq(decisions.id, id)).orderBy(desc(decisions.version)).limit(1).get();
  if (!row) throw new ApiError('not_found', `No decision ${id} in this project.`);
  return row;
}

/** A change's answer and whether it was a repeat of an Idempotency-Key (so its activity entry is written once). */
export type DecisionChange = { answer: JsonObject; replayed: boolean };

const once = async (state: ProjectState, operation: string, key: string | undefined, request: unknown, work: () => Promise<JsonObject>): Promise<DecisionChange> =>
  key ? state.idempotency.runOnce(operation, key, request, work) : { answer: await work(), replayed: false };

/**
 * Writes a decision's new version and applies it at once: the subjects it may touch are scored again,
 * and the portfolios holding them answer 503 `rescoring` until that is done.
 */
async function written(state: ProjectState, row: DecisionRow, now = new Date()): Promise<JsonObject> {
  state.db.insert(decisions).values(row).run();
  await findingsReweighed(state, row.subject, 'decision');
  return decisionAnswer(row, now);
}

export function createDecision(state: ProjectState, input: { finding: FindingScope; assessment: Assessment; decidedBy: Decider; idempotencyKey?: string }): Promise<DecisionChange> {
  const { idempotencyKey, decidedBy: _by, ...request } = input;
  return once(state, 'decision.create', idempotencyKey, request, () => {
    const now = new Date();
    const scope = normalScope(input.finding);
    return written(state, {
      id: newOrderedId(), version: 1, ...scopeColumns(scope), ...assessmentColumns(normalAssessment(scope, input.assessment, now)),
      source: null, decidedBy: input.decidedBy, decidedAt: nowIso(),
    }, now);
  });
}

const assessmentColumns = (a: Required<Assessment>) => ({ state: a.state, justification: a.justification, response: a.response ?? [], detail: a.detail, expires: a.expires });

/** A new version with another assessment; the scope stays (a decision about something else is another decision). 409 for a withdrawn one. */
export function updateDecision(state: ProjectState, input: { id: string; assessment: Assessment; decidedBy: Decider; idempotencyKey?: string }): Promise<DecisionChange> {
  const { idempotencyKey, decidedBy: _by, ...request } = input;
  return once(state, 'decision.update', idempotencyKey, request, async () => {
    const now = new Date();
    const current = currentRow(state, input.id);
    if (current.state === WITHDRAWN) throw new ApiError('conflict', `Decision ${input.id} was withdrawn; make a new decision instead.`);
    const assessment = assessmentColumns(normalAssessment(scopeOf(current), input.assessment, now));
    return written(state, { ...current, version: current.version + 1, ...assessment, source: null, decidedBy: input.decidedBy, decidedAt: nowIso() }, now);
  });
}

/** Deleting is a new version in state `withdrawn`; withdrawing a withdrawn decision changes nothing (`replayed`). */
export async function withdrawDecision(state: ProjectState, input: { id: string; decidedBy: Decider }): Promise<DecisionChange> {
  const current = currentRow(state, input.id);
  if (current.state === WITHDRAWN) return { answer: decisionAnswer(current), replayed: true };
  const answer = await written(state, {
    ...current, version: current.version + 1, state: WITHDRAWN, justification: null, response: [], detail: null, expires: null,
    source: null, decidedBy: input.decidedBy, decidedAt: nowIso(),
  });
  return { answer, replayed: false };
}

/** A version that is its decision's current one. */
const IS_CURRENT = sql`${decisions.version} = (SELECT max(e.version) FROM decisions e WHERE e.id = ${decisions.id})`;

export const getDecision = (state: ProjectState, id: string): JsonObject => decisionAnswer(currentRow(state, id));

/** Every version, newest first. */
export function decisionHistory(state: ProjectState, id: string): JsonObject {
  const rows = state.db.select().from(decisions).where(eq(decisions.id, id)).orderBy(desc(decisions.version)).all();
  if (!rows.length) throw new ApiError('not_found', `No decision ${id} in this project.`);
  const now = new Date();
  return { id, versions: rows.map((r) => decisionAnswer(r, now)) };
}

export interface DecisionFilters {
  state?: StoredState;
  type?: 'vulnerability' | 'crypto';
  advisory_id?: string;
  package?: string;
  algorithm?: string;
  subject?: string;
  limit: number;
  after?: string;
}

/** Current decisions, newest first (withdrawn ones only when asked for by `state`), a page after `after`. */
export function listDecisions(state: ProjectState, filters: DecisionFilters): JsonObject {
  const where: SQL[] = [IS_CURRENT, filters.state ? eq(decisions.state, filters.state) : sql`${decisions.state} <> ${WITHDRAWN}`];
  if (filters.type) where.push(eq(decisions.findingType, filters.type));
  if (filters.advisory_id) where.push(eq(decisions.advisoryId, filters.advisory_id));
  if (filters.package) where.push(eq(decisions.package, packageItemKey(filters.package)));
  if (filters.algorithm) where.push(eq(decisions.algorithm, filters.algorithm));
  if (filters.subject) where.push(eq(decisions.subject, filters.subject));
  const total = state.db.select({ n: sql<number>`count(*)` }).from(decisions).where(and(...where)).get()!.n;
  if (filters.after) {
    if (!state.db.select({ id: decisions.id }).from(decisions).where(eq(decisions.id, filters.after)).limit(1).get()) {
      throw invalidParameter('after', 'The cursor names no decision of this project.');
    }
    where.push(sql`${decisions.id} < ${filters.after}`);
  }
  const rows = state.db.select().from(decisions).where(and(...where)).orderBy(desc(decisions.id)).limit(filters.limit + 1).all();
  const page = rows.slice(0, filters.limit);
  const now = new Date();
  return {
    decisions: page.map((r) => decisionAnswer(r, now)),
    pagination: { firstId: page[0]?.id ?? null, lastId: page.at(-1)?.id ?? null, hasMore: rows.length > filters.limit, total },
  };
}

/** Every current decision that is not withdrawn, ready for matching findings (scoring reads it per refresh call). */
export function decisionIndex(state: ProjectState): DecisionIndex {
  return indexDecisions(scopedDecisions(state));
}

type ScopedRow = {
  id: string; finding_type: 'vulnerability' | 'crypto'; advisory_id: string | null; package: string | null; package_version: string | null; version_range: string | null;
  algorithm: string | null; asset: string | null; subject: string | null; state: string; justification: string | null; response: string; detail: string | null;
  expires: string | null; decided_at: string;
};

/**
 * Every current decision that is not withdrawn, for matching (the report consumer indexes them once per
 * survey, scoring per refresh): only the columns matching reads, since a project may hold thousands.
 */
export function scopedDecisions(state: ProjectState): ScopedDecision[] {
  const rows = state.sql.exec<ScopedRow>(
    `SELECT id, finding_type, advisory_id, package, package_version, version_range, algorithm, asset, subject, state, justification, response, detail, expires, decided_at
       FROM decisions d WHERE state <> ?1 AND version = (SELECT max(e.version) FROM decisions e WHERE e.id = d.id)`, WITHDRAWN,
  ).toArray();
  return rows.map((r) => ({
    type: r.finding_type, advisory_id: r.advisory_id, package: r.package, version: r.package_version, version_range: r.version_range,
    algorithm: r.algorithm, asset: r.asset, subject: r.subject, id: r.id, state: r.state as StoredState, justification: r.justification,
    response: JSON.parse(r.response) as string[], detail: r.detail, expires: r.expires, decided_at: r.decided_at,
  }));
}

/** Content rows one triage-queue call reads at most, decided or not (a page may come back short, with `next`). */
export const TRIAGE_SCAN_ROWS = 5_000;
const FINDING_KINDS = { vulnerability: ['vuln_finding'], crypto: ['crypto_finding', 'runtime_finding'] } as const;

/** Where a triage-queue page ends: a subject, a kind and a key, opaque to callers. */
const cursorOf = (parts: [string, string, string]) => base64url(new TextEncoder().encode(JSON.stringify(parts)));
function partsOf(cursor: string): [string, string, string] {
  try {
    const parts = JSON.parse(new TextDecoder().decode(base64.decode(cursor))) as unknown;
    if (Array.isArray(parts) && parts.length === 3 && parts.every((p) => typeof p === 'string')) return parts as [string, string, string];
  } catch {
    // answered below
  }
  throw invalidParameter('after', 'Not a cursor of the triage queue: pass `next` of the page before.');
}

/** A current finding as the triage queue lists it: what a decision about it would name. */
function queued(subject: string, kind: string, key: string, data: JsonObject): JsonObject {
  if (kind === 'vuln_finding') {
    const severity = (data.severity ?? {}) as JsonObject;
    return {
      subject, type: 'vulnerability', key, advisory_id: data.advisory_id ?? null, aliases: data.aliases ?? [], package: data.purl ?? null, version: data.version ?? null,
      name: data.name ?? null, severity: severity.label ?? 'unknown', fixed_version: data.fixed_version ?? null,
    };
  }
  return {
    subject, type: 'crypto', key, name: data.name ?? null, algorithm: data.quantumVulnerable === true && data.family ? data.family : data.name ?? null,
    section: data.section ?? null, deadline: data.deadline ?? null, observed: kind === 'runtime_finding',
  };
}

/**
 * The triage queue: current findings (every subject's latest contents) that no decision covers, in
 * subject, kind and key order, a page after `after`. Reads at most TRIAGE_SCAN_ROWS rows a call.
 */
export function undecidedFindings(state: ProjectState, input: { type?: 'vulnerability' | 'crypto'; subject?: string; after?: string; limit: number }): JsonObject {
  const kinds: readonly string[] = input.type ? FINDING_KINDS[input.type] : [...FINDING_KINDS.vulnerability, ...FINDING_KINDS.crypto];
  const [fromSubject, fromKind, fromKey] = input.after ? partsOf(input.after) : ['', '', ''];
  const sets = state.sql.exec<{ subject: string; kind: string; survey_id: string; attempt: number }>(
    `SELECT subject, kind, survey_id, attempt FROM subject_contents WHERE kind IN (SELECT value FROM json_each(?1))
       AND (?2 IS NULL OR subject = ?2) AND (subject, kind) >= (?3, ?4) ORDER BY subject, kind`,
    JSON.stringify(kinds), input.subject ?? null, fromSubject, fromKind,
  ).toArray();
  const index = decisionIndex(state);
  const now = new Date();
  const findings: JsonObject[] = [];
  let scanned = 0;
  let last: [string, string, string] | null = null;
  for (const set of sets) {
    const after = set.subject === fromSubject && set.kind === fromKind ? fromKey : '';
    for (const row of state.sql.exec<{ key: string; data: string }>(
      'SELECT key, data FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = ? AND key > ? ORDER BY key LIMIT ?',
      set.survey_id, set.attempt, set.kind, after, TRIAGE_SCAN_ROWS - scanned,
    )) {
      scanned++;
      last = [set.subject, set.kind, row.key];
      const data = JSON.parse(row.data) as JsonObject;
      if (!entryDecision(index, set.subject, set.kind, data, now)) findings.push(queued(set.subject, set.kind, row.key, data));
      if (findings.length === input.limit) return { findings, next: cursorOf(last) };
    }
    if (scanned >= TRIAGE_SCAN_ROWS) return { findings, next: last && cursorOf(last) };
  }
  return { findings, next: null };
}

/** Through when expired acceptances were reported to the activity log (the daily run's time). */
const EXPIRY_SETTING = 'decisions_expiry_reported_through';

/**
 * Decisions whose `expires` passed after the last daily run reported and by `through` (each counts
 * again from now on: the day's snapshot rescores every subject). The daily run records them, then
 * confirms with `expiryReported`, so a run that fails in between reports them again.
 */
export function expiredSince(state: ProjectState, through: string): JsonObject[] {
  const since = state.db.select().from(settings).where(eq(settings.key, EXPIRY_SETTING)).get()?.value ?? '';
  const rows = state.db.select().from(decisions)
    .where(and(IS_CURRENT, sql`${decisions.state} <> ${WITHDRAWN}`, sql`${decisions.expires} IS NOT NULL`)).all()
    .filter((r) => { const at = Date.parse(r.expires!); return at <= Date.parse(through) && (!since || at > Date.parse(since)); });
  return rows.map((r) => ({ decisionId: r.id, version: r.version, state: r.state, expires: r.expires, finding: decisionAnswer(r).finding as JsonObject }));
}

export function expiryReported(state: ProjectState, through: string): void {
  state.db.insert(settings).values({ key: EXPIRY_SETTING, value: through }).onConflictDoUpdate({ target: settings.key, set: { value: through } }).run();
}

/** Whether any decision changed, or any acceptance ended, after `since` (and by now): what a report produced then shows moved. */
export function decisionsChangedSince(state: ProjectState, since: string, now = new Date()): boolean {
  return state.sql.exec('SELECT 1 FROM decisions WHERE decided_at > ?1 OR (expires IS NOT NULL AND expires > ?1 AND expires <= ?2) LIMIT 1', since, now.toISOString()).toArray().length > 0;
}

/** A moment a decision changed what it covers: a new version, or an acceptance that ended (by now). */
export type DecisionMoment = { at: string; type: 'vulnerability' | 'crypto'; subject: string | null };

export function decisionMoments(state: ProjectState, now = new Date()): DecisionMoment[] {
  return state.sql.exec<DecisionMoment>(
    `SELECT decided_at AS at, finding_type AS type, subject FROM decisions
     UNION ALL SELECT expires AS at, finding_type AS type, subject FROM decisions WHERE expires IS NOT NULL AND expires <= ?1`,
    now.toISOString(),
  ).toArray();
}

