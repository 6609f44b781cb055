// What the surveys pages show, as plain functions of the API's answers: a job's row on the list (also
// sent by the live stream, so the page and its updates render the same), a job's name and steps, the
// filters read from the address, cursor links, and what an empty project says to do next.
import type { Child } from 'hono/jsx';
import { Tag, Time } from '../../components/common';
import { UUID_PATTERN } from '../../../lib/ids';

export const JOB_TYPES = ['INVENTORY_SURVEY', 'RUNTIME_SURVEY', 'REPORT', 'UPLOAD', 'INSTANCE_STARTUP', 'PORTFOLIO_SNAPSHOT', 'PORTFOLIO_BACKFILL'] as const;
export const JOB_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'SKIPPED'] as const;
const SURVEY_TYPES: readonly string[] = ['INVENTORY_SURVEY', 'RUNTIME_SURVEY'];
/** Rows on one page of the list unless the address asks for another number (at most 100, the limit). */
export const PAGE_SIZE = 50;

export interface Step {
  id: string; type: string; status: string; progress: number; message: string | null; step_type?: string; step_label?: string;
  created_at: string; started_at: string | null; finished_at: string | null; metadata: Record<string, unknown>; parent_id: string | null;
  failure_class?: string | null;
}
export interface Job extends Step {
  tag?: string | null; target?: string | null; notes?: string | null; deleted_at?: string | null; supersedes?: string | null;
  json_tags?: Record<string, unknown> | null; steps?: Step[];
}
export interface Pagination { firstId: string | null; lastId: string | null; hasMore: boolean; total: number }
export interface JobPage { jobs: Job[]; pagination: Pagination }

export const isSurvey = (job: Pick<Job, 'type'>) => SURVEY_TYPES.includes(job.type);
const TYPE_LABELS: Record<string, string> = {
  INVENTORY_SURVEY: 'Inventory survey', RUNTIME_SURVEY: 'Runtime survey', REPORT: 'Report', UPLOAD: 'Upload',
  INSTANCE_STARTUP: 'Project set-up', PORTFOLIO_SNAPSHOT: 'Portfolio snapshot', PORTFOLIO_BACKFILL: 'Portfolio backfill',
};
export const typeLabel = (type: string) => TYPE_LABELS[type] ?? type;
const FINISHED = ['COMPLETED', 'FAILED', 'SKIPPED'];

/** What a person calls a job: the surveyed subject or tag, else its type and the start of its id. */
export const jobName = (job: Job): string =>
  job.target || job.tag || (typeof job.metadata?.portfolio === 'string' ? String(job.metadata.portfolio) : '') || `${typeLabel(job.type)} ${job.id.slice(0, 8)}`;

/** A status with its progress while unfinished ("RUNNING 45%"); the word is always there. */
export function Status(props: { job: Step }) {
  const { job } = props;
  const progress = !FINISHED.includes(job.status) && job.progress > 0 ? ` ${Math.floor(job.progress)}%` : '';
  return <Tag value={job.status} label={`${job.status}${progress}`} />;
}

export const stepLabel = (step: Step) => step.step_label ?? step.step_type ?? step.type;

/** The steps of a survey in one line each: label, status, progress. */
export function StepList(props: { steps: Step[] }) {
  if (!props.steps.length) return <span class="muted">No steps</span>;
  return (
    <ul class="step-list">
      {props.steps.map((s) => (
        <li id={`step-${s.id}`}><span class="step-name">{stepLabel(s)}</span> <Status job={s} /></li>
      ))}
    </ul>
  );
}

/** How far a survey's steps are, in words ("3 of 5 steps completed, 1 running"). */
export function stepSummary(steps: Step[]): string {
  if (!steps.length) return 'No steps';
  const count = (status: string) => steps.filter((s) => s.status === status).length;
  const done = count('COMPLETED');
  if (done === steps.length) return `All ${steps.length} steps completed`;
  const rest = (['RUNNING', 'FAILED', 'SKIPPED'] as const).filter((st) => count(st)).map((st) => `${count(st)} ${st.toLowerCase()}`);
  return [`${done} of ${steps.length} steps completed`, ...rest].join(', ');
}

/** A job's row on the list. `oob` marks it for an out-of-band swap (the live stream). */
export function JobRow(props: { job: Job; projectId: string; timezone: string; oob?: string }) {
  const { job } = props;
  const href = `/projects/${props.projectId}/surveys/${job.id}`;
  return (
    <tr id={`job-${job.id}`} hx-swap-oob={props.oob}>
      <th scope="row">
        <a href={href} class="wrap">{jobName(job)}</a>
        {job.tag && job.target ? <span class="muted small"> · {job.tag}</span> : null}
        {job.deleted_at ? <> <Tag value="deleted" /></> : null}
      </th>
      <td>{typeLabel(job.type)}</td>
      <td>
        <Status job={job} />
        {job.status === 'FAILED' && job.message ? <p class="small muted wrap">{job.message}</p> : null}
      </td>
      <td>{job.steps ? <StepList steps={job.steps} /> : <span class="muted">None</span>}</td>
      <td><Time iso={job.created_at} timezone={props.timezone} /></td>
    </tr>
  );
}

