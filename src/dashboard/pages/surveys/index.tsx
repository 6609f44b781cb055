// Surveys and jobs (issue 21, pages 3): the list filtered by type, status and deleted (a GET form, the
// values and the API's cursors in the address), updated live from the job stream (live.tsx); a job's
// page with its steps, bundle, regenerate, delete and restore; the bundles list; and, for an empty
// project, the CLI command with a button that creates an upload pass (its secret shown once).
import { Hono } from 'hono';
import { api, messageOf, ok } from '../../api';
import { Notice, PageTitle, Pager } from '../../components/common';
import { hx } from '../../components/shell';
import { holds, type DashContext, type DashEnv } from '../../context';
import { formatCount } from '../../format';
import { shellPage } from '../../respond';
import { formOf } from '../form';
import { BundlesTable, type BundlePage } from './bundles';
import { liveStream } from './live';
import { JobPageView, type JobNotice } from './job';
import {
  apiQuery, cliLine, cursorLinks, filtersOf, isSurvey, JOB_COLUMNS, JOB_STATUSES, JOB_TYPES, JobRow, pageQuery, typeLabel, UploadHelp,
  PAGE_SIZE, type Filters, type Job, type JobPage,
} from './views';
import { UUID_PATTERN } from '../../../lib/ids';

const ID = '{[0-9a-fA-F-]{36}}';
const P = (projectId: string) => `/api/v1/project/${projectId}`;

function FilterForm(props: { action: string; filters: Filters }) {
  const f = props.filters;
  return (
    <form method="get" action={props.action} class="toolbar" aria-label="Filter jobs">
      <div class="field">
        <label class="label" for="filter-type">Type</label>
        <select class="select" id="filter-type" name="type">
          <option value="" selected={!f.type}>Any type</option>
          <option value="SURVEYS" selected={f.type === 'SURVEYS'}>Surveys (inventory and runtime)</option>
          {JOB_TYPES.map((t) => <option value={t} selected={f.type === t}>{typeLabel(t)}</option>)}
        </select>
      </div>
      <div class="field">
        <label class="label" for="filter-status">Status</label>
        <select class="select" id="filter-status" name="status">
          <option value="" selected={!f.status}>Any status</option>
          {JOB_STATUSES.map((s) => <option value={s} selected={f.status === s}>{s}</option>)}
        </select>
      </div>
      <div class="field check">
        <input type="checkbox" id="filter-deleted" name="deleted" value="1" checked={f.deleted} />
        <label for="filter-deleted">Include deleted surveys</label>
      </div>
      {f.limit !== PAGE_SIZE ? <input type="hidden" name="limit" value={String(f.limit)} /> : null}
      <button type="submit" class="btn btn-secondary">Apply</button>
    </form>
  );
}

async function listPage(c: DashContext) {
  const { frame, nonce } = c.var;
  const projectId = frame.projectId!;
  const filters = filtersOf((name) => c.req.query(name));
  const page = await api(c).get<JobPage>(`${P(projectId)}/v1/job?${apiQuery(filters)}`);
  const base = `/projects/${projectId}/surveys`;
  const links = cursorLinks(page.pagination, filters, (cursor) => `${base}${pageQuery(filters, cursor)}`);
  const firstPage = !filters.after && !filters.before;
  const live = new URLSearchParams(pageQuery(filters).slice(1));
  if (firstPage && page.jobs[0]) live.set('newest', page.jobs[0].id);
  else if (firstPage) live.set('newest', '00000000-0000-0000-0000-000000000000');
  const unfiltered = !filters.type && !filters.status && !filters.deleted && firstPage;
  // No survey yet (a new project has only its set-up job): say how to upload one.
  const noSurveys = unfiltered && !page.pagination.hasMore && !page.jobs.some(isSurvey);
  return shellPage(c, { title: 'Surveys and jobs', area: 'Surveys' }, (
    <>
      <PageTitle title="Surveys and jobs">
        <p class="muted">Every survey with its steps, and the project's other jobs, newest first. <a href={`/projects/${projectId}/bundles`}>Uploaded bundles</a></p>
      </PageTitle>
      <FilterForm action={base} filters={filters} />
      <p class="small muted">This list follows the jobs as they change. <span id="jobs-live" aria-live="polite" {...hx(nonce, { 'hx-sse:connect': `${base}/live?${live}` })}></span></p>
      <div class="table-box">
        <table>
          <caption>Jobs ({formatCount(page.pagination.total)}{filters.type || filters.status || filters.deleted ? ', filtered' : ''})</caption>
          <thead><tr>{JOB_COLUMNS.map((label) => <th scope="col">{label}</th>)}</tr></thead>
          <tbody id="jobs-rows">
            {page.jobs.map((job) => <JobRow job={job} projectId={projectId} timezone={frame.timezone} />)}
          </tbody>
          {page.jobs.length ? null : (
            <tbody id="jobs-empty">
              <tr><td colspan={JOB_COLUMNS.length}>{unfiltered ? 'No jobs yet.' : <>No job matches these filters. <a href={base}>Show every job</a></>}</td></tr>
            </tbody>
          )}
        </table>
      </div>
      <Pager shown={`${formatCount(page.jobs.length)} of ${formatCount(page.pagination.total)} shown`} previous={links.previous} next={links.next} label="Pages of jobs" />
      {noSurveys ? <UploadHelp projectId={projectId} apiUrl={c.env.API_URL} mayCreatePass={holds(frame, 'project:edit')} /> : null}
    </>
  ));
}

