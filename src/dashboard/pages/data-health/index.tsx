// Data health (spec 4.12): how well the project's subjects are being analysed. The area's page shows the
// per-subject summary, the runs with their filters (cursor paging in the URL) and a resolve box; a run and
// a subject have their own pages at the deep-link paths docs/decisions.md promises (and resolve answers):
// `/projects/{projectId}/data-health/runs/{runId}` (`?step=` for a step) and
// `/projects/{projectId}/data-health/subjects/{subject}`. Read-only: nothing here changes data.
import { Hono } from 'hono';
import { api, messageOf, ok } from '../../api';
import { Empty, Notice, PageTitle, Tag } from '../../components/common';
import type { DashContext, DashEnv } from '../../context';
import { formatCount } from '../../format';
import { fragment, messageResponse, shellPage, wantsFragment } from '../../respond';
import {
  dataHealthPath, isUuid, runFiltersOf, runPages, runQuery, runsHref, safeDeepLink, subjectPath, SUBJECTS_PAGE,
  type HealthRun, type Resolved, type RunFilters, type RunPage, type Summary, type SurveyJob,
} from './model';
import { ResolveBox, RunFacts, RunFiltersForm, RunList, StepNotice, StepsTable, SummaryTable } from './views';

const AREA = 'Data health';
const P = (projectId: string) => `/api/v1/project/${projectId}`;

const filtered = (f: RunFilters, withSubject: boolean) => Boolean((withSubject && f.subject) || f.status || f.deleted || f.after || f.before);

function runList(c: DashContext, projectId: string, base: string, filters: RunFilters, page: RunPage, fixedSubject: boolean) {
  const pages = runPages(filters, page.pagination, (cursor) => runsHref(base, filters, cursor, fixedSubject));
  return (
    <RunList
      nonce={c.var.nonce} projectId={projectId} page={page} timezone={c.var.frame.timezone} pages={pages}
      caption={fixedSubject ? `Runs of ${filters.subject}` : 'Runs, one per survey'} filtered={filtered(filters, !fixedSubject)}
    />
  );
}

/** The area's page: summary, resolve box, runs; `resolve` carries a reference that matched nothing. */
async function overview(c: DashContext, resolve?: { value: string; error: string; status: 400 | 404 }) {
  const projectId = c.var.frame.projectId!;
  const base = dataHealthPath(projectId);
  const filters = runFiltersOf(new URL(c.req.url));
  const calls = api(c);
  if (wantsFragment(c) && !resolve) {
    return fragment(c, runList(c, projectId, base, filters, await calls.get<RunPage>(`${P(projectId)}/v1/data-health/run?${runQuery(filters)}`), false));
  }
  const [summary, runs] = await Promise.all([
    calls.get<Summary>(`${P(projectId)}/v1/data-health/summary`),
    calls.get<RunPage>(`${P(projectId)}/v1/data-health/run?${runQuery(filters)}`),
  ]);
  const subjectPage = Math.max(1, Math.floor(Number(new URL(c.req.url).searchParams.get('spage')) || 1));
  const shown = summary.subjects.slice((subjectPage - 1) * SUBJECTS_PAGE, subjectPage * SUBJECTS_PAGE);
  const subjectsHref = (n: number) => {
    const url = new URL(c.req.url);
    url.searchParams.set('spage', String(n));
    return `${url.pathname}${url.search}`;
  };
  const failing = summary.subjects.filter((s) => s.latest_outcome === 'failed').length;
  return shellPage(c, { title: AREA, area: AREA, status: resolve?.status }, (
    <>
      <PageTitle title={AREA}>
        <p class="muted">How well each subject is being analysed: its latest run, the kinds of evidence that ran, and how much each run found against the one before.</p>
      </PageTitle>
      <ResolveBox action={`${base}/resolve`} value={resolve?.value} error={resolve?.error} />
      <h2 id="subjects">Subjects</h2>
      {summary.subjects.length ? (
        <>
          <p>
            {formatCount(summary.subjects.length)} {summary.subjects.length === 1 ? 'subject' : 'subjects'}
            {failing ? <>; <Tag value="failed" label={`${failing} with a failed latest run`} /></> : null}.
          </p>
          <SummaryTable projectId={projectId} subjects={shown} timezone={c.var.frame.timezone} caption="Data health by subject" />
          {summary.subjects.length > SUBJECTS_PAGE ? (
            <nav class="pager" aria-label="Pages of subjects">
              <span>{`Subjects ${(subjectPage - 1) * SUBJECTS_PAGE + 1} to ${(subjectPage - 1) * SUBJECTS_PAGE + shown.length} of ${formatCount(summary.subjects.length)}`}</span>
              <span class="actions-inline">
                {subjectPage > 1 ? <a href={subjectsHref(subjectPage - 1)} rel="prev">Previous subjects</a> : null}
                {subjectPage > 1 && subjectPage * SUBJECTS_PAGE < summary.subjects.length ? ' · ' : null}
                {subjectPage * SUBJECTS_PAGE < summary.subjects.length ? <a href={subjectsHref(subjectPage + 1)} rel="next">Next subjects</a> : null}
              </span>
            </nav>
          ) : null}
        </>
      ) : (
        <Empty><p>No subject has a finished run yet. Upload a bundle with the CLI (see Surveys): once its analysis finishes, its subject shows here.</p></Empty>
      )}
      <h2 id="runs">Runs</h2>
      <RunFiltersForm nonce={c.var.nonce} action={base} filters={filters} withSubject />
      {runList(c, projectId, base, filters, runs, false)}
    </>
  ));
}

