// The dependency graph of one analysis attempt, read inside the project object (like
// src/project/analysis-store.ts): components and crypto assets looked up by bom-ref, and what a
// component bundles. The graph is stored as `dependency` rows (key: the entry's ref, data
// `{ref, dependsOn, provides}`); nesting as `parentRef` on the nested component's or asset's row.
//
// `contents` has no index on a row's bom-ref (no migration for it): a ref is first tried as a key (a
// component whose bom-ref is its package URL, as the CycloneDX Maven, Go and cdxgen writers make
// them, or an asset, whose key is its bom-ref), and only the refs left are looked for with
// `json_extract(data, '$.bomRef')`, one statement for a whole batch (a scan of the attempt's rows
// of that kind). Nested components are looked for only under components that say they have some.
import type { JsonObject } from '../lib/json';
import { invalidParameter } from '../lib/errors';
import type { AnalysisRow, ContentKind } from '../analysis/types';
import type { ProjectState } from './state';

/** Components listed per component by default. */
export const BUNDLED_LIMIT = 50;
/** The most components listed per component. */
export const MAX_BUNDLED_LIMIT = 1_000;
/** Levels of the breadth-first walk at most: each costs at most five SQL statements. */
export const MAX_BUNDLE_DEPTH = 32;
/** Refs one component's walk carries to the next level at most, as a multiple of its limit. */
const FRONTIER_PER_LIMIT = 4;

export interface AttemptSource {
  surveyId: string;
  attempt: number;
}

export interface BomRefQuery extends AttemptSource {
  kind: ContentKind;
  refs: string[];
}

/** What a component bundles is listed as. */
export interface BundledComponent {
  key: string;
  name: string;
  purl: string | null;
  version: string | null;
}

export interface BundledQuery extends AttemptSource {
  /** Components by their content key (`contents.key` of a `component` row). */
  componentKeys: string[];
  /** Components listed per component, 1 to MAX_BUNDLED_LIMIT (default BUNDLED_LIMIT). */
  limit?: number;
}

/** A component row as the walk needs it. */
type Node = { key: string; name: string; purl: string | null; version: string | null; ref: string | null; nested: number | null };

const ATTEMPT = 'survey_id = ? AND attempt = ? AND kind = ?';
const NODE = "key, name, purl, version, json_extract(data, '$.bomRef') AS ref, json_extract(data, '$.nestedComponents') AS nested";
const FULL = 'key, name, purl, version, data';
const IN_LIST = 'IN (SELECT value FROM json_each(?))';

const unique = (values: Iterable<string>) => [...new Set(values)];

/**
 * Rows of one kind whose bom-ref is one of `refs`: those whose key is the ref first (the primary
 * key), then one scan for the refs left.
 */
function byBomRef<T extends { key: string }>(state: ProjectState, source: AttemptSource, kind: string, refs: string[], columns: string): T[] {
  if (!refs.length) return [];
  const { surveyId, attempt } = source;
  const keyed = state.sql.exec<T>(`SELECT ${columns} FROM content_rows WHERE ${ATTEMPT} AND key ${IN_LIST} AND json_extract(data, '$.bomRef') = key`,
    surveyId, attempt, kind, JSON.stringify(refs)).toArray();
  const found = new Set(keyed.map((row) => row.key));
  const rest = refs.filter((ref) => !found.has(ref));
  if (!rest.length) return keyed;
  const scanned = state.sql.exec<T>(`SELECT ${columns} FROM content_rows WHERE ${ATTEMPT} AND json_extract(data, '$.bomRef') ${IN_LIST} ORDER BY key`,
    surveyId, attempt, kind, JSON.stringify(rest)).toArray();
  return keyed.concat(scanned);
}

/**
 * The component or crypto-asset rows of an attempt whose bom-ref is one of `refs` (several rows may
 * share one: bom-refs are per document, and an archive holds several), in no particular order.
 * Reached through the `analysisRows` RPC with `bomRefs`.
 */
