// Building a survey's reports inside the project object (ARCHITECTURE section 5): once the analysis
// finished, the REPORT steps are queued as one piece of leased work (like the analysis: a lost message
// or a dead consumer is sent again by the alarm). The consumer reads the analysis rows, writes the
// report entries here in batches and the full document to R2, then finishes each report in turn;
// finishing stores the summary, compares with the subject's previous report of the type, and puts
// the headline figures on the step (where an upload pass, which cannot read reports, finds them).
import type { JsonObject } from '../lib/json';
import { and, desc, eq, inArray, ne } from 'drizzle-orm';
import { nowIso } from '../lib/ids';
import * as health from './health';
import { changeJob, findJob, isFinished, settleSurvey, stepsOf, type JobRow, type ReportType } from './jobs';
import { dropLease, leaseOf, queueWork, renewLease, takeLease } from './leases';
import { queueRenders } from './documents';
import { subjectChanged } from './scoring-store';
import type { ProjectState } from './state';
import { bundles, reportEntries, reports, subjectContents } from './schema';
import type { AnalysisMessage } from './jobs';
import { copyEntriesPage, findingsDigest, reportToCopy, type EntryCursor, type ReportCopy } from './report-reuse';

/** The analysis a report is built from: a survey and its attempt. */
export interface AnalysisSource {
  survey_id: string;
  attempt: number;
}

const reportSteps = (state: ProjectState, surveyId: string) => stepsOf(state.db, surveyId).filter((s) => s.stepType === 'REPORT');
/** The lease of the report work sits on the last REPORT step: reports finish in order, so it finishes last. */
const leaseStep = (steps: JobRow[]) => steps.at(-1);

/** The bundle a survey analyses: its own upload, or (for a regenerated survey) the one it reused. */
export function bundleOf(state: ProjectState, survey: JobRow) {
  const bundleId = typeof survey.metadata.bundleId === 'string' ? survey.metadata.bundleId : undefined;
  return state.db.select().from(bundles).where(bundleId ? eq(bundles.id, bundleId) : eq(bundles.surveyId, survey.id)).get();
}

/** Queues the survey's report work (its REPORT steps), leased so it is sent again if lost. */
export async function queueReports(state: ProjectState, surveyId: string): Promise<void> {
  const survey = findJob(state.db, surveyId);
  const step = leaseStep(reportSteps(state, surveyId).filter((s) => !isFinished(s.status)));
  if (!survey || !step) return;
  const bundle = bundleOf(state, survey);
  const message: AnalysisMessage = { projectId: state.projectId, surveyId, bundleId: bundle?.id ?? '-', blobKey: bundle?.blobKey ?? '-', phase: 'report' };
  try {
    await queueWork(state, step, message);
  } catch (error) {
    // The lease is recorded: the alarm sends the work again when it lapses.
    console.error(JSON.stringify({ level: 'error', message: 'report queue send failed', surveyId, error: String(error) }));
  }
}

/** Marks the survey's unfinished REPORT steps SKIPPED. */
export function skipReports(state: ProjectState, surveyId: string, message: string): JobRow[] {
  return reportSteps(state, surveyId).filter((s) => !isFinished(s.status)).map((s) => changeJob(state.db, s, { status: 'SKIPPED', message }));
}

export interface ReportWork {
  attempt: number;
  subject: string;
  surveyType: string;
  tag: string | null;
  source: AnalysisSource;
  bundle: { id: string; sha256: string } | null;
  /** The digest of the source's advisory findings now (src/project/report-reuse.ts), kept on each report. */
  findingsDigest: string | null;
  /**
   * The reports to build, in order, with the subject's previous report of each type (for changes), and
   * the report to copy instead of building when nothing it was built from changed.
   */
  reports: { id: string; type: ReportType; previousId: string | null; copyFrom: ReportCopy | null }[];
}

export type ReportStart = ({ run: true } & ReportWork) | { run: false; reason: string };

/** Whether an analysis attempt's rows are still held (the subject points at them, or they are this survey's own). */
function sourceHeld(state: ProjectState, source: AnalysisSource, surveyId: string): boolean {
  if (source.survey_id === surveyId) return true;
  return Boolean(state.db.select({ s: subjectContents.subject }).from(subjectContents)
    .where(and(eq(subjectContents.surveyId, source.survey_id), eq(subjectContents.attempt, source.attempt))).get());
}

/**
 * An attempt at the survey's reports begins: it takes the lease, marks the REPORT steps RUNNING and
 * learns what to build from. Entries an earlier attempt wrote are dropped first.
 */