async function jobPage(c: DashContext, jobId: string, notice?: JobNotice) {
  const { frame } = c.var;
  const projectId = frame.projectId!;
  const job = await api(c).get<Job>(`${P(projectId)}/v1/job/${jobId}`);
  const done = c.req.query('done');
  return shellPage(c, { title: 'Survey', area: 'Surveys', status: notice?.kind === 'error' ? 400 : 200 }, (
    <JobPageView job={job} projectId={projectId} frame={frame} nonce={c.var.nonce} notice={notice ?? (done ? { kind: 'info', text: DONE[done] ?? '' } : undefined)} />
  ));
}

const DONE: Record<string, string> = {
  regenerated: 'A new survey was started from the same bundle; it replaces the one it names.',
  deleted: 'The survey was deleted: it is hidden from the list unless deleted surveys are included.',
  restored: 'The survey was restored.',
};

async function bundlesPage(c: DashContext) {
  const { frame } = c.var;
  const projectId = frame.projectId!;
  const after = c.req.query('after');
  const before = c.req.query('before');
  const cursor = { after: after && UUID_PATTERN.test(after) ? after : undefined, before: !after && before && UUID_PATTERN.test(before) ? before : undefined };
  const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (cursor.after) q.set('after', cursor.after);
  if (cursor.before) q.set('before', cursor.before);
  const page = await api(c).get<BundlePage>(`${P(projectId)}/v1/bundle?${q}`);
  const base = `/projects/${projectId}/bundles`;
  const links = cursorLinks(page.pagination, cursor, (next) => `${base}?${new URLSearchParams(next as Record<string, string>)}`);
  return shellPage(c, { title: 'Bundles', area: 'Surveys' }, (
    <>
      <PageTitle title="Uploaded bundles" crumbs={[{ href: `/projects/${projectId}/surveys`, label: 'Surveys' }]}>
        <p class="muted">What the upload client sent, newest first. Each bundle started the survey it names.</p>
      </PageTitle>
      {page.bundles.length ? (
        <>
          <BundlesTable bundles={page.bundles} projectId={projectId} timezone={frame.timezone} total={page.pagination.total} />
          <Pager shown={`${formatCount(page.bundles.length)} of ${formatCount(page.pagination.total)} shown`} previous={links.previous} next={links.next} label="Pages of bundles" />
        </>
      ) : (
        <UploadHelp projectId={projectId} apiUrl={c.env.API_URL} mayCreatePass={holds(frame, 'project:edit')}>
          <p>No bundle was uploaded to this project yet. Upload one with the <code>posture</code> command-line client:</p>
        </UploadHelp>
      )}
    </>
  ));
}

interface CreatedPass { jti: string; jwt: string; expiresAt: string }

