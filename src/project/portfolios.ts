// Portfolios, their members, subjects and criticality ratings (spec 4.1, 4.2) inside the project
// object. Reads of state and rank answer from the stored scoring result (src/project/scoring-store.ts),
// never computing on the request; changes that need rescoring mark the portfolio and queue the work.
import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm';
import { PackageURL } from 'packageurl-js';
import { ApiError, invalidRequest, notFound } from '../lib/errors';
import type { JsonObject } from '../lib/json';
import { newId, newOrderedId, nowIso } from '../lib/ids';
import { AXES, CRITICALITY_WEIGHT, type Axis, type Criticality } from '../scoring/model';
import { packageItemKey } from '../scoring/findings';
import type { ProjectState } from './state';
import { criticalityRatings, portfolioMembers, portfolioResults, portfolios, scoreHistory, scoringWork, subjectContents, subjects, subjectScores } from './schema';
import { dropBuild, requestScoring, type ScoringCause } from './scoring-store';
import { queueBackfill } from './backfill';
import { currentComponentsByPurl } from './content-layers';

export type PortfolioRow = typeof portfolios.$inferSelect;
export type MemberType = 'subject' | 'package';
export interface Member {
  type: MemberType;
  value: string;
}

export const IMPLICIT_NAME = 'All subjects';
const MAX_NAME = 255;
const MAX_MEMBERS = 10_000;

/** The built-in portfolio, created with the project's storage (or on first use by an older project). */
export function ensureImplicit(state: ProjectState): PortfolioRow {
  const existing = state.db.select().from(portfolios).where(eq(portfolios.isImplicit, true)).get();
  if (existing) return existing;
  const now = nowIso();
  const row: PortfolioRow = {
    id: newId(), name: IMPLICIT_NAME, isImplicit: true, settings: defaultSettings(), status: 'unscored', generation: 1, createdAt: now, updatedAt: now, deletedAt: null,
  };
  state.db.insert(portfolios).values(row).run();
  // Scored from the alarm (a project whose storage predates portfolios gets it on its first read).
  state.wakeSoon();
  return row;
}

const defaultSettings = (): JsonObject => ({ criticality_weights: CRITICALITY_WEIGHT, bands: { strong: 85, fair: 65, weak: 40 }, axis_weights: { vuln: 0.4, pqc: 0.4, agility: 0.2 } });

/** A portfolio that exists and is not deleted, else 404. */
export function requirePortfolio(state: ProjectState, portfolioId: string): PortfolioRow {
  ensureImplicit(state);
  const row = state.db.select().from(portfolios).where(and(eq(portfolios.id, portfolioId), isNull(portfolios.deletedAt))).get();
  if (!row) throw notFound('No portfolio with this id exists in the project (or it was deleted).');
  return row;
}

function refuseImplicit(row: PortfolioRow, what: string): void {
  if (row.isImplicit) throw invalidRequest(`The built-in portfolio holds every subject of the project; it cannot be ${what}.`);
}

// ---- members ----

/** A member as requests give it (`{type, value}` or a plain string, a subject), checked and normalised. */
export function memberOf(input: unknown): Member {
  const raw = typeof input === 'string' ? { type: 'subject', value: input } : input;
  if (!raw || typeof raw !== 'object') throw invalidRequest('A member is a subject name, or an object {type, value} with type "subject" or "package".');
  const { type, value } = raw as { type?: unknown; value?: unknown };
  if (type !== 'subject' && type !== 'package') throw invalidRequest('A member\'s type is "subject" or "package".');
  if (typeof value !== 'string' || !value.trim()) throw invalidRequest('A member\'s value is a non-blank string: a subject name, or a package URL without a version.');
  if (value.length > 2048) throw invalidRequest('A member\'s value is at most 2048 characters.');
  // `.` and `..` would be path segments, not names, in every address of the subject.
  if (type === 'subject' && /^\.{1,2}$/.test(value.trim())) throw invalidRequest('"." and ".." cannot name a subject.');
  if (type === 'subject') return { type, value: value.trim() };
  let purl: PackageURL;
  try {
    purl = PackageURL.fromString(value.trim());
  } catch {
    throw invalidRequest(`${JSON.stringify(value)} is not a package URL (pkg:type/namespace/name).`);
  }
  if (purl.version) throw invalidRequest(`A package member names a package without a version: use ${JSON.stringify(packageItemKey(value.trim()))}.`);
  return { type, value: packageItemKey(value.trim()) };
}

export const memberAnswer = (m: { memberType: string; value: string }) => ({ member_type: m.memberType, value: m.value });

