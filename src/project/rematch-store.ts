// Matching a project's components again after the vulnerability data changed, inside the project object
// (docs/decisions.md, "Vulnerability data changes"): when the project was last re-matched, its current
// components of changed packages (a page at a time), replacing the advisories of given components with
// newly matched ones (rescoring only what changed), and recording the new re-match time. The matching
// itself runs in the Worker (src/queues/rematch.ts) with the analysis's own functions.
import type { JsonObject } from '../lib/json';
import { invalidRequest } from '../lib/errors';
import { nowIso } from '../lib/ids';
import type { PurlRange } from '../vulndb/changes';
import type { SerializedRow } from './analysis-store';
import type { ProjectState } from './state';
import { currentComponentsByPurl } from './content-layers';
import { queuePurge } from './purges';
import { subjectChanged } from './scoring-store';
import { raiseEvent } from './notify-raise';

/** The `settings` key of the last re-match: vulnerability data changed after it has not been matched yet. */
export const VULN_MATCHED_AT = 'vulnMatchedAt';
/** Ranges per `componentsInRanges` call (one statement each), and rows per page of either read. */
export const MAX_RANGES_PER_CALL = 200;
export const MAX_REMATCH_ROWS = 1_000;
/** Advisory ids per `componentsWithAdvisories` call (one JSON parameter). */
export const MAX_ADVISORIES_PER_CALL = 5_000;

const setting = (state: ProjectState, key: string) =>
  state.sql.exec<{ value: string }>('SELECT value FROM settings WHERE key = ?', key).toArray()[0]?.value;

/** When the project's components were last matched: the last re-match, else when its storage was set up (every analysis since matched the data of its day). */
export function rematchSince(state: ProjectState): { since: string } {
  return { since: setting(state, VULN_MATCHED_AT) ?? setting(state, 'readyAt') ?? nowIso() };
}

/**
 * Records a re-match that read the data's changes through `through`. Held back to the start of the
 * oldest analysis still running: it may have looked its components up before a change it did not see,
 * and its contents become current only when it finishes.
 */
export function finishRematch(state: ProjectState, input: { through: string }): { matchedAt: string } {
  const running = state.sql.exec<{ at: string | null }>(
    "SELECT min(j.started_at) AS at FROM step_leases l JOIN jobs j ON j.id = l.step_id WHERE j.step_type = 'ANALYZE' AND j.status = 'RUNNING'",
  ).one().at;
  const matchedAt = running !== null && running < input.through ? running : input.through;
  state.sql.exec('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', VULN_MATCHED_AT, matchedAt);
  return { matchedAt };
}

/** A subject's current component, as matching reads it, with where its rows are. */
export type CurrentComponent = {
  key: string;
  name: string;
  purl: string | null;
  version: string | null;
  subject: string;
  survey_id: string;
  attempt: number;
};

/** Where a page of `componentsInRanges` ended: the range (index into the call's list) and the last row in it. */
export interface RangeCursor {
  range: number;
  purl: string;
  rowid: number;
}

