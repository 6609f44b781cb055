// A changed bundle writes what changed (docs/decisions.md, "A changed bundle writes what changed"):
// an analysis of a subject's new bundle stages, for the kinds the bundle lists (components, crypto
// assets, dependency entries), only the rows that differ from the subject's current rows of the same
// key, and lists the keys the bundle no longer holds (`content_removals`). Its set is then a layer
// over that earlier full set (its base, `content_layers`), and every reader sees the two as one
// through the `content_rows` view. Pointers still flip at the end of the analysis; a layer of an attempt that never finishes is
// seen by nobody; a base is never purged while a layer stands on it or a pointer points at it.
import type { JsonObject } from '../lib/json';
import type { ContentKind } from '../analysis/types';
import type { ProjectState } from './state';

/**
 * The kinds staged as layers: what a bundle lists. Findings are derived, fewer, and realigned in
 * place by the re-match (rows deleted and written under the current set), so they stay full sets.
 */
export const LAYERED_KINDS: readonly ContentKind[] = ['component', 'crypto_asset', 'dependency'];
/**
 * A base of more rows than this is not layered over: the analysis then holds every key of the bundle
 * in memory (src/queues/analysis.ts), and the memory target is met by not doing so for large bundles.
 */
export const LAYER_MAX_BASE_ROWS = 100_000;
/** Nor a bundle larger than this (a small base does not bound what the new bundle lists). */
export const LAYER_MAX_BUNDLE_BYTES = 64 * 1024 * 1024;
/**
 * A current set that is itself a layer is layered over again (over its base) while its own rows are
 * at most this share of its base's: past it the next analysis writes a full set, a new base.
 */
export const LAYER_MAX_OWN_SHARE = 0.25;
/** Base keys per `layerBaseKeys` page, and removed keys per `markRemoved` call at most. */
export const LAYER_KEYS_PAGE = 5_000;

type SetId = { survey_id: string; attempt: number };

/** A set's own rows, counted on the key index, stopping past `limit`. */
const ownRowsOver = (state: ProjectState, set: SetId, kind: string, limit: number) => Number(state.sql.exec(
  'SELECT count(*) AS n FROM (SELECT 1 FROM contents WHERE survey_id = ? AND attempt = ? AND kind = ? LIMIT ?)', set.survey_id, set.attempt, kind, limit + 1,
).one().n);

const countOf = (state: ProjectState, query: string, ...params: (string | number)[]) => Number(state.sql.exec(query, ...params).one().n);
const OWN = 'survey_id = ?1 AND attempt = ?2 AND kind = ?3';

/**
 * How many rows a set shows: its own, and for a layer its base's but the keys it replaced or
 * removed. Counted on the indexes: counting through the view (an aggregate, which SQLite does not
 * flatten) would read every row with its two lookups.
 */
export function setSize(state: ProjectState, set: SetId, kind: string): number {
  const own = countOf(state, `SELECT count(*) AS n FROM contents WHERE ${OWN}`, set.survey_id, set.attempt, kind);
  const base = baseOf(state, set, kind);
  if (!base) return own;
  const params = [set.survey_id, set.attempt, kind, base.survey_id, base.attempt] as const;
  const inBase = countOf(state, `SELECT count(*) AS n FROM contents WHERE survey_id = ?4 AND attempt = ?5 AND kind = ?3`, ...params);
  const replaced = countOf(state, `SELECT count(*) AS n FROM contents o WHERE o.survey_id = ?1 AND o.attempt = ?2 AND o.kind = ?3
    AND EXISTS (SELECT 1 FROM contents b WHERE b.survey_id = ?4 AND b.attempt = ?5 AND b.kind = ?3 AND b.key = o.key)`, ...params);
  const removed = countOf(state, `SELECT count(*) AS n FROM content_removals WHERE ${OWN}`, set.survey_id, set.attempt, kind);
  return own + inBase - replaced - removed;
}

/** The base a layered set stands on, or null for a full set. */
export function baseOf(state: ProjectState, set: SetId, kind: string): SetId | null {
  return state.sql.exec<SetId>('SELECT base_survey_id AS survey_id, base_attempt AS attempt FROM content_layers WHERE survey_id = ? AND attempt = ? AND kind = ?',
    set.survey_id, set.attempt, kind).toArray()[0] ?? null;
}

/**
 * When an attempt starts: the kinds it stages as layers, over the full sets the subject's current
 * rows of those kinds are (or stand on), written as its `content_layers` rows. Only kinds the survey
 * owns (`owned`): their pointers move when it finishes, so a layer is current or purged, never left
 * standing on a base. None without a subject known in advance (the survey's target), for a large
 * bundle or base, or when the step says not to.
 */
export function openLayers(state: ProjectState, input: { surveyId: string; attempt: number; subject: string | null; bundleBytes: number; owned: readonly ContentKind[] }): ContentKind[] {
  if (!input.subject || input.bundleBytes > LAYER_MAX_BUNDLE_BYTES) return [];
  const layered: ContentKind[] = [];
  for (const kind of LAYERED_KINDS.filter((k) => input.owned.includes(k))) {
    const current = state.sql.exec<SetId>('SELECT survey_id, attempt FROM subject_contents WHERE subject = ? AND kind = ?', input.subject, kind).toArray()[0];
    if (!current) continue;
    const under = baseOf(state, current, kind);
    const base = under ?? current;
    const baseRows = ownRowsOver(state, base, kind, LAYER_MAX_BASE_ROWS);
    if (baseRows === 0 || baseRows > LAYER_MAX_BASE_ROWS) continue;
    const share = Math.floor(LAYER_MAX_OWN_SHARE * baseRows);
    if (under && ownRowsOver(state, current, kind, share) > share) continue;
    state.sql.exec('INSERT OR REPLACE INTO content_layers (survey_id, attempt, kind, base_survey_id, base_attempt) VALUES (?, ?, ?, ?, ?)',
      input.surveyId, input.attempt, kind, base.survey_id, base.attempt);
    layered.push(kind);
  }
  return layered;
}

