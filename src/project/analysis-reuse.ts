// Re-surveys of an unchanged bundle (docs/decisions.md, "Unchanged bundles reuse the subject's
// contents"): CI uploads the same SBOM on every commit. When a survey's bundle has the same bytes
// (sha256) as an earlier survey of the same type and target whose analysis is still the subject's
// current contents, made by the same analysis and classification versions, the ANALYZE step reads
// nothing and stores nothing: the subject's content pointers stay where they are, the consumer brings
// their advisories up to today's vulnerability data (src/queues/rematch.ts rematchSubject), and the
// step completes with the earlier analysis's metadata and `reused_from`. The reports are then built
// from those rows as from any analysis. A changed bundle is analysed as layers over the subject's
// current rows (src/project/content-layers.ts). `INCREMENTAL_SURVEYS=off` turns both off.
import type { JsonObject } from '../lib/json';
import { eq } from 'drizzle-orm';
import { nowIso } from '../lib/ids';
import * as health from './health';
import { analysisVersions, beginAnalysis, CONTENT_KINDS, OWNED_KINDS, runnableStep, type AnalysisReuse, type AnalysisStart, type AnalysisTarget } from './analysis-store';
import { changeJob, findJob, settleSurvey, stepOf, type JobRow } from './jobs';
import { dropLease, leaseOf } from './leases';
import { openLayers } from './content-layers';
import { queueReports, type AnalysisSource } from './report-build';
import { incrementalSurveys } from './report-reuse';
import { rematchSince } from './rematch-store';
import type { ProjectState } from './state';
import { bundles, subjects } from './schema';
import type { Env } from '../env';

export { incrementalSurveys };

/** Earlier surveys of the same bundle looked at, newest first. */
const CANDIDATES = 20;

/** What an ANALYZE step's metadata says about one run rather than about the bundle: not carried over. */
const RUN_METADATA = ['bundleId', 'attempt', 'attempts', 'lastError', 'resends', 'supersededBy', 'reused_from'];

/** Whether every kind the source's analysis made current for the subject still points at it. */
function sourceCurrent(state: ProjectState, surveyType: string, reuse: Pick<AnalysisReuse, 'subject' | 'source'>): boolean {
  const { survey_id: surveyId, attempt } = reuse.source;
  const pointers = new Map(state.sql.exec<{ kind: string; survey_id: string; attempt: number }>(
    'SELECT kind, survey_id, attempt FROM subject_contents WHERE subject = ?', reuse.subject,
  ).toArray().map((p) => [p.kind, p]));
  const held = (kind: string) => pointers.get(kind)?.survey_id === surveyId && pointers.get(kind)?.attempt === attempt;
  // Kinds it owns were pointed at it even with no rows found; kinds it found rows of outside them too.
  if (!(OWNED_KINDS[surveyType] ?? []).every(held)) return false;
  return CONTENT_KINDS.every((kind) => held(kind)
    || state.sql.exec('SELECT 1 FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = ? LIMIT 1', surveyId, attempt, kind).toArray().length === 0);
}

/**
 * The earlier analysis this survey can reuse, or null: an earlier survey (by id) of the same type and
 * target with a bundle of the same sha256, whose ANALYZE step completed under today's versions and
 * whose analysis source is still the subject's current contents.
 */
export function reusableAnalysis(state: ProjectState, survey: JobRow, bundleId: string): AnalysisReuse | null {
  const bundle = state.db.select({ sha256: bundles.sha256 }).from(bundles).where(eq(bundles.id, bundleId)).get();
  if (!bundle) return null;
  // Through the bundles_sha256 index: the surveys of these bytes, not every bundle of the project.
  const earlier = state.sql.exec<{ id: string }>(
    `SELECT j.id FROM bundles b JOIN jobs j ON j.id = b.survey_id
     WHERE b.sha256 = ? AND j.parent_id IS NULL AND j.id < ? AND j.type = ? AND IFNULL(j.target, '') = ?
     ORDER BY j.id DESC LIMIT ?`,
    bundle.sha256, survey.id, survey.type, survey.target?.trim() ?? '', CANDIDATES,
  ).toArray();
  const versions = JSON.stringify(analysisVersions());
  for (const { id } of earlier) {
    const candidate = findJob(state.db, id)!;
    const source = candidate.metadata.analysis_source as unknown as AnalysisSource | undefined;
    const subject = candidate.metadata.subject;
    if (!source || typeof subject !== 'string') continue;
    const step = stepOf(state.db, id, 'ANALYZE');
    if (step.status !== 'COMPLETED' || JSON.stringify(step.metadata.versions) !== versions) continue;
    const reuse = { subject, source, from: id };
    if (!sourceCurrent(state, survey.type, reuse)) continue;
    // Its advisories were matched with the data of when it (or the survey it reused) started, or
    // later by the project's re-match: what changed after that is matched again.
    const matched = rematchSince(state).since;
    const since = step.startedAt && step.startedAt > matched ? step.startedAt : matched;
    return { ...reuse, since, metadata: Object.fromEntries(Object.entries(step.metadata).filter(([key]) => !RUN_METADATA.includes(key))) };
  }
  return null;
}

