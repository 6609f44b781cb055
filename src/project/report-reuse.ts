// Reports copied from the survey a re-survey repeats (docs/decisions.md, "An unchanged re-survey copies
// its reports"): a report is a function of its analysis source's rows, today's date (deadlines), the
// analysis and classification versions, and the source's advisory findings, the only rows a re-match
// changes in place. When the subject's previous report of a type was built from the same source, today,
// under today's versions and from findings with the same digest, the consumer copies its entries and
// document (with a new head) instead of reading every row again (src/queues/reports.ts). Not when a
// decision about a finding changed (or an acceptance ended) since it was produced.
import { and, eq } from 'drizzle-orm';
import { sha256Hex } from '../lib/ids';
import type { JsonObject } from '../lib/json';
import { ANALYSIS_VERSION, CLASSIFICATION_VERSION } from '../analysis/versions';
import type { Env } from '../env';
import { decisionsChangedSince } from './decisions';
import { reports } from './schema';
import type { ProjectState } from './state';

/** Whether unchanged bundles reuse the subject's contents and reports (the setting `INCREMENTAL_SURVEYS`, on unless `off`). */
export const incrementalSurveys = (env: Pick<Env, 'INCREMENTAL_SURVEYS'>) => env.INCREMENTAL_SURVEYS?.trim().toLowerCase() !== 'off';

/** Past this many findings no digest is taken (one call of the object stays short): such reports are always built. */
export const DIGEST_ROWS = 20_000;

/** The report a new one can be copied from: its entries, document and summary. */
export interface ReportCopy {
  id: string;
  blobKey: string;
  summary: JsonObject;
  provenance: JsonObject;
}

/** SHA-256 (hex) of an analysis source's advisory findings, key and data in key order; null past DIGEST_ROWS. */
export async function findingsDigest(state: ProjectState, source: { survey_id: string; attempt: number }): Promise<string | null> {
  const rows = state.sql.exec<{ key: string; data: string }>(
    "SELECT key, data FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = 'vuln_finding' ORDER BY key LIMIT ?",
    source.survey_id, source.attempt, DIGEST_ROWS + 1,
  ).toArray();
  if (rows.length > DIGEST_ROWS) return null;
  return sha256Hex(JSON.stringify(rows.map((r) => [r.key, r.data])));
}

/** The previous report a new report of the same source can be copied from, or null (then it is built). */
export function reportToCopy(state: ProjectState, input: { previousId: string | null; source: { survey_id: string; attempt: number }; digest: string | null }): ReportCopy | null {
  if (!input.previousId || !input.digest || !incrementalSurveys(state.env)) return null;
  const previous = state.db.select().from(reports)
    .where(and(eq(reports.id, input.previousId), eq(reports.sourceSurveyId, input.source.survey_id), eq(reports.sourceAttempt, input.source.attempt))).get();
  if (!previous || previous.findingsDigest !== input.digest) return null;
  // Deadlines are judged against the date: a report of another day may count them differently.
  if (previous.producedAt.slice(0, 10) !== new Date().toISOString().slice(0, 10)) return null;
  if (previous.provenance.analysis !== ANALYSIS_VERSION || previous.provenance.classification !== CLASSIFICATION_VERSION) return null;
  // Entries carry the decisions in place when they were made, and the figures count what those suppress apart.
  if (decisionsChangedSince(state, previous.producedAt)) return null;
  return { id: previous.id, blobKey: previous.blobKey, summary: previous.summary, provenance: previous.provenance };
}

/** Entries copied per call (an INSERT ... SELECT of this many stays well under the 50 ms rule). */
export const COPY_ENTRIES = 2_000;

/** Where a copy of entries stands: the last (section, position) copied. */
export type EntryCursor = { section: string; position: number };

/**
 * Copies a page of another report's entries into this one, in key order after `after`; answers the
 * last entry copied, or null when none were left. The caller holds the report lease.
 */
export function copyEntriesPage(state: ProjectState, input: { reportId: string; fromReportId: string; after: EntryCursor | null }): EntryCursor | null {
  const after = input.after ?? { section: '', position: -1 };
  const last = state.sql.exec<EntryCursor>(
    `SELECT section, position FROM (SELECT section, position FROM report_entries WHERE report_id = ?1 AND (section, position) > (?2, ?3)
     ORDER BY section, position LIMIT ?4) ORDER BY section DESC, position DESC LIMIT 1`,
    input.fromReportId, after.section, after.position, COPY_ENTRIES,
  ).toArray()[0];
  if (!last) return null;
  state.sql.exec(
    `INSERT OR REPLACE INTO report_entries (report_id, section, position, key, purl, name, explanation, data, terms)
     SELECT ?1, section, position, key, purl, name, explanation, data, terms FROM report_entries
     WHERE report_id = ?2 AND (section, position) > (?3, ?4) AND (section, position) <= (?5, ?6)`,
    input.reportId, input.fromReportId, after.section, after.position, last.section, last.position,
  );
  return { section: last.section, position: last.position };
}