export async function beginReports(state: ProjectState, input: { surveyId: string; message: AnalysisMessage }): Promise<ReportStart> {
  const survey = findJob(state.db, input.surveyId);
  const steps = survey && !isFinished(survey.status) ? reportSteps(state, survey.id).filter((s) => !isFinished(s.status)) : [];
  const step = leaseStep(steps);
  if (!survey || !step) return { run: false, reason: 'The survey\'s reports are already finished, or the survey no longer exists.' };
  const taken = takeLease(state, step, input.message);
  if ('busy' in taken) return { run: false, reason: 'Another attempt is building these reports.' };
  const source = survey.metadata.analysis_source as unknown as AnalysisSource | undefined;
  const subject = typeof survey.metadata.subject === 'string' ? survey.metadata.subject : null;
  if ('exhausted' in taken || !source || !subject || !sourceHeld(state, source, survey.id)) {
    const [failureClass, message] = 'exhausted' in taken
      ? ['interrupted', `The reports were started ${taken.exhausted} times and never finished. Regenerate the survey to try again.`]
      : ['analysis_replaced', 'The analysis these reports would be built from was replaced by a newer survey of the subject; regenerate with {"skipAnalyze": false} to analyse the upload again.'];
    failReports(state, { surveyId: survey.id, failureClass, message });
    return { run: false, reason: message };
  }
  const ids = steps.map((s) => s.id);
  state.db.delete(reportEntries).where(inArray(reportEntries.reportId, ids)).run();
  state.db.delete(reports).where(inArray(reports.id, ids)).run();
  const changed = steps.map((s) => changeJob(state.db, s, { status: 'RUNNING', progress: 0, message: 'Building the report.', metadata: { attempt: taken.attempt } }));
  state.notify([...changed, settleSurvey(state.db, survey.id)]);
  await state.wake(taken.expiresAt);
  const bundle = bundleOf(state, survey);
  const digest = await findingsDigest(state, source);
  return {
    run: true, attempt: taken.attempt, subject, surveyType: survey.type, tag: survey.tag, source,
    bundle: bundle ? { id: bundle.id, sha256: bundle.sha256 } : null,
    findingsDigest: digest,
    reports: steps.map((s) => {
      const previousId = previousReport(state, subject, s.stepLabel!, survey.id);
      return { id: s.id, type: s.stepLabel as ReportType, previousId, copyFrom: reportToCopy(state, { previousId, source, digest }) };
    }),
  };
}

/** The subject's latest report of a type from another survey, if any. */
function previousReport(state: ProjectState, subject: string, type: string, surveyId: string): string | null {
  return state.db.select({ id: reports.id }).from(reports)
    .where(and(eq(reports.subject, subject), eq(reports.type, type), ne(reports.surveyId, surveyId)))
    .orderBy(desc(reports.producedAt)).limit(1).get()?.id ?? null;
}

/**
 * A report entry as staged: its data already JSON text and its search terms already made (by the
 * consumer, which holds the entry as an object): a call of strings costs the object a fraction of
 * what cloning and encoding nested objects did.
 */
export interface EntryRow {
  section: string;
  position: number;
  key: string;
  purl: string | null;
  name: string;
  explanation: string | null;
  /** The entry's data as JSON text. */
  data: string;
  /** `searchTerms` of the entry. */
  terms: string;
}

const INSERT_ENTRY = 'INSERT OR REPLACE INTO report_entries (report_id, section, position, key, purl, name, explanation, data, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** Stores a batch of a report's entries and renews the lease; false when the attempt should stop. */
export function stageReportEntries(state: ProjectState, input: { surveyId: string; attempt: number; reportId: string; entries: EntryRow[] }): boolean {
  const step = leaseStep(reportSteps(state, input.surveyId));
  if (!step || isFinished(step.status) || !renewLease(state, step.id, input.attempt)) return false;
  state.db.transaction(() => {
    for (const e of input.entries) {
      state.sql.exec(INSERT_ENTRY, input.reportId, e.section, e.position, e.key, e.purl, e.name, e.explanation, e.data, e.terms);
    }
  });
  return true;
}

/** Copies a page of another report's entries (see copyEntriesPage) and renews the lease; false when the attempt should stop. */
export function copyReportEntries(state: ProjectState, input: { surveyId: string; attempt: number; reportId: string; fromReportId: string; after: EntryCursor | null }): { active: boolean; last: EntryCursor | null } {
  const step = leaseStep(reportSteps(state, input.surveyId));
  if (!step || isFinished(step.status) || !renewLease(state, step.id, input.attempt)) return { active: false, last: null };
  return { active: true, last: state.db.transaction(() => copyEntriesPage(state, input)) };
}

