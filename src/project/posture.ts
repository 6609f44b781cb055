// The daily portfolio snapshot and its posture reports (spec 4.10 rule 10, ARCHITECTURE section 6).
// The cron starts a PORTFOLIO_SNAPSHOT job per project: every subject's findings are refreshed (the
// deadlines came a day closer) and every portfolio is scored with cause `snapshot`, which writes a
// history point per axis. As each portfolio's scoring finishes, what it saw is kept (a snapshot row)
// and a posture report is built from it: a REPORT step of the snapshot job, read by the report
// operations like any report and rendered like every report. Regenerate rebuilds it from the kept row.
import { searchTerms } from '../reports/search-terms';
import { and, desc, eq, lt } from 'drizzle-orm';
import { conflict } from '../lib/errors';
import type { JsonObject } from '../lib/json';
import { newOrderedId, nowIso } from '../lib/ids';
import { ANALYSIS_VERSION } from '../analysis/versions';
import { AXES, shown, type Axis } from '../scoring/model';
import { queueRenders } from './documents';
import { changeJob, createJob, findJob, POSTURE, settleSurvey, stepsOf, type JobRow } from './jobs';
import type { ProjectState } from './state';
import { requirePortfolio, type PortfolioRow } from './portfolios';
import { refuseWhileRegenerated, type ReportRow } from './reports';
import { jobs, portfolios, portfolioSnapshots, reportEntries, reports, settings, subjectScores } from './schema';
import { requestScoring } from './scoring-store';

export { POSTURE };
/** How many of the ranked fixes a posture report lists. */
export const POSTURE_FIXES = 50;
/**
 * A posture report is written in the call that asks for it; one still unwritten this long after (the
 * object was reset mid-write) is written by the alarm: its job and snapshot row are its lease.
 */
export const POSTURE_RESUME_MS = 60_000;
const RESUME_PER_RING = 5;
const SNAPSHOT_SETTING = 'snapshotJobId';

type SnapshotRow = typeof portfolioSnapshots.$inferSelect;

/**
 * Starts the day's snapshot: one PORTFOLIO_SNAPSHOT job (the same one again for a second call on the
 * same day while it runs), every subject refreshed, every portfolio scored with cause `snapshot`.
 */
export async function startSnapshot(state: ProjectState, input: { asOf: string }): Promise<{ job_id: string; portfolios: number }> {
  const day = input.asOf.slice(0, 10);
  const current = currentSnapshot(state);
  if (current && String(current.metadata.as_of ?? '').slice(0, 10) === day) return { job_id: current.id, portfolios: Number(current.metadata.portfolios ?? 0) };
  if (current) settle(state, current, 'Superseded by the next day\'s snapshot.');
  const held = state.db.select({ id: portfolios.id }).from(portfolios).all().filter((p) => requirePortfolioOrNull(state, p.id)).map((p) => p.id);
  const job = createJob(state.db, 'PORTFOLIO_SNAPSHOT', {
    status: 'RUNNING', message: `Scoring ${held.length} portfolio(s) for the snapshot of ${day}.`, metadata: { as_of: input.asOf, portfolios: held.length, portfolio_ids: held },
  });
  state.db.insert(settings).values({ key: SNAPSHOT_SETTING, value: job.id }).onConflictDoUpdate({ target: settings.key, set: { value: job.id } }).run();
  // Deadlines come closer every day: every subject's penalties are computed again.
  state.db.update(subjectScores).set({ stale: true }).run();
  state.notify([job]);
  await requestScoring(state, held, 'snapshot');
  return { job_id: job.id, portfolios: held.length };
}

function requirePortfolioOrNull(state: ProjectState, id: string): PortfolioRow | null {
  try {
    return requirePortfolio(state, id);
  } catch {
    return null;
  }
}

function currentSnapshot(state: ProjectState): JobRow | null {
  const id = state.db.select().from(settings).where(eq(settings.key, SNAPSHOT_SETTING)).get()?.value;
  const job = id ? findJob(state.db, id) : undefined;
  return job && job.status === 'RUNNING' ? job : null;
}

/** The date the running snapshot scores as of, if one runs. */
export function snapshotAsOf(state: ProjectState): string | null {
  const job = currentSnapshot(state);
  return job ? String(job.metadata.as_of) : null;
}