export const surveyRoutes = new Hono<DashEnv>()
  .get(`/projects/:projectId${ID}/surveys`, (c) => listPage(c))
  .get(`/projects/:projectId${ID}/surveys/live`, (c) => {
    const newest = c.req.query('newest');
    const job = c.req.query('job');
    return liveStream(c, {
      projectId: c.var.frame.projectId!, filters: filtersOf((name) => c.req.query(name)),
      newest: newest && UUID_PATTERN.test(newest) ? newest.toLowerCase() : null, jobId: job && UUID_PATTERN.test(job) ? job.toLowerCase() : undefined,
    });
  })
  .get(`/projects/:projectId${ID}/surveys/:jobId${ID}`, (c) => jobPage(c, c.req.param('jobId').toLowerCase()))
  .post(`/projects/:projectId${ID}/surveys/:jobId${ID}/regenerate`, async (c) => {
    const jobId = c.req.param('jobId').toLowerCase();
    const { key = '', analyze } = await formOf(c);
    // The form's own key: sending it twice starts one survey.
    const headers = { 'idempotency-key': UUID_PATTERN.test(key) ? key : crypto.randomUUID() };
    const answer = await api(c).send<{ parent_id: string }>('POST', `${P(c.var.frame.projectId!)}/v1/survey/${jobId}/regenerate`, analyze === '1' ? {} : undefined, headers);
    if (answer.status === 400) return jobPage(c, jobId, { kind: 'error', text: messageOf(answer) });
    return c.redirect(`/projects/${c.var.frame.projectId}/surveys/${ok(answer).parent_id}?done=regenerated`, 303);
  })
  .post(`/projects/:projectId${ID}/surveys/:jobId${ID}/delete`, async (c) => {
    const jobId = c.req.param('jobId').toLowerCase();
    const answer = await api(c).send('DELETE', `${P(c.var.frame.projectId!)}/v1/survey/${jobId}`);
    if (answer.status === 400) return jobPage(c, jobId, { kind: 'error', text: messageOf(answer) });
    ok(answer);
    return c.redirect(`/projects/${c.var.frame.projectId}/surveys/${jobId}?done=deleted`, 303);
  })
  .post(`/projects/:projectId${ID}/surveys/:jobId${ID}/restore`, async (c) => {
    const jobId = c.req.param('jobId').toLowerCase();
    const answer = await api(c).send('POST', `${P(c.var.frame.projectId!)}/v1/survey/${jobId}/restore`);
    if (answer.status === 400) return jobPage(c, jobId, { kind: 'error', text: messageOf(answer) });
    ok(answer);
    return c.redirect(`/projects/${c.var.frame.projectId}/surveys/${jobId}?done=restored`, 303);
  })
  .get(`/projects/:projectId${ID}/bundles`, (c) => bundlesPage(c))
  // An upload pass for the CLI: its secret is on this answer only (no redirect could carry it).
  .post(`/projects/:projectId${ID}/upload-pass`, async (c) => {
    const projectId = c.var.frame.projectId!;
    const created = await api(c).must<CreatedPass>('POST', `${P(projectId)}/credential/spice-pass`, { name: 'Dashboard upload pass' });
    return shellPage(c, { title: 'Upload pass', area: 'Surveys' }, (
      <>
        <PageTitle title="Your upload pass" crumbs={[{ href: `/projects/${projectId}/surveys`, label: 'Surveys' }]} />
        <Notice kind="warn">Copy it now: it is shown this once and cannot be read again. It expires {created.expiresAt.slice(0, 10)}; cancel it under Credentials.</Notice>
        <div class="field">
          <label class="label" for="upload-pass">Upload pass</label>
          <div class="secret">
            <input class="input value" id="upload-pass" readonly value={created.jwt} />
            <button type="button" class="btn btn-secondary" data-copy="upload-pass">Copy</button>
          </div>
          <p class="small" id="upload-pass-copied" aria-live="polite"></p>
        </div>
        <h2>Upload with it</h2>
        <pre><code>{cliLine(c.env.API_URL, projectId, created.jwt)}</code></pre>
        <p>Prefer setting <code>POSTURE_PASS</code> in your CI's secrets over putting the pass on a command line. The new survey appears on <a href={`/projects/${projectId}/surveys`}>the surveys page</a> as it runs.</p>
      </>
    ));
  });

