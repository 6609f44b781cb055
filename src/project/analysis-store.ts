// Analysis results inside the project object (ARCHITECTURE section 5): the analysis consumer begins
// a survey's analysis (taking its lease), writes what it finds in batches under the survey and its
// attempt number, and finishes or fails. Every call is bounded: finishing flips the subject's
// content pointers in one small write, and the rows they no longer point at are deleted in slices
// afterwards (src/project/purges.ts), so the object keeps answering while a large bundle is analysed.
import type { JsonObject } from '../lib/json';
import { and, eq, inArray } from 'drizzle-orm';
import { refList } from '../analysis/components';
import { ANALYSIS_VERSION, CLASSIFICATION_VERSION } from '../analysis/versions';
import { CONTENT_KINDS, type AnalysisRow, type Component, type ContentKind, type CryptoAsset, type Dependency, type FindingKind, type FindingRow, type Observation, type StoredCounts } from '../analysis/types';

// The row shapes are the analysis's own; storage keeps them.
export { CONTENT_KINDS, type AnalysisRow, type ContentKind, type FindingKind, type FindingRow, type StoredCounts };
import { invalidParameter } from '../lib/errors';
import { RPC_PAYLOAD_CHARS, rowChars } from '../lib/rpc-payload';
import { nowIso } from '../lib/ids';
import * as health from './health';
import { changeJob, findJob, isFinished, isSurvey, settleSurvey, stepOf, type JobRow } from './jobs';
import type { ProjectState } from './state';
import { dropLease, failInterrupted, heldByLiveAttempt, leaseOf, releaseLease, renewLease, takeLease } from './leases';
import { rowsByBomRef } from './dependency-graph';
import { layeredRow, layersOf, markRemoved, setSize } from './content-layers';
import { queuePurge } from './purges';
import { queueReports, skipReports } from './report-build';
import { jobs, stepLeases, subjectContents, subjects, uploads } from './schema';

/**
 * The kinds a survey type owns: finishing an inventory survey replaces the subject's components,
 * crypto assets and dependency graph (also with none found), a runtime survey its observations. Kinds
 * found outside the type's own (a BOM in a runtime bundle) replace theirs too; other kinds are left as
 * they were.
 */
export const OWNED_KINDS: Record<string, ContentKind[]> = {
  INVENTORY_SURVEY: ['component', 'crypto_asset', 'dependency', 'crypto_finding', 'vuln_finding'],
  RUNTIME_SURVEY: ['observation', 'runtime_finding'],
};

/** One item found in a bundle, as the consumer sends it. */
export type FoundItem =
  | { kind: 'component'; source: string; component: Component }
  | { kind: 'crypto_asset'; source: string; asset: CryptoAsset }
  | { kind: 'observation'; source: string; observation: Observation }
  | { kind: 'dependency'; source: string; dependency: Dependency }
  | { kind: FindingKind; source: string; finding: FindingRow };


interface StagedRow {
  kind: ContentKind;
  key: string;
  purl: string | null;
  name: string;
  version: string | null;
  data: JsonObject;
}

/** A staged row as it travels to the project object: its data already JSON, written once by the consumer. */
export interface SerializedRow extends Omit<StagedRow, 'data'> {
  data: string;
  /** A key of a layered kind the attempt sent before (src/project/content-layers.ts). */
  repeat?: boolean;
}

export function serializedRow(item: FoundItem): SerializedRow {
  const row = stagedRow(item);
  return { ...row, data: JSON.stringify(row.data) };
}

/**
 * Where an item belongs: components by purl (else name@version), assets by bom-ref (else name and
 * type), observations by algorithm, protocol and library, dependency entries by their ref.
 */