/** The range's upper bound: past every purl it holds. */
function upperBound(range: PurlRange): string {
  if (!range.loose) return `${range.prefix}A`; // `@` (0x40) is the largest of `#`, `?`, `@`
  const last = range.prefix.charCodeAt(range.prefix.length - 1);
  return range.prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

/**
 * A page of current components (of every subject) whose canonical purl is inside the ranges, range by
 * range, each in (purl, rowid) order through the `contents_purl` index: one statement per range,
 * whatever the number of subjects. Rows of attempts no subject points at are passed over.
 */
export function componentsInRanges(state: ProjectState, input: { ranges: PurlRange[]; after?: RangeCursor | null; limit: number }): { rows: CurrentComponent[]; next: RangeCursor | null } {
  if (input.ranges.length > MAX_RANGES_PER_CALL) throw invalidRequest(`At most ${MAX_RANGES_PER_CALL} ranges a call.`);
  const limit = Math.max(1, Math.min(MAX_REMATCH_ROWS, input.limit));
  const rows: CurrentComponent[] = [];
  let cursor = input.after ?? null;
  for (let i = cursor?.range ?? 0; i < input.ranges.length; i++) {
    const range = input.ranges[i]!;
    const from = cursor?.range === i ? cursor : null;
    const page = state.sql.exec<CurrentComponent & { rid: number; purl: string }>(
      currentComponentsByPurl('c.rowid AS rid, c.key, c.name, c.purl, c.version, sc.subject, sc.survey_id, sc.attempt',
        `c.purl >= max(?1, ?3) AND c.purl < ?2 AND (c.purl, c.rowid) > (?3, ?4)
         AND (?5 OR c.purl = ?1 OR substr(c.purl, length(?1) + 1, 1) IN ('@', '?', '#'))`,
        'UNION ALL') + ' ORDER BY purl, rid LIMIT ?6',
      range.prefix, upperBound(range), from?.purl ?? '', from?.rowid ?? 0, range.loose ? 1 : 0, limit - rows.length,
    ).toArray();
    for (const { rid: _rid, ...row } of page) rows.push(row);
    if (rows.length >= limit) {
      const last = page.at(-1)!;
      return { rows, next: { range: i, purl: last.purl, rowid: last.rid } };
    }
    cursor = null;
  }
  return { rows, next: null };
}

/** Where a page of `componentsWithAdvisories` ended: the subject and the finding's key. */
export interface AdvisoryCursor {
  subject: string;
  key: string;
}

/**
 * A page of current components that hold a current finding of one of the advisories: a changed record
 * may no longer name a package it named, so its package rows cannot find them. Reads every subject's
 * current findings once over the pages (a finding's key starts with its advisory id).
 */
export function componentsWithAdvisories(state: ProjectState, input: { advisories: string[]; after?: AdvisoryCursor | null; limit: number }): { rows: CurrentComponent[]; next: AdvisoryCursor | null } {
  if (input.advisories.length > MAX_ADVISORIES_PER_CALL) throw invalidRequest(`At most ${MAX_ADVISORIES_PER_CALL} advisories a call.`);
  const limit = Math.max(1, Math.min(MAX_REMATCH_ROWS, input.limit));
  if (!input.advisories.length) return { rows: [], next: null };
  const page = state.sql.exec<CurrentComponent & { finding: string }>(
    `SELECT f.key AS finding, c.key, c.name, c.purl, c.version, sc.subject, c.survey_id, c.attempt
     FROM subject_contents sc
     JOIN content_rows f ON f.survey_id = sc.survey_id AND f.attempt = sc.attempt AND f.kind = 'vuln_finding'
     JOIN subject_contents scc ON scc.subject = sc.subject AND scc.kind = 'component'
     JOIN content_rows c ON c.survey_id = scc.survey_id AND c.attempt = scc.attempt AND c.kind = 'component' AND c.key = substr(f.key, instr(f.key, '|') + 1)
     WHERE sc.kind = 'vuln_finding' AND sc.subject >= ?2 AND (sc.subject > ?2 OR f.key > ?3)
       AND substr(f.key, 1, instr(f.key, '|') - 1) IN (SELECT value FROM json_each(?1))
     ORDER BY sc.subject, f.key LIMIT ?4`,
    JSON.stringify(input.advisories), input.after?.subject ?? '', input.after?.key ?? '', limit,
  ).toArray();
  const rows = page.map(({ finding: _finding, ...row }) => row);
  const last = page.at(-1);
  return { rows, next: page.length === limit && last ? { subject: last.subject, key: last.finding } : null };
}

/** The newly matched advisories of some of a subject's current components (all of their findings, none when they have none now). */
export interface FindingReplacement {
  subject: string;
  /** The attempt the components are current in (the `component` pointer): the findings are stored under it. */
  surveyId: string;
  attempt: number;
  componentKeys: string[];
  /** `vuln_finding` rows as the analysis stages them (serializedRow). */
  rows: SerializedRow[];
}

type StoredFinding = {
  key: string;
  name: string;
  purl: string | null;
  version: string | null;
  data: string;
};

/** What a finding says, for telling a change: everything but the record's own dates (a record touched for its references changes nothing). */
function gist(row: Omit<StoredFinding, 'key'>): string {
  const { modified: _modified, published: _published, ...data } = JSON.parse(row.data) as JsonObject;
  return JSON.stringify([row.name, row.purl, row.version, data]);
}

type Pointer = { survey_id: string; attempt: number };
const pointerOf = (state: ProjectState, subject: string, kind: string) =>
  state.sql.exec<Pointer>('SELECT survey_id, attempt FROM subject_contents WHERE subject = ? AND kind = ?', subject, kind).toArray()[0] ?? null;

const INSERT_FINDING = "INSERT OR REPLACE INTO contents (survey_id, attempt, kind, key, purl, name, version, data) VALUES (?, ?, 'vuln_finding', ?, ?, ?, ?, ?)";

/** Raises `advisory.published` for each advisory the re-matching found that the subject's findings did not hold, once per subject and advisory. */
function announceNewAdvisories(state: ProjectState, subject: string, stored: StoredFinding[], fresh: Iterable<StoredFinding>): void {
  const had = new Set(stored.map((r) => r.key));
  const byAdvisory = new Map<string, JsonObject[]>();
  for (const row of fresh) {
    if (had.has(row.key)) continue;
    const data = JSON.parse(row.data) as JsonObject;
    const list = byAdvisory.get(String(data.advisory_id)) ?? [];
    list.push(data);
    byAdvisory.set(String(data.advisory_id), list);
  }
  for (const [advisoryId, findings] of byAdvisory) {
    const first = findings[0]!;
    raiseEvent(state, {
      id: `advisory.published:${subject}:${advisoryId}`, type: 'advisory.published',
      ref: {
        subject, advisory_id: advisoryId, aliases: first.aliases ?? [], summary: first.summary ?? null, severity: typeof first.severity === 'string' ? first.severity : (first.severity as JsonObject | null)?.label ?? 'unknown',
        published: first.published ?? null, components: findings.map((f) => ({ name: f.name, purl: f.purl, version: f.version, fix_version: f.fix_version ?? null })),
      },
    });
  }
}

/** One replacement; answers whether the subject's findings changed. Components no longer current are left (a newer analysis holds the subject). */
function replaceOne(state: ProjectState, group: FindingReplacement): boolean {
  const components = pointerOf(state, group.subject, 'component');
  if (!components || components.survey_id !== group.surveyId || components.attempt !== group.attempt) return false;
  const keys = new Set(group.componentKeys);
  const fresh = new Map<string, StoredFinding>();
  for (const row of group.rows) {
    if (row.kind !== 'vuln_finding') continue;
    const componentKey = (JSON.parse(row.data) as JsonObject).component_key;
    if (typeof componentKey === 'string' && keys.has(componentKey)) fresh.set(row.key, row);
  }
  // Findings are stored beside the components they come from; a subject whose findings pointer is
  // elsewhere (its components came with a runtime survey that found no advisory) has none here yet.
  const findings = pointerOf(state, group.subject, 'vuln_finding');
  const aligned = findings !== null && findings.survey_id === group.surveyId && findings.attempt === group.attempt;
  const stored = aligned
    ? state.sql.exec<StoredFinding>(
      `SELECT key, name, purl, version, data FROM content_rows WHERE survey_id = ? AND attempt = ? AND kind = 'vuln_finding'
       AND substr(key, instr(key, '|') + 1) IN (SELECT value FROM json_each(?))`,
      group.surveyId, group.attempt, JSON.stringify([...keys]),
    ).toArray()
    : [];
  const same = stored.length === fresh.size && stored.every((old) => {
    const now = fresh.get(old.key);
    return now !== undefined && gist(now) === gist(old);
  });
  if (same) return false;
  announceNewAdvisories(state, group.subject, stored, fresh.values());
  state.db.transaction(() => {
    // Findings are never layered (LAYERED_KINDS): their set's rows are its own, replaced in place.
    if (stored.length) {
      state.sql.exec("DELETE FROM contents WHERE survey_id = ? AND attempt = ? AND kind = 'vuln_finding' AND key IN (SELECT value FROM json_each(?))",
        group.surveyId, group.attempt, JSON.stringify(stored.map((r) => r.key)));
    }
    for (const row of fresh.values()) state.sql.exec(INSERT_FINDING, group.surveyId, group.attempt, row.key, row.purl, row.name, row.version, row.data);
    if (!aligned) {
      if (findings) queuePurge(state, findings.survey_id, findings.attempt, 'vuln_finding');
      state.sql.exec("DELETE FROM content_purges WHERE survey_id = ? AND attempt = ? AND kind = 'vuln_finding'", group.surveyId, group.attempt);
      state.sql.exec("INSERT INTO subject_contents (subject, kind, survey_id, attempt) VALUES (?, 'vuln_finding', ?, ?) ON CONFLICT (subject, kind) DO UPDATE SET survey_id = excluded.survey_id, attempt = excluded.attempt",
        group.subject, group.surveyId, group.attempt);
    }
  });
  return true;
}

/**
 * Replaces the findings of the given components with newly matched ones, subject by subject (one
 * transaction each). A subject whose findings changed (keys, severity, fix versions, what they say) is
 * rescored with cause `vulnerability-data`; an unchanged one is left alone.
 */
export async function replaceVulnFindings(state: ProjectState, input: { groups: FindingReplacement[] }): Promise<{ changed: string[] }> {
  const changed = new Set<string>();
  for (const group of input.groups) if (replaceOne(state, group)) changed.add(group.subject);
  for (const subject of changed) await subjectChanged(state, subject, 'vulnerability-data');
  return { changed: [...changed] };
}
