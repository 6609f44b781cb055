// Vulnerability data that changes re-matches the affected subjects (docs/decisions.md, "Vulnerability
// data changes"). After the daily refresh, every active project gets one `{kind: 'rematch'}` message on
// the scoring queue; its consumer reads which packages changed since the project's last re-match, pages
// through the project's current components of those packages, matches them again with the analysis's
// own functions (lookupRecords, vulnFindings), and replaces their findings subject by subject: a
// subject whose findings changed is rescored (cause `vulnerability-data`), an unchanged one is not.
import { MatchMemo, packagedComponents, packagesOf, vulnFindings, type PackagedComponent } from '../analysis/findings';
import { ecosystemCovers, packageNameKey } from '../analysis/vulns/osv';
import { ecosystemBase } from '../analysis/vulns/versions/index';
import type { PackageKey } from '../analysis/vulns/osv-types';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { serializedRow } from '../project/analysis-store';
import { withProjectWork } from '../project/client';
import type { AdvisoryCursor, CurrentComponent, FindingReplacement, RangeCursor } from '../project/rematch-store';
import { MAX_ADVISORIES_PER_CALL, MAX_RANGES_PER_CALL } from '../project/rematch-store';
import { ALL_PURLS, rangesOf, vulnChangesSince, type PurlRange } from '../vulndb/changes';
import { lookupRecords, RecordCache } from '../vulndb/lookup';
import { yieldNow } from '../lib/yielding';
import type { AnalysisMessage } from '../project/jobs';
import { analysisPages } from './findings';

/** Components per page: one vulnerability lookup and one replacement call each. */
export const REMATCH_PAGE = 500;
/** Messages per sendBatch (the queue's limit). */
const SEND_BATCH = 100;
/** Projects read per D1 query when queuing the re-matches. */
const PROJECTS_PAGE = 1_000;

export interface RematchMessage {
  kind: 'rematch';
  projectId: string;
  /** The daily run's time: once matched, the project's portfolio snapshot is taken as of it. */
  snapshotAt?: string;
}

export interface RematchSummary {
  /** Null when the project's storage is still being set up (it holds nothing to match yet). */
  since: string | null;
  matchedAt: string | null;
  /** `packages`: the changed packages' components; `all`: every component (more changes than the caps); `none`: nothing changed. */
  mode: 'packages' | 'all' | 'none';
  /** Components matched again. */
  components: number;
  /** Subjects whose findings changed (each rescored). */
  subjects: number;
}

/** Which changed packages a component's package is among, compared as lookups compare them (base, name key, covered release). */
class PackageSet {
  private readonly byName = new Map<string, string[]>();

  constructor(packages: PackageKey[]) {
    for (const p of packages) {
      const key = `${ecosystemBase(p.ecosystem)}\u0000${packageNameKey(p.ecosystem, p.name)}`;
      const list = this.byName.get(key);
      if (list) list.push(p.ecosystem);
      else this.byName.set(key, [p.ecosystem]);
    }
  }

  has(pkg: PackageKey): boolean {
    const ecosystems = this.byName.get(`${ecosystemBase(pkg.ecosystem)}\u0000${packageNameKey(pkg.ecosystem, pkg.name)}`);
    return Boolean(ecosystems?.some((e) => ecosystemCovers(e, pkg.ecosystem)));
  }
}