/** beginAnalysis, which also says which earlier analysis the survey can reuse (unless turned off). */
export async function beginSurveyAnalysis(state: ProjectState, input: AnalysisTarget): Promise<AnalysisStart> {
  const start = await beginAnalysis(state, input);
  if (!start.run || !incrementalSurveys(state.env)) return start;
  const survey = findJob(state.db, input.surveyId)!;
  // A regenerated survey asks for its bundle to be analysed again: it is, in full.
  if (survey.supersedes || typeof survey.metadata.bundleId === 'string') return start;
  const reuse = reusableAnalysis(state, survey, input.bundleId);
  if (!reuse) {
    // A changed bundle: the analysis writes what differs from the subject's current rows.
    const step = stepOf(state.db, survey.id, 'ANALYZE');
    if (step.metadata.layers === 'off') return start;
    const bundleBytes = state.db.select({ size: bundles.sizeBytes }).from(bundles).where(eq(bundles.id, input.bundleId)).get()?.size ?? Infinity;
    const layers = openLayers(state, { surveyId: survey.id, attempt: start.attempt, subject: survey.target?.trim() || null, bundleBytes, owned: OWNED_KINDS[survey.type] ?? [] });
    return layers.length ? { ...start, layers } : start;
  }
  const step = stepOf(state.db, survey.id, 'ANALYZE');
  state.notify([changeJob(state.db, step, { message: `The bundle is the one survey ${reuse.from} analysed: checking its advisories against today's vulnerability data.` })]);
  return { ...start, reuse };
}

/** The advisories the subject's reused contents hold now (matching again may have changed them). */
const advisoryCount = (state: ProjectState, source: AnalysisSource) => Number(state.sql.exec(
  "SELECT count(*) AS n FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = 'vuln_finding'", source.survey_id, source.attempt,
).one().n);

export type ReuseFinish = { completed: true } | { completed: false; reusable: boolean };

/**
 * Completes the ANALYZE step on the reused contents: nothing moves but the subject's latest survey;
 * the step gets the earlier analysis's metadata, `reused_from`, and today's advisory count, and the
 * reports are queued. Answers `reusable: false` when a survey finished in between and the contents are
 * no longer current (the attempt then analyses the bundle in full).
 */
export async function finishReusedAnalysis(state: ProjectState, input: { surveyId: string; attempt: number; reuse: AnalysisReuse }): Promise<ReuseFinish> {
  const found = runnableStep(state, input.surveyId);
  const lease = found && leaseOf(state, found.step.id);
  if (!found || !lease || lease.holder !== input.attempt) return { completed: false, reusable: true };
  const { survey, step } = found;
  const { reuse } = input;
  if (!sourceCurrent(state, survey.type, reuse)) return { completed: false, reusable: false };
  const now = nowIso();
  const changed = state.db.transaction(() => {
    const previous = reuse.metadata as { stored?: JsonObject; findings?: JsonObject; skippedComponents?: number; skippedEntries?: number; manifest?: JsonObject | null };
    const stored = { components: 0, cryptoAssets: 0, observations: 0, ...previous.stored } as { components: number; cryptoAssets: number; observations: number };
    const findings = { cryptography: Number(previous.findings?.cryptography ?? 0), advisories: advisoryCount(state, reuse.source) };
    state.db.insert(subjects).values({ name: reuse.subject, firstSeen: now, lastSeen: now, latestSurveyId: survey.id })
      .onConflictDoUpdate({ target: subjects.name, set: { lastSeen: now, latestSurveyId: survey.id } }).run();
    dropLease(state, step.id);
    health.runCompleted(state, survey, {
      subject: reuse.subject,
      counts: { component: stored.components, crypto_asset: stored.cryptoAssets, observation: stored.observations, dependency: 0, crypto_finding: 0, runtime_finding: 0, vuln_finding: findings.advisories },
      partial: (previous.skippedComponents ?? 0) > 0 || (previous.skippedEntries ?? 0) > 0,
      tag: typeof previous.manifest?.tag === 'string' ? previous.manifest.tag : null,
      ciRunId: typeof previous.manifest?.ci?.runId === 'string' ? previous.manifest.ci.runId : null,
    });
    const done = changeJob(state.db, step, {
      status: 'COMPLETED',
      message: `Analysed ${reuse.subject}: ${stored.components} components, ${stored.cryptoAssets} crypto assets, ${stored.observations} runtime observations; `
        + `${findings.cryptography} cryptography findings, ${findings.advisories} advisories (the same bundle as survey ${reuse.from}: its analysis was reused).`,
      metadata: { ...reuse.metadata, subject: reuse.subject, stored, findings, reused_from: reuse.from },
    });
    const labelled = changeJob(state.db, findJob(state.db, survey.id)!, { metadata: { subject: reuse.subject, analysis_source: { ...reuse.source } } });
    return [done, settleSurvey(state.db, survey.id) ?? labelled];
  });
  state.notify(changed);
  await queueReports(state, survey.id);
  return { completed: true };
}
