// The report viewer (issue 21, pages item 4), under /projects/{projectId}/reports:
// - the index: the project's completed surveys with their reports, newest first, cursor-paged;
// - a report: summary figures, the list sections paged (the API's offset in the address, at most 100
//   rows), search across sections (htmx swaps the matches in as one types), downloads;
// - its documents: render status, provenance, stale documents, render again and regenerate;
// - compare with another report of the same type (added, removed, moved, unchanged);
// - downloads streamed from the API through this host (the cookie is the browser's credential).
// Every read goes through the API's own paging or search: a 20,000-entry section is never fetched whole.
import { Hono } from 'hono';
import { api, ok } from '../../api';
import { ConfirmAction, Empty, Notice, PageTitle, Pager, Table, Tag, Time } from '../../components/common';
import { holds, type DashContext, type DashEnv } from '../../context';
import { formatCount, formatTime } from '../../format';
import { fragment, shellPage, wantsFragment } from '../../respond';
import {
  DOWNLOADS, offsetOf, openSection, PAGE_ROWS, paths, RENDERED_FORMATS, renderStatus, reportsOf, subjectOf, typeLabel, withQuery,
  type Comparison, type Download, type Entry, type Job, type JobPage, type Provenance, type SectionPage, type StaleDocument, type Summary,
} from './shape';
import { CompareList, Downloads, Figures, ProvenanceList, RenderTable, RESULTS_ID, SearchForm, SearchResults, SectionResults, SectionTabs, StaleNotice } from './views';

const AREA = 'Reports';
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const BASE = `/projects/:projectId{${UUID}}/reports`;
const REPORT = `${BASE}/:reportId{${UUID}}`;
const SURVEY_TYPES = 'INVENTORY_SURVEY,RUNTIME_SURVEY';
const INDEX_ROWS = 50;

const P = (c: DashContext) => `/api/v1/project/${c.var.frame.projectId}/v1`;
const reportIdOf = (c: DashContext) => c.req.param('reportId')!.toLowerCase();
const projectIdOf = (c: DashContext) => c.var.frame.projectId!;
const crumbs = (c: DashContext) => [{ href: paths(projectIdOf(c)).index, label: 'Reports' }];
const titleOf = (s: { subject: string; type: string }) => `${s.subject}: ${typeLabel(s.type)}`;

/** The results region of a report page: a section's page, or search matches (a fragment for htmx, or part of the page). */
async function results(c: DashContext, summary: Summary) {
  const q = (c.req.query('q') ?? '').trim().slice(0, 200);
  const offset = offsetOf(c.req.query('offset'));
  const section = openSection(summary, c.req.query('section'));
  if (q) {
    const matches = await api(c).get<Entry[]>(`${P(c)}/report/${summary.report_id}/search?query=${encodeURIComponent(q)}`);
    return { q, section, view: <SearchResults projectId={projectIdOf(c)} summary={summary} q={q} matches={matches} offset={offset} section={section} /> };
  }
  if (!section) return { q, section, view: <Empty><p>This report has no list sections.</p></Empty> };
  const page = await api(c).get<SectionPage>(`${P(c)}/report/${summary.report_id}/section/${encodeURIComponent(section)}?offset=${offset}&limit=${PAGE_ROWS}`);
  return {
    q, section,
    view: <SectionResults projectId={projectIdOf(c)} summary={summary} section={section} entries={page.entries} offset={offset} total={page.pagination.total} />,
  };
}