/** Matches a page of current components again and replaces their findings; answers the subjects whose findings changed. */
async function rematchPage(env: Env, projectId: string, rows: CurrentComponent[], wanted: ((pkg: PackageKey, key: string) => boolean) | null, known: RecordCache): Promise<{ components: number; changed: string[] }> {
  // The same component may come twice (two ranges, or a range and an advisory).
  const unique = new Map(rows.map((r) => [`${r.subject}\u0000${r.survey_id}\u0000${r.attempt}\u0000${r.key}`, r]));
  const components = packagedComponents([...unique.values()]).filter((c) => !wanted || wanted(c.pkg, c.row.key));
  if (!components.length) return { components: 0, changed: [] };
  const records = await lookupRecords(env.DB, packagesOf(components), known);
  // Subjects share package versions: each is matched once for the page.
  const matches = new MatchMemo();
  const groups = new Map<string, { current: CurrentComponent; components: PackagedComponent[] }>();
  for (const component of components) {
    // packagedComponents keeps the row it was given: a CurrentComponent.
    const current = component.row as CurrentComponent;
    const key = `${current.subject}\u0000${current.survey_id}\u0000${current.attempt}`;
    const group = groups.get(key);
    if (group) group.components.push(component);
    else groups.set(key, { current, components: [component] });
  }
  const replacements: FindingReplacement[] = [...groups.values()].map(({ current, components: list }) => ({
    subject: current.subject, surveyId: current.survey_id, attempt: current.attempt,
    componentKeys: list.map((c) => c.row.key),
    // As the analysis stages them (src/queues/findings.ts componentFindings).
    rows: vulnFindings(list, records, matches).map((finding) => serializedRow({ kind: 'vuln_finding', source: String(finding.data.purl ?? ''), finding })),
  }));
  const { changed } = await withProjectWork<{ changed: string[] }>(env, projectId, (stub) => stub.replaceVulnFindings({ groups: replacements }));
  return { components: components.length, changed };
}

type ComponentPage<C> = { rows: CurrentComponent[]; next: C | null };

/** Every page of components answered for `items`, `perCall` items a call, each call paged by its cursor. */
async function* slicedPages<T, C>(items: T[], perCall: number, page: (slice: T[], after: C | null) => Promise<ComponentPage<C>>): AsyncGenerator<CurrentComponent[]> {
  for (let i = 0; i < items.length; i += perCall) {
    const slice = items.slice(i, i + perCall);
    let after: C | null = null;
    do {
      const answer: ComponentPage<C> = await page(slice, after);
      if (answer.rows.length) yield answer.rows;
      after = answer.next;
      await yieldNow();
    } while (after);
  }
}

/** Every page of the project's current components inside the ranges. */
const rangePages = (env: Env, projectId: string, ranges: PurlRange[]) => slicedPages<PurlRange, RangeCursor>(ranges, MAX_RANGES_PER_CALL, (slice, after) =>
  withProjectWork(env, projectId, (stub) => stub.componentsInRanges({ ranges: slice, after, limit: REMATCH_PAGE })));

/** Every page of the project's current components holding a finding of one of the advisories. */
const advisoryPages = (env: Env, projectId: string, advisories: string[]) => slicedPages<string, AdvisoryCursor>(advisories, MAX_ADVISORIES_PER_CALL, (slice, after) =>
  withProjectWork(env, projectId, (stub) => stub.componentsWithAdvisories({ advisories: slice, after, limit: REMATCH_PAGE })));

/**
 * Matches the project's components of the packages whose vulnerability data changed since its last
 * re-match again, replaces their findings (rescoring the subjects whose findings changed), and records
 * the re-match. Bounded: a page of components at a time; more changes than the caps re-match every
 * component. Throws to be retried (nothing is recorded then; replacing again changes nothing).
 */
export async function rematchProject(env: Env, projectId: string): Promise<RematchSummary> {
  let since: string;
  try {
    ({ since } = await withProjectWork<{ since: string }>(env, projectId, (stub) => stub.rematchSince()));
  } catch (error) {
    // Nothing analysed yet; its first re-match will start from when its storage was ready.
    if (error instanceof ApiError && error.code === 'provisioning') return { since: null, matchedAt: null, mode: 'none', components: 0, subjects: 0 };
    throw error;
  }
  const changes = await vulnChangesSince(env.DB, since);
  const known = new RecordCache();
  const summary = { components: 0, subjects: new Set<string>() };
  const run = async (pages: AsyncGenerator<CurrentComponent[]>, wanted: ((pkg: PackageKey, key: string) => boolean) | null) => {
    for await (const rows of pages) {
      const done = await rematchPage(env, projectId, rows, wanted, known);
      summary.components += done.components;
      for (const s of done.changed) summary.subjects.add(s);
      await yieldNow();
    }
  };
  let mode: RematchSummary['mode'] = 'none';
  if (!changes.complete) {
    mode = 'all';
    await run(rangePages(env, projectId, [ALL_PURLS]), null);
  } else if (changes.records.length) {
    mode = 'packages';
    const changed = new PackageSet(changes.packages);
    await run(rangePages(env, projectId, rangesOf(changes.packages)), (pkg) => changed.has(pkg));
    // Components holding a finding of a changed record that no longer names their package (the others were just matched).
    await run(advisoryPages(env, projectId, changes.records), (pkg) => !changed.has(pkg));
  }
  const { matchedAt } = await withProjectWork<{ matchedAt: string }>(env, projectId, (stub) => stub.finishRematch({ through: changes.through ?? since }));
  const answer: RematchSummary = { since, matchedAt, mode, components: summary.components, subjects: summary.subjects.size };
  console.log(JSON.stringify({ level: 'info', message: 'vulnerability data re-matched', projectId, ...answer }));
  return answer;
}