export const JOB_COLUMNS = ['Job', 'Type', 'Status', 'Steps', 'Created'];

// ---- the filters in the address ----

export interface Filters { type: string; status: string; deleted: boolean; limit: number; after?: string; before?: string }


/** The filters from the query, unknown values dropped (the form offers only known ones). */
export function filtersOf(query: (name: string) => string | undefined): Filters {
  const type = (query('type') ?? '').toUpperCase();
  const status = (query('status') ?? '').toUpperCase();
  const after = query('after');
  const before = query('before');
  const limit = Number(query('limit'));
  return {
    limit: Number.isInteger(limit) && limit >= 1 && limit <= 100 ? limit : PAGE_SIZE,
    type: type === 'SURVEYS' || (JOB_TYPES as readonly string[]).includes(type) ? type : '',
    status: (JOB_STATUSES as readonly string[]).includes(status) ? status : '',
    deleted: query('deleted') === '1',
    after: after && UUID_PATTERN.test(after) ? after : undefined,
    before: !after && before && UUID_PATTERN.test(before) ? before : undefined,
  };
}

/** The job types a filter asks for (`SURVEYS` is both survey types). */
export const typesOf = (f: Filters): string[] => (f.type === 'SURVEYS' ? [...SURVEY_TYPES] : f.type ? [f.type] : []);

/** The API's query for a page of the list: one row per top-level job, surveys with their steps. */
export function apiQuery(f: Filters): string {
  const q = new URLSearchParams({ topLevel: 'true', limit: String(f.limit) });
  const types = typesOf(f);
  if (types.length) q.set('jobType', types.join(','));
  if (f.status) q.set('status', f.status);
  if (f.deleted) q.set('showDeleted', 'true');
  if (f.after) q.set('after', f.after);
  if (f.before) q.set('before', f.before);
  return q.toString();
}

/** The dashboard's own query for the filters (and a cursor). */
export function pageQuery(f: Filters, cursor?: { after?: string; before?: string }): string {
  const q = new URLSearchParams();
  if (f.type) q.set('type', f.type);
  if (f.status) q.set('status', f.status);
  if (f.deleted) q.set('deleted', '1');
  if (f.limit !== PAGE_SIZE) q.set('limit', String(f.limit));
  if (cursor?.after) q.set('after', cursor.after);
  if (cursor?.before) q.set('before', cursor.before);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Previous and next links of a cursor list (spec part 8): `after` = lastId, `before` = firstId. */
export function cursorLinks(p: Pagination, current: { after?: string; before?: string }, href: (cursor: { after?: string; before?: string }) => string) {
  const previous = p.firstId && (current.after || (current.before && p.hasMore)) ? href({ before: p.firstId }) : null;
  const next = p.lastId && (current.before || p.hasMore) ? href({ after: p.lastId }) : null;
  return { previous, next };
}

// ---- an empty project ----

/** The upload command line of docs/cli.md for this project. */
export const cliLine = (apiUrl: string, projectId: string, pass = '$POSTURE_PASS') =>
  `POSTURE_PASS=${pass} npx posture upload ./bom --api ${apiUrl.replace(/\/$/, '')} --project ${projectId} --wait`;

/** What an empty project says: the CLI command, and a button that creates an upload pass (project:edit). */
export function UploadHelp(props: { projectId: string; apiUrl: string; mayCreatePass: boolean; children?: Child }) {
  return (
    <div class="empty">
      {props.children ?? <p>No surveys yet. Upload a bundle (CycloneDX SBOM or CBOM files, or a directory of them) with the <code>posture</code> command-line client:</p>}
      <pre><code>{cliLine(props.apiUrl, props.projectId)}</code></pre>
      <p>It needs an upload pass of this project{props.mayCreatePass ? '' : ' (someone who may edit the project creates one)'}. See docs/cli.md for the options (<code>--target</code>, <code>--tag</code>, <code>--runtime</code>).</p>
      {props.mayCreatePass ? (
        <form method="post" action={`/projects/${props.projectId}/upload-pass`} class="inline">
          <button type="submit" class="btn btn-primary">Create an upload pass</button>
        </form>
      ) : null}
    </div>
  );
}