/**
 * One run's data-health row, by the API's own cursors (there is no single-run read): the run just before
 * it in the newest-first order (the next newer one), then the one after that, which is the run itself.
 */
async function healthRunOf(c: DashContext, projectId: string, runId: string, newer: RunPage): Promise<HealthRun | null> {
  const neighbour = newer.runs[0]?.id;
  const page = await api(c).get<RunPage>(`${P(projectId)}/v1/data-health/run?${new URLSearchParams({ limit: '1', showDeleted: 'true', ...(neighbour ? { after: neighbour } : {}) })}`);
  return page.runs[0]?.id === runId ? page.runs[0] : null;
}

const notFound = (c: DashContext) => messageResponse(c, { title: 'Not found', status: 404, message: 'There is nothing at this address that you can see.', retryHref: '/' });

export const dataHealthRoutes = new Hono<DashEnv>()
  .get('/projects/:projectId/data-health', (c) => overview(c))
  .get('/projects/:projectId/data-health/resolve', async (c) => {
    const projectId = c.var.frame.projectId!;
    const ref = (c.req.query('ref') ?? '').trim();
    if (!ref) return overview(c, { value: '', error: 'Enter a reference: a run or step id, an upload id, an idempotency key, a tag or a CI run id.', status: 400 });
    const answer = await api(c).try<Resolved>(`${P(projectId)}/v1/data-health/resolve?${new URLSearchParams({ ref })}`);
    if (answer.status === 404) return overview(c, { value: ref, error: `Nothing in this project matches “${ref}”. Check it, or look for it in the runs below.`, status: 404 });
    if (answer.status === 400) return overview(c, { value: ref, error: messageOf(answer), status: 400 });
    const resolved = ok(answer);
    return c.redirect(safeDeepLink(projectId, resolved.deep_link) ?? dataHealthPath(projectId), 303);
  })
  .get('/projects/:projectId/data-health/runs/:runId', async (c) => {
    const projectId = c.var.frame.projectId!;
    const runId = c.req.param('runId').toLowerCase();
    if (!isUuid(runId)) return notFound(c);
    const step = c.req.query('step');
    const calls = api(c);
    const [survey, newer] = await Promise.all([
      calls.try<SurveyJob>(`${P(projectId)}/v1/job/${runId}`),
      calls.try<RunPage>(`${P(projectId)}/v1/data-health/run?${new URLSearchParams({ limit: '1', showDeleted: 'true', before: runId })}`),
    ]);
    // A cursor that names no run is the API's 400: for a page address, that is "not found".
    if (newer.status === 400 || survey.status === 404) return notFound(c);
    const job = ok(survey);
    const run = await healthRunOf(c, projectId, runId, ok(newer));
    const timezone = c.var.frame.timezone;
    return shellPage(c, { title: `Run ${runId.slice(0, 8)}`, area: AREA }, (
      <>
        <PageTitle title={<>Run <span class="mono wrap">{runId}</span></>} crumbs={[{ href: dataHealthPath(projectId), label: AREA }, ...(run?.subject ? [{ href: subjectPath(projectId, run.subject), label: run.subject }] : [])]}>
          <p class="muted">One survey's analysis: what it found, against the subject's previous run of the same kind. <a href={`/projects/${projectId}/surveys/${runId}`}>The survey's page</a> has its bundle and reports.</p>
        </PageTitle>
        <StepNotice survey={job} step={step} />
        {run ? <RunFacts projectId={projectId} run={run} timezone={timezone} /> : <Notice kind="info">This survey has no data-health record yet.</Notice>}
        <h2>Steps</h2>
        <StepsTable survey={job} step={step} timezone={timezone} />
      </>
    ));
  })
  .get('/projects/:projectId/data-health/subjects/:subject', async (c) => {
    const projectId = c.var.frame.projectId!;
    const subject = c.req.param('subject');
    const base = subjectPath(projectId, subject);
    const filters = runFiltersOf(new URL(c.req.url), subject);
    const calls = api(c);
    if (wantsFragment(c)) return fragment(c, runList(c, projectId, base, filters, await calls.get<RunPage>(`${P(projectId)}/v1/data-health/run?${runQuery(filters)}`), true));
    const [summary, runs] = await Promise.all([
      calls.get<Summary>(`${P(projectId)}/v1/data-health/summary`),
      calls.get<RunPage>(`${P(projectId)}/v1/data-health/run?${runQuery(filters)}`),
    ]);
    const row = summary.subjects.find((s) => s.subject === subject);
    if (!row && !runs.runs.length && !filtered(filters, false)) return notFound(c);
    return shellPage(c, { title: `Data health of ${subject}`, area: AREA }, (
      <>
        <PageTitle title={<>Data health of <span class="wrap">{subject}</span></>} crumbs={[{ href: dataHealthPath(projectId), label: AREA }]} />
        {row ? (
          <SummaryTable projectId={projectId} subjects={[row]} timezone={c.var.frame.timezone} caption={`Latest finished run of ${subject}`} />
        ) : (
          <Notice kind="info">{subject} has no finished run yet: its runs are listed below as they go.</Notice>
        )}
        <h2 id="runs">Runs</h2>
        <RunFiltersForm nonce={c.var.nonce} action={base} filters={filters} withSubject={false} />
        {runList(c, projectId, base, filters, runs, true)}
      </>
    ));
  });