/** Finishes the snapshot job once every portfolio it scores has its report (or it is superseded). */
function settle(state: ProjectState, job: JobRow, superseded?: string): void {
  const expected = (job.metadata.portfolio_ids ?? []) as string[];
  const steps = stepsOf(state.db, job.id);
  if (superseded) {
    state.notify([changeJob(state.db, job, { status: steps.length ? 'COMPLETED' : 'SKIPPED', message: superseded })]);
    return;
  }
  const live = expected.filter((id) => requirePortfolioOrNull(state, id));
  const reported = new Set(steps.filter((s) => s.status === 'COMPLETED').map((s) => String(s.metadata.portfolio_id)));
  if (live.every((id) => reported.has(id))) state.notify([settleSurvey(state.db, job.id) ?? changeJob(state.db, job, { status: 'COMPLETED', message: null })]);
  else state.notify([changeJob(state.db, job, { progress: Math.floor((100 * reported.size) / Math.max(1, live.length)) })]);
}

/**
 * A portfolio scored for the snapshot: keeps what it saw and builds its posture report (a REPORT step
 * of the snapshot job). Called as the scoring result becomes current.
 */
export async function snapshotScored(state: ProjectState, input: { portfolio: PortfolioRow; state: JsonObject; asOf: string; fixes: JsonObject[] }): Promise<string | null> {
  const job = currentSnapshot(state);
  if (!job) return null;
  const previous = state.db.select().from(portfolioSnapshots)
    .where(and(eq(portfolioSnapshots.portfolioId, input.portfolio.id), lt(portfolioSnapshots.asOf, input.asOf))).orderBy(desc(portfolioSnapshots.asOf)).get();
  const snapshot: SnapshotRow = {
    id: newOrderedId(), portfolioId: input.portfolio.id, snapshotJobId: job.id, asOf: input.asOf, state: input.state, fixes: input.fixes.slice(0, POSTURE_FIXES),
    previous: previous ? { as_of: previous.asOf, score: previous.state.score ?? null, subjects: subjectScoresOf(previous.state) } : null, createdAt: nowIso(),
  };
  // Stored with the scoring result that called for it (no await in between: one write), so a reset
  // before the report is written leaves its job for the alarm, not a snapshot that never settles.
  state.db.insert(portfolioSnapshots).values(snapshot).run();
  const step = reportJob(state, { parentId: job.id, supersedes: null, portfolio: input.portfolio, snapshot });
  await state.wake(Date.now() + POSTURE_RESUME_MS);
  await buildPosture(state, step, snapshot, input.portfolio.name);
  settle(state, findJob(state.db, job.id)!);
  return step.id;
}

/**
 * The alarm's part: posture reports whose writing was cut off (still PENDING after POSTURE_RESUME_MS)
 * are written now from their kept snapshot, a few per ring. Answers when the next one is due, or null.
 */
export async function resumePostures(state: ProjectState, now = Date.now()): Promise<number | null> {
  const waiting = state.db.select().from(jobs)
    .where(and(eq(jobs.stepLabel, POSTURE), eq(jobs.status, 'PENDING'))).orderBy(jobs.createdAt).limit(RESUME_PER_RING + 1).all();
  let next: number | null = null;
  for (const [i, job] of waiting.entries()) {
    const due = Date.parse(job.updatedAt ?? job.createdAt) + POSTURE_RESUME_MS;
    if (due > now || i === RESUME_PER_RING) {
      next = Math.min(next ?? Infinity, Math.max(due, now + 1));
      continue;
    }
    const snapshot = state.db.select().from(portfolioSnapshots).where(eq(portfolioSnapshots.id, String(job.metadata.snapshot_id ?? ''))).get();
    try {
      if (!snapshot) throw new Error('its snapshot is no longer kept');
      await buildPosture(state, job, snapshot, String(job.metadata.portfolio ?? job.target ?? ''));
    } catch (error) {
      state.notify([changeJob(state.db, findJob(state.db, job.id)!, { status: 'FAILED', failureClass: 'internal', message: `The posture report could not be written: ${String(error)}` })]);
    }
    const parent = job.parentId ? findJob(state.db, job.parentId) : undefined;
    if (parent?.status === 'RUNNING') settle(state, parent);
  }
  return next;
}

function reportJob(state: ProjectState, input: { parentId: string | null; supersedes: string | null; portfolio: PortfolioRow; snapshot: SnapshotRow }): JobRow {
  const row = createJob(state.db, 'REPORT', {
    message: `Writing the posture report of ${input.portfolio.name}.`,
    metadata: { report_type: POSTURE, portfolio_id: input.portfolio.id, portfolio: input.portfolio.name, as_of: input.snapshot.asOf, snapshot_id: input.snapshot.id },
    parentId: input.parentId, stepType: 'REPORT', stepLabel: POSTURE, target: input.portfolio.name, supersedes: input.supersedes,
  });
  state.notify([row]);
  return row;
}

function subjectScoresOf(answer: JsonObject): Record<string, number | null> {
  const rows = ((answer.breakdown as JsonObject | undefined)?.subjects ?? []) as JsonObject[];
  return Object.fromEntries(rows.map((s) => [String(s.subject), (s.score as number | null) ?? null]));
}