/** A row as staging compares it with its base's row of the same key. */
export interface LayeredRow {
  kind: ContentKind;
  key: string;
  purl: string | null;
  name: string;
  version: string | null;
  /** JSON text. */
  data: string;
  /** The consumer sent this key of this kind before in the same attempt. */
  repeat?: boolean;
}

type StoredRow = { purl: string | null; name: string; version: string | null; data: string };

const BASE_ROW = 'SELECT purl, name, version, data FROM contents WHERE survey_id = ? AND attempt = ? AND kind = ? AND key = ?';

/**
 * What staging writes for a row of a layered kind that has no row of its own yet in the attempt: the
 * row (a new key, a changed one), nothing (the same row as the base's, first seen), or, for a repeat
 * of a key first seen unchanged, the base's row merged with this one. Null: nothing to write.
 */
export function layeredRow(state: ProjectState, base: SetId, row: LayeredRow, merge: (old: JsonObject, found: JsonObject) => JsonObject): string | null {
  const stored = state.sql.exec<StoredRow>(BASE_ROW, base.survey_id, base.attempt, row.kind, row.key).toArray()[0];
  if (!stored) return row.data;
  if (row.repeat) return JSON.stringify(merge(JSON.parse(stored.data) as JsonObject, JSON.parse(row.data) as JsonObject));
  const same = stored.data === row.data && stored.purl === row.purl && stored.name === row.name && stored.version === row.version;
  return same ? null : row.data;
}

/** The layers of an attempt, by kind. */
export function layersOf(state: ProjectState, surveyId: string, attempt: number): Map<string, SetId> {
  return new Map(state.sql.exec<{ kind: string } & SetId>(
    'SELECT kind, base_survey_id AS survey_id, base_attempt AS attempt FROM content_layers WHERE survey_id = ? AND attempt = ?', surveyId, attempt,
  ).toArray().map(({ kind, ...base }) => [kind, base]));
}

/** A page of the keys of an attempt's base of one kind, in key order (the consumer finds the removed ones). */
export function layerBaseKeys(state: ProjectState, input: { surveyId: string; attempt: number; kind: ContentKind; after?: string }): { keys: string[]; next: string | null } {
  const base = baseOf(state, { survey_id: input.surveyId, attempt: input.attempt }, input.kind);
  if (!base) return { keys: [], next: null };
  const keys = state.sql.exec<{ key: string }>('SELECT key FROM contents WHERE survey_id = ? AND attempt = ? AND kind = ? AND key > ? ORDER BY key LIMIT ?',
    base.survey_id, base.attempt, input.kind, input.after ?? '', LAYER_KEYS_PAGE).toArray().map((r) => r.key);
  return { keys, next: keys.length === LAYER_KEYS_PAGE ? keys.at(-1)! : null };
}

/** Records keys of the base the bundle no longer lists (`content_removals` of the attempt's set). */
export function markRemoved(state: ProjectState, input: { surveyId: string; attempt: number; kind: ContentKind; keys: string[] }): void {
  if (input.keys.length > LAYER_KEYS_PAGE) throw new Error(`At most ${LAYER_KEYS_PAGE} keys a call.`);
  state.db.transaction(() => {
    for (const key of input.keys) {
      state.sql.exec('INSERT INTO content_removals (survey_id, attempt, kind, key) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', input.surveyId, input.attempt, input.kind, key);
    }
  });
}

/**
 * The current component rows of every subject whose purl (`c.purl`) meets `where`, as `columns` of
 * `c` (the stored row) and `sc` (the pointer), joined by `union`: the sets' own rows, and the base
 * rows a current layer shows. Written out rather than read through `content_rows`, so the purl index
 * drives both halves (CROSS JOIN fixes the order).
 */
export function currentComponentsByPurl(columns: string, where: string, union: 'UNION' | 'UNION ALL'): string {
  return `SELECT ${columns} FROM contents c CROSS JOIN subject_contents sc ON sc.survey_id = c.survey_id AND sc.attempt = c.attempt AND sc.kind = c.kind
     WHERE c.kind = 'component' AND ${where}
   ${union}
   SELECT ${columns} FROM contents c CROSS JOIN content_layers l ON l.base_survey_id = c.survey_id AND l.base_attempt = c.attempt AND l.kind = c.kind
     CROSS JOIN subject_contents sc ON sc.survey_id = l.survey_id AND sc.attempt = l.attempt AND sc.kind = l.kind
     WHERE c.kind = 'component' AND ${where}
       AND NOT EXISTS (SELECT 1 FROM contents d WHERE d.survey_id = l.survey_id AND d.attempt = l.attempt AND d.kind = l.kind AND d.key = c.key)
       AND NOT EXISTS (SELECT 1 FROM content_removals r WHERE r.survey_id = l.survey_id AND r.attempt = l.attempt AND r.kind = l.kind AND r.key = c.key)`;
}