export function rowsByBomRef(state: ProjectState, query: BomRefQuery): AnalysisRow[] {
  if (query.kind !== 'component' && query.kind !== 'crypto_asset') throw invalidParameter('kind', 'Rows are looked up by bom-ref for components and crypto assets only.');
  const refs = unique(query.refs.filter((ref) => typeof ref === 'string' && ref !== ''));
  const rows = byBomRef<{ key: string; name: string; purl: string | null; version: string | null; data: string }>(state, query, query.kind, refs, FULL);
  return rows.map((row) => ({ key: row.key, name: row.name, purl: row.purl, version: row.version, data: JSON.parse(row.data) as JsonObject }));
}

/** The `dependsOn` lists of the dependency rows of these refs (one primary-key statement). */
function dependsOnOf(state: ProjectState, source: AttemptSource, refs: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!refs.length) return out;
  const rows = state.sql.exec<{ key: string; deps: string | null }>(
    `SELECT key, json_extract(data, '$.dependsOn') AS deps FROM content_rows WHERE ${ATTEMPT} AND key ${IN_LIST}`,
    source.surveyId, source.attempt, 'dependency', JSON.stringify(refs)).toArray();
  for (const row of rows) {
    const deps = row.deps ? (JSON.parse(row.deps) as unknown) : [];
    if (Array.isArray(deps)) out.set(row.key, deps.filter((d): d is string => typeof d === 'string'));
  }
  return out;
}

/** The components nested in these (by `parentRef`), in key order (one scan). */
function nestedIn(state: ProjectState, source: AttemptSource, refs: string[]): Map<string, Node[]> {
  const out = new Map<string, Node[]>();
  if (!refs.length) return out;
  const rows = state.sql.exec<Node & { parent: string }>(
    `SELECT ${NODE}, json_extract(data, '$.parentRef') AS parent FROM content_rows WHERE ${ATTEMPT} AND json_extract(data, '$.parentRef') ${IN_LIST} ORDER BY key`,
    source.surveyId, source.attempt, 'component', JSON.stringify(refs)).toArray();
  for (const { parent, ...node } of rows) out.set(parent, [...(out.get(parent) ?? []), node]);
  return out;
}

/**
 * Resolves refs to the component rows that carry them, into `cache` (an empty list for a ref that
 * names no component: a crypto asset, a service, nothing), and answers the rows found. Refs that are
 * crypto assets' keys are not looked for among the components' bom-refs.
 */
function resolve(state: ProjectState, source: AttemptSource, refs: string[], cache: Map<string, Node[]>): Node[] {
  const wanted = unique(refs.filter((ref) => !cache.has(ref)));
  if (!wanted.length) return [];
  for (const ref of wanted) cache.set(ref, []);
  const keyed = state.sql.exec<Node>(`SELECT ${NODE} FROM content_rows WHERE ${ATTEMPT} AND key ${IN_LIST} AND json_extract(data, '$.bomRef') = key`,
    source.surveyId, source.attempt, 'component', JSON.stringify(wanted)).toArray();
  for (const node of keyed) cache.get(node.ref!)!.push(node);
  let rest = wanted.filter((ref) => !cache.get(ref)!.length);
  if (rest.length) {
    const assets = new Set(state.sql.exec<{ key: string }>(`SELECT key FROM content_rows WHERE ${ATTEMPT} AND key ${IN_LIST}`,
      source.surveyId, source.attempt, 'crypto_asset', JSON.stringify(rest)).toArray().map((row) => row.key));
    rest = rest.filter((ref) => !assets.has(ref));
  }
  if (!rest.length) return keyed;
  const scanned = state.sql.exec<Node>(`SELECT ${NODE} FROM content_rows WHERE ${ATTEMPT} AND json_extract(data, '$.bomRef') ${IN_LIST} ORDER BY key`,
    source.surveyId, source.attempt, 'component', JSON.stringify(rest)).toArray();
  for (const node of scanned) cache.get(node.ref!)?.push(node);
  return keyed.concat(scanned);
}