const AXIS_NAMES: Record<Axis | 'overall', string> = {
  overall: 'Overall score', pqc: 'Post-quantum cryptography', vuln: 'Known vulnerabilities', agility: 'Crypto-agility',
};

/** The report's entries by section, and its overview, from what the snapshot kept. */
export function postureContent(snapshot: SnapshotRow, portfolioName: string): { sections: Record<string, { key: string; name: string; purl: string | null; explanation: string; data: JsonObject }[]>; overview: JsonObject; headline: JsonObject } {
  const score = (snapshot.state.score ?? {}) as JsonObject;
  const axes = (score.axes ?? {}) as Record<string, { score: number | null; band: string | null }>;
  const before = (snapshot.previous?.score ?? null) as JsonObject | null;
  const beforeAxes = (before?.axes ?? {}) as Record<string, { score: number | null }>;
  const since = snapshot.previous ? String(snapshot.previous.as_of).slice(0, 10) : null;
  const change = (from: number | null | undefined, to: number | null | undefined) => (typeof from === 'number' && typeof to === 'number' ? shown(to - from) : null);

  const fixes = snapshot.fixes.map((f) => {
    const gain = (f.gain ?? {}) as JsonObject;
    const reach = (f.reach ?? {}) as JsonObject;
    const what = f.action === 'upgrade' ? `Upgrade ${String(f.name)}${f.fix_version ? ` to ${String(f.fix_version)}` : ''}` : `Move away from ${String(f.name)}${f.replacement ? ` to ${String(f.replacement)}` : ''}`;
    return {
      key: String(f.item_key), name: String(f.name), purl: String(f.item_key).startsWith('pkg:') ? String(f.item_key) : null,
      explanation: `${what}: +${Number(gain.overall ?? 0)} points overall; ${Number(f.findings_total ?? 0)} finding(s) in ${Number(reach.count ?? 0)} subject(s).`,
      data: {
        rank: f.rank ?? null, item_key: f.item_key, name: f.name, action: f.action, gain: gain.overall ?? 0, gain_pqc: gain.pqc ?? 0, gain_vuln: gain.vuln ?? 0, gain_agility: gain.agility ?? 0,
        fix_version: f.fix_version ?? null, replacement: f.replacement ?? null, subjects: reach.count ?? 0, findings: f.findings_total ?? 0,
      },
    };
  });
  const subjectRows = ((snapshot.state.breakdown as JsonObject | undefined)?.subjects ?? []) as JsonObject[];
  const previousSubjects = (snapshot.previous?.subjects ?? {}) as Record<string, number | null>;
  const subjects = subjectRows.map((s) => {
    const axesOf = (s.axes ?? {}) as Record<string, number | null>;
    const costliest = ((s.costliest ?? []) as JsonObject[])[0];
    return {
      key: `subject:${String(s.subject)}`, name: String(s.subject), purl: null,
      explanation: `${String(s.subject)} scores ${String(s.score)} (${String(s.band)}), criticality ${String(s.criticality)}${costliest ? `; costliest: ${String(costliest.name ?? costliest.finding_key)} (${String(costliest.points)} points)` : ''}.`,
      data: {
        subject: s.subject, criticality: s.criticality, weight: s.weight, score: s.score, band: s.band, pqc: axesOf.pqc ?? null, vuln: axesOf.vuln ?? null, agility: axesOf.agility ?? null,
        findings: s.findings ?? 0, change: change(previousSubjects[String(s.subject)], s.score as number | null),
      },
    };
  });
  const movements = (['overall', ...AXES] as const).map((axis) => {
    const from = axis === 'overall' ? (before?.score as number | null | undefined) : beforeAxes[axis]?.score;
    const to = axis === 'overall' ? (score.score as number | null) : axes[axis]?.score ?? null;
    const delta = change(from, to);
    return {
      key: `axis:${axis}`, name: AXIS_NAMES[axis], purl: null,
      explanation: since ? `${AXIS_NAMES[axis]}: ${String(from ?? 'no score')} to ${String(to ?? 'no score')} since ${since}${delta !== null ? ` (${delta >= 0 ? '+' : ''}${delta})` : ''}.` : `${AXIS_NAMES[axis]}: ${String(to ?? 'no score')}; the first snapshot of this portfolio.`,
      data: { what: AXIS_NAMES[axis], axis: axis as string, from: from ?? null, to, change: delta, since },
    };
  });
  for (const s of subjects) {
    if (typeof s.data.change === 'number' && s.data.change !== 0) {
      movements.push({
        key: s.key, name: s.name, purl: null, explanation: `${s.name}: ${String(previousSubjects[s.name])} to ${String(s.data.score)} since ${since} (${s.data.change > 0 ? '+' : ''}${s.data.change}).`,
        data: { what: s.name, axis: 'subject', from: previousSubjects[s.name] ?? null, to: s.data.score as number, change: s.data.change, since },
      });
    }
  }
  const overview = {
    portfolio_id: snapshot.portfolioId, portfolio: portfolioName, as_of: snapshot.asOf, score: score.score ?? null, band: score.band ?? null, axes,
    subjects: snapshot.state.subjects ?? subjects.length, findings: snapshot.state.findings ?? 0, fixes: snapshot.state.fixes ?? fixes.length,
    previous_as_of: since, change: change(before?.score as number | null | undefined, score.score as number | null),
  };
  const headline = { score: overview.score, band: overview.band, axes, subjects: overview.subjects, fixes: overview.fixes, change: overview.change, previous_as_of: since };
  return { sections: { fixes, subjects, movements }, overview, headline };
}

