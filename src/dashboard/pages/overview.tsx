// A project's overview (issue 21, pages 2): its latest surveys, its portfolios' scores per axis with
// their bands (the list answer carries them, so one call whatever the number of portfolios), and a
// data-health summary, each linking on. Three calls side by side; the portfolio and data-health ones
// only for people holding project:portfolio:view. A project still being set up says so and refreshes.
import { Hono } from 'hono';
import { api, ok as answered, type ApiAnswer, type ApiErrorBody } from '../api';
import { Empty, Notice, PageTitle, Tag, Time } from '../components/common';
import { holds, type DashContext, type DashEnv } from '../context';
import { formatCount } from '../format';
import { shellPage } from '../respond';
import { isSurvey, jobName, Status, StepList, UploadHelp, type JobPage } from './surveys/views';

type Band = string | null;
interface Score { score: number | null; band: Band }
interface PortfolioEntry {
  portfolio_id: string; name: string; is_implicit: boolean; scoring: 'unscored' | 'rescoring' | 'scored';
  score: number | null; band: Band; axes: { pqc: Score; vuln: Score; agility: Score } | null; scored_at: string | null; members: unknown[];
}
interface SubjectHealth { subject: string; last_analyzed_at: string | null; latest_outcome: 'complete' | 'partial' | 'failed' | null; latest_status: string; latest_run_id: string; completeness: { ratio: number | null } }
interface HealthSummary { subjects: SubjectHealth[]; generated_at: string }

const LATEST = 5;
const AXES = [['pqc', 'Post-quantum'], ['vuln', 'Vulnerabilities'], ['agility', 'Crypto-agility']] as const;
/** A project's data answers 503 with these while it is being set up. */
const NOT_READY = new Set(['provisioning', 'starting']);
const codeOf = (answer: ApiAnswer<unknown>) => (answer.body as ApiErrorBody | null)?.code;
const ok = (answer: ApiAnswer<unknown>) => answer.status >= 200 && answer.status < 300;

function ScoreCell(props: { score: Score | null | undefined }) {
  if (!props.score || props.score.score == null) return <span class="muted">No score</span>;
  return <>{props.score.score} <Tag value={props.score.band} /></>;
}