interface Walk {
  key: string;
  found: BundledComponent[];
  /** Component keys listed (and the component itself). */
  seen: Set<string>;
  /** Refs reached. */
  visited: Set<string>;
  frontier: string[];
}

/**
 * For each component (by content key), the components it bundles: the components nested in it and
 * those its bom-ref `dependsOn`, transitively, breadth first (per level: the dependency targets of
 * each ref in order, then the components nested in it), each once, never the component itself (a
 * cycle ends where it started), at most `limit` per component. The walk passes through refs that
 * are no component (a service, a crypto asset) without listing them, goes at most MAX_BUNDLE_DEPTH
 * levels deep, and runs at most 1 + 5 × MAX_BUNDLE_DEPTH statements for all the components together.
 * A component without a bom-ref, or unknown, bundles nothing found. Every requested key has an entry.
 */
export function bundledComponents(state: ProjectState, query: BundledQuery): Record<string, BundledComponent[]> {
  const limit = query.limit ?? BUNDLED_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_BUNDLED_LIMIT) throw invalidParameter('limit', `limit is a whole number from 1 to ${MAX_BUNDLED_LIMIT}.`);
  const source: AttemptSource = { surveyId: query.surveyId, attempt: query.attempt };
  const keys = unique(query.componentKeys);
  const answer: Record<string, BundledComponent[]> = {};
  const walks: Walk[] = [];
  const cache = new Map<string, Node[]>();
  /** Refs that some component row carrying them says has nested components. */
  const parents = new Set<string>();
  const note = (node: Node) => {
    if (node.ref && (node.nested ?? 0) > 0) parents.add(node.ref);
  };
  const roots = keys.length
    ? state.sql.exec<Node>(`SELECT ${NODE} FROM content_rows WHERE ${ATTEMPT} AND key ${IN_LIST}`, source.surveyId, source.attempt, 'component', JSON.stringify(keys)).toArray()
    : [];
  for (const key of keys) answer[key] = [];
  for (const root of roots) {
    note(root);
    if (!root.ref) continue;
    walks.push({ key: root.key, found: answer[root.key]!, seen: new Set([root.key]), visited: new Set([root.ref]), frontier: [root.ref] });
  }
  const frontierCap = FRONTIER_PER_LIMIT * limit;
  const add = (walk: Walk, node: BundledComponent) => {
    if (walk.found.length >= limit || walk.seen.has(node.key)) return;
    walk.seen.add(node.key);
    walk.found.push({ key: node.key, name: node.name, purl: node.purl, version: node.version });
  };
  for (let level = 0; level < MAX_BUNDLE_DEPTH; level++) {
    const active = walks.filter((w) => w.frontier.length && w.found.length < limit);
    if (!active.length) break;
    const refs = unique(active.flatMap((w) => w.frontier));
    const deps = dependsOnOf(state, source, refs);
    const nested = nestedIn(state, source, refs.filter((ref) => parents.has(ref)));
    for (const children of nested.values()) children.forEach(note);
    resolve(state, source, [...deps.values()].flat(), cache).forEach(note);
    for (const walk of active) {
      const next: string[] = [];
      for (const ref of walk.frontier) {
        if (walk.found.length >= limit) break;
        for (const target of deps.get(ref) ?? []) {
          if (walk.visited.has(target)) continue;
          walk.visited.add(target);
          for (const node of cache.get(target) ?? []) add(walk, node);
          if (next.length < frontierCap) next.push(target);
        }
        for (const child of nested.get(ref) ?? []) {
          add(walk, child);
          if (child.ref && !walk.visited.has(child.ref)) {
            walk.visited.add(child.ref);
            if (next.length < frontierCap) next.push(child.ref);
          }
        }
      }
      walk.frontier = next;
    }
  }
  return answer;
}