function membersOf(state: ProjectState, row: PortfolioRow): { member_type: string; value: string }[] {
  if (row.isImplicit) {
    return state.db.select({ name: subjects.name }).from(subjects).orderBy(asc(subjects.name)).all().map((s) => ({ member_type: 'subject', value: s.name }));
  }
  return state.db.select().from(portfolioMembers).where(eq(portfolioMembers.portfolioId, row.id))
    .orderBy(asc(portfolioMembers.memberType), asc(portfolioMembers.value)).all().map(memberAnswer);
}

/**
 * The subjects a portfolio scores: every subject for the built-in one; else its subject members that
 * exist, and every subject whose current components include one of its packages.
 */
export function memberSubjects(state: ProjectState, row: PortfolioRow): string[] {
  if (row.isImplicit) return state.db.select({ name: subjects.name }).from(subjects).orderBy(asc(subjects.name)).all().map((s) => s.name);
  const found = new Set<string>();
  const members = state.db.select().from(portfolioMembers).where(eq(portfolioMembers.portfolioId, row.id)).all();
  for (const m of members) {
    if (m.memberType === 'subject') {
      if (state.db.select({ name: subjects.name }).from(subjects).where(eq(subjects.name, m.value)).get()) found.add(m.value);
      continue;
    }
    // A package URL without a version: its components' purls start with it, then `@`, `?` or `#` (or are it).
    // All of those sort from it to it + 'A' ('#' < '?' < '@' < 'A'): that range lets the purl index find them
    // (otherwise every subject's components are scanned, about 150 ms a package at 1,000 subjects).
    for (const hit of state.sql.exec<{ subject: string }>(currentComponentsByPurl('sc.subject',
      `c.purl >= ?1 AND c.purl < ?1 || 'A'
         AND (c.purl = ?1 OR (c.purl >= ?1 || '@' AND c.purl < ?1 || 'A') OR (c.purl >= ?1 || '?' AND c.purl < ?1 || '@') OR (c.purl >= ?1 || '#' AND c.purl < ?1 || '$'))`,
      'UNION'), m.value)) found.add(hit.subject);
  }
  return [...found].sort();
}

/** The portfolios holding a subject (by name or through a package it contains): the ones to rescore. */
export function portfoliosHolding(state: ProjectState, subject: string): PortfolioRow[] {
  ensureImplicit(state);
  return state.db.select().from(portfolios).where(isNull(portfolios.deletedAt)).all()
    .filter((row) => row.isImplicit || memberSubjects(state, row).includes(subject));
}

// ---- portfolio answers ----

function entryOf(state: ProjectState, row: PortfolioRow) {
  const result = state.db.select({ state: portfolioResults.state, computedAt: portfolioResults.computedAt }).from(portfolioResults).where(eq(portfolioResults.portfolioId, row.id)).get();
  const score = (result?.state.score ?? null) as JsonObject | null;
  return {
    portfolio_id: row.id, name: row.name, is_implicit: row.isImplicit, members: membersOf(state, row),
    scoring: row.status, score: score?.score ?? null, band: score?.band ?? null, axes: score?.axes ?? null, scored_at: result?.computedAt ?? null,
    created_at: row.createdAt, updated_at: row.updatedAt,
  };
}

export function listPortfolios(state: ProjectState) {
  ensureImplicit(state);
  const rows = state.db.select().from(portfolios).where(isNull(portfolios.deletedAt)).orderBy(desc(portfolios.isImplicit), asc(portfolios.name), asc(portfolios.id)).all();
  return { portfolios: rows.map((row) => entryOf(state, row)) };
}

export function getPortfolio(state: ProjectState, portfolioId: string) {
  const row = requirePortfolio(state, portfolioId);
  return { ...entryOf(state, row), settings: row.settings };
}

function checkedName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim()) throw invalidRequest('name is required and not blank.');
  if (name.trim().length > MAX_NAME) throw invalidRequest(`name is at most ${MAX_NAME} characters.`);
  return name.trim();
}

function checkedMembers(members: unknown[]): Member[] {
  if (members.length > MAX_MEMBERS) throw invalidRequest(`A portfolio holds at most ${MAX_MEMBERS} members.`);
  const unique = new Map<string, Member>();
  for (const m of members.map(memberOf)) unique.set(`${m.type}\u0000${m.value}`, m);
  return [...unique.values()];
}

function writeMembers(state: ProjectState, portfolioId: string, members: Member[]): void {
  const addedAt = nowIso();
  for (const m of members) {
    state.db.insert(portfolioMembers).values({ portfolioId, memberType: m.type, value: m.value, addedAt }).onConflictDoNothing().run();
  }
}

