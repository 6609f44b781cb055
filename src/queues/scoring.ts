// The scoring consumer (ARCHITECTURE section 1): one message per portfolio to score. It takes the
// portfolio's scoring work, refreshes the findings of member subjects whose contents changed, reads
// the subjects' penalties and findings in pages, computes the scores, breakdown and ranked fixes
// (src/scoring/, plain functions) and writes the ranked rows in slices before making them current in
// one write. The project object keeps answering between every call; state and rank answer the
// previous result until the new one is current.
import { z } from 'zod';
import { packageOf } from '../analysis/vulns/ecosystem';
import { compareVersions } from '../analysis/vulns/versions';
import type { Env } from '../env';
import type { JsonObject } from '../lib/json';
import { newOrderedId } from '../lib/ids';
import { withProjectWork } from '../project/client';
import type { ScoringStart, ScoringSubject } from '../project/scoring-store';
import type { ScoredFinding } from '../scoring/findings';
import { breakdown, portfolioScores, rankFixes, scoreAnswer, type PortfolioModel } from '../scoring/portfolio';
import { yieldNow } from '../lib/yielding';
import { consumeEach } from './consume';
import { rematchProject } from './rematch';

export const SCORING_QUEUE = 'posture-scoring';
export const SCORING_DLQ = 'posture-scoring-dlq';
/** Subjects per findings call (the object binds at most 100 parameters a statement) and findings per page. */
const SUBJECT_SLICE = 90;
const FINDINGS_PAGE = 5_000;
/** Subjects refreshed per call to the project object (about 2.5 ms each inside it). */
const REFRESH_SLICE = 25;
/** Ranked rows per write. */
const ROWS_PER_WRITE = 250;

/** A portfolio to score (the project object's scoring work); it has no `kind`. */
const PortfolioScoringSchema = z.object({
  projectId: z.uuid(),
  portfolioId: z.uuid(),
  generation: z.number().int().min(1),
  cause: z.enum(['survey', 'membership', 'rating', 'vulnerability-data', 'snapshot', 'backfill']),
});
/** A project to match again after the vulnerability data changed (src/queues/rematch.ts), sent after the daily refresh. */
const RematchMessageSchema = z.object({ kind: z.literal('rematch'), projectId: z.uuid(), snapshotAt: z.iso.datetime().optional() });
export const ScoringMessageSchema = z.union([RematchMessageSchema, PortfolioScoringSchema]);
export type ScoringMessageBody = z.infer<typeof PortfolioScoringSchema>;

/** Every scored finding of the subjects, paged from the project object. */
async function findingsOf(env: Env, projectId: string, names: string[]): Promise<ScoredFinding[]> {
  const all: ScoredFinding[] = [];
  for (let i = 0; i < names.length; i += SUBJECT_SLICE) {
    const subjects = names.slice(i, i + SUBJECT_SLICE);
    let after: [string, string] | undefined;
    for (;;) {
      const page = await withProjectWork<ScoredFinding[]>(env, projectId, (stub) => stub.scoringFindings({ subjects, after, limit: FINDINGS_PAGE }));
      all.push(...page);
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
  return candidates.reduce((best, v) => {
    if (!ecosystem) return v > best ? v : best;
    try {
      return compareVersions(ecosystem, v, best) > 0 ? v : best;
    } catch {
      return best;
    }
  });
}

/** The portfolio's scoring from its subjects and their findings (plain; the bench and tests call it too). */
export function computeScoring(subjects: ScoringSubject[], findings: ScoredFinding[]) {
  const model: PortfolioModel = { subjects: Object.fromEntries(subjects.map((s) => [s.name, [s.weight, s.penalties.pqc, s.penalties.vuln, s.penalties.agility]])) };
  const scores = portfolioScores(model);
  const rows = rankFixes(model, findings, { fixVersionOf: highestVersion });
  const state: JsonObject = {
    score: scoreAnswer(scores) as unknown as JsonObject,
    subjects: subjects.length,
    findings: findings.length,
    fixes: rows.length,
    breakdown: breakdown(model, subjects.map((s) => ({ name: s.name, criticality: s.criticality, weight: s.weight })), findings),
  };
  return { model, state, rows };
}

/** Scores one portfolio; returns normally when done with the message (ack), throws to retry. */
export async function scorePortfolio(env: Env, message: ScoringMessageBody): Promise<void> {
  const { projectId, portfolioId, generation } = message;
  const start = await withProjectWork<ScoringStart>(env, projectId, (stub) => stub.beginScoring({ portfolioId, generation }));
  if (!start.run) return;
  const asOf = start.asOf!;
  // Phase times for the log line below. (Deployed, Date.now() moves only with I/O: computing shows in the writes.)
  const at = [Date.now()];
  const stale = start.stale ?? [];
  for (let i = 0; i < stale.length; i += REFRESH_SLICE) {
    await withProjectWork(env, projectId, (stub) => stub.refreshSubjects({ subjects: stale.slice(i, i + REFRESH_SLICE), asOf }));
    await yieldNow();
  }
  at.push(Date.now());
  const subjects = await withProjectWork<ScoringSubject[]>(env, projectId, (stub) => stub.scoringSubjects(start.members ?? []));
  const findings = await findingsOf(env, projectId, subjects.map((s) => s.name));
  at.push(Date.now());
  const { model, state, rows } = computeScoring(subjects, findings);
  at.push(Date.now());
  const build = newOrderedId();
  for (let i = 0; i < rows.length; i += ROWS_PER_WRITE) {
    await withProjectWork(env, projectId, (stub) => stub.stageFixes({ build, rows: rows.slice(i, i + ROWS_PER_WRITE) }));
    await yieldNow();
  }
  at.push(Date.now());
  await withProjectWork(env, projectId, (stub) => stub.finishScoring({
    portfolioId, generation, attempt: start.attempt!, build, asOf, cause: message.cause, state, model, rows: rows.length,
  }));
  at.push(Date.now());
  const ms = (i: number) => at[i + 1]! - at[i]!;
  console.log(`scoring: portfolio ${portfolioId} (${message.cause}) in ${at[5]! - at[0]!} ms: refreshed ${start.stale?.length ?? 0} subjects ${ms(0)} ms, `
    + `read ${subjects.length} subjects' ${findings.length} findings ${ms(1)} ms, computed ${rows.length} rows ${ms(2)} ms, wrote them ${ms(3)} ms, finished ${ms(4)} ms`);
}

/** The scoring queue's consumer: each message acked when done, retried with a growing delay otherwise. */
export async function consumeScoring(batch: MessageBatch, env: Env): Promise<void> {
  await consumeEach(batch, {
    name: 'scoring', schema: ScoringMessageSchema,
    handle: async (body) => {
      if (!('kind' in body)) return scorePortfolio(env, body);
      const { since } = await rematchProject(env, body.projectId);
      // The day's snapshot after the re-match, so it sees today's vulnerability data (not for a project still being set up).
      if (body.snapshotAt && since !== null) await withProjectWork(env, body.projectId, (stub) => stub.startSnapshot({ asOf: body.snapshotAt! }));
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
