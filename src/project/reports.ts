// Reading a survey's reports (spec 4.10): summary, section pages, search, compare, the record behind
// the full document and its provenance, and regenerate. Everything answers from the indexed entries
// (`report_entries`), never from the whole document.
import type { JsonObject } from '../lib/json';
import { desc, eq } from 'drizzle-orm';
import { conflict, invalidRequest, notFound } from '../lib/errors';
import { findJob, isSurvey, stepsOf, type JobRow } from './jobs';
import type { ProjectState } from './state';
import { jobs, reports } from './schema';
import { regenerateSurvey, type Changed } from './surveys';
import { POSTURE, regeneratePosture } from './posture';
import { searchForms } from '../reports/search-terms';
import { suppressedFigure } from '../reports/builders';
import { assertRoomForSurvey, DEFAULT_PROJECT_STORE_MAX_BYTES } from './store-limit';
import { retentionEnded } from './erasure';
import { decisionIndex } from './decisions';
import { entryDecision, hasDecisions } from '../triage/match';

export type ReportRow = typeof reports.$inferSelect;

/** A section of a report: a list of entries, or a single object (such as `overview`). */
export interface SectionInfo {
  name: string;
  kind: 'list' | 'object';
  total?: number;
}

export function requireReport(state: ProjectState, reportId: string): ReportRow {
  const row = state.db.select().from(reports).where(eq(reports.id, reportId)).get();
  if (!row) throw notFound('No report has this id (a report exists once its REPORT step completed).');
  return row;
}

/** A report whose entries are still stored: 404 once its survey was deleted and its retention ended (they were erased). */
function withEntries(state: ProjectState, reportId: string): ReportRow {
  const report = requireReport(state, reportId);
  if (retentionEnded(findJob(state.db, report.surveyId))) throw notFound('The report\'s data was removed: its survey was deleted and its retention period ended.');
  return report;
}

/** The report and the survey it came from. */
export function record(state: ProjectState, reportId: string): { report: ReportRow; survey: JobRow } {
  const report = requireReport(state, reportId);
  return { report, survey: findJob(state.db, report.surveyId)! };
}

export function summary(state: ProjectState, reportId: string): JsonObject {
  const { report, survey } = record(state, reportId);
  return {
    report_id: report.id, type: report.type, subject: report.subject, produced_at: report.producedAt,
    survey: { id: survey.id, type: survey.type, tag: survey.tag },
    headline: decidedHeadline(state, report), sections: report.summary.sections ?? [],
  };
}

/**
 * The headline as of now: the counts of findings by section (pqc-inventory) or severity (composition)
 * leave out what today's decisions suppress, counted apart in `suppressed`, as the report consumer
 * counted them when the report was produced; `undecided` counts the findings no decision covers, and
 * of them the ones new since the subject's previous report (the triage queue's share of this report).
 * Read from the entries' few fields, not their records.
 */