/** Writes the report of a snapshot: its entries, its document in R2, its record; the job completes and its documents are rendered. */
async function buildPosture(state: ProjectState, job: JobRow, snapshot: SnapshotRow, portfolioName: string): Promise<void> {
  const content = postureContent(snapshot, portfolioName);
  const producedAt = nowIso();
  const blobKey = `projects/${state.projectId}/reports/${job.id}/report.json`;
  const document = {
    type: POSTURE, portfolio_id: snapshot.portfolioId, portfolio: portfolioName, as_of: snapshot.asOf, produced_at: producedAt, overview: content.overview,
    sections: Object.fromEntries(Object.entries(content.sections).map(([name, entries]) => [name, entries.map((e) => ({ ...e.data, key: e.key, section: name, explanation: e.explanation }))])),
  };
  await state.env.BUNDLES.put(blobKey, JSON.stringify(document), { httpMetadata: { contentType: 'application/json' } });
  const sections = [{ name: 'overview', kind: 'object' }, ...Object.entries(content.sections).map(([name, entries]) => ({ name, kind: 'list', total: entries.length }))];
  const done = state.db.transaction(() => {
    for (const [section, entries] of Object.entries(content.sections)) {
      entries.forEach((e, i) => state.db.insert(reportEntries).values({
        reportId: job.id, section, position: i + 1, key: e.key, purl: e.purl, name: e.name, explanation: e.explanation, data: { ...e.data, explanation: e.explanation },
        terms: searchTerms(e),
      }).run());
    }
    state.db.insert(reports).values({
      id: job.id, surveyId: snapshot.snapshotJobId, type: POSTURE, subject: portfolioName, sourceSurveyId: snapshot.snapshotJobId, sourceAttempt: 0, producedAt, blobKey,
      summary: { sections, objects: { overview: content.overview }, headline: content.headline },
      provenance: { analysis: ANALYSIS_VERSION, portfolio_id: snapshot.portfolioId, snapshot_id: snapshot.id, as_of: snapshot.asOf },
    }).run();
    return changeJob(state.db, job, { status: 'COMPLETED', message: `The posture report of ${portfolioName} as of ${snapshot.asOf.slice(0, 10)} is ready.`, metadata: { figures: content.headline, report_id: job.id } });
  });
  state.notify([done]);
  await queueRenders(state, job.id);
}

/**
 * Regenerate a posture report (spec 4.10 rule 10): rebuilt from the same snapshot (the same data as of
 * the same date) as a new REPORT job superseding it. 404 when its portfolio was deleted; 409 while a
 * newer version is being produced or once one is ready, allowed again after it failed or waited more
 * than 30 minutes to start.
 */
export async function regeneratePosture(state: ProjectState, report: ReportRow): Promise<{ job_id: string; supersedes: string }> {
  const snapshotId = String(report.provenance.snapshot_id ?? '');
  const snapshot = state.db.select().from(portfolioSnapshots).where(eq(portfolioSnapshots.id, snapshotId)).get();
  const portfolio = requirePortfolio(state, snapshot?.portfolioId ?? String(report.provenance.portfolio_id ?? ''));
  if (!snapshot) throw conflict('What this posture report was built from is no longer kept; the next snapshot writes a new one.');
  refuseWhileRegenerated(state, report.id, 'posture report');
  const job = reportJob(state, { parentId: null, supersedes: report.id, portfolio, snapshot: { ...snapshot } });
  await state.wake(Date.now() + POSTURE_RESUME_MS);
  try {
    await buildPosture(state, job, snapshot, portfolio.name);
  } catch (error) {
    state.notify([changeJob(state.db, findJob(state.db, job.id)!, { status: 'FAILED', message: `The posture report could not be written: ${String(error)}`, failureClass: 'internal' })]);
    throw error;
  }
  return { job_id: job.id, supersedes: report.id };
}

