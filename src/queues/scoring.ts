// The scoring consumer (ARCHITECTURE section 1): one message per portfolio to score. It takes the
// portfolio's scoring work, refreshes the findings of member subjects whose contents changed, reads
// the subjects' penalties and findings in pages, computes the scores, breakdown and ranked fixes
// (src/scoring/, plain functions) and writes the ranked rows in slices before making them current in
// one write. The project object keeps answering between every call; state and rank answer the
// previous result until the new one is current.
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { packageOf } from '../analysis/vulns/ecosystem';
import { compareVersions } from '../analysis/vulns/versions';
import type { Env } from '../env';
import type { JsonObject } from '../lib/json';
import { newOrderedId } from '../lib/ids';
import { withProjectWork, type ProjectStub } from '../project/client';
import type { LibraryScan, libraryScanPage, ScoringStart, ScoringSubject, StagedFix, StoredScoredFinding } from '../project/scoring-store';
import type { ScoredFinding } from '../scoring/findings';
import { breakdownSteps, portfolioScores, rankFixesSteps, scoreAnswer, type FixRow, type PortfolioModel, type Steps } from '../scoring/portfolio';
import { yieldNow, yieldToEventLoop } from '../lib/yielding';
import { consumeEach } from './consume';
import { recordActivity } from '../control/activity';
import { controlDb } from '../control/db';
import { projects } from '../control/schema';
import { rematchProject } from './rematch';

export const SCORING_QUEUE = 'posture-scoring';
export const SCORING_DLQ = 'posture-scoring-dlq';
// Each call to the project object holds it (and here, the isolate) for well under 50 ms on the bench's machine.
/** Subjects per findings call (the object binds at most 100 parameters a statement) and findings per page (about 15 ms in the object on the bench). */
const SUBJECT_SLICE = 90;
const FINDINGS_PAGE = 4_000;
/** Subjects named per refresh call: the object refreshes as many as its REFRESH_ROWS allow. */
const REFRESH_SLICE = 100;
/** Characters of ranked rows' JSON per write (a larger row is written alone). */
const STAGED_CHARS = 2_000_000;

/** A portfolio to score (the project object's scoring work); it has no `kind`. */
const PortfolioScoringSchema = z.object({
  projectId: z.uuid(),
  portfolioId: z.uuid(),
  generation: z.number().int().min(1),
  cause: z.enum(['survey', 'membership', 'rating', 'vulnerability-data', 'snapshot', 'backfill', 'decision']),
});
/** A project to match again after the vulnerability data changed (src/queues/rematch.ts), sent after the daily refresh. */
const RematchMessageSchema = z.object({ kind: z.literal('rematch'), projectId: z.uuid(), snapshotAt: z.iso.datetime().optional() });
export const ScoringMessageSchema = z.union([RematchMessageSchema, PortfolioScoringSchema]);
export type ScoringMessageBody = z.infer<typeof PortfolioScoringSchema>;

/**
 * One scoring's calls to the project object, and the longest stretch the work held a thread: one call
 * (the object, busy meanwhile) or one step computed here between pauses. The log line reports both
 * (the 50 ms rule; deployed, the clock stands still while computing, so steps show as 0).
 */
function scoringRun(env: Env, projectId: string) {
  const longest = { call: 0, step: 0 };
  const call = async <T>(work: (stub: ProjectStub) => Promise<unknown>): Promise<T> => {
    const started = Date.now();
    try {
      return await withProjectWork<T>(env, projectId, work);
    } finally {
      longest.call = Math.max(longest.call, Date.now() - started);
    }
  };
  /** Runs a computation's steps, letting the isolate's other work run at each pause. */
  const paced = async <T>(steps: Steps<T>): Promise<T> => {
    for (;;) {
      const started = Date.now();
      const next = steps.next();
      longest.step = Math.max(longest.step, Date.now() - started);
      if (next.done) return next.value;
      await yieldToEventLoop();
    }
  };
  return { call, paced, longest };
}
type ScoringRun = ReturnType<typeof scoringRun>;

/** Every scored finding of the subjects, paged from the project object (their details parsed here). */
async function findingsOf(work: ScoringRun, names: string[]): Promise<ScoredFinding[]> {
  const all: ScoredFinding[] = [];
  for (let i = 0; i < names.length; i += SUBJECT_SLICE) {
    const subjects = names.slice(i, i + SUBJECT_SLICE);
    let after: [string, string] | undefined;
    for (;;) {
      const page = await work.call<StoredScoredFinding[]>((stub) => stub.scoringFindings({ subjects, after, limit: FINDINGS_PAGE }));
      for (const f of page) all.push({ subject: f.subject, id: f.id, axis: f.axis, findingKey: f.findingKey, itemKey: f.itemKey, penalty: f.penalty, detail: JSON.parse(f.detail) as JsonObject });
      if (page.length < FINDINGS_PAGE) break;
      const last = page[page.length - 1]!;
      after = [last.subject, last.id];
      await yieldNow();
    }
  }
  return all;
}