function decidedHeadline(state: ProjectState, report: ReportRow): JsonObject {
  const headline = (report.summary.headline ?? {}) as JsonObject;
  const kind = FINDING_KIND[report.type];
  if (!kind) return headline;
  const index = decisionIndex(state);
  const by = report.type === 'composition' ? 'severities' : 'sections';
  const changes = (headline.changes ?? null) as JsonObject | null;
  const sum = (counts: unknown) => Object.values((counts ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0);
  if (!hasDecisions(index) && !headline.suppressed) return { ...headline, undecided: { findings: sum(headline[by]), new: sum(changes?.new) } };
  const previous = typeof changes?.previous_report_id === 'string' ? changes.previous_report_id : null;
  const counted: Record<string, number> = Object.fromEntries(Object.keys((headline[by] ?? {}) as JsonObject).map((k) => [k, 0]));
  const suppressed: Record<string, number> = { ...counted };
  const undecided = { findings: 0, new: 0 };
  const now = new Date();
  for (const row of state.sql.exec<{ section: string; advisory_id: string | null; purl: string | null; version: string | null; ecosystem: string | null; aliases: string | null; key: string | null; name: string | null; family: string | null; qv: number | null; seen: number }>(
    `SELECT section, json_extract(data, '$.advisory_id') AS advisory_id, json_extract(data, '$.purl') AS purl, json_extract(data, '$.version') AS version,
       json_extract(data, '$.ecosystem') AS ecosystem, json_extract(data, '$.aliases') AS aliases, json_extract(data, '$.key') AS key,
       json_extract(data, '$.name') AS name, json_extract(data, '$.family') AS family, json_extract(data, '$.quantumVulnerable') AS qv,
       (?2 IS NULL OR EXISTS (SELECT 1 FROM report_entries o WHERE o.report_id = ?2 AND o.key = e.key)) AS seen
     FROM report_entries e WHERE report_id = ?1`, report.id, previous)) {
    const data: JsonObject = { ...row, aliases: row.aliases ? JSON.parse(row.aliases) as string[] : [], quantumVulnerable: row.qv === 1 };
    const decision = entryDecision(index, report.subject, kind, data, now);
    const into = decision?.suppressed ? suppressed : counted;
    into[row.section] = (into[row.section] ?? 0) + 1;
    if (!decision) {
      undecided.findings++;
      // With no previous report, every finding is new (as the changes count them).
      if (!previous || !row.seen) undecided.new++;
    }
  }
  const { suppressed: _then, ...rest } = headline;
  return {
    ...rest, [by]: counted, ...(report.type === 'composition' ? { findings: Object.values(counted).reduce((a, b) => a + b, 0) } : {}),
    ...suppressedFigure(suppressed, by), undecided,
  };
}

type EntrySqlRow = {
  section: string;
  position: number;
  key: string;
  data: string;
};

/** An entry as answered: its whole record, marked with its section. */
const entryOf = (row: EntrySqlRow): JsonObject => ({ ...(JSON.parse(row.data) as JsonObject), key: row.key, section: row.section });

export interface SectionQuery {
  reportId: string;
  section: string;
  offset: number;
  limit: number;
}

/** A page of a list section (offset model of spec part 8), or a non-list section whole. */
export function sectionPage(state: ProjectState, query: SectionQuery): JsonObject {
  const report = withEntries(state, query.reportId);
  const sections = (report.summary.sections ?? []) as unknown as SectionInfo[];
  const section = sections.find((s) => s.name === query.section);
  if (!section) throw notFound(`The ${report.type} report has no section "${query.section}"; its sections are ${sections.map((s) => s.name).join(', ')}.`);
  if (section.kind === 'object') return (report.summary.objects as JsonObject | undefined)?.[section.name] ?? {};
  const rows = state.sql.exec<EntrySqlRow>(
    'SELECT section, position, key, data FROM report_entries WHERE report_id = ? AND section = ? ORDER BY position LIMIT ? OFFSET ?',
    report.id, section.name, query.limit, query.offset,
  ).toArray();
  const total = section.total ?? 0;
  return {
    section: section.name, entries: decided(state, report, rows.map(entryOf)), offset: query.offset, limit: query.limit,
    pagination: { firstId: rows[0]?.key ?? null, lastId: rows.at(-1)?.key ?? null, hasMore: query.offset + rows.length < total, total },
  };
}

export const SEARCH_LIMIT = 200;

/**
 * Entries found by any name a person would type (src/reports/search-terms.ts), ignoring case in every
 * script, across every section: in the report's own section order (red before green, critical before
 * low), so the 200-match cap keeps the most important. Entries stored before search terms existed
 * match by package URL, name or explanation as before (`LIKE`, ASCII case).
 */
export function search(state: ProjectState, reportId: string, text: string): JsonObject[] {
  const report = withEntries(state, reportId);
  const { folded, compact } = searchForms(text);
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const sections = ((report.summary.sections ?? []) as unknown as SectionInfo[]).filter((s) => s.kind === 'list').map((s) => s.name);
  const found: JsonObject[] = [];
  for (const section of sections) {
    if (found.length >= SEARCH_LIMIT) break;
    found.push(...state.sql.exec<EntrySqlRow>(
      `SELECT section, position, key, data FROM report_entries WHERE report_id = ?1 AND section = ?2
         AND CASE WHEN terms IS NULL THEN purl LIKE ?3 ESCAPE '\\' OR name LIKE ?3 ESCAPE '\\' OR explanation LIKE ?3 ESCAPE '\\'
                  ELSE instr(terms, ?4) > 0 OR (?5 <> '' AND instr(terms, ?5) > 0) END
       ORDER BY position LIMIT ?6`,
      report.id, section, pattern, folded, compact, SEARCH_LIMIT - found.length,
    ).toArray().map(entryOf));
  }
  return decided(state, report, found);
}

/** The analysis rows a report's entries stand for, when they are findings a decision can be about. */
const FINDING_KIND: Partial<Record<string, string>> = { composition: 'vuln_finding', 'pqc-inventory': 'crypto_finding' };

/**
 * Entries as read now: each carries the decision it falls under today, so a decision made after the
 * report was produced shows at once (and a withdrawn one no longer does).
 */
function decided(state: ProjectState, report: ReportRow, entries: JsonObject[]): JsonObject[] {
  const kind = FINDING_KIND[report.type];
  const index = decisionIndex(state);
  if (!kind || (!hasDecisions(index) && !entries.some((e) => e.decision))) return entries;
  const now = new Date();
  return entries.map(({ decision: _then, ...entry }) => {
    const decision = entryDecision(index, report.subject, kind, entry, now);
    return decision ? { ...entry, decision } : entry;
  });
}

type Brief = {
  key: string;
  name: string;
  purl: string | null;
  section: string;
};

/** Finding by finding across all sections: added, removed, moved (from and to section), unchanged count. */
export function compare(state: ProjectState, fromId: string, toId: string): JsonObject {
  const from = withEntries(state, fromId);
  const to = withEntries(state, toId);
  if (from.type !== to.type) throw invalidRequest(`Only reports of one type compare: ${fromId} is ${from.type}, ${toId} is ${to.type}.`);
  const only = (a: string, b: string) => state.sql.exec<Brief>(
    `SELECT key, name, purl, section FROM report_entries e WHERE report_id = ?
       AND NOT EXISTS (SELECT 1 FROM report_entries o WHERE o.report_id = ? AND o.key = e.key) ORDER BY section, position`,
    a, b,
  ).toArray();
  const moved = state.sql.exec<{ key: string; name: string; purl: string | null; from_section: string; to_section: string }>(
    `SELECT t.key, t.name, t.purl, f.section AS from_section, t.section AS to_section FROM report_entries t
       JOIN report_entries f ON f.report_id = ? AND f.key = t.key
     WHERE t.report_id = ? AND f.section <> t.section ORDER BY t.section, t.position`,
    from.id, to.id,
  ).toArray();
  const unchanged = state.sql.exec<{ n: number }>(
    `SELECT count(*) AS n FROM report_entries t JOIN report_entries f ON f.report_id = ? AND f.key = t.key
     WHERE t.report_id = ? AND f.section = t.section`,
    from.id, to.id,
  ).one().n;
  return {
    from: { report_id: from.id, survey_id: from.surveyId, produced_at: from.producedAt },
    to: { report_id: to.id, survey_id: to.surveyId, produced_at: to.producedAt },
    type: to.type,
    added: only(to.id, from.id),
    removed: only(from.id, to.id),
    moved: moved.map((m) => ({ key: m.key, name: m.name, purl: m.purl, from: m.from_section, to: m.to_section })),
    unchanged,
  };
}

/**
 * Entries of one section after a position, for writing the full document in order: their stored JSON
 * text (the consumer parses what it needs; most are written out as they are).
 */
export function entriesAfter(state: ProjectState, input: { reportId: string; section: string; after: number; limit: number }): { entries: string[]; last: number | null } {
  const rows = state.sql.exec<EntrySqlRow>(
    'SELECT section, position, key, data FROM report_entries WHERE report_id = ? AND section = ? AND position > ? ORDER BY position LIMIT ?',
    input.reportId, input.section, input.after, input.limit,
  ).toArray();
  return { entries: rows.map((r) => r.data), last: rows.length === input.limit ? rows.at(-1)!.position : null };
}

/** A new version waiting longer than this to start no longer blocks another request (spec part 3). */
export const REGENERATE_WAIT_MS = 30 * 60_000;

/** The latest job that supersedes `id` (a regenerated survey, a posture report's new version). */
const latestSuccessor = (state: ProjectState, id: string) =>
  state.db.select().from(jobs).where(eq(jobs.supersedes, id)).orderBy(desc(jobs.createdAt), desc(jobs.id)).get();

/**
 * Whether the work producing a new version began. A regenerated survey is RUNNING at once (its upload
 * step is reused, complete), so what counts is the service's own steps: its analysis, else its
 * reports. A posture report's version is its own job.
 */
function workStarted(state: ProjectState, version: JobRow): boolean {
  if (!isSurvey(version)) return version.startedAt !== null;
  return stepsOf(state.db, version.id).some((s) => (s.stepType === 'ANALYZE' || s.stepType === 'REPORT') && s.startedAt !== null);
}

/**
 * 409 while a newer version of `supersededId` is being produced or once one is ready (spec part 3);
 * allowed again after it failed (or was dropped without a successor) or waited more than 30 minutes
 * without its work starting. `by` names what the new version is (a survey, a posture report).
 */
export function refuseWhileRegenerated(state: ProjectState, supersededId: string, by: string, now = Date.now()): void {
  let version = latestSuccessor(state, supersededId);
  // A version superseded in turn (a survey regenerated again) hands over to the one that replaced it.
  while (version?.status === 'SKIPPED') {
    const next = latestSuccessor(state, version.id);
    if (!next) break;
    version = next;
  }
  if (!version || version.status === 'FAILED' || version.status === 'SKIPPED') return;
  if (version.status === 'COMPLETED') throw conflict(`This report was already regenerated by ${by} ${version.id}; read the new version there.`);
  if (!workStarted(state, version) && now - Date.parse(version.createdAt) > REGENERATE_WAIT_MS) return;
  throw conflict(`A new version is being produced by ${by} ${version.id}.`);
}

export interface RegenerateReportInput {
  reportId: string;
  idempotencyKey?: string;
}

/**
 * A survey's report is rebuilt by a new survey that reuses the analysis (no new upload): 409 while a
 * newer version is being produced or once one is ready; allowed again after it failed or waited
 * more than 30 minutes to start.
 */
export async function regenerateReport(state: ProjectState, input: RegenerateReportInput, storeMaxBytes = DEFAULT_PROJECT_STORE_MAX_BYTES): Promise<Changed<{ job_id: string; supersedes: string }>> {
  const report = requireReport(state, input.reportId);
  const run = async () => {
    await assertRoomForSurvey(state, storeMaxBytes);
    if (report.type === POSTURE) return regeneratePosture(state, report);
    refuseWhileRegenerated(state, report.surveyId, 'survey');
    const { answer } = await regenerateSurvey(state, { idempotencyKey: `report:${report.id}:${crypto.randomUUID()}`, surveyId: report.surveyId, skipAnalyze: true }, storeMaxBytes);
    return { job_id: answer.parent_id, supersedes: report.surveyId };
  };
  if (!input.idempotencyKey) return { answer: await run(), changed: true };
  // A repeat of the key answers the first answer and records nothing (`changed` false).
  const { answer, replayed } = await state.idempotency.runOnce('report.regenerate', input.idempotencyKey, { reportId: report.id }, run);
  return { answer, changed: !replayed };
}
