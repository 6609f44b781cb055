// A new portfolio's history from past surveys (PORTFOLIO_BACKFILL, docs/scoring.md "History"): the
// reports its member subjects already have are replayed in the order they were produced, each one
// setting its subject's penalties as of that time (pqc-inventory: pqc and agility; composition: vuln),
// with the criticality ratings in force then, and a history point (cause `backfill`) is written at
// each report's time when the portfolio's score moved. Run by the object's alarm, a few reports per
// ring, so the object keeps answering.
import { and, asc, eq, gt, inArray, or } from 'drizzle-orm';
import type { JsonObject } from '../lib/json';
import { newOrderedId } from '../lib/ids';
import { scoredFindings, type SubjectEvidence } from '../scoring/findings';
import { AXES, bandOf, CRITICALITY_WEIGHT, shown, type Axis, type Criticality } from '../scoring/model';
import { portfolioScores, type PortfolioModel } from '../scoring/portfolio';
import { changeJob, createJob, findJob, type JobRow } from './jobs';
import type { ProjectState } from './state';
import { memberSubjects, requirePortfolio, type PortfolioRow } from './portfolios';
import { criticalityRatings, jobs, reportEntries, reports, scoreHistory, subjectContents, subjectScores } from './schema';

/** Reports replayed (of member subjects) and looked at (of any subject) per alarm ring. */
const REPORTS_PER_RING = 10;
const SCANNED_PER_RING = 200;
/** Pause between rings, so requests waiting for the object go first. */
const PAUSE_MS = 5;

interface Progress {
  portfolio_id: string;
  /** The last report replayed: (produced_at, id). */
  after: [string, string] | null;
  /**
   * Each subject's penalties as of the last replayed report: [pqc, vuln, agility from its crypto
   * inventory, agility from the crypto libraries among its vulnerable components].
   */
  latest: Record<string, [number, number, number, number]>;
  /** The last point written per axis. */
  last: Partial<Record<Axis, number>>;
  points: number;
  reports: number;
  /** The survey whose reports are being replayed, and its latest report's time: its point is written once all are in. */
  pending: [string, string] | null;
}

/** Asks for a new portfolio's history; the alarm does the work. */
export function queueBackfill(state: ProjectState, portfolio: PortfolioRow): JobRow {
  const progress: Progress = { portfolio_id: portfolio.id, after: null, latest: {}, last: {}, points: 0, reports: 0, pending: null };
  const job = createJob(state.db, 'PORTFOLIO_BACKFILL', { status: 'PENDING', message: `Filling ${portfolio.name}'s history from past surveys.`, metadata: progress as unknown as JsonObject });
  state.notify([job]);
  state.wakeSoon();
  return job;
}

/**
 * The penalties a report's entries give its subject as of its time, in the parts that report speaks for
 * (a composition report names only the components with advisories: crypto libraries among them count).
 */
function penaltiesOf(state: ProjectState, report: typeof reports.$inferSelect, entry: [number, number, number, number]): [number, number, number, number] {
  const evidence: SubjectEvidence = { subject: report.subject, vulns: [], crypto: [], runtime: [], libraries: [] };
  const rows = state.db.select({ data: reportEntries.data }).from(reportEntries).where(eq(reportEntries.reportId, report.id)).all();
  for (const { data } of rows) {
    if (report.type === 'composition') {
      evidence.vulns.push({ data, listed: 1 });
      evidence.libraries.push({ key: String(data.component_key ?? data.purl), name: String(data.name ?? ''), purl: (data.purl as string | null) ?? null, version: (data.version as string | null) ?? null, listed: 1 });
    } else if (data.assetType === 'observation') evidence.runtime.push(data);
    else evidence.crypto.push({ data, protocol: null });
  }
  const sums: Record<Axis, number> = { pqc: 0, vuln: 0, agility: 0 };
  for (const f of scoredFindings(evidence, report.producedAt)) sums[f.axis] += f.penalty;
  return report.type === 'composition' ? [entry[0], sums.vuln, entry[2], sums.agility] : [sums.pqc, entry[1], sums.agility, entry[3]];
}

/**
 * A report of the survey whose contents the subject still holds: its penalties are the subject's own
 * current ones (every component and listing counted, which the reports alone cannot say), so the
 * replayed history ends on the score the portfolio has now.
 */
function currentPenalties(state: ProjectState, report: typeof reports.$inferSelect): [number, number, number, number] | null {
  const held = state.db.select({ surveyId: subjectContents.surveyId }).from(subjectContents)
    .where(and(eq(subjectContents.subject, report.subject), eq(subjectContents.surveyId, report.sourceSurveyId))).get();
  const scores = held ? state.db.select().from(subjectScores).where(eq(subjectScores.subject, report.subject)).get() : undefined;
  return scores && !scores.stale ? [scores.pqc, scores.vuln, scores.agility, 0] : null;
}

