// Data health's answers (spec 4.12, part 2 "Data health") and how the pages read them: the run filters in
// the URL, the API query they make, the pages on either side of a cursor, the words for a completeness.
import type { Completeness, HealthRunAnswer, RunOutcome, RunPage as ApiRunPage, SubjectHealth as ApiSubjectHealth } from '../../../project/health';
import { UUID_PATTERN } from '../../../lib/ids';

// The API's own answer types: the pages read what the API sends.
export type Outcome = RunOutcome;
export type { Completeness };
export type HealthRun = HealthRunAnswer;
export type RunPage = ApiRunPage;
export type Pagination = RunPage['pagination'];
export type SubjectHealth = ApiSubjectHealth;
export interface Summary { subjects: SubjectHealth[]; generated_at: string }

export interface Resolved { kind: 'run' | 'step' | 'subject'; matched: string; run_id?: string; step_id?: string; subject?: string; deep_link: string }

export interface Step { id: string; status: string; step_type?: string; step_label?: string; message: string | null; failure_class?: string | null; started_at: string | null; finished_at: string | null; progress: number }
export interface SurveyJob { id: string; type: string; status: string; tag?: string | null; target?: string | null; message: string | null; created_at: string; finished_at: string | null; deleted_at?: string | null; steps?: Step[] }

/** Rows on one page of runs, and of the summary (the lists show at most 100). */
export const RUNS_PAGE = 50;
export const SUBJECTS_PAGE = 100;
export const STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'SKIPPED'] as const;

export const isUuid = (value: string | undefined | null): value is string => Boolean(value && UUID_PATTERN.test(value));

export interface RunFilters {
  subject: string;
  status: string;
  deleted: boolean;
  dir: 'asc' | 'desc';
  after?: string;
  before?: string;
}

export function runFiltersOf(url: URL, subject?: string): RunFilters {
  const q = url.searchParams;
  const status = (q.get('status') ?? '').toUpperCase();
  const after = isUuid(q.get('after')) ? q.get('after')!.toLowerCase() : undefined;
  const before = !after && isUuid(q.get('before')) ? q.get('before')!.toLowerCase() : undefined;
  return {
    subject: subject ?? (q.get('subject') ?? '').trim().slice(0, 512),
    status: (STATUSES as readonly string[]).includes(status) ? status : '',
    deleted: q.get('deleted') === '1',
    dir: q.get('dir') === 'asc' ? 'asc' : 'desc',
    after,
    before,
  };
}

export function runQuery(f: RunFilters, limit = RUNS_PAGE): string {
  const q = new URLSearchParams({ limit: String(limit), sortDir: f.dir });
  if (f.subject) q.set('subject', f.subject);
  if (f.status) q.set('status', f.status);
  if (f.deleted) q.set('showDeleted', 'true');
  if (f.after) q.set('after', f.after);
  if (f.before) q.set('before', f.before);
  return q.toString();
}

/** The page's own address with these filters; `fixedSubject` pages leave the subject in the path. */
export function runsHref(base: string, f: RunFilters, cursor: { after?: string; before?: string } = {}, fixedSubject = false): string {
  const q = new URLSearchParams();
  if (f.subject && !fixedSubject) q.set('subject', f.subject);
  if (f.status) q.set('status', f.status);
  if (f.deleted) q.set('deleted', '1');
  if (f.dir !== 'desc') q.set('dir', f.dir);
  if (cursor.after) q.set('after', cursor.after);
  if (cursor.before) q.set('before', cursor.before);
  const query = q.toString();
  return query ? `${base}?${query}` : base;
}

/** Previous and next: `hasMore` speaks for the direction paged; the other side is where one came from. */
export function runPages(f: RunFilters, page: Pagination, href: (cursor: { after?: string; before?: string }) => string) {
  const { firstId, lastId, hasMore } = page;
  if (!firstId || !lastId) return { previous: f.after || f.before ? href({}) : null, next: null };
  return {
    previous: f.before ? (hasMore ? href({ before: firstId }) : null) : f.after ? href({ before: firstId }) : null,
    next: f.before ? href({ after: lastId }) : hasMore ? href({ after: lastId }) : null,
  };
}

/** "9 of 10 items found before (90%)", or why there is nothing to compare. */
export function completenessText(c: Completeness): string {
  const now = [c.components, c.crypto_assets, c.observations];
  if (now.every((n) => n == null)) return 'Not counted yet';
  const found = now.reduce<number>((sum, n) => sum + (n ?? 0), 0);
  if (c.ratio == null || !c.previous_run_id) return `${found} items found; no earlier run to compare with`;
  const before = [c.previous_components, c.previous_crypto_assets, c.previous_observations].reduce<number>((sum, n) => sum + (n ?? 0), 0);
  return `${found} items found against ${before} before (${Math.round(c.ratio * 100)}%)`;
}

export const dataHealthPath = (projectId: string) => `/projects/${projectId}/data-health`;
export const runPath = (projectId: string, runId: string) => `${dataHealthPath(projectId)}/runs/${runId}`;
export const subjectPath = (projectId: string, subject: string) => `${dataHealthPath(projectId)}/subjects/${encodeURIComponent(subject)}`;

/** A resolve answer's deep link, if it leads to this project's data-health pages (never anywhere else). */
export function safeDeepLink(projectId: string, link: string): string | null {
  const base = `${dataHealthPath(projectId)}/`;
  return link.startsWith(base) && !link.includes('//') && !link.includes('\\') ? link : null;
}