export function stagedRow(item: FoundItem): StagedRow {
  if ('finding' in item) return { kind: item.kind, ...item.finding, data: { ...item.finding.data, source: item.source } };
  if (item.kind === 'component') {
    const c = item.component;
    const name = c.group ? `${c.group}/${c.name}` : c.name;
    return { kind: 'component', key: c.purl ?? `${name}@${c.version ?? ''}`, purl: c.purl ?? null, name: c.name, version: c.version ?? null, data: { ...c, source: item.source, listed: 1 } };
  }
  if (item.kind === 'crypto_asset') {
    const a = item.asset;
    return { kind: 'crypto_asset', key: a.bomRef ?? `${a.name}|${a.assetType}`, purl: null, name: a.name, version: null, data: { ...a, source: item.source, listed: 1 } };
  }
  if (item.kind === 'dependency') {
    const d = item.dependency;
    return { kind: 'dependency', key: d.ref, purl: null, name: d.ref, version: null, data: { ref: d.ref, dependsOn: d.dependsOn, provides: d.provides, source: item.source } };
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

/**
 * The same item found again (another document, another runtime line): counted once, evidence added
 * up. The same ref in several dependency entries (several documents of an archive) has the union of
 * their lists, capped like one entry's (refList).
 */
function merged(kind: ContentKind, old: JsonObject, found: JsonObject): JsonObject {
  // A finding is derived once per key; a repeat (a retried batch) changes nothing.
  if (kind.endsWith('_finding')) return old;
  if (kind === 'dependency') {
    return { ...old, dependsOn: refList(old.dependsOn, found.dependsOn), provides: refList(old.provides, found.provides) };
  }
  if (kind === 'observation') {
    return { ...old, count: (old.count ?? 0) + (found.count ?? 0), keySizes: union(old.keySizes, found.keySizes), cipherSuites: union(old.cipherSuites, found.cipherSuites), groups: union(old.groups, found.groups) };
  }
  const next: JsonObject = { ...old, listed: (old.listed ?? 1) + 1 };
  if (kind === 'crypto_asset' && (old.occurrences !== undefined || found.occurrences !== undefined)) next.occurrences = (old.occurrences ?? 0) + (found.occurrences ?? 0);
  // Nested components are looked for under a component that says it has some.
  if (kind === 'component' && (found.nestedComponents ?? 0) > (old.nestedComponents ?? 0)) next.nestedComponents = found.nestedComponents;
  return next;
}

/** The survey's ANALYZE step while it still has to run, else null (finished, superseded or gone). */
export function runnableStep(state: ProjectState, surveyId: string): { survey: JobRow; step: JobRow } | null {
  const survey = findJob(state.db, surveyId);
  if (!survey || !isSurvey(survey) || isFinished(survey.status)) return null;
  const step = stepOf(state.db, surveyId, 'ANALYZE');
  return isFinished(step.status) ? null : { survey, step };
}

/** The versions an analysis records on its ANALYZE step: another survey reuses it only under the same ones. */
export const analysisVersions = () => ({ analysis: ANALYSIS_VERSION, classification: CLASSIFICATION_VERSION });

export interface AnalysisTarget {
  surveyId: string;
  bundleId: string;
  blobKey: string;
}

/**
 * An earlier analysis a survey of the same bundle reuses (src/project/analysis-reuse.ts): the rows
 * the subject's pointers hold, the survey it was found through, and when its advisories were last
 * matched.
 */
export interface AnalysisReuse {
  subject: string;
  source: { survey_id: string; attempt: number };
  /** The earlier survey of the same bundle (the one that analysed it, or one that reused it too). */
  from: string;
  /** Vulnerability data changed after this is matched again before the step completes. */
  since: string;
  /** That survey's ANALYZE step metadata about the bundle (format, counts, documents, skipped...). */
  metadata: JsonObject;
}

export type AnalysisStart =
  /** `layers`: the kinds the attempt stages as layers over the subject's current rows (src/project/content-layers.ts). */
  | { run: true; target: string | null; attempt: number; reuse?: AnalysisReuse; layers?: ContentKind[] }
  | { run: false; reason: string };

/**
 * An attempt begins: it takes the ANALYZE step's lease and marks the step RUNNING. A message for a
 * step already finished, or one a live attempt is working on (a duplicate), is answered `run: false`.
 */
export async function beginAnalysis(state: ProjectState, input: AnalysisTarget): Promise<AnalysisStart> {
  const found = runnableStep(state, input.surveyId);
  if (!found) return { run: false, reason: 'The survey or its analysis step is already finished, or no longer exists.' };
  const { survey, step } = found;
  const taken = takeLease(state, step, { projectId: state.projectId, ...input });
  if ('busy' in taken) return { run: false, reason: 'Another attempt is analysing this bundle.' };
  if ('exhausted' in taken) {
    failInterrupted(state, leaseOf(state, step.id)!);
    return { run: false, reason: 'The analysis was started too many times.' };
  }
  const upload = state.db.select({ uploadId: uploads.uploadId }).from(uploads).where(eq(uploads.blobKey, input.blobKey)).get();
  const changed = state.db.transaction(() => {
    health.runRunning(state, survey, upload?.uploadId ?? null);
    const running = changeJob(state.db, step, {
      status: 'RUNNING', progress: 0, message: 'Reading the bundle.', metadata: { bundleId: input.bundleId, attempt: taken.attempt },
    });
    return [running, settleSurvey(state.db, survey.id)];
  });
  state.notify(changed);
  // The alarm looks at the lease when it would lapse.
  await state.wake(taken.expiresAt);
  return { run: true, target: survey.target, attempt: taken.attempt };
}

const INSERT_CONTENT = 'INSERT INTO contents (survey_id, attempt, kind, key, purl, name, version, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING';
const CONTENT_ROW = 'WHERE survey_id = ? AND attempt = ? AND kind = ? AND key = ?';
const SELECT_CONTENT = `SELECT data FROM contents ${CONTENT_ROW}`;
const UPDATE_CONTENT = `UPDATE contents SET data = ? ${CONTENT_ROW}`;

export interface StageInput {
  surveyId: string;
  attempt: number;
  rows: SerializedRow[];
  /** How much of the bundle has been read, 0 to 100. */
  progress?: number;
}

/**
 * Adds a batch of found items (serialized by the consumer) under the attempt and renews its lease; false when the attempt should
 * stop (its step finished, or another attempt took over).
 */
export function stageContents(state: ProjectState, input: StageInput): boolean {
  const found = runnableStep(state, input.surveyId);
  const lease = found && renewLease(state, found.step.id, input.attempt);
  if (!found || !lease) return false;
  const { surveyId, attempt } = input;
  const counts = { ...lease.counts };
  const layers = layersOf(state, surveyId, attempt);
  state.db.transaction(() => {
    for (const row of input.rows) {
      const key = [surveyId, attempt, row.kind, row.key] as const;
      const base = layers.get(row.kind);
      const own = base && state.sql.exec<{ data: string }>(SELECT_CONTENT, ...key).toArray()[0];
      if (base && !own) {
        // A layer writes a key only where it differs from its base's row (content-layers.ts).
        if (!row.repeat) counts[row.kind] = (counts[row.kind] ?? 0) + 1;
        const data = layeredRow(state, base, row, (old, found) => merged(row.kind, old, found));
        if (data !== null) state.sql.exec(INSERT_CONTENT, ...key, row.purl, row.name, row.version, data);
        continue;
      }
      // Most items are new: try the insert first, merge only on a repeat.
      const inserted = state.sql.exec(INSERT_CONTENT, ...key, row.purl, row.name, row.version, row.data).rowsWritten > 0;
      if (inserted) counts[row.kind] = (counts[row.kind] ?? 0) + 1;
      else {
        const old = JSON.parse(String(state.sql.exec(SELECT_CONTENT, ...key).one().data)) as JsonObject;
        state.sql.exec(UPDATE_CONTENT, JSON.stringify(merged(row.kind, old, JSON.parse(row.data) as JsonObject)), ...key);
      }
    }
    state.db.update(stepLeases).set({ counts }).where(eq(stepLeases.stepId, found.step.id)).run();
  });
  // One job-update per point of progress at most.
  if (input.progress !== undefined && Math.floor(input.progress) > Math.floor(found.step.progress)) {
    state.notify([changeJob(state.db, found.step, { progress: Math.min(99, input.progress), message: `Reading the bundle (${Math.floor(input.progress)}%).` })]);
  }
  return true;
}

/**
 * Records keys of a layer's base the bundle no longer lists (the consumer found them once the bundle
 * was read) and renews the lease; false when the attempt should stop.
 */
export function removeLayerKeys(state: ProjectState, input: { surveyId: string; attempt: number; kind: ContentKind; keys: string[] }): boolean {
  const found = runnableStep(state, input.surveyId);
  if (!found || !renewLease(state, found.step.id, input.attempt)) return false;
  markRemoved(state, input);
  return true;
}

/**
 * The attempt held more keys than a layered analysis keeps in memory: the step's next attempt
 * analyses the bundle without layers (a full set).
 */
export function unlayerAnalysis(state: ProjectState, input: { surveyId: string }): void {
  const found = runnableStep(state, input.surveyId);
  if (found) state.notify([changeJob(state.db, found.step, { metadata: { layers: 'off' } })]);
}

export interface AnalysisResult {
  surveyId: string;
  attempt: number;
  subject: string;
  /** The ANALYZE step's metadata: counts, document spec versions, skipped counts, invalid purls, format. */
  metadata: JsonObject;
  /** Parts of the bundle were left out (skipped entries or components): the run's outcome is `partial`. */
  partial: boolean;
  manifestTag?: string | null;
  manifestCiRunId?: string | null;
}


/**
 * One small write: the subject's content pointers of the kinds the survey owns or found (findings
 * included) move to this attempt's rows, the subject is recorded, the ANALYZE step completes, and the
 * survey's reports are queued (leased like the analysis). The rows the pointers left are queued for
 * deletion. A survey whose subject already holds a newer survey's contents completes without reports
 * of its own (its rows go): reports describe what the subject holds.
 */
export async function finishAnalysis(state: ProjectState, result: AnalysisResult): Promise<{ completed: boolean }> {
  const found = runnableStep(state, result.surveyId);
  const lease = found && leaseOf(state, found.step.id);
  if (!found || !lease || lease.holder !== result.attempt) return { completed: false };
  const { survey, step } = found;
  const now = nowIso();
  const counts: StoredCounts = { component: 0, crypto_asset: 0, observation: 0, dependency: 0, crypto_finding: 0, runtime_finding: 0, vuln_finding: 0, ...lease.counts };
  const source = { survey_id: survey.id, attempt: result.attempt };
  const { changed, superseded } = state.db.transaction(() => {
    const kinds = CONTENT_KINDS.filter((kind) => (OWNED_KINDS[survey.type] ?? []).includes(kind) || counts[kind] > 0);
    const current = state.db.select().from(subjectContents).where(and(eq(subjectContents.subject, result.subject), inArray(subjectContents.kind, kinds))).all();
    // Survey ids are time-ordered: an older survey finishing after a newer one of the same subject
    // (analyses run concurrently) must not put its older contents back.
    const holder = current.map((c) => c.surveyId).sort().at(-1);
    const superseded = holder !== undefined && holder > survey.id ? holder : null;
    if (superseded) queuePurge(state, survey.id, result.attempt, '*');
    else {
      for (const old of current) queuePurge(state, old.surveyId, old.attempt, old.kind);
      for (const kind of kinds) {
        const pointer = { surveyId: survey.id, attempt: result.attempt };
        state.db.insert(subjectContents).values({ subject: result.subject, kind, ...pointer })
          .onConflictDoUpdate({ target: [subjectContents.subject, subjectContents.kind], set: pointer }).run();
      }
      state.db.insert(subjects).values({ name: result.subject, firstSeen: now, lastSeen: now, latestSurveyId: survey.id })
        .onConflictDoUpdate({ target: subjects.name, set: { lastSeen: now, latestSurveyId: survey.id } }).run();
    }
    dropLease(state, step.id);
    health.runCompleted(state, survey, {
      subject: result.subject, counts, partial: result.partial, tag: result.manifestTag, ciRunId: result.manifestCiRunId,
    });
    const stored = { components: counts.component, cryptoAssets: counts.crypto_asset, observations: counts.observation };
    const findings = { cryptography: counts.crypto_finding + counts.runtime_finding, advisories: counts.vuln_finding };
    const done = changeJob(state.db, step, {
      status: 'COMPLETED',
      message: `Analysed ${result.subject}: ${stored.components} components, ${stored.cryptoAssets} crypto assets, ${stored.observations} runtime observations; `
        + `${findings.cryptography} cryptography findings, ${findings.advisories} advisories.`
        + (superseded ? ` The subject's contents come from the newer survey ${superseded}, which finished first.` : ''),
      metadata: { ...result.metadata, subject: result.subject, stored, findings, versions: analysisVersions(), ...(superseded ? { supersededBy: superseded } : {}) },
    });
    const labelled = changeJob(state.db, findJob(state.db, survey.id)!, { metadata: { subject: result.subject, ...(superseded ? {} : { analysis_source: source }) } });
    const skipped = superseded ? skipReports(state, survey.id, `The subject's contents come from the newer survey ${superseded}; its reports describe them.`) : [];
    return { changed: [done, ...skipped, settleSurvey(state.db, survey.id) ?? labelled], superseded };
  });
  state.notify(changed);
  if (!superseded) await queueReports(state, survey.id);
  return { completed: true };
}

export interface AnalysisFailure {
  surveyId: string;
  /** The attempt that failed; without one (the dead-letter consumer) any attempt not alive now. */
  attempt?: number;
  failureClass: string;
  message: string;
  metadata?: JsonObject;
}

/** Fails the ANALYZE step and with it the survey; a step already finished, or held by another attempt, is left alone. */
export function failAnalysis(state: ProjectState, failure: AnalysisFailure): { failed: boolean } {
  const found = runnableStep(state, failure.surveyId);
  if (!found) return { failed: false };
  const lease = leaseOf(state, found.step.id);
  if (failure.attempt !== undefined ? lease?.holder !== failure.attempt : heldByLiveAttempt(state, found.step.id)) return { failed: false };
  if (lease?.holder) queuePurge(state, found.survey.id, lease.holder, '*');
  dropLease(state, found.step.id);
  const changed = state.db.transaction(() => {
    const failed = changeJob(state.db, found.step, { status: 'FAILED', message: failure.message, failureClass: failure.failureClass, metadata: failure.metadata });
    health.runFailed(state, found.survey, failure.failureClass);
    return [failed, settleSurvey(state.db, found.survey.id)];
  });
  state.notify(changed);
  return { failed: true };
}

/**
 * Notes on the running step that an attempt failed and will be retried in `delaySeconds` (what the
 * dead-letter consumer reports last); the lease waits for the retry.
 */
export async function noteAnalysisRetry(state: ProjectState, input: { surveyId: string; attempt: number; error: string; delaySeconds: number }): Promise<void> {
  const found = runnableStep(state, input.surveyId);
  if (!found) return;
  await releaseLease(state, found.step.id, input.delaySeconds);
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

/**
 * A page of a subject's current contents (the offset model of spec part 8), in key order. The
 * dependency graph is not an item the bundle holds: it is listed only when asked for by kind.
 */
export function contentsPage(state: ProjectState, query: ContentsQuery): { items: ContentItem[]; total: number; offset: number; limit: number } {
  if (query.kind && !CONTENT_KINDS.includes(query.kind)) throw invalidParameter('kind', `kind is one of ${CONTENT_KINDS.join(', ')}.`);
  const current = `FROM subject_contents sc JOIN content_rows c ON c.survey_id = sc.survey_id AND c.attempt = sc.attempt AND c.kind = sc.kind
    WHERE sc.subject = ?1 AND (CASE WHEN ?2 IS NULL THEN sc.kind != 'dependency' ELSE sc.kind = ?2 END)`;
  const kind = query.kind ?? null;
  const pointers = state.sql.exec<{ kind: string; survey_id: string; attempt: number }>('SELECT kind, survey_id, attempt FROM subject_contents WHERE subject = ?', query.subject).toArray()
    .filter((p) => (kind ? p.kind === kind : p.kind !== 'dependency'));
  const total = pointers.reduce((n, p) => n + setSize(state, p, p.kind), 0);
  const rows = state.sql.exec<Omit<ContentItem, 'data'> & { data: string }>(
    `SELECT c.kind, c.key, c.name, c.version, c.purl, c.survey_id, c.data ${current} ORDER BY c.kind, c.key LIMIT ?3 OFFSET ?4`,
    query.subject, kind, query.limit, query.offset,
  ).toArray();
  return {
    items: rows.map((r) => ({ kind: r.kind, key: r.key, name: r.name, version: r.version, purl: r.purl, survey_id: r.survey_id, data: JSON.parse(r.data) as JsonObject })),
    total, offset: query.offset, limit: query.limit,
  };
}

/** An analysis row with its data as the stored JSON text (`RowsQuery.asText`). */
export type TextRow = Omit<AnalysisRow, 'data'> & { data: string };

export interface RowsQuery {
  surveyId: string;
  attempt: number;
  kind: ContentKind;
  /** The last key of the previous page. */
  after?: string;
  limit: number;
  /**
   * Instead of a page: the rows (components or crypto assets) whose bom-ref is one of these, all of
   * them (`after` and `limit` are not used; send at most a few hundred refs a call).
   */
  bomRefs?: string[];
  /**
   * Rows of a page answered with their data as the stored JSON text, parsed by the caller: a call of
   * strings costs the object (and the clone between the two) far less than nested objects.
   */
  asText?: boolean;
}


/**
 * A page of one analysis attempt's rows of one kind, in key order (keyset paging: bounded at any
 * size): at most `limit` rows, and fewer once their text adds up to RPC_PAYLOAD_CHARS (the first
 * row always comes); `next` is null on the last page. With `bomRefs`, the rows with those bom-refs
 * (src/project/dependency-graph.ts).
 */
export function analysisRows(state: ProjectState, query: RowsQuery): { rows: AnalysisRow[] | TextRow[]; next: string | null } {
  if (query.bomRefs) return { rows: rowsByBomRef(state, { surveyId: query.surveyId, attempt: query.attempt, kind: query.kind, refs: query.bomRefs }), next: null };
  const cursor = state.sql.exec<{ key: string; name: string; purl: string | null; version: string | null; data: string }>(
    'SELECT key, name, purl, version, data FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = ? AND key > ? ORDER BY key LIMIT ?',
    query.surveyId, query.attempt, query.kind, query.after ?? '', query.limit,
  );
  const rows: (AnalysisRow | TextRow)[] = [];
  let chars = 0;
  let full = false;
  for (const r of cursor) {
    chars += rowChars(r);
    if (rows.length && chars > RPC_PAYLOAD_CHARS) {
      full = true;
      break;
    }
    rows.push(query.asText ? { ...r } : { ...r, data: JSON.parse(r.data) as JsonObject });
  }
  return { rows: rows as AnalysisRow[] | TextRow[], next: full || rows.length === query.limit ? rows.at(-1)!.key : null };
}

/** What the composition report's document says of a component: its columns, and its `type` and `group` when they are strings. */
export type LibraryRow = {
  key: string;
  name: string;
  purl: string | null;
  version: string | null;
  type: string | null;
  group: string | null;
};

/** A field of a row's data when it is a JSON string, else NULL (as `typeof === 'string'` reads it). */
const dataText = (field: string) => `CASE json_type(data, '$.${field}') WHEN 'text' THEN json_extract(data, '$.${field}') END`;

/**
 * A page of an attempt's components as the composition report's document lists them (`LibraryRow`),
 * in key order, paged as `analysisRows`: the rest of each row's data is left in the object, where
 * SQLite picks the two fields out faster than parsing and sending every component whole.
 */
export function libraryRows(state: ProjectState, query: { surveyId: string; attempt: number; after?: string; limit: number }): { rows: LibraryRow[]; next: string | null } {
  const cursor = state.sql.exec<LibraryRow>(
    `SELECT key, name, purl, version, ${dataText('type')} AS type, ${dataText('group')} AS "group" FROM content_rows
      WHERE survey_id = ? AND attempt = ? AND kind = 'component' AND key > ? ORDER BY key LIMIT ?`,
    query.surveyId, query.attempt, query.after ?? '', query.limit,
  );
  const rows: LibraryRow[] = [];
  let chars = 0;
  let full = false;
  for (const r of cursor) {
    chars += 32 + r.key.length + r.name.length + (r.purl?.length ?? 0) + (r.version?.length ?? 0) + (r.type?.length ?? 0) + (r.group?.length ?? 0);
    if (rows.length && chars > RPC_PAYLOAD_CHARS) {
      full = true;
      break;
    }
    rows.push({ ...r });
  }
  return { rows, next: full || rows.length === query.limit ? rows.at(-1)!.key : null };
}