/** The version that fixes every instance of a package: the highest candidate in the package's own order. */
export function highestVersion(itemKey: string, candidates: string[]): string | null {
  if (!candidates.length) return null;
  const ecosystem = packageOf(`${itemKey}@0`)?.ecosystem;
  // A row of thousands of instances names few versions: each is compared once.
  return [...new Set(candidates)].reduce((best, v) => {
    if (!ecosystem) return v > best ? v : best;
    try {
      return compareVersions(ecosystem, v, best) > 0 ? v : best;
    } catch {
      return best;
    }
  });
}

/** The portfolio's scoring from its subjects and their findings (plain functions, run in steps by `paced`). */
export async function computeScoring(subjects: ScoringSubject[], findings: ScoredFinding[], paced: ScoringRun['paced']) {
  const model: PortfolioModel = { subjects: Object.fromEntries(subjects.map((s) => [s.name, [s.weight, s.penalties.pqc, s.penalties.vuln, s.penalties.agility]])) };
  const scores = portfolioScores(model);
  const rows = await paced(rankFixesSteps(model, findings, { fixVersionOf: highestVersion }));
  const state: JsonObject = {
    score: scoreAnswer(scores) as unknown as JsonObject,
    subjects: subjects.length,
    findings: findings.length,
    fixes: rows.length,
    breakdown: await paced(breakdownSteps(model, subjects.map((s) => ({ name: s.name, criticality: s.criticality, weight: s.weight })), findings)),
  };
  return { model, state, rows };
}

/** A subject scanned again this many times (its contents replaced meanwhile each time) fails the attempt, to be retried. */
const MAX_SCANS = 3;

/**
 * Refreshes the stale subjects' findings, as many per call as the object's budget allows; a subject too
 * large for one call has its components scanned ahead in pages first (`scanFirst`).
 */
async function refreshStale(work: ScoringRun, stale: string[], asOf: string): Promise<void> {
  let scanned: LibraryScan | undefined;
  let scans = 0;
  for (let i = 0; i < stale.length;) {
    const answer = await work.call<{ refreshed: number; scanFirst?: string }>((stub) => stub.refreshSubjects({ subjects: stale.slice(i, i + REFRESH_SLICE), asOf, scanned }));
    i += answer.refreshed;
    if (answer.refreshed) scanned = undefined, scans = 0;
    if (answer.scanFirst) {
      if (++scans > MAX_SCANS) throw new Error(`the contents of subject ${answer.scanFirst} were replaced during each of ${MAX_SCANS} scans`);
      scanned = await scanLibraries(work, answer.scanFirst);
    } else if (answer.refreshed < 1) throw new Error(`the project object refreshed none of ${stale.length - i} subjects`);
    await yieldNow();
  }
}

/** A subject's components scanned for crypto libraries a page per call, all from the attempt current at the first. */
async function scanLibraries(work: ScoringRun, subject: string): Promise<LibraryScan> {
  type Page = ReturnType<typeof libraryScanPage>;
  let page = await work.call<Page>((stub) => stub.libraryScanPage({ subject }));
  const scan: LibraryScan = { subject, surveyId: page.surveyId, attempt: page.attempt, candidates: [...page.candidates] };
  while (page.next && scan.surveyId) {
    const from = { surveyId: scan.surveyId, attempt: scan.attempt, after: page.next };
    page = await work.call<Page>((stub) => stub.libraryScanPage({ subject, from }));
    scan.candidates.push(...page.candidates);
    await yieldNow();
  }
  return scan;
}

