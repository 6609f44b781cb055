// Analysis results inside the project object (ARCHITECTURE section 5): the analysis consumer begins
// a survey's analysis, writes what it finds in batches to a staging area keyed by the survey, and
// finishes (the staged items replace the subject's contents in one transaction) or fails.
import type { JsonObject } from '../lib/json';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Component, CryptoAsset, Observation } from '../analysis/types';
import { invalidParameter } from '../lib/errors';
import { nowIso } from '../lib/ids';
import * as health from './health';
import { changeJob, findJob, isFinished, isSurvey, settleSurvey, stepOf, type JobRow } from './jobs';
import type { ProjectState } from './project-object';
import { contents, contentsStaging, jobs, subjects, uploads } from './schema';

export const CONTENT_KINDS = ['component', 'crypto_asset', 'observation'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

/**
 * The kinds a survey type owns: finishing an inventory survey replaces the subject's components and
 * crypto assets (also with none found), a runtime survey its observations. Kinds found outside the
 * type's own (a BOM in a runtime bundle) replace theirs too; other kinds are left as they were.
 */
const OWNED_KINDS: Record<string, ContentKind[]> = {
  INVENTORY_SURVEY: ['component', 'crypto_asset'],
  RUNTIME_SURVEY: ['observation'],
};

/** One item found in a bundle, as the consumer sends it. */
export type FoundItem =
  | { kind: 'component'; source: string; component: Component }
  | { kind: 'crypto_asset'; source: string; asset: CryptoAsset }
  | { kind: 'observation'; source: string; observation: Observation };

interface StagedRow {
  kind: ContentKind;
  key: string;
  purl: string | null;
  name: string;
  version: string | null;
  data: JsonObject;
}

/** Where an item belongs: components by purl (else name@version), assets by bom-ref (else name and type), observations by algorithm, protocol and library. */
export function stagedRow(item: FoundItem): StagedRow {
  if (item.kind === 'component') {
    const c = item.component;
    const name = c.group ? `${c.group}/${c.name}` : c.name;
    return { kind: 'component', key: c.purl ?? `${name}@${c.version ?? ''}`, purl: c.purl ?? null, name: c.name, version: c.version ?? null, data: { ...c, source: item.source, listed: 1 } };
  }
  if (item.kind === 'crypto_asset') {
    const a = item.asset;
    return { kind: 'crypto_asset', key: a.bomRef ?? `${a.name}|${a.assetType}`, purl: null, name: a.name, version: null, data: { ...a, source: item.source, listed: 1 } };
  }
  const o = item.observation;
  return {
    kind: 'observation', key: `${o.algorithm}|${o.protocol ?? ''}|${o.library ?? ''}`, purl: null, name: o.algorithm, version: null,
    data: {
      algorithm: o.algorithm, protocol: o.protocol ?? null, library: o.library ?? null, count: o.count, source: item.source,
      keySizes: o.keySize !== undefined ? [o.keySize] : [], cipherSuites: o.cipherSuite ? [o.cipherSuite] : [], groups: o.group ? [o.group] : [],
    },
  };
}

const union = <T>(a: T[] = [], b: T[] = []) => [...new Set([...a, ...b])].slice(0, 100);

/** The same item found again (another document, another runtime line): counted once, evidence added up. */
function merged(kind: ContentKind, old: JsonObject, found: JsonObject): JsonObject {
  if (kind === 'observation') {
    return { ...old, count: (old.count ?? 0) + (found.count ?? 0), keySizes: union(old.keySizes, found.keySizes), cipherSuites: union(old.cipherSuites, found.cipherSuites), groups: union(old.groups, found.groups) };
  }
  const next: JsonObject = { ...old, listed: (old.listed ?? 1) + 1 };
  if (kind === 'crypto_asset' && (old.occurrences !== undefined || found.occurrences !== undefined)) next.occurrences = (old.occurrences ?? 0) + (found.occurrences ?? 0);
  return next;
}

/** The survey's ANALYZE step while it still has to run, else null (finished, superseded or gone). */
function runnableStep(state: ProjectState, surveyId: string): { survey: JobRow; step: JobRow } | null {
  const survey = findJob(state.db, surveyId);
  if (!survey || !isSurvey(survey) || isFinished(survey.status)) return null;
  const step = stepOf(state.db, surveyId, 'ANALYZE');
  return isFinished(step.status) ? null : { survey, step };
}

export interface AnalysisTarget {
  surveyId: string;
  bundleId: string;
  blobKey: string;
}

export type AnalysisStart =
  | { run: true; target: string | null }
  | { run: false; reason: string };

/**
 * Marks the ANALYZE step RUNNING and empties the survey's staging (a redelivered message starts
 * over). A message for a step already finished is answered `run: false` and is to be ignored.
 */
export function beginAnalysis(state: ProjectState, input: AnalysisTarget): AnalysisStart {
  const found = runnableStep(state, input.surveyId);
  if (!found) return { run: false, reason: 'The survey or its analysis step is already finished, or no longer exists.' };
  const { survey, step } = found;
  const upload = state.db.select({ uploadId: uploads.uploadId }).from(uploads).where(eq(uploads.blobKey, input.blobKey)).get();
  const changed = state.db.transaction(() => {
    state.db.delete(contentsStaging).where(eq(contentsStaging.surveyId, survey.id)).run();
    health.runRunning(state, survey, upload?.uploadId ?? null);
    const running = changeJob(state.db, step, { status: 'RUNNING', message: 'Reading the bundle.', metadata: { bundleId: input.bundleId } });
    return [running, settleSurvey(state.db, survey.id)];
  });
  state.notify(changed);
  return { run: true, target: survey.target };
}

/** Adds a batch of found items to the survey's staging; false when the analysis should stop (its step finished meanwhile). */
export function stageContents(state: ProjectState, surveyId: string, items: FoundItem[]): boolean {
  if (!runnableStep(state, surveyId)) return false;
  state.db.transaction(() => {
    for (const item of items) {
      const row = stagedRow(item);
      const where = and(eq(contentsStaging.surveyId, surveyId), eq(contentsStaging.kind, row.kind), eq(contentsStaging.key, row.key));
      const old = state.db.select({ data: contentsStaging.data }).from(contentsStaging).where(where).get();
      if (old) state.db.update(contentsStaging).set({ data: merged(row.kind, old.data, row.data) }).where(where).run();
      else state.db.insert(contentsStaging).values({ surveyId, ...row }).run();
    }
  });
  return true;
}

export interface AnalysisResult {
  surveyId: string;
  subject: string;
  /** The ANALYZE step's metadata: counts, document spec versions, skipped counts, invalid purls, format. */
  metadata: JsonObject;
  /** Parts of the bundle were left out (skipped entries or components): the run's outcome is `partial`. */
  partial: boolean;
  manifestTag?: string | null;
  manifestCiRunId?: string | null;
}

export type StoredCounts = Record<ContentKind, number>;

function stagedCounts(state: ProjectState, surveyId: string): StoredCounts {
  const rows = state.db.select({ kind: contentsStaging.kind, n: sql<number>`count(*)` }).from(contentsStaging).where(eq(contentsStaging.surveyId, surveyId)).groupBy(contentsStaging.kind).all();
  const counts: StoredCounts = { component: 0, crypto_asset: 0, observation: 0 };
  for (const row of rows) counts[row.kind as ContentKind] = row.n;
  return counts;
}

/**
 * In one transaction: the staged items replace the subject's contents of the kinds the survey
 * owns or found, the subject is recorded, the ANALYZE step completes and the survey settles.
 */
export function finishAnalysis(state: ProjectState, result: AnalysisResult): { completed: boolean } {
  const found = runnableStep(state, result.surveyId);
  if (!found) {
    state.db.delete(contentsStaging).where(eq(contentsStaging.surveyId, result.surveyId)).run();
    return { completed: false };
  }
  const { survey, step } = found;
  const now = nowIso();
  const changed = state.db.transaction(() => {
    const counts = stagedCounts(state, survey.id);
    const kinds = CONTENT_KINDS.filter((kind) => (OWNED_KINDS[survey.type] ?? []).includes(kind) || counts[kind] > 0);
    // Survey ids are time-ordered: an older survey finishing after a newer one of the same subject
    // (analyses run concurrently) must not put its older contents back.
    const holder = state.db.select({ id: sql<string | null>`max(${contents.surveyId})` }).from(contents)
      .where(and(eq(contents.subject, result.subject), inArray(contents.kind, kinds))).get()?.id;
    const superseded = holder !== null && holder !== undefined && holder > survey.id;
    if (!superseded) {
      state.db.delete(contents).where(and(eq(contents.subject, result.subject), inArray(contents.kind, kinds))).run();
      state.db.run(sql`INSERT INTO contents (subject, kind, key, survey_id, purl, name, version, data)
        SELECT ${result.subject}, kind, key, survey_id, purl, name, version, data FROM contents_staging WHERE survey_id = ${survey.id}`);
      state.db.insert(subjects).values({ name: result.subject, firstSeen: now, lastSeen: now, latestSurveyId: survey.id })
        .onConflictDoUpdate({ target: subjects.name, set: { lastSeen: now, latestSurveyId: survey.id } }).run();
    }
    state.db.delete(contentsStaging).where(eq(contentsStaging.surveyId, survey.id)).run();
    health.runCompleted(state, survey, {
      subject: result.subject, counts, partial: result.partial, tag: result.manifestTag, ciRunId: result.manifestCiRunId,
    });
    const stored = { components: counts.component, cryptoAssets: counts.crypto_asset, observations: counts.observation };
    const done = changeJob(state.db, step, {
      status: 'COMPLETED',
      message: `Analysed ${result.subject}: ${stored.components} components, ${stored.cryptoAssets} crypto assets, ${stored.observations} runtime observations.`
        + (superseded ? ` The subject's contents come from the newer survey ${holder}, which finished first.` : ''),
      metadata: { ...result.metadata, subject: result.subject, stored, ...(superseded ? { supersededBy: holder } : {}) },
    });
    const labelled = changeJob(state.db, findJob(state.db, survey.id)!, { metadata: { subject: result.subject } });
    return [done, settleSurvey(state.db, survey.id) ?? labelled];
  });
  state.notify(changed);
  return { completed: true };
}

export interface AnalysisFailure {
  surveyId: string;
  failureClass: string;
  message: string;
  metadata?: JsonObject;
}

/** Fails the ANALYZE step and with it the survey; a step already finished is left alone. */
export function failAnalysis(state: ProjectState, failure: AnalysisFailure): { failed: boolean } {
  const found = runnableStep(state, failure.surveyId);
  state.db.delete(contentsStaging).where(eq(contentsStaging.surveyId, failure.surveyId)).run();
  if (!found) return { failed: false };
  const changed = state.db.transaction(() => {
    const failed = changeJob(state.db, found.step, { status: 'FAILED', message: failure.message, failureClass: failure.failureClass, metadata: failure.metadata });
    health.runFailed(state, found.survey, failure.failureClass);
    return [failed, settleSurvey(state.db, found.survey.id)];
  });
  state.notify(changed);
  return { failed: true };
}

/** Notes on the running step that an attempt failed and will be retried (what the dead-letter consumer reports last). */
export function noteAnalysisRetry(state: ProjectState, input: { surveyId: string; attempt: number; error: string }): void {
  const found = runnableStep(state, input.surveyId);
  if (!found) return;
  const changed = changeJob(state.db, found.step, {
    message: `Attempt ${input.attempt} could not complete (${input.error}); retrying.`,
    metadata: { attempts: input.attempt, lastError: input.error },
  });
  state.notify([changed]);
}

/** The last error an earlier attempt noted on the ANALYZE step, if any. */
export function lastAnalysisError(state: ProjectState, surveyId: string): string | null {
  const step = state.db.select({ metadata: jobs.metadata }).from(jobs).where(and(eq(jobs.parentId, surveyId), eq(jobs.stepType, 'ANALYZE'))).get();
  const error = step?.metadata.lastError;
  return typeof error === 'string' ? error : null;
}

export interface ContentsQuery {
  subject: string;
  kind?: ContentKind;
  offset: number;
  limit: number;
}

export interface ContentItem {
  kind: string;
  key: string;
  name: string;
  version: string | null;
  purl: string | null;
  survey_id: string;
  data: JsonObject;
}

/** A page of a subject's current contents (the offset model of spec part 8), in key order. */
export function contentsPage(state: ProjectState, query: ContentsQuery): { items: ContentItem[]; total: number; offset: number; limit: number } {
  if (query.kind && !CONTENT_KINDS.includes(query.kind)) throw invalidParameter('kind', `kind is one of ${CONTENT_KINDS.join(', ')}.`);
  const where = and(eq(contents.subject, query.subject), query.kind ? eq(contents.kind, query.kind) : undefined);
  const total = state.db.select({ n: sql<number>`count(*)` }).from(contents).where(where).get()!.n;
  const rows = state.db.select().from(contents).where(where).orderBy(asc(contents.kind), asc(contents.key)).limit(query.limit).offset(query.offset).all();
  return {
    items: rows.map((r) => ({ kind: r.kind, key: r.key, name: r.name, version: r.version, purl: r.purl, survey_id: r.surveyId, data: r.data })),
    total, offset: query.offset, limit: query.limit,
  };
}