type Ratings = Map<string, { value: string; ratedAt: string }[]>;

/** Every subject's ratings, oldest first: read once per ring, not once per subject and point. */
function ratingsOf(state: ProjectState): Ratings {
  const bySubject: Ratings = new Map();
  for (const r of state.db.select({ subject: criticalityRatings.subject, value: criticalityRatings.value, ratedAt: criticalityRatings.ratedAt })
    .from(criticalityRatings).orderBy(asc(criticalityRatings.ratedAt)).all()) {
    const list = bySubject.get(r.subject) ?? [];
    list.push(r);
    bySubject.set(r.subject, list);
  }
  return bySubject;
}

/** The criticality in force for a subject at a time (its ratings replayed). */
function criticalityAt(ratings: Ratings, subject: string, at: string): Criticality {
  return ((ratings.get(subject) ?? []).filter((r) => r.ratedAt <= at).at(-1)?.value ?? 'unclassified') as Criticality;
}

/** One ring of the first backfill waiting: answers when to ring again, or null when none is left. */
export function runBackfills(state: ProjectState): number | null {
  const job = state.db.select().from(jobs).where(and(eq(jobs.type, 'PORTFOLIO_BACKFILL'), inArray(jobs.status, ['PENDING', 'RUNNING']))).orderBy(asc(jobs.createdAt)).get();
  if (!job) return null;
  const progress = job.metadata as unknown as Progress;
  let portfolio: PortfolioRow;
  try {
    portfolio = requirePortfolio(state, progress.portfolio_id);
  } catch {
    state.notify([changeJob(state.db, job, { status: 'SKIPPED', message: 'The portfolio was deleted.' })]);
    return Date.now() + PAUSE_MS;
  }
  const members = new Set(memberSubjects(state, portfolio));
  const ratings = ratingsOf(state);
  const [afterAt, afterId] = progress.after ?? ['', ''];
  const batch = state.db.select().from(reports)
    .where(and(inArray(reports.type, ['pqc-inventory', 'composition']), or(gt(reports.producedAt, afterAt), and(eq(reports.producedAt, afterAt), gt(reports.id, afterId)))))
    .orderBy(asc(reports.producedAt), asc(reports.id)).limit(SCANNED_PER_RING).all();
  let finished = batch.length < SCANNED_PER_RING;
  let replayed = 0;
  for (const report of batch) {
    // Points before the portfolio existed only: from then on, its own scorings write its history.
    if (report.producedAt >= portfolio.createdAt) {
      finished = true;
      break;
    }
    progress.after = [report.producedAt, report.id];
    if (!members.has(report.subject)) continue;
    // One point per survey, once all its reports are in (its pqc-inventory alone is not a state the subject was in).
    if (progress.pending && progress.pending[0] !== report.surveyId) writePoint(state, portfolio, progress, progress.pending[1], ratings);
    progress.pending = [report.surveyId, report.producedAt];
    progress.latest[report.subject] = currentPenalties(state, report) ?? penaltiesOf(state, report, progress.latest[report.subject] ?? [0, 0, 0, 0]);
    progress.reports++;
    if (++replayed >= REPORTS_PER_RING) {
      finished = false;
      break;
    }
  }
  if (finished && progress.pending) {
    writePoint(state, portfolio, progress, progress.pending[1], ratings);
    progress.pending = null;
  }
  const change = finished
    ? { status: 'COMPLETED' as const, progress: 100, message: `${progress.points} history point(s) from ${progress.reports} past report(s).` }
    : { status: 'RUNNING' as const, message: `${progress.reports} past report(s) replayed so far.` };
  state.notify([changeJob(state.db, findJob(state.db, job.id)!, { ...change, metadata: progress as unknown as JsonObject })]);
  return Date.now() + PAUSE_MS;
}

/** A history point at `at` for every axis whose shown score moved since the previous point. */
function writePoint(state: ProjectState, portfolio: PortfolioRow, progress: Progress, at: string, ratings: Ratings): void {
  const model: PortfolioModel = {
    subjects: Object.fromEntries(Object.entries(progress.latest).map(([subject, [pqc, vuln, inventory, libraries]]) =>
      [subject, [CRITICALITY_WEIGHT[criticalityAt(ratings, subject, at)], pqc, vuln, inventory + libraries]])),
  };
  const scores = portfolioScores(model);
  if (!scores) return;
  for (const axis of AXES) {
    const score = shown(scores.axes[axis]);
    if (progress.last[axis] === score) continue;
    progress.last[axis] = score;
    state.db.insert(scoreHistory).values({ id: newOrderedId(), portfolioId: portfolio.id, axis, score, band: bandOf(score), cause: 'backfill', at }).run();
    progress.points++;
  }
}