export async function createPortfolio(state: ProjectState, input: { name: unknown; members?: unknown[] }) {
  const name = checkedName(input.name);
  const members = checkedMembers(input.members ?? []);
  ensureImplicit(state);
  const now = nowIso();
  const row: PortfolioRow = { id: newId(), name, isImplicit: false, settings: defaultSettings(), status: 'unscored', generation: 1, createdAt: now, updatedAt: now, deletedAt: null };
  state.db.transaction(() => {
    state.db.insert(portfolios).values(row).run();
    writeMembers(state, row.id, members);
  });
  queueBackfill(state, row);
  await requestScoring(state, [row.id], 'membership');
  return getPortfolio(state, row.id);
}

/**
 * What counts of a subject's findings changed (every subject's, with null: a decision about a finding):
 * their findings are computed again at the next scoring of every portfolio holding them, which answers
 * 503 `rescoring` until done.
 */
export async function findingsReweighed(state: ProjectState, subject: string | null, cause: ScoringCause): Promise<void> {
  ensureImplicit(state);
  const held = subject ? portfoliosHolding(state, subject) : state.db.select().from(portfolios).where(isNull(portfolios.deletedAt)).all();
  state.db.transaction(() => {
    state.db.update(subjectScores).set({ stale: true }).where(subject ? eq(subjectScores.subject, subject) : undefined).run();
    for (const row of held) markRescoring(state, row);
  });
  await requestScoring(state, held.map((p) => p.id), cause);
}

/** Marks a portfolio for rescoring after a change of what it holds or how its subjects weigh (503 `rescoring` until done). */
function markRescoring(state: ProjectState, row: PortfolioRow): void {
  state.db.update(portfolios).set({
    status: row.status === 'unscored' ? 'unscored' : 'rescoring', generation: sql`${portfolios.generation} + 1`, updatedAt: nowIso(),
  }).where(eq(portfolios.id, row.id)).run();
}

export async function updatePortfolio(state: ProjectState, portfolioId: string, input: { name?: unknown; members?: unknown[] }) {
  const row = requirePortfolio(state, portfolioId);
  refuseImplicit(row, 'changed');
  const name = input.name === undefined ? row.name : checkedName(input.name);
  const members = input.members === undefined ? null : checkedMembers(input.members);
  state.db.transaction(() => {
    state.db.update(portfolios).set({ name, updatedAt: nowIso() }).where(eq(portfolios.id, row.id)).run();
    if (members) {
      state.db.delete(portfolioMembers).where(eq(portfolioMembers.portfolioId, row.id)).run();
      writeMembers(state, row.id, members);
      markRescoring(state, row);
    }
  });
  if (members) await requestScoring(state, [row.id], 'membership');
  return getPortfolio(state, row.id);
}

export function deletePortfolio(state: ProjectState, portfolioId: string): { name: string } {
  const row = requirePortfolio(state, portfolioId);
  refuseImplicit(row, 'deleted');
  const result = state.db.select({ build: portfolioResults.build }).from(portfolioResults).where(eq(portfolioResults.portfolioId, row.id)).get();
  state.db.transaction(() => {
    state.db.update(portfolios).set({ deletedAt: nowIso() }).where(eq(portfolios.id, row.id)).run();
    // Nothing restores a deleted portfolio: what it held and what was computed for it goes with it.
    for (const table of [portfolioMembers, scoreHistory, portfolioResults, scoringWork] as const) {
      state.db.delete(table).where(eq(table.portfolioId, row.id)).run();
    }
  });
  if (result) dropBuild(state, result.build);
  return { name: row.name };
}

export function listMembers(state: ProjectState, portfolioId: string) {
  return { members: membersOf(state, requirePortfolio(state, portfolioId)) };
}

export async function addMember(state: ProjectState, portfolioId: string, input: unknown) {
  const row = requirePortfolio(state, portfolioId);
  refuseImplicit(row, 'changed');
  const member = memberOf(input);
  const added = state.db.insert(portfolioMembers).values({ portfolioId: row.id, memberType: member.type, value: member.value, addedAt: nowIso() })
    .onConflictDoNothing().returning({ value: portfolioMembers.value }).all().length > 0;
  if (added) {
    markRescoring(state, row);
    await requestScoring(state, [row.id], 'membership');
  }
  return { members: membersOf(state, row), added, member };
}

export async function removeMember(state: ProjectState, portfolioId: string, input: { type: MemberType; value: string }) {
  const row = requirePortfolio(state, portfolioId);
  refuseImplicit(row, 'changed');
  const value = input.type === 'package' ? packageItemKey(input.value) : input.value;
  const removed = state.db.delete(portfolioMembers)
    .where(and(eq(portfolioMembers.portfolioId, row.id), eq(portfolioMembers.memberType, input.type), eq(portfolioMembers.value, value)))
    .returning({ value: portfolioMembers.value }).all();
  if (!removed.length) throw notFound(`The portfolio has no ${input.type} member ${JSON.stringify(input.value)}.`);
  markRescoring(state, row);
  await requestScoring(state, [row.id], 'membership');
  return { members: membersOf(state, row), member: { type: input.type, value } };
}