function Portfolios(props: { projectId: string; answer: ApiAnswer<{ portfolios: PortfolioEntry[] }>; timezone: string }) {
  const base = `/projects/${props.projectId}/portfolios`;
  if (props.answer.status === 404) return <Empty><p>Portfolios are not set up for this project.</p></Empty>;
  if (!ok(props.answer)) return <Notice kind="warn">The portfolios could not be read just now ({props.answer.status}). <a href={base}>Open portfolios</a></Notice>;
  const portfolios = props.answer.body.portfolios;
  return (
    <div class="table-box">
      <table>
        <caption>Portfolio scores per axis (0 to 100, higher is better)</caption>
        <thead>
          <tr><th scope="col">Portfolio</th><th scope="col">Overall</th>{AXES.map(([, label]) => <th scope="col">{label}</th>)}<th scope="col">Scored</th></tr>
        </thead>
        <tbody>
          {portfolios.map((p) => (
            <tr>
              <th scope="row"><a href={`${base}/${p.portfolio_id}`} class="wrap">{p.name}</a>{p.is_implicit ? <span class="muted small"> (every subject)</span> : null}</th>
              <td><ScoreCell score={p} /></td>
              {AXES.map(([axis]) => <td><ScoreCell score={p.axes?.[axis]} /></td>)}
              <td>{p.scoring === 'scored' ? <Time iso={p.scored_at} timezone={props.timezone} /> : <Tag value={p.scoring} label={p.scoring === 'unscored' ? 'being scored' : 'being rescored'} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DataHealth(props: { projectId: string; answer: ApiAnswer<HealthSummary>; timezone: string }) {
  const href = `/projects/${props.projectId}/data-health`;
  if (props.answer.status === 404) return <Empty><p>Data health is not set up for this project.</p></Empty>;
  if (!ok(props.answer)) return <Notice kind="warn">Data health could not be read just now ({props.answer.status}). <a href={href}>Open data health</a></Notice>;
  const subjects = props.answer.body.subjects;
  if (!subjects.length) return <Empty><p>No subject has been analysed yet: data health appears once a survey finds its subject. <a href={href}>Open data health</a></p></Empty>;
  const count = (outcome: string | null) => subjects.filter((s) => s.latest_outcome === outcome).length;
  const shrunk = subjects.filter((s) => s.completeness.ratio != null && s.completeness.ratio < 0.9).length;
  const latest = subjects.map((s) => s.last_analyzed_at).filter((t): t is string => Boolean(t)).sort().at(-1);
  const figures: [string, number][] = [['Subjects', subjects.length], ['Latest run complete', count('complete')], ['Latest run partial', count('partial')], ['Latest run failed', count('failed')], ['Found under 90% of the run before', shrunk]];
  return (
    <>
      <div class="grid">
        {figures.map(([label, n]) => (
          <div class="panel"><p class="figure">{formatCount(n)}</p><p class="figure-label">{label}</p></div>
        ))}
      </div>
      <p>Last analysed: <Time iso={latest} timezone={props.timezone} />. <a href={href}>Data health of every subject</a></p>
    </>
  );
}

async function overview(c: DashContext) {
  const { frame } = c.var;
  const projectId = frame.projectId!;
  const P = `/api/v1/project/${projectId}`;
  const calls = api(c);
  const scores = holds(frame, 'project:portfolio:view');
  const [jobs, portfolios, health] = await Promise.all([
    calls.try<JobPage>(`${P}/v1/job?topLevel=true&jobType=INVENTORY_SURVEY,RUNTIME_SURVEY&limit=${LATEST}`),
    scores ? calls.try<{ portfolios: PortfolioEntry[] }>(`${P}/v1/portfolio`) : null,
    scores ? calls.try<HealthSummary>(`${P}/v1/data-health/summary`) : null,
  ]);
  const project = frame.projects.find((p) => p.id === projectId);
  const title = project?.name ?? 'Project';
  if (!ok(jobs) && NOT_READY.has(codeOf(jobs) ?? '')) {
    return shellPage(c, { title, area: 'Overview', headers: { Refresh: '5' } }, (
      <>
        <PageTitle title={title} />
        <Notice kind="info" live>This project is being set up; this page refreshes itself in a few seconds.</Notice>
      </>
    ));
  }
  // Any other refusal is the error page.
  const surveys = answered(jobs).jobs;
  const surveysHref = `/projects/${projectId}/surveys`;
  return shellPage(c, { title: 'Overview', area: 'Overview' }, (
    <>
      <PageTitle title={title}>
        <p class="muted">Project overview</p>
      </PageTitle>
      <h2 id="latest-surveys">Latest surveys</h2>
      {surveys.length ? (
        <>
          <div class="table-box">
            <table>
              <caption class="visually-hidden">The latest {surveys.length} surveys</caption>
              <thead><tr><th scope="col">Survey</th><th scope="col">Status</th><th scope="col">Steps</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {surveys.filter(isSurvey).map((s) => (
                  <tr>
                    <th scope="row"><a href={`${surveysHref}/${s.id}`} class="wrap">{jobName(s)}</a></th>
                    <td><Status job={s} /></td>
                    <td><StepList steps={s.steps ?? []} /></td>
                    <td><Time iso={s.created_at} timezone={frame.timezone} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p><a href={surveysHref}>All {formatCount(jobs.body.pagination.total)} surveys and the other jobs</a></p>
        </>
      ) : (
        <UploadHelp projectId={projectId} apiUrl={c.env.API_URL} mayCreatePass={holds(frame, 'project:edit')} />
      )}
      {portfolios ? (
        <>
          <h2 id="portfolio-scores">Portfolio scores</h2>
          <Portfolios projectId={projectId} answer={portfolios} timezone={frame.timezone} />
          <p><a href={`/projects/${projectId}/portfolios`}>All portfolios, their history and ranked fixes</a></p>
        </>
      ) : null}
      {health ? (
        <>
          <h2 id="data-health">Data health</h2>
          <DataHealth projectId={projectId} answer={health} timezone={frame.timezone} />
        </>
      ) : null}
    </>
  ));
}

export const overviewRoutes = new Hono<DashEnv>().get('/projects/:projectId{[0-9a-fA-F-]{36}}', (c) => overview(c));