export const reportsRoutes = new Hono<DashEnv>()
  .get(BASE, async (c) => {
    const after = c.req.query('after');
    const before = c.req.query('before');
    const cursor = after && /^[0-9a-f-]{36}$/i.test(after) ? `&after=${after}` : before && /^[0-9a-f-]{36}$/i.test(before) ? `&before=${before}` : '';
    const page = await api(c).get<JobPage>(`${P(c)}/job?topLevel=true&jobType=${SURVEY_TYPES}&status=COMPLETED&limit=${INDEX_ROWS}${cursor}`);
    const projectId = projectIdOf(c);
    const p = paths(projectId);
    const surveys = page.jobs.filter((s) => reportsOf(s).length);
    // With `before` the API pages backwards: there is a newer page when it says more, and always an older one.
    const newer = before ? (page.pagination.hasMore ? page.pagination.firstId : null) : after ? page.pagination.firstId : null;
    const older = before ? page.pagination.lastId : page.pagination.hasMore ? page.pagination.lastId : null;
    return shellPage(c, { title: 'Reports', area: AREA }, (
      <>
        <PageTitle title="Reports" />
        <p>Each completed survey's reports, newest first. Open one to see its sections, search it, compare it and download its documents.</p>
        {surveys.length ? (
          <Table
            caption={`Completed surveys and their reports (${formatCount(page.pagination.total)} in all)`}
            rows={surveys}
            columns={[
              { label: 'Subject', cell: (s) => <><span class="wrap">{subjectOf(s)}</span>{s.tag ? <><br /><span class="small muted">{s.tag}</span></> : null}</> },
              { label: 'Survey', cell: (s) => s.type === 'RUNTIME_SURVEY' ? 'Runtime' : 'Inventory' },
              { label: 'Finished', cell: (s) => <Time iso={s.finished_at} timezone={c.var.frame.timezone} /> },
              {
                label: 'Reports',
                cell: (s) => (
                  <ul class="report-links">
                    {reportsOf(s).map((r) => <li><a href={paths(projectId, r.id).report}>{typeLabel(r.step_label ?? '')}</a>{headlineOf(r)}</li>)}
                  </ul>
                ),
              },
            ]}
          />
        ) : (
          <Empty>
            <p>No survey of this project has finished with reports yet.</p>
            <p>Upload a bundle (an SBOM or CBOM) with the CLI: <code>posture upload ./bom --project {projectId} --wait</code>, then come back here. <a href={`/projects/${projectId}/surveys`}>Surveys</a> shows the ones running.</p>
          </Empty>
        )}
        {newer || older ? (
          <Pager label="Pages of surveys" shown={`${formatCount(page.jobs.length)} surveys on this page`}
            previous={newer ? withQuery(p.index, { before: newer }) : null} next={older ? withQuery(p.index, { after: older }) : null} />
        ) : null}
      </>
    ));
  })
  .get(REPORT, async (c) => {
    const calls = api(c);
    const reportId = reportIdOf(c);
    const [summary, exports] = await Promise.all([
      calls.get<Summary>(`${P(c)}/report/${reportId}/summary`),
      wantsFragment(c) ? Promise.resolve(null) : calls.get<{ formats: string[] }>(`${P(c)}/report/${reportId}/export`),
    ]);
    const found = await results(c, summary);
    if (wantsFragment(c)) return fragment(c, found.view);
    const projectId = projectIdOf(c);
    return shellPage(c, { title: titleOf(summary), area: AREA }, (
      <>
        <PageTitle title={titleOf(summary)} crumbs={crumbs(c)}>
          <p class="muted">
            {summary.survey.type === 'RUNTIME_SURVEY' ? 'Runtime survey' : 'Inventory survey'}{summary.survey.tag ? ` “${summary.survey.tag}”` : ''}, produced <Time iso={summary.produced_at} timezone={c.var.frame.timezone} />.
          </p>
        </PageTitle>
        <Figures summary={summary} projectId={projectId} />
        <Downloads projectId={projectId} summary={summary} formats={exports?.formats ?? []} />
        <section aria-labelledby="entries-title">
          <h2 id="entries-title">Entries</h2>
          <SearchForm projectId={projectId} reportId={reportId} nonce={c.var.nonce} q={found.q} section={found.section} />
          <SectionTabs projectId={projectId} summary={summary} open={found.section} searching={Boolean(found.q)} />
          <div id={RESULTS_ID}>{found.view}</div>
        </section>
      </>
    ));
  })
  .get(`${REPORT}/documents`, async (c) => {
    const calls = api(c);
    const reportId = reportIdOf(c);
    const projectId = projectIdOf(c);
    const asked = c.req.query('format');
    const format = asked && (['json', ...RENDERED_FORMATS] as string[]).includes(asked) ? asked : 'json';
    const [renders, provenanceAnswer] = await Promise.all([
      calls.get<JobPage>(`${P(c)}/job?parentId=${reportId}&limit=100`),
      calls.try<Provenance>(`${P(c)}/report/${reportId}/export/${format}/provenance`),
    ]);
    // No provenance for json means no such report here (the 404 page); for a rendered format of a
    // report with render jobs, that it was not rendered yet.
    const provenance = provenanceAnswer.status === 404 && format !== 'json' && renders.jobs.length ? null : ok(provenanceAnswer);
    const status = renderStatus(renders.jobs);
    const isAdmin = holds(c.var.frame, 'project:admin');
    const canEdit = holds(c.var.frame, 'project:edit');
    const surveyId = provenance?.survey.id;
    const stale = isAdmin
      ? (await calls.get<StaleDocument[]>(`${P(c)}/projection/stale${surveyId ? `?parentId=${surveyId}` : ''}`)).filter((s) => s.report_id === reportId)
      : [];
    const type = provenance?.report.type ?? String(renders.jobs[0]?.metadata?.report_type ?? 'report');
    const title = provenance ? `Documents: ${titleOf(provenance.report)}` : `Documents of this ${typeLabel(type)} report`;
    const p = paths(projectId, reportId);
    const notice = c.req.query('done');
    const rendering = [...status.values()].some((s) => s.latest.status === 'PENDING' || s.latest.status === 'RUNNING');
    return shellPage(c, { title, area: AREA }, (
      <>
        <PageTitle title={title} crumbs={[...crumbs(c), { href: p.report, label: 'The report' }]} />
        {notice === 'rendering' ? <Notice kind="info" live>The documents are being rendered again; refresh this page to see them done.</Notice> : null}
        {notice === 'regenerated' ? (
          <Notice kind="info" live>
            A new version of this report is being produced by <a href={p.survey(/^[0-9a-f-]{36}$/i.test(c.req.query('survey') ?? '') ? c.req.query('survey')! : '')}>a new survey</a>, reusing the analysis. It appears under Reports once done; this version stays readable.
          </Notice>
        ) : null}
        {notice === 'refused' ? <Notice kind="warn" live>A new version of this report is already being produced or is ready: open it from Reports.</Notice> : null}
        <StaleNotice stale={stale} canRender={canEdit} />
        {rendering ? <p role="status">Rendering is under way. <a href={withQuery(p.documents, { format })}>Refresh</a></p> : null}
        <RenderTable projectId={projectId} reportId={reportId} status={status} timezone={c.var.frame.timezone} format={format} />
        <section aria-labelledby="provenance-title">
          <h2 id="provenance-title">Provenance of the {format === 'json' ? 'JSON report' : `${format.toUpperCase()} document`}</h2>
          {provenance ? <ProvenanceList provenance={provenance} projectId={projectId} timezone={c.var.frame.timezone} />
            : <Empty><p>The {format.toUpperCase()} document has not been rendered yet, so it has no provenance. {canEdit ? 'Render the documents again below.' : ''}</p></Empty>}
        </section>
        {canEdit ? (
          <section aria-labelledby="actions-title">
            <h2 id="actions-title">Actions</h2>
            <p>Rendering again writes the PDF, Excel, PowerPoint, HTML and CSV documents from this report as it is. Regenerating makes a new version of the report from the same upload, with today's analysis logic (the old version stays readable).</p>
            <div class="actions-row">
              <form method="post" action={p.render} class="inline">
                <button type="submit" class="btn btn-secondary btn-small">Render the documents again</button>
              </form>
              <ConfirmAction id="regenerate-report" action={p.regenerate} label="Regenerate the report" title="Regenerate this report?">
                <p>A new survey rebuilds this report from the upload it already has, reusing its analysis. This version stays readable.</p>
              </ConfirmAction>
            </div>
          </section>
        ) : null}
      </>
    ));
  })
  .get(`${REPORT}/compare`, async (c) => {
    const calls = api(c);
    const reportId = reportIdOf(c);
    const projectId = projectIdOf(c);
    const withId = /^[0-9a-f-]{36}$/i.test(c.req.query('with') ?? '') ? c.req.query('with')!.toLowerCase() : null;
    const [summary, surveys, comparison] = await Promise.all([
      calls.get<Summary>(`${P(c)}/report/${reportId}/summary`),
      calls.get<JobPage>(`${P(c)}/job?topLevel=true&jobType=${SURVEY_TYPES}&status=COMPLETED&limit=${PAGE_ROWS}`),
      withId ? calls.get<Comparison>(`${P(c)}/report/compare?from=${withId}&to=${reportId}`) : Promise.resolve(null),
    ]);
    const candidates = surveys.jobs.flatMap((s) => reportsOf(s).filter((r) => r.step_label === summary.type && r.id !== reportId).map((r) => ({ report: r, survey: s })));
    const p = paths(projectId, reportId);
    const list = (['added', 'removed', 'moved'] as const).find((l) => l === c.req.query('list')) ?? 'added';
    const offset = offsetOf(c.req.query('offset'));
    const title = `Compare: ${titleOf(summary)}`;
    const at = (l: string, o = 0) => withQuery(p.compare, { with: withId, list: l, offset: o || null });
    return shellPage(c, { title, area: AREA }, (
      <>
        <PageTitle title={title} crumbs={[...crumbs(c), { href: p.report, label: 'The report' }]} />
        <form method="get" action={p.compare} class="toolbar">
          <div class="field">
            <label class="label" for="compare-with">Baseline: the report to compare this one with</label>
            <select class="select" id="compare-with" name="with" required>
              {withId ? null : <option value="">Choose a {typeLabel(summary.type).toLowerCase()} report</option>}
              {candidates.map(({ report, survey }) => (
                <option value={report.id} selected={report.id === withId}>{subjectOf(survey)}{survey.tag ? ` (${survey.tag})` : ''}, {formatTime(survey.finished_at, c.var.frame.timezone)}</option>
              ))}
            </select>
          </div>
          <button type="submit" class="btn btn-secondary">Compare</button>
        </form>
        {!candidates.length ? <Empty><p>No other {typeLabel(summary.type).toLowerCase()} report among the latest {PAGE_ROWS} surveys to compare with. Upload another bundle of this subject to compare the two surveys.</p></Empty> : null}
        {comparison ? (
          <section aria-labelledby="comparison-title">
            <h2 id="comparison-title">From the baseline (<Time iso={comparison.from.produced_at} timezone={c.var.frame.timezone} />) to this report (<Time iso={comparison.to.produced_at} timezone={c.var.frame.timezone} />)</h2>
            <nav class="tabs" aria-label="Changes">
              {(['added', 'removed', 'moved'] as const).map((l) => (
                <a href={at(l)} aria-current={l === list ? 'page' : undefined}>{l === 'added' ? 'Added' : l === 'removed' ? 'Removed' : 'Moved'} <span class="tab-count">{formatCount(comparison[l].length)}</span></a>
              ))}
              <span class="tab-static">Unchanged <span class="tab-count">{formatCount(comparison.unchanged)}</span></span>
            </nav>
            <CompareList list={list} rows={comparison[list].slice(offset, offset + PAGE_ROWS)} offset={offset} total={comparison[list].length} href={(o) => at(list, o)} />
            <p><a href={withQuery(paths(projectId, withId!).compare, { with: reportId })}>Swap: compare the other way round</a></p>
          </section>
        ) : null}
      </>
    ));
  })
  .get(`${REPORT}/export/:format{${DOWNLOADS.join('|')}}`, async (c) => {
    const reportId = reportIdOf(c);
    const format = c.req.param('format') as Download;
    const path = format === 'cyclonedx' ? `${P(c)}/report/${reportId}` : `${P(c)}/report/${reportId}/export/${format}`;
    const res = await api(c).stream(path);
    const filename = format === 'cyclonedx' ? 'report.cdx.json' : `report.${format}`;
    // The body is passed on as it streams from storage; never read here.
    const headers = new Headers({
      'content-type': res.headers.get('content-type') ?? 'application/octet-stream',
      'content-disposition': res.headers.get('content-disposition') ?? `attachment; filename="${filename}"`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      // A downloaded HTML document is never run as this origin's page.
      'content-security-policy': "default-src 'none'; sandbox",
    });
    const length = res.headers.get('content-length');
    if (length) headers.set('content-length', length);
    return new Response(res.body, { status: 200, headers });
  })
  .post(`${REPORT}/render`, async (c) => {
    await api(c).must('POST', `${P(c)}/report/${reportIdOf(c)}/render`);
    return c.redirect(withQuery(paths(projectIdOf(c), reportIdOf(c)).documents, { done: 'rendering' }), 303);
  })
  .post(`${REPORT}/regenerate`, async (c) => {
    const answer = await api(c).send<{ job_id: string; supersedes: string }>('POST', `${P(c)}/report/${reportIdOf(c)}/regenerate`);
    const documents = paths(projectIdOf(c), reportIdOf(c)).documents;
    if (answer.status === 409) return c.redirect(withQuery(documents, { done: 'refused' }), 303);
    const { job_id } = ok(answer);
    return c.redirect(withQuery(documents, { done: 'regenerated', survey: job_id }), 303);
  });

/** A step's headline in a few words (pqc-inventory: red count; composition: critical findings), for the index. */
function headlineOf(step: Job) {
  const figures = (step.metadata?.figures ?? {}) as { sections?: Record<string, number>; severities?: Record<string, number>; asset_types?: Record<string, number> };
  if (figures.sections) return <span class="small muted"> · {formatCount(figures.sections.red ?? 0)} red, {formatCount(figures.sections.yellow ?? 0)} yellow</span>;
  if (figures.severities) return <span class="small muted"> · {formatCount(figures.severities.critical ?? 0)} critical, {formatCount(figures.severities.high ?? 0)} high</span>;
  if (figures.asset_types) return <span class="small muted"> · {formatCount(Object.values(figures.asset_types).reduce((a, b) => a + b, 0))} assets</span>;
  return null;
}