export function history(state: ProjectState, portfolioId: string, axis?: Axis) {
  const row = requirePortfolio(state, portfolioId);
  const rows = state.db.select().from(scoreHistory)
    .where(and(eq(scoreHistory.portfolioId, row.id), axis ? eq(scoreHistory.axis, axis) : undefined))
    .orderBy(asc(scoreHistory.at), asc(scoreHistory.id)).all();
  // Rows of one scoring share their time: list them in the axes' own order.
  rows.sort((a, b) => a.at.localeCompare(b.at) || AXES.indexOf(a.axis as Axis) - AXES.indexOf(b.axis as Axis));
  return { rows: rows.map((h) => ({ axis: h.axis, score: h.score, band: h.band, cause: h.cause, at: h.at })) };
}

/** State and rank answer only a scored portfolio: 503 `unscored` / `rescoring` otherwise (spec 4.1 rule 10). */
export interface ScoredResult {
  build: string;
  rows: number;
  computedAt: string;
  asOf: string;
}

/** The current result's bookkeeping (its JSON columns are read only by the calls that answer them). */
export function requireScored(state: ProjectState, portfolioId: string): { row: PortfolioRow; result: ScoredResult } {
  const row = requirePortfolio(state, portfolioId);
  const result = state.db.select({ build: portfolioResults.build, rows: portfolioResults.rows, computedAt: portfolioResults.computedAt, asOf: portfolioResults.asOf })
    .from(portfolioResults).where(eq(portfolioResults.portfolioId, row.id)).get();
  if (row.status === 'unscored' || !result) {
    throw new ApiError('unscored', 'The portfolio has not been scored yet; retry in a few seconds.', { headers: { 'Retry-After': '5' } });
  }
  if (row.status === 'rescoring') {
    throw new ApiError('rescoring', 'The portfolio is being scored again after a change; retry in a few seconds.', { headers: { 'Retry-After': '5' } });
  }
  return { row, result };
}

// ---- subjects and criticality ----

export function requireSubject(state: ProjectState, name: string): typeof subjects.$inferSelect {
  const row = state.db.select().from(subjects).where(eq(subjects.name, name)).get();
  if (!row) throw notFound('No subject has this name in the project.');
  return row;
}

export function listSubjects(state: ProjectState) {
  const rows = state.db.select().from(subjects).orderBy(asc(subjects.name)).all();
  return {
    subjects: rows.map((s) => ({ name: s.name, criticality: s.criticality, first_seen: s.firstSeen, last_seen: s.lastSeen, latest_survey_id: s.latestSurveyId })),
  };
}

const ratingAnswer = (r: typeof criticalityRatings.$inferSelect) => ({
  value: r.value, prior_value: r.priorValue, rater: r.rater, rationale: r.rationale, rated_at: r.ratedAt,
});

/** Rates a subject: kept as history, and every portfolio holding it is rescored (its weight changed). */
export async function rateSubject(state: ProjectState, input: { subject: string; value: Criticality; rationale?: string | null; rater: JsonObject }) {
  const subject = requireSubject(state, input.subject);
  const rating: typeof criticalityRatings.$inferSelect = {
    id: newOrderedId(), subject: subject.name, value: input.value, priorValue: subject.criticality, rater: input.rater, rationale: input.rationale ?? null, ratedAt: nowIso(),
  };
  const holding = portfoliosHolding(state, subject.name);
  state.db.transaction(() => {
    state.db.insert(criticalityRatings).values(rating).run();
    state.db.update(subjects).set({ criticality: input.value }).where(eq(subjects.name, subject.name)).run();
    for (const row of holding) markRescoring(state, row);
  });
  await requestScoring(state, holding.map((p) => p.id), 'rating');
  return ratingAnswer(rating);
}

export function ratingHistory(state: ProjectState, name: string) {
  const subject = requireSubject(state, name);
  return state.db.select().from(criticalityRatings).where(eq(criticalityRatings.subject, subject.name))
    .orderBy(desc(criticalityRatings.ratedAt), desc(criticalityRatings.id)).all().map(ratingAnswer);
}

/** Whether the subject has current contents (for the contents page's 404). */
export function hasSubject(state: ProjectState, name: string): boolean {
  return !!state.db.select({ name: subjects.name }).from(subjects).where(eq(subjects.name, name)).get()
    || !!state.db.select({ s: subjectContents.subject }).from(subjectContents).where(eq(subjectContents.subject, name)).get();
}