/** Scores one portfolio; returns normally when done with the message (ack), throws to retry. */
export async function scorePortfolio(env: Env, message: ScoringMessageBody): Promise<void> {
  const { projectId, portfolioId, generation } = message;
  const work = scoringRun(env, projectId);
  const start = await work.call<ScoringStart>((stub) => stub.beginScoring({ portfolioId, generation }));
  if (!start.run) return;
  const asOf = start.asOf!;
  const cause = start.cause!;
  // Phase times for the log line below. (Deployed, Date.now() moves only with I/O: computing shows in the writes.)
  const at = [Date.now()];
  const stale = start.stale ?? [];
  await refreshStale(work, stale, asOf);
  at.push(Date.now());
  const subjects = await work.call<ScoringSubject[]>((stub) => stub.scoringSubjects(start.members ?? []));
  const findings = await findingsOf(work, subjects.map((s) => s.name));
  at.push(Date.now());
  const { model, state, rows } = await computeScoring(subjects, findings, work.paced);
  at.push(Date.now());
  const build = newOrderedId();
  await stageRows(work, build, rows);
  at.push(Date.now());
  await work.call((stub) => stub.finishScoring({
    portfolioId, generation, runId: start.runId!, build, asOf, cause, state, model, rows: rows.length,
  }));
  at.push(Date.now());
  const ms = (i: number) => at[i + 1]! - at[i]!;
  console.log(`scoring: portfolio ${portfolioId} (${cause}) in ${at[5]! - at[0]!} ms: refreshed ${start.stale?.length ?? 0} subjects ${ms(0)} ms, `
    + `read ${subjects.length} subjects' ${findings.length} findings ${ms(1)} ms, computed ${rows.length} rows ${ms(2)} ms, wrote them ${ms(3)} ms, finished ${ms(4)} ms; `
    + `longest call to the project object ${work.longest.call} ms, longest step computed here ${work.longest.step} ms`);
}

/** Writes a build's ranked rows as JSON text, in slices of about STAGED_CHARS (written here, so the object only stores them). */
async function stageRows(work: ScoringRun, build: string, rows: FixRow[]): Promise<void> {
  let slice: StagedFix[] = [];
  let chars = 0;
  const write = async () => {
    const staged = slice;
    slice = [];
    chars = 0;
    await work.call((stub) => stub.stageFixes({ build, rows: staged }));
    await yieldNow();
  };
  for (const r of rows) {
    const staged = { rank: r.row.rank as number, itemKey: r.itemKey, gain: r.gain.overall, row: JSON.stringify(r.row), summary: JSON.stringify(r.summary), effects: JSON.stringify(r.effects) };
    slice.push(staged);
    chars += staged.row.length + staged.summary.length + staged.effects.length;
    if (chars >= STAGED_CHARS) await write();
  }
  if (slice.length) await write();
}

/**
 * Acceptances (decisions with `expires`) that ended since the last daily run, recorded in the activity
 * log by the system: their findings count again from the snapshot that follows, which rescores every subject.
 */
async function reportExpiredAcceptances(env: Env, projectId: string, through: string): Promise<void> {
  const expired = await withProjectWork<JsonObject[]>(env, projectId, (stub) => stub.expiredDecisions({ through }));
  if (expired.length) {
    const db = controlDb(env.DB);
    const project = await db.select({ orgId: projects.orgId }).from(projects).where(eq(projects.id, projectId)).get();
    if (!project) return;
    for (const data of expired) await recordActivity(db, { orgId: project.orgId, projectId, actor: null, action: 'finding.acceptance_expired', data, traceId: null });
  }
  await withProjectWork(env, projectId, (stub) => stub.decisionExpiryReported({ through }));
}

/** The scoring queue's consumer: each message acked when done, retried with a growing delay otherwise. */
export async function consumeScoring(batch: MessageBatch, env: Env): Promise<void> {
  await consumeEach(batch, {
    name: 'scoring', schema: ScoringMessageSchema,
    handle: async (body) => {
      if (!('kind' in body)) return scorePortfolio(env, body);
      const { since } = await rematchProject(env, body.projectId);
      // The day's snapshot after the re-match, so it sees today's vulnerability data (not for a project still being set up).
      if (body.snapshotAt && since !== null) {
        await reportExpiredAcceptances(env, body.projectId, body.snapshotAt);
        await withProjectWork(env, body.projectId, (stub) => stub.startSnapshot({ asOf: body.snapshotAt! }));
      }
    },
    describe: (body) => ('kind' in body ? `the re-match of project ${body.projectId}` : `portfolio ${body.portfolioId}`),
  });
}

/**
 * Dead letters: nothing to fail (scoring is not a job). A portfolio's work row lapses and the project
 * object's alarm sends it again; a re-match is done by the next daily run (it starts from the last
 * re-match that finished).
 */
export async function consumeScoringDeadLetters(batch: MessageBatch): Promise<void> {
  for (const message of batch.messages) {
    console.error(`scoring: gave up on message ${message.id} after its retries; a portfolio's work is sent again by its project object's alarm, a re-match by the next daily run`);
    message.ack();
  }
}
