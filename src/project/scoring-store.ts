// Scoring inside the project object: the work the scoring queue does per portfolio (leased like a
// render job), each subject's findings as the model weighs them (`scored_findings`), and the stored
// results that state, rank and simulate answer from. The computation itself is plain functions in
// src/scoring/, run by the consumer (src/queues/scoring.ts) between calls to these.
import { and, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { JsonObject } from '../lib/json';
import { newOrderedId, nowIso } from '../lib/ids';
import { scoredFindings, type ScoredFinding, type SubjectEvidence } from '../scoring/findings';
import { CRYPTO_LIBRARIES } from '../scoring/crypto-libraries';
import { AXES, bandOf, CRITICALITY_WEIGHT, type Axis, type Criticality } from '../scoring/model';
import type { PortfolioModel } from '../scoring/portfolio';
import type { ProjectState } from './state';
import { bundledComponents } from './dependency-graph';
import { memberSubjects, portfoliosHolding, requireScored, type PortfolioRow } from './portfolios';
import { compressedAnswers, type StoredAnswer } from './answer-cache';
import { POSTURE_FIXES, snapshotAsOf, snapshotScored } from './posture';
import { raiseEvent } from './notify-raise';
import { portfolioResults, portfolios, scoredFindings as scoredTable, scoreHistory, scoringWork, subjects, subjectScores } from './schema';
import { decisionOf, type DecisionIndex } from '../triage/match';
import { suppressedBy } from '../triage/decision';
import { decisionIndex } from './decisions';

export type ScoringCause = 'survey' | 'membership' | 'rating' | 'vulnerability-data' | 'snapshot' | 'backfill' | 'decision';

export interface ScoringMessage {
  projectId: string;
  portfolioId: string;
  generation: number;
  cause: ScoringCause;
}

/** Queued scoring is sent again after this long without a start; started scoring after SCORING_RUNNING_MS. */
export const SCORING_QUEUED_MS = 60_000;
export const SCORING_RUNNING_MS = 5 * 60_000;
export const MAX_SCORING_STARTS = 5;
/** How long work started too often rests before the alarm looks at it again. */
const GIVE_UP_MS = 24 * 60 * 60_000;

/**
 * Asks for the portfolios to be scored (their current generation) and sends the work. Requests
 * coalesce: work already queued for the generation is not sent twice (a thousand surveys completing
 * make one scoring, not a thousand), and work asked for while an attempt runs is sent once more when
 * it finishes. The row first: should the send fail, the alarm sends it when it lapses.
 */
export async function requestScoring(state: ProjectState, portfolioIds: string[], cause: ScoringCause, now = Date.now()): Promise<void> {
  if (!portfolioIds.length) return;
  const rows = state.db.select().from(portfolios).where(and(inArray(portfolios.id, portfolioIds), isNull(portfolios.deletedAt))).all();
  const expiresAt = now + SCORING_QUEUED_MS;
  const messages: ScoringMessage[] = [];
  for (const row of rows) {
    const work = state.db.select().from(scoringWork).where(eq(scoringWork.portfolioId, row.id)).get();
    if (work && work.generation === row.generation && work.attempts < MAX_SCORING_STARTS) {
      // Queued: the message on its way does it. Running: once more when it finishes. A snapshot's
      // cause is kept over another (its scoring writes the day's history points and posture report).
      const kept = work.cause === 'snapshot' && work.attempts === 0 ? 'snapshot' : cause;
      state.db.update(scoringWork).set({ cause: kept, ...(work.attempts > 0 ? { again: true } : {}) }).where(eq(scoringWork.portfolioId, row.id)).run();
      continue;
    }
    state.db.insert(scoringWork).values({ portfolioId: row.id, generation: row.generation, cause, expiresAt })
      .onConflictDoUpdate({ target: scoringWork.portfolioId, set: { generation: row.generation, cause, attempts: 0, again: false, expiresAt } }).run();
    messages.push({ projectId: state.projectId, portfolioId: row.id, generation: row.generation, cause });
  }
  if (!messages.length) return;
  await state.wake(expiresAt);
  await sendScoring(state, messages);
}

async function sendScoring(state: ProjectState, messages: ScoringMessage[]): Promise<void> {
  await state.env.SCORING_QUEUE.sendBatch(messages.map((body) => ({ body })))
    .catch((error) => console.error(`scoring: sending work failed, the alarm sends it again: ${String(error)}`));
}

/** A subject's contents changed (a survey completed, vulnerability data moved): its findings are refreshed at the next scoring of every portfolio holding it. */
export async function subjectChanged(state: ProjectState, subject: string, cause: ScoringCause): Promise<void> {
  state.db.update(subjectScores).set({ stale: true }).where(eq(subjectScores.subject, subject)).run();
  await requestScoring(state, portfoliosHolding(state, subject).map((p) => p.id), cause);
}

/**
 * The alarm: a portfolio never scored and not waiting for it (the built-in one of a project whose storage
 * predates portfolios, created on its first read) is asked for.
 */
export async function scoreUnasked(state: ProjectState): Promise<void> {
  const unasked = state.sql.exec<{ id: string }>(
    "SELECT id FROM portfolios p WHERE p.status = 'unscored' AND p.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM scoring_work w WHERE w.portfolio_id = p.id)",
  ).toArray().map((r) => r.id);
  if (unasked.length) await requestScoring(state, unasked, 'membership');
}

/** The alarm: scoring whose message was lost or whose consumer died is sent again. Answers when to look next. */
export async function expireScoring(state: ProjectState, now = Date.now()): Promise<number | null> {
  const lapsed = state.db.select().from(scoringWork).where(lte(scoringWork.expiresAt, now)).all();
  const resend: ScoringMessage[] = [];
  for (const work of lapsed) {
    if (work.attempts >= MAX_SCORING_STARTS) {
      // Given up for a day: the next change or snapshot asks again. State keeps answering the last result (or 503).
      console.error(`scoring: portfolio ${work.portfolioId} was started ${work.attempts} times without finishing; waiting for the next change or snapshot`);
      state.db.update(scoringWork).set({ expiresAt: now + GIVE_UP_MS }).where(eq(scoringWork.portfolioId, work.portfolioId)).run();
      continue;
    }
    state.db.update(scoringWork).set({ expiresAt: now + SCORING_QUEUED_MS }).where(eq(scoringWork.portfolioId, work.portfolioId)).run();
    resend.push({ projectId: state.projectId, portfolioId: work.portfolioId, generation: work.generation, cause: work.cause as ScoringCause });
  }
  if (resend.length) await sendScoring(state, resend);
  const next = state.db.select({ at: sql<number>`min(${scoringWork.expiresAt})` }).from(scoringWork).get()?.at;
  return next ?? null;
}

export interface ScoringStart {
  run: boolean;
  /** This run's id: finishScoring keeps the result of the run that began last, and no other. */
  runId?: string;
  /** Why the work was asked for when the run began (the message may be an earlier one's, for the same generation). */
  cause?: ScoringCause;
  asOf?: string;
  /** The subjects the portfolio scores (worked out once per scoring: package members take a query each). */
  members?: string[];
  /** Those whose findings must be refreshed first. */
  stale?: string[];
}

/** The consumer starts scoring a portfolio: only the generation asked for, only once per delivery. */
export function beginScoring(state: ProjectState, input: { portfolioId: string; generation: number }, now = Date.now()): ScoringStart {
  const work = state.db.select().from(scoringWork).where(eq(scoringWork.portfolioId, input.portfolioId)).get();
  const row = state.db.select().from(portfolios).where(and(eq(portfolios.id, input.portfolioId), isNull(portfolios.deletedAt))).get();
  if (!row && work) state.db.delete(scoringWork).where(eq(scoringWork.portfolioId, input.portfolioId)).run();
  // A message for an older generation: the newer one's message is on its way.
  if (!work || !row || work.generation !== input.generation || row.generation !== input.generation || work.attempts >= MAX_SCORING_STARTS) return { run: false };
  const runId = newOrderedId();
  state.db.update(scoringWork).set({ attempts: work.attempts + 1, run: runId, expiresAt: now + SCORING_RUNNING_MS }).where(eq(scoringWork.portfolioId, row.id)).run();
  // A snapshot scores as of its own date (the deadlines' urgency and the posture report's date).
  const asOf = (work.cause === 'snapshot' ? snapshotAsOf(state) : null) ?? new Date(now).toISOString();
  const today = asOf.slice(0, 10);
  const members = memberSubjects(state, row);
  const fresh = new Set(state.db.select({ subject: subjectScores.subject, stale: subjectScores.stale, asOf: subjectScores.asOf }).from(subjectScores).all()
    // Deadlines come closer every day: a subject scored on an earlier day is refreshed too.
    .filter((s) => !s.stale && s.asOf.slice(0, 10) === today).map((s) => s.subject));
  return { run: true, runId, cause: work.cause as ScoringCause, asOf, members, stale: members.filter((s) => !fresh.has(s)) };
}

// ---- a subject's scored findings ----

/** Durable Object SQLite binds at most 100 parameters per statement. */
export const MAX_BOUND = 90;

/**
 * Components are filtered by the names of known crypto libraries before the table's own matching: a
 * component may be one when its package URL (its name, without one) contains one of these hints, `%`
 * standing for any run of characters (as in SQL's `LIKE '%hint%'`, which the filter was).
 */
export const LIBRARY_HINTS = [...new Set(CRYPTO_LIBRARIES.flatMap((l) => [l.id, ...l.packages.map((p) => p.split('/').pop()!)])
  .map((h) => h.toLowerCase().replace(/[^a-z0-9]+/g, '%')).filter((h) => h.replace(/%/g, '').length >= 3))];

/**
 * The hints as one expression, matched in JavaScript: about five times faster than 88 LIKE terms in
 * SQL. Without the `u` flag, `i` folds ASCII letters only, as LIKE and SQLite's lower() do.
 */
const LIBRARY_HINT = new RegExp(LIBRARY_HINTS.map((h) => h.split('%').join('[\\s\\S]*')).join('|'), 'i');

/** Whether a component may be a crypto library (its package URL, or its name without one, contains a hint). */
export const mayBeCryptoLibrary = (component: { purl: string | null; name: string }): boolean => LIBRARY_HINT.test(component.purl ?? component.name);

type Current = { survey_id: string; attempt: number };

function currentOf(state: ProjectState, subject: string, kind: string): Current | null {
  return state.sql.exec<Current>('SELECT survey_id, attempt FROM subject_contents WHERE subject = ? AND kind = ?', subject, kind).toArray()[0] ?? null;
}

/**
 * What the analysis holds for the subject now, as the scoring model reads it, and how many content rows
 * that took. With `scanned` (its components scanned ahead in pages, from the attempt that is still
 * current), the components are not read again here.
 */
export function subjectEvidence(state: ProjectState, subject: string, scanned?: LibraryScan): { evidence: SubjectEvidence; rows: number } {
  const evidence: SubjectEvidence = { subject, vulns: [], crypto: [], runtime: [], libraries: [] };
  let rows = 0;
  const vuln = currentOf(state, subject, 'vuln_finding');
  if (vuln) {
    for (const row of state.sql.exec<{ data: string; listed: number | null }>(
      // A subquery, not a join: through the content_rows view each lookup stays one search of each set.
      `SELECT f.data, (SELECT json_extract(c.data, '$.listed') FROM content_rows c
         WHERE c.survey_id = ?1 AND c.attempt = ?2 AND c.kind = 'component' AND c.key = json_extract(f.data, '$.component_key')) AS listed
       FROM content_rows f WHERE f.survey_id = ?1 AND f.attempt = ?2 AND f.kind = 'vuln_finding'`, vuln.survey_id, vuln.attempt)) {
      evidence.vulns.push({ data: JSON.parse(row.data) as JsonObject, listed: row.listed ?? 1 });
    }
  }
  // What each vulnerable component bundles: a fix row's `dependencies`, upgradable on their own in simulation.
  const components = currentOf(state, subject, 'component');
  const keys = [...new Set(evidence.vulns.map((v) => String(v.data.component_key ?? '')).filter(Boolean))];
  if (components && keys.length) {
    const bundled = bundledComponents(state, { surveyId: components.survey_id, attempt: components.attempt, componentKeys: keys });
    evidence.bundles = Object.fromEntries(Object.entries(bundled).map(([key, list]) => [key, list.map((b) => ({ name: b.name, purl: b.purl, version: b.version }))]));
  }
  const crypto = currentOf(state, subject, 'crypto_finding');
  if (crypto) {
    for (const row of state.sql.exec<{ data: string; protocol: string | null }>(
      `SELECT f.data, (SELECT json_extract(a.data, '$.protocol') FROM content_rows a
         WHERE a.survey_id = ?1 AND a.attempt = ?2 AND a.kind = 'crypto_asset' AND a.key = f.key) AS protocol
       FROM content_rows f WHERE f.survey_id = ?1 AND f.attempt = ?2 AND f.kind = 'crypto_finding'`, crypto.survey_id, crypto.attempt)) {
      evidence.crypto.push({ data: JSON.parse(row.data) as JsonObject, protocol: row.protocol ? JSON.parse(row.protocol) as JsonObject : null });
    }
  }
  const runtime = currentOf(state, subject, 'runtime_finding');
  if (runtime) {
    for (const row of state.sql.exec<{ data: string }>("SELECT data FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = 'runtime_finding'", runtime.survey_id, runtime.attempt)) {
      evidence.runtime.push(JSON.parse(row.data) as JsonObject);
    }
  }
  if (components) {
    // In key order, as the table's own matching reads them (of several versions of one library, the first worst one counts).
    const ahead = scanned && scanned.surveyId === components.survey_id && scanned.attempt === components.attempt ? scanned.candidates : null;
    const scan = ahead ? { candidates: ahead, rows: ahead.length } : libraryCandidates(state, components, null, -1);
    rows += scan.rows;
    const { candidates } = scan;
    const listed = candidates.length ? listedOf(state, components, candidates.map((c) => c.key)) : new Map<string, number>();
    for (const c of candidates) evidence.libraries.push({ key: c.key, name: c.name, purl: c.purl, version: c.version, listed: listed.get(c.key) ?? 1 });
  }
  rows += evidence.vulns.length + evidence.crypto.length + evidence.runtime.length;
  return { evidence, rows };
}

/** A component that may be a crypto library, as the table's own matching reads it. */
export type LibraryCandidate = { key: string; name: string; purl: string | null; version: string | null };

/**
 * A subject's components scanned ahead for crypto libraries, a page per call (`libraryScanPage`), from
 * the analysis attempt that was current: a subject of a million components is never read in one call.
 */
export interface LibraryScan {
  subject: string;
  surveyId: string | null;
  attempt: number;
  candidates: LibraryCandidate[];
}

/**
 * Component rows one call reads for crypto libraries (about 15 ms on the bench's machine, 40 ms loaded): a subject
 * with more is scanned ahead in pages before its refresh.
 */
export const LIBRARY_SCAN_ROWS = 10_000;

/** The crypto-library candidates among an attempt's components after `after` (key order), reading at most `limit` rows (-1: all). */
function libraryCandidates(state: ProjectState, components: Current, after: string | null, limit: number) {
  const candidates: LibraryCandidate[] = [];
  let rows = 0;
  let last: string | null = null;
  const query = `SELECT key, name, purl, version FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = 'component'${after === null ? '' : ' AND key > ?'} ORDER BY key LIMIT ?`;
  const params = after === null ? [limit] : [after, limit];
  for (const [key, name, purl, version] of state.sql.exec(query, components.survey_id, components.attempt, ...params)
    .raw() as IterableIterator<[string, string, string | null, string | null]>) {
    rows++;
    last = key;
    if (mayBeCryptoLibrary({ purl, name })) candidates.push({ key, name, purl, version });
  }
  return { candidates, rows, last };
}

/** Whether an attempt holds more than `limit` components (counted on the key index, stopping past the limit). */
function componentsOver(state: ProjectState, components: Current, limit: number): boolean {
  return state.sql.exec<{ n: number }>("SELECT count(*) AS n FROM (SELECT 1 FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = 'component' LIMIT ?)",
    components.survey_id, components.attempt, limit + 1).one().n > limit;
}

/**
 * One page of a subject's library scan: the first (no `from`) starts at its current components, the
 * next ones continue the same attempt after `after`. `next` is null once every row was read.
 */
export function libraryScanPage(state: ProjectState, input: { subject: string; from?: { surveyId: string; attempt: number; after: string }; limit?: number }):
  { surveyId: string | null; attempt: number; candidates: LibraryCandidate[]; next: string | null } {
  const limit = input.limit ?? LIBRARY_SCAN_ROWS;
  const components = input.from ? { survey_id: input.from.surveyId, attempt: input.from.attempt } : currentOf(state, input.subject, 'component');
  if (!components) return { surveyId: null, attempt: 0, candidates: [], next: null };
  const page = libraryCandidates(state, components, input.from?.after ?? null, limit);
  return { surveyId: components.survey_id, attempt: components.attempt, candidates: page.candidates, next: page.rows === limit ? page.last : null };
}

/** How many times each of some components was listed (`listed` of its data), when its data says. */
function listedOf(state: ProjectState, components: Current, keys: string[]): Map<string, number> {
  return new Map(state.sql.exec<{ key: string; listed: number | null }>(
    "SELECT key, json_extract(data, '$.listed') AS listed FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = 'component' AND key IN (SELECT value FROM json_each(?))",
    components.survey_id, components.attempt, JSON.stringify(keys),
  ).toArray().filter((r) => r.listed !== null).map((r) => [r.key, r.listed!]));
}

/**
 * Recomputes a subject's scored findings and penalties from its current contents, as of `asOf`.
 * Answers how many findings it has and how many content rows it read (the work it took).
 */
export function refreshSubject(state: ProjectState, input: { subject: string; asOf: string; scanned?: LibraryScan; decisions?: DecisionIndex }): { findings: number; rows: number } {
  const { evidence, rows } = subjectEvidence(state, input.subject, input.scanned);
  const decisions = input.decisions ?? decisionIndex(state);
  // A finding decided away (not affected, a false positive, resolved, accepted until a date) leaves the scores and the ranked fixes.
  const asOf = new Date(input.asOf);
  const findings: ScoredFinding[] = [];
  for (const f of scoredFindings(evidence, input.asOf)) {
    const decision = decisionOf(decisions, f);
    if (suppressedBy(decision, asOf)) continue;
    // A finding decided but still counted (in triage, exploitable) shows its decision on the ranked fix row.
    findings.push(decision ? { ...f, detail: { ...f.detail, decision: { id: decision.id, state: decision.state } } } : f);
  }
  const sums: Record<Axis, number> = { pqc: 0, vuln: 0, agility: 0 };
  for (const f of findings) sums[f.axis] += f.penalty;
  state.db.transaction(() => {
    writeScoredFindings(state, input.subject, findings);
    const row = { ...sums, findings: findings.length, stale: false, asOf: input.asOf, computedAt: nowIso() };
    state.db.insert(subjectScores).values({ subject: input.subject, ...row }).onConflictDoUpdate({ target: subjectScores.subject, set: row }).run();
  });
  return { findings: findings.length, rows: rows + findings.length };
}

type StoredFinding = { id: string; axis: string; finding_key: string; item_key: string | null; penalty: number; detail: string };

/**
 * Makes the subject's stored findings these, writing only the rows that differ: a rescoring mostly
 * recomputes contents that did not change, and comparing costs a third of writing.
 */
function writeScoredFindings(state: ProjectState, subject: string, findings: ScoredFinding[]): void {
  const stored = new Map(state.sql.exec<StoredFinding>('SELECT id, axis, finding_key, item_key, penalty, detail FROM scored_findings WHERE subject = ?', subject)
    .toArray().map((r) => [r.id, r]));
  for (const f of findings) {
    const detail = JSON.stringify(f.detail);
    const was = stored.get(f.id);
    stored.delete(f.id);
    if (was && was.axis === f.axis && was.finding_key === f.findingKey && was.item_key === f.itemKey && was.penalty === f.penalty && was.detail === detail) continue;
    state.sql.exec('INSERT OR REPLACE INTO scored_findings (subject, id, axis, finding_key, item_key, penalty, detail) VALUES (?, ?, ?, ?, ?, ?, ?)',
      f.subject, f.id, f.axis, f.findingKey, f.itemKey, f.penalty, detail);
  }
  for (const id of stored.keys()) state.sql.exec('DELETE FROM scored_findings WHERE subject = ? AND id = ?', subject, id);
}

/** Content rows one refresh call reads at most (a subject's findings are not split; its components are scanned ahead past LIBRARY_SCAN_ROWS): about 25 ms of work on the bench's machine. */
export const REFRESH_ROWS = 3_000;

/**
 * Refreshes the subjects in order until REFRESH_ROWS content rows were read (at least one subject);
 * answers how many it refreshed. It stops before a subject of more than `scanRows` components that was
 * not scanned ahead (`scanned`, from its current attempt), naming it in `scanFirst`.
 */
export function refreshSubjects(state: ProjectState, input: { subjects: string[]; asOf: string; scanned?: LibraryScan }, scanRows = LIBRARY_SCAN_ROWS):
  { refreshed: number; scanFirst?: string } {
  let rows = 0;
  let refreshed = 0;
  const decisions = decisionIndex(state);
  for (const subject of input.subjects) {
    const scanned = input.scanned?.subject === subject ? input.scanned : undefined;
    if (mustScanFirst(state, subject, scanned, scanRows)) return { refreshed, scanFirst: subject };
    rows += refreshSubject(state, { subject, asOf: input.asOf, scanned, decisions }).rows;
    refreshed++;
    if (rows >= REFRESH_ROWS) break;
  }
  return { refreshed };
}

/** A subject whose current components are too many to read in one call, and were not scanned ahead from them. */
function mustScanFirst(state: ProjectState, subject: string, scanned: LibraryScan | undefined, scanRows: number): boolean {
  const components = currentOf(state, subject, 'component');
  if (!components || (scanned?.surveyId === components.survey_id && scanned.attempt === components.attempt)) return false;
  return componentsOver(state, components, scanRows);
}

// ---- scoring inputs and results ----

export interface ScoringSubject {
  name: string;
  criticality: Criticality;
  weight: number;
  penalties: Record<Axis, number>;
}

/** The subjects' weights and penalties (the model), as of this scoring. */
export function scoringSubjects(state: ProjectState, names: string[]): ScoringSubject[] {
  const out: ScoringSubject[] = [];
  for (let i = 0; i < names.length; i += MAX_BOUND) {
    const slice = names.slice(i, i + MAX_BOUND);
    const scores = new Map(state.db.select().from(subjectScores).where(inArray(subjectScores.subject, slice)).all().map((s) => [s.subject, s]));
    const info = new Map(state.db.select({ name: subjects.name, criticality: subjects.criticality }).from(subjects).where(inArray(subjects.name, slice)).all().map((s) => [s.name, s]));
    for (const name of slice) {
      const criticality = (info.get(name)?.criticality ?? 'unclassified') as Criticality;
      const s = scores.get(name);
      out.push({ name, criticality, weight: CRITICALITY_WEIGHT[criticality] ?? 2, penalties: { pqc: s?.pqc ?? 0, vuln: s?.vuln ?? 0, agility: s?.agility ?? 0 } });
    }
  }
  return out;
}

/** A scored finding as stored: its detail the JSON text, which the scoring consumer parses (cheaper to send than the object). */
export type StoredScoredFinding = Omit<ScoredFinding, 'detail'> & { detail: string };

/** A page of the scored findings of some subjects (at most MAX_BOUND of them), in (subject, id) order. */
export function findingsPage(state: ProjectState, input: { subjects: string[]; after?: [string, string]; limit: number }): StoredScoredFinding[] {
  if (!input.subjects.length) return [];
  if (input.subjects.length > MAX_BOUND) throw new Error(`findingsPage takes at most ${MAX_BOUND} subjects at a time`);
  const [afterSubject, afterId] = input.after ?? ['', ''];
  const marks = input.subjects.map(() => '?').join(',');
  type Row = [string, string, Axis, string, string | null, number, string];
  const rows = state.sql.exec(
    `SELECT subject, id, axis, finding_key, item_key, penalty, detail FROM scored_findings WHERE subject IN (${marks}) AND (subject > ? OR (subject = ? AND id > ?)) ORDER BY subject, id LIMIT ?`,
    ...input.subjects, afterSubject, afterSubject, afterId, input.limit,
  ).raw() as IterableIterator<Row>;
  // Rows as arrays: a third cheaper than as objects, at 50,000 findings a scoring.
  return Array.from(rows, ([subject, id, axis, findingKey, itemKey, penalty, detail]) => ({ subject, id, axis, findingKey, itemKey, penalty, detail }));
}

/**
 * Characters of one stored piece of a parted fix row. SQLite here takes at most 2 MB in one row; a
 * piece stays under it even at 3 bytes a character.
 */
export const FIX_PART_CHARS = 500_000;

/** A ranked row to stage: its place, key and gain, and its three JSON texts (written by the scoring consumer). */
export interface StagedFix {
  rank: number;
  itemKey: string;
  gain: number;
  row: string;
  summary: string;
  effects: string;
}

/**
 * Writes a slice of a build's ranked rows (not visible until the build is made current). A row whose
 * text does not fit in one stored row (a subject with 20,000 keys of one algorithm: several MB) keeps
 * its `row` and `effects` in pieces in `portfolio_fix_parts`.
 */
export function stageFixes(state: ProjectState, input: { build: string; rows: StagedFix[] }): void {
  state.db.transaction(() => {
    for (const { rank, itemKey, gain, row, summary, effects } of input.rows) {
      const parted = row.length + summary.length + effects.length > FIX_PART_CHARS;
      state.sql.exec('INSERT OR REPLACE INTO portfolio_fixes (build, rank, item_key, gain, row, summary, effects, parted) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        input.build, rank, itemKey, gain, parted ? '' : row, summary, parted ? '' : effects, parted ? 1 : 0);
      if (!parted) continue;
      // Staged again after a retry: the pieces start afresh.
      state.sql.exec('DELETE FROM portfolio_fix_parts WHERE build = ? AND item_key = ?', input.build, itemKey);
      for (const [field, text] of [['row', row], ['effects', effects]] as const) {
        for (let at = 0, part = 0; at < text.length; at += FIX_PART_CHARS, part++) {
          state.sql.exec('INSERT INTO portfolio_fix_parts (build, item_key, field, part, text) VALUES (?, ?, ?, ?, ?)', input.build, itemKey, field, part, text.slice(at, at + FIX_PART_CHARS));
        }
      }
    }
  });
}

/** A parted fix row's `row` or `effects` text, its pieces joined. */
function joinedParts(state: ProjectState, build: string, itemKey: string, field: 'row' | 'effects'): string {
  return state.sql.exec<{ text: string }>('SELECT text FROM portfolio_fix_parts WHERE build = ? AND item_key = ? AND field = ? ORDER BY part', build, itemKey, field)
    .toArray().map((r) => r.text).join('');
}

export interface FinishedScoring {
  portfolioId: string;
  generation: number;
  runId: string;
  build: string;
  asOf: string;
  cause: ScoringCause;
  state: JsonObject;
  model: PortfolioModel;
  rows: number;
}

/**
 * Makes a build current: the result replaces the previous one (whose rows are deleted), history gets a
 * row per axis whose score moved (every axis for a snapshot), and the portfolio is scored. A build
 * for a generation that moved on meanwhile is dropped: the newer work is queued already.
 */
export async function finishScoring(state: ProjectState, input: FinishedScoring): Promise<{ kept: boolean }> {
  const row = state.db.select().from(portfolios).where(eq(portfolios.id, input.portfolioId)).get();
  const work = state.db.select().from(scoringWork).where(eq(scoringWork.portfolioId, input.portfolioId)).get();
  const current = row && !row.deletedAt && row.generation === input.generation && work?.generation === input.generation && work.run === input.runId;
  if (!current) {
    dropBuild(state, input.build);
    return { kept: false };
  }
  const previous = state.db.select().from(portfolioResults).where(eq(portfolioResults.portfolioId, row.id)).get();
  const computedAt = nowIso();
  state.db.transaction(() => {
    const result = { portfolioId: row.id, generation: input.generation, build: input.build, computedAt, asOf: input.asOf, state: input.state, model: input.model as unknown as JsonObject, rows: input.rows };
    state.db.insert(portfolioResults).values(result).onConflictDoUpdate({ target: portfolioResults.portfolioId, set: result }).run();
    state.db.update(portfolios).set({ status: 'scored' }).where(eq(portfolios.id, row.id)).run();
    if (work.again) {
      state.db.update(scoringWork).set({ attempts: 0, again: false, expiresAt: Date.now() + SCORING_QUEUED_MS }).where(eq(scoringWork.portfolioId, row.id)).run();
    } else {
      state.db.delete(scoringWork).where(eq(scoringWork.portfolioId, row.id)).run();
    }
    writeHistory(state, row, input.state, input.cause, computedAt);
  });
  if (previous && previous.build !== input.build) dropBuild(state, previous.build);
  if (input.cause === 'snapshot') {
    const fixes = state.sql.exec<{ summary: string }>('SELECT summary FROM portfolio_fixes WHERE build = ? ORDER BY rank LIMIT ?', input.build, POSTURE_FIXES)
      .toArray().map((r) => JSON.parse(r.summary) as JsonObject);
    await snapshotScored(state, { portfolio: row, state: input.state, asOf: input.asOf, fixes });
  }
  // Asked for again while this attempt ran (a survey completed meanwhile): once more.
  if (work.again) await sendScoring(state, [{ projectId: state.projectId, portfolioId: row.id, generation: row.generation, cause: work.cause as ScoringCause }]);
  return { kept: true };
}

/** Deletes a build's rows (and the pieces of its parted rows) in slices that keep the object answering. */
export function dropBuild(state: ProjectState, build: string): void {
  for (const table of ['portfolio_fix_parts', 'portfolio_fixes']) {
    for (;;) {
      const deleted = state.sql.exec(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE build = ? LIMIT 2000)`, build).rowsWritten;
      if (deleted < 2000) break;
    }
  }
}

/** A score that moved raises `portfolio.band_changed` when its band changed, and `portfolio.score_dropped` when it fell (the rules' threshold decides who hears). */
function scoreMoved(state: ProjectState, move: { id: string; portfolio: JsonObject; axis: string; previous_score: number; score: number; cause: string; at: string }): void {
  const facts = { ...move, previous_band: bandOf(move.previous_score), band: bandOf(move.score) };
  if (facts.band !== facts.previous_band) raiseEvent(state, { id: `portfolio.band_changed:${move.id}`, type: 'portfolio.band_changed', ref: facts, occurredAt: move.at });
  const drop = Math.round((move.previous_score - move.score) * 10) / 10;
  if (drop > 0) raiseEvent(state, { id: `portfolio.score_dropped:${move.id}`, type: 'portfolio.score_dropped', ref: { ...facts, drop }, occurredAt: move.at });
}

/** History rows for the axes whose shown score moved since the portfolio's last row of that axis. */
function writeHistory(state: ProjectState, row: PortfolioRow, answer: JsonObject, cause: ScoringCause, at: string): void {
  const axes = ((answer.score as JsonObject | undefined)?.axes ?? {}) as Record<string, { score: number | null }>;
  for (const axis of AXES) {
    const score = axes[axis]?.score;
    if (score === null || score === undefined) continue;
    const last = state.db.select({ score: scoreHistory.score }).from(scoreHistory)
      .where(and(eq(scoreHistory.portfolioId, row.id), eq(scoreHistory.axis, axis))).orderBy(sql`${scoreHistory.at} DESC`, sql`${scoreHistory.id} DESC`).get();
    if (cause !== 'snapshot' && last && last.score === score) continue;
    const id = newOrderedId();
    state.db.insert(scoreHistory).values({ id, portfolioId: row.id, axis, score, band: bandOf(score), cause, at }).run();
    if (last && cause !== 'snapshot') scoreMoved(state, { id, portfolio: { id: row.id, name: row.name }, axis, previous_score: last.score, score, cause, at });
  }
}

// ---- reads ----

/** The stored JSON text of one column of a portfolio's result (answered as it is, never parsed). */
const resultColumn = (state: ProjectState, portfolioId: string, column: 'state' | 'model') =>
  state.sql.exec<{ text: string }>(`SELECT ${column} AS text FROM portfolio_results WHERE portfolio_id = ?`, portfolioId).one().text;

/**
 * `GET state`: the stored answer as JSON text (a thousand subjects' breakdown is written out as it is);
 * with `rank`, the first page of ranked fixes in summary form beside it. Compressed once per build
 * when the caller accepts gzip.
 */
export function stateAnswer(state: ProjectState, portfolioId: string, input: { rank: boolean; gzip: boolean }): Promise<StoredAnswer> {
  const { row, result } = requireScored(state, portfolioId);
  const key = JSON.stringify(['state', state.projectId, row.id, result.build, result.computedAt, result.asOf, row.name, input.rank]);
  return compressedAnswers.answer(key, () => {
    const stored = resultColumn(state, row.id, 'state');
    const rank = input.rank ? `,"rank":${rankBody(rankPage(state, portfolioId, { offset: 0, limit: 1000, summary: true }))}` : '';
    return `{"portfolio_id":${JSON.stringify(row.id)},"name":${JSON.stringify(row.name)},${stored.slice(1, -1)},"computed_at":${JSON.stringify(result.computedAt)},"as_of":${JSON.stringify(result.asOf)}${rank}}`;
  }, input);
}

export interface RankPage {
  total: number;
  offset: number;
  limit: number;
  /** Each row as stored JSON text, written out as it is. */
  rows: string[];
}

const rankBody = (page: RankPage) => `{"rows":[${page.rows.join(',')}],"total":${page.total},"offset":${page.offset},"limit":${page.limit}}`;

function rankPage(state: ProjectState, portfolioId: string, query: { offset: number; limit: number; summary: boolean }): RankPage {
  const { result } = requireScored(state, portfolioId);
  const column = query.summary ? 'summary' : 'row';
  const rows = state.sql.exec<{ text: string; item_key: string; parted: number }>(`SELECT ${column} AS text, item_key, parted FROM portfolio_fixes WHERE build = ? AND rank > ? ORDER BY rank LIMIT ?`, result.build, query.offset, query.limit)
    .toArray().map((r) => (r.parted && !query.summary ? joinedParts(state, result.build, r.item_key, 'row') : r.text));
  return { total: result.rows, offset: query.offset, limit: query.limit, rows };
}

/**
 * `GET rank`: a page of ranked fixes as JSON text. The first page (any size, full or summary: what
 * dashboards and assistants read again and again) is compressed once per build when the caller accepts
 * gzip; deeper pages are read once each while paging, so they go out as text for the edge to compress.
 */
export function rankAnswer(state: ProjectState, portfolioId: string, query: { offset: number; limit: number; summary: boolean; gzip: boolean }): Promise<StoredAnswer> {
  const { result } = requireScored(state, portfolioId);
  const key = JSON.stringify(['rank', state.projectId, portfolioId, result.build, query.offset, query.limit, query.summary]);
  return compressedAnswers.answer(key, () => rankBody(rankPage(state, portfolioId, query)), { gzip: query.gzip, keep: query.offset === 0 });
}

export interface SimulationInputs {
  model: PortfolioModel;
  rows: { itemKey: string; row: JsonObject; effects: string }[];
}

/**
 * What simulation reads of a row (src/scoring/simulate.ts): its place and name, its reach, what it
 * bundles, its installed items and each finding's key and first post-quantum version. Cut out by
 * SQLite's JSON functions: a full row carries every finding's text and every occurrence (5.8 MB for
 * 100 rows), which a simulation of many rows would otherwise parse and copy for nothing.
 */
const SIMULATED_ROW = `json_object(
  'rank', json_extract(row, '$.rank'), 'name', json_extract(row, '$.name'), 'kind', json_extract(row, '$.kind'),
  'fix_version', json_extract(row, '$.fix_version'), 'reach', json_extract(row, '$.reach'),
  'dependencies', json_extract(row, '$.dependencies'), 'items', json_extract(row, '$.items'),
  'findings', (SELECT json_group_array(json_object('finding_key', json_extract(f.value, '$.finding_key'), 'upgrade_to', json_extract(f.value, '$.upgrade_to')))
               FROM json_each(row, '$.findings') f))`;

/** SIMULATED_ROW for a row read whole: a parted one, whose text SQLite cannot hold in one value. */
function simulatedRow(row: JsonObject): JsonObject {
  const field = (name: string) => row[name] ?? null;
  const findings = (row.findings ?? []) as JsonObject[];
  return {
    rank: field('rank'), name: field('name'), kind: field('kind'), fix_version: field('fix_version'), reach: field('reach'),
    dependencies: field('dependencies'), items: field('items'),
    findings: findings.map((f) => ({ finding_key: f.finding_key ?? null, upgrade_to: f.upgrade_to ?? null })),
  };
}

/** What simulation needs: the model and the rows named (with their effects). `all`: every row (re-ranking; the others in summary form). */
export function simulationInputs(state: ProjectState, portfolioId: string, input: { itemKeys: string[]; all?: boolean }): SimulationInputs {
  const { result } = requireScored(state, portfolioId);
  const rows: SimulationInputs['rows'] = [];
  const wanted = new Set(input.itemKeys);
  // A parted row is read whole from its pieces, and cut down here instead of by SQLite.
  type Read = { item_key: string; summary?: string; row: string | null; effects: string; parted: number };
  const take = (r: Read, named: boolean) => {
    if (!r.parted) return rows.push({ itemKey: r.item_key, row: JSON.parse(r.row ?? r.summary!) as JsonObject, effects: r.effects });
    const row = named ? simulatedRow(JSON.parse(joinedParts(state, result.build, r.item_key, 'row')) as JsonObject) : JSON.parse(r.summary!) as JsonObject;
    rows.push({ itemKey: r.item_key, row, effects: joinedParts(state, result.build, r.item_key, 'effects') });
  };
  if (input.all) {
    const query = state.sql.exec<Read>(
      `SELECT item_key, summary, CASE WHEN parted = 0 AND item_key IN (SELECT value FROM json_each(?2)) THEN ${SIMULATED_ROW} END AS row, effects, parted
       FROM portfolio_fixes WHERE build = ?1 ORDER BY rank`, result.build, JSON.stringify([...wanted]));
    for (const r of query) take(r, wanted.has(r.item_key));
  } else {
    const keys = [...wanted];
    for (let i = 0; i < keys.length; i += MAX_BOUND) {
      const slice = keys.slice(i, i + MAX_BOUND);
      for (const r of state.sql.exec<Read>(
        `SELECT item_key, CASE WHEN parted = 0 THEN ${SIMULATED_ROW} END AS row, effects, parted FROM portfolio_fixes WHERE build = ? AND item_key IN (${slice.map(() => '?').join(',')})`, result.build, ...slice)) {
        take(r, true);
      }
    }
  }
  return { model: JSON.parse(resultColumn(state, portfolioId, 'model')) as PortfolioModel, rows };
}