/** A subject's current contents: its components (and their advisories) are the rows of one analysis attempt. */
export interface SubjectSource {
  subject: string;
  source: { survey_id: string; attempt: number };
  /** Vulnerability data changed after this time is matched again. */
  since: string;
}

/**
 * Brings the advisories of one subject's current contents up to today's vulnerability data, as the
 * project's re-match would (a survey reusing an earlier analysis, src/project/analysis-reuse.ts):
 * its components of the packages changed since `since`, and those holding an advisory whose record
 * changed, are matched again and their findings replaced. Every component when more changed than the
 * caps. Answers how many components were matched and whether the findings changed.
 */
export async function rematchSubject(env: Env, message: AnalysisMessage, target: SubjectSource): Promise<{ components: number; changed: boolean }> {
  const changes = await vulnChangesSince(env.DB, target.since);
  if (changes.complete && !changes.records.length) return { components: 0, changed: false };
  const source = { surveyId: target.source.survey_id, attempt: target.source.attempt };
  let wanted: ((pkg: PackageKey, key: string) => boolean) | null = null;
  if (changes.complete) {
    const packages = new PackageSet(changes.packages);
    const records = new Set(changes.records);
    // A finding's key is `{advisory}|{component key}`.
    const holding = new Set<string>();
    for await (const page of analysisPages(env, message, source, 'vuln_finding')) {
      for (const row of page) {
        const bar = row.key.indexOf('|');
        if (records.has(row.key.slice(0, bar))) holding.add(row.key.slice(bar + 1));
      }
    }
    wanted = (pkg, key) => packages.has(pkg) || holding.has(key);
  }
  const known = new RecordCache();
  let components = 0;
  let changed = false;
  for await (const page of analysisPages(env, message, source, 'component')) {
    const rows = page.map((r): CurrentComponent => ({ key: r.key, name: r.name, purl: r.purl, version: r.version, subject: target.subject, survey_id: source.surveyId, attempt: source.attempt }));
    const done = await rematchPage(env, message.projectId, rows, wanted, known);
    components += done.components;
    changed ||= done.changed.length > 0;
  }
  return { components, changed };
}

/** The re-match messages of every active project (not deleted, in an organization not deleted), a page of projects at a time. */
export async function* rematchMessages(db: D1Database, snapshotAt?: string): AsyncGenerator<RematchMessage[]> {
  let after = '';
  for (;;) {
    const { results } = await db.prepare(
      `SELECT p.id FROM projects p JOIN organizations o ON o.id = p.org_id
       WHERE p.deleted_at IS NULL AND o.deleted_at IS NULL AND p.id > ?1 ORDER BY p.id LIMIT ?2`,
    ).bind(after, PROJECTS_PAGE).all<{ id: string }>();
    if (results.length) yield results.map((p) => ({ kind: 'rematch', projectId: p.id, ...(snapshotAt ? { snapshotAt } : {}) }));
    if (results.length < PROJECTS_PAGE) return;
    after = results.at(-1)!.id;
  }
}

/** Sends one re-match message per active project on the scoring queue (after the daily refresh; with `snapshotAt`, each also takes the project's snapshot); answers how many. */
export async function queueRematches(env: Env, snapshotAt?: string): Promise<number> {
  let sent = 0;
  for await (const messages of rematchMessages(env.DB, snapshotAt)) {
    for (let i = 0; i < messages.length; i += SEND_BATCH) {
      await env.SCORING_QUEUE.sendBatch(messages.slice(i, i + SEND_BATCH).map((body) => ({ body })));
      sent += Math.min(SEND_BATCH, messages.length - i);
    }
  }
  return sent;
}