/** Counts of entries by section that are in one report and not (by key) in the other. */
function sectionsMissingFrom(state: ProjectState, reportId: string, otherId: string): Record<string, number> {
  const rows = state.sql.exec<{ section: string; n: number }>(
    `SELECT section, count(*) AS n FROM report_entries e WHERE report_id = ?
       AND NOT EXISTS (SELECT 1 FROM report_entries o WHERE o.report_id = ? AND o.key = e.key) GROUP BY section`,
    reportId, otherId,
  ).toArray();
  return Object.fromEntries(rows.map((r) => [r.section, r.n]));
}

export interface FinishedReport {
  surveyId: string;
  attempt: number;
  reportId: string;
  type: ReportType;
  subject: string;
  source: AnalysisSource;
  previousId: string | null;
  blobKey: string;
  /** The summary without the changes (added here). */
  summary: JsonObject;
  /** The step's headline figures without the changes. */
  figures: JsonObject;
  /** The sections whose counts the changes are given for. */
  changeSections: readonly string[];
  provenance: JsonObject;
  /** The digest of the findings it was built from (ReportWork.findingsDigest). */
  findingsDigest: string | null;
  /** The report it was copied from, when it was (shown on the step as `copied_from`). */
  copiedFrom?: string;
}

/**
 * Finishes one report: its record (summary, provenance, document key), what changed since the
 * subject's previous report of the type, and the step COMPLETED with its figures. The last one
 * lets the lease go; the survey settles.
 */
export async function finishReport(state: ProjectState, input: FinishedReport): Promise<boolean> {
  const steps = reportSteps(state, input.surveyId);
  const step = steps.find((s) => s.id === input.reportId);
  const holder = leaseStep(steps);
  if (!step || isFinished(step.status) || !holder || leaseOf(state, holder.id)?.holder !== input.attempt) return false;
  const zero = Object.fromEntries(input.changeSections.map((s) => [s, 0]));
  const added = input.previousId ? sectionsMissingFrom(state, input.reportId, input.previousId) : null;
  const gone = input.previousId ? sectionsMissingFrom(state, input.previousId, input.reportId) : {};
  const totals = (input.figures.sections ?? input.figures.severities ?? {}) as Record<string, number>;
  const changes = {
    previous_survey_id: input.previousId ? state.db.select({ s: reports.surveyId }).from(reports).where(eq(reports.id, input.previousId)).get()?.s ?? null : null,
    previous_report_id: input.previousId,
    new: { ...zero, ...(added ?? totals) },
    gone: { ...zero, ...gone },
  };
  const figures = input.type === 'cbom' ? input.figures : { ...input.figures, changes };
  const producedAt = nowIso();
  const changed = state.db.transaction(() => {
    state.db.insert(reports).values({
      id: input.reportId, surveyId: input.surveyId, type: input.type, subject: input.subject, sourceSurveyId: input.source.survey_id,
      sourceAttempt: input.source.attempt, producedAt, blobKey: input.blobKey, summary: { ...input.summary, headline: figures }, provenance: input.provenance,
      findingsDigest: input.findingsDigest,
    }).onConflictDoNothing().run();
    const done = changeJob(state.db, step, { status: 'COMPLETED', message: `The ${input.type} report is ready.`, metadata: { figures, report_id: input.reportId, ...(input.copiedFrom ? { copied_from: input.copiedFrom } : {}) } });
    if (step.id === holder.id) dropLease(state, holder.id);
    return [done, settleSurvey(state.db, input.surveyId)];
  });
  state.notify(changed);
  // Its documents are rendered once, automatically (spec 4.9 rule 4 renders them again on request).
  await queueRenders(state, input.reportId);
  // A completed survey rescores every portfolio holding its subject (history cause `survey`).
  if (changed[1]?.status === 'COMPLETED') await subjectChanged(state, input.subject, 'survey');
  return true;
}

/** Fails the survey's unfinished REPORT steps (and with them the survey). */
export function failReports(state: ProjectState, input: { surveyId: string; attempt?: number; failureClass: string; message: string }): { failed: boolean } {
  const steps = reportSteps(state, input.surveyId).filter((s) => !isFinished(s.status));
  const holder = leaseStep(reportSteps(state, input.surveyId));
  if (!steps.length || !holder) return { failed: false };
  if (input.attempt !== undefined && leaseOf(state, holder.id)?.holder !== input.attempt) return { failed: false };
  dropLease(state, holder.id);
  const changed = steps.map((s) => changeJob(state.db, s, { status: 'FAILED', failureClass: input.failureClass, message: input.message }));
  const survey = settleSurvey(state.db, input.surveyId);
  if (survey) health.runFailed(state, survey, input.failureClass);
  state.notify([...changed, survey]);
  return { failed: true };
}
