// Portfolios (issue 21, page 5): the list and the create form; a portfolio's state per axis, its
// costliest findings, the per-subject breakdown and its score history (a chart per axis and the same
// numbers as a table); its members (rename, add, remove, delete). Ranked fixes are in fixes.tsx. Every
// list is paged in the URL (a portfolio may hold 1,000 subjects).
import { Hono } from 'hono';
import { api, codeOf, messageOf, ok } from '../../api';
import { Notice, PageTitle, Tag, Time } from '../../components/common';
import { holds, type DashContext, type DashEnv } from '../../context';
import { shellPage } from '../../respond';
import {
  membersOf, offsetOf, portfolioApi, portfolioHref, scoreText,
  type HistoryRow, type Portfolio, type PortfolioEntry, type State,
} from './data';
import { fixesRoutes } from './fixes';
import { formOf } from '../form';
import {
  AxisTable, CostliestTable, CreatePortfolioForm, HistorySection, historyTableRows, MembersEditor, pageLinks,
  PortfolioList, shownText, SubjectBreakdown,
} from './views';

const AREA = 'Portfolios';
const LIST_SIZE = 100;
const SUBJECTS_SIZE = 50;
const HISTORY_SIZE = 50;
const MEMBERS_SIZE = 100;
const NOT_YET = new Set(['unscored', 'rescoring']);

const projectOf = (c: DashContext) => c.var.frame.projectId!;

async function listPage(c: DashContext, input: { name?: string; members?: string; errors?: { name?: string; members?: string } } = {}) {
  const projectId = projectOf(c);
  const { portfolios } = await api(c).get<{ portfolios: PortfolioEntry[] }>(portfolioApi(projectId));
  const offset = Math.min(offsetOf(c.req.query('offset')), Math.max(0, portfolios.length - 1));
  const page = portfolios.slice(offset, offset + LIST_SIZE);
  const path = portfolioHref(projectId);
  const links = pageLinks(path, [], 'offset', offset, LIST_SIZE, portfolios.length);
  return shellPage(c, { title: 'Portfolios', area: AREA, status: input.errors ? 400 : 200 }, (
    <>
      <PageTitle title="Portfolios" />
      <p>A portfolio is a set of subjects (and packages) scored together on three axes: post-quantum cryptography (pqc), known vulnerabilities (vuln) and crypto agility.</p>
      <PortfolioList projectId={projectId} portfolios={page} timezone={c.var.frame.timezone} shown={shownText(offset, page.length, portfolios.length, 'portfolios')} {...links} />
      {holds(c.var.frame, 'project:edit') ? <CreatePortfolioForm action={path} name={input.name} members={input.members} errors={input.errors} /> : null}
    </>
  ));
}

async function membersPage(c: DashContext, input: { errors?: { name?: string; member?: string }; name?: string; member?: string; memberType?: string } = {}) {
  const projectId = projectOf(c);
  const portfolioId = c.req.param('portfolioId')!;
  const portfolio = await api(c).get<Portfolio>(portfolioApi(projectId, portfolioId));
  const members = [...portfolio.members];
  const offset = Math.min(offsetOf(c.req.query('offset')), Math.max(0, members.length - 1));
  const page = members.slice(offset, offset + MEMBERS_SIZE);
  const path = `${portfolioHref(projectId, portfolioId)}/members`;
  return shellPage(c, { title: `Members of ${portfolio.name}`, area: AREA, status: input.errors ? 400 : 200 }, (
    <>
      <PageTitle title={`Members of ${portfolio.name}`} crumbs={[{ href: portfolioHref(projectId), label: 'Portfolios' }, { href: portfolioHref(projectId, portfolioId), label: portfolio.name }]} />
      {c.req.query('saved') ? <Notice kind="info" live>Saved. The portfolio is being scored again.</Notice> : null}
      <MembersEditor
        projectId={projectId} portfolio={portfolio} page={page} canEdit={holds(c.var.frame, 'project:edit')}
        shown={shownText(offset, page.length, members.length, 'members')} {...pageLinks(path, [], 'offset', offset, MEMBERS_SIZE, members.length)}
        errors={input.errors} name={input.name} member={input.member} memberType={input.memberType}
      />
    </>
  ));
}

export const portfolioRoutes = new Hono<DashEnv>()
  .get('/projects/:projectId/portfolios', (c) => listPage(c))
  .post('/projects/:projectId/portfolios', async (c) => {
    const { name = '', members = '' } = await formOf(c);
    if (!name) return listPage(c, { name, members, errors: { name: 'Enter a name.' } });
    const answer = await api(c).send<Portfolio>('POST', portfolioApi(projectOf(c)), { name, members: membersOf(members) });
    if (answer.status === 400) {
      const message = messageOf(answer);
      return listPage(c, { name, members, errors: /member|package|subject/i.test(message) ? { members: message } : { name: message } });
    }
    const created = ok(answer);
    return c.redirect(portfolioHref(projectOf(c), created.portfolio_id), 303);
  })
  .get('/projects/:projectId/portfolios/:portfolioId', async (c) => {
    const projectId = projectOf(c);
    const portfolioId = c.req.param('portfolioId');
    const calls = api(c);
    const [portfolio, stateAnswer, history] = await Promise.all([
      calls.get<Portfolio>(portfolioApi(projectId, portfolioId)),
      calls.try<State>(`${portfolioApi(projectId, portfolioId)}/state`),
      calls.get<{ rows: HistoryRow[] }>(`${portfolioApi(projectId, portfolioId)}/history`),
    ]);
    const code = codeOf(stateAnswer);
    const notYet = stateAnswer.status === 503 && code && NOT_YET.has(code);
    const state = notYet ? null : ok(stateAnswer);
    const base = portfolioHref(projectId, portfolioId);
    const bands = portfolio.settings?.bands ?? {};
    const thresholds = { strong: bands.strong ?? 85, fair: bands.fair ?? 65, weak: bands.weak ?? 40 };

    const subjects = state?.breakdown.subjects ?? [];
    const soffset = Math.min(offsetOf(c.req.query('soffset')), Math.max(0, subjects.length - 1));
    const subjectPage = subjects.slice(soffset, soffset + SUBJECTS_SIZE);
    const tableRows = historyTableRows(history.rows);
    const hoffset = Math.min(offsetOf(c.req.query('hoffset')), Math.max(0, tableRows.length - 1));
    const historyPage = tableRows.slice(hoffset, hoffset + HISTORY_SIZE);
    const keep: [string, string | number | null][] = [['soffset', soffset || null], ['hoffset', hoffset || null]];
    const others = (name: string) => keep.filter(([n]) => n !== name);
    const packages = portfolio.members.filter((m) => m.member_type === 'package').length;

    return shellPage(c, { title: portfolio.name, area: AREA, headers: notYet ? { Refresh: '5' } : {} }, (
      <>
        <PageTitle title={portfolio.name} crumbs={[{ href: portfolioHref(projectId), label: 'Portfolios' }]}>
          <p class="toolbar">
            <a class="btn btn-primary btn-small" href={`${base}/fixes`}>Ranked fixes</a>
            <a class="btn btn-secondary btn-small" href={`${base}/members`}>{holds(c.var.frame, 'project:edit') && !portfolio.is_implicit ? 'Edit members' : 'Members'}</a>
          </p>
        </PageTitle>
        <p>
          {portfolio.is_implicit ? 'The built-in portfolio: every subject of the project. ' : null}
          {portfolio.members.length - packages} subject member{portfolio.members.length - packages === 1 ? '' : 's'}, {packages} package member{packages === 1 ? '' : 's'}.
        </p>
        {notYet ? (
          <Notice kind="info" live>
            {code === 'unscored' ? 'This portfolio is being scored for the first time.' : 'This portfolio is being scored again after a change.'} This page refreshes itself.
          </Notice>
        ) : null}
        {state ? (
          <>
            <h2>State</h2>
            <div class="grid">
              <div class="panel">
                <p class="figure-label">Overall score</p>
                <p class="figure">{scoreText(state.score.score)} {state.score.band ? <span class="figure-band"><Tag value={state.score.band} /></span> : null}</p>
                <p class="small muted">Scored <Time iso={state.computed_at} timezone={c.var.frame.timezone} />; {state.subjects} subjects, {state.fixes} ranked fixes.</p>
              </div>
            </div>
            <AxisTable state={state} />
            <h2>Costliest findings</h2>
            <CostliestTable projectId={projectId} state={state} />
            <h2 id="subjects">Subjects</h2>
            <SubjectBreakdown
              projectId={projectId} rows={subjectPage} shown={shownText(soffset, subjectPage.length, subjects.length, 'subjects')}
              {...pageLinks(base, others('soffset'), 'soffset', soffset, SUBJECTS_SIZE, subjects.length)}
            />
          </>
        ) : null}
        <h2 id="history">Score history</h2>
        <HistorySection
          rows={history.rows} page={historyPage} thresholds={thresholds} timezone={c.var.frame.timezone}
          shown={shownText(hoffset, historyPage.length, tableRows.length, 'movements')} {...pageLinks(base, others('hoffset'), 'hoffset', hoffset, HISTORY_SIZE, tableRows.length)}
        />
      </>
    ));
  })
  .get('/projects/:projectId/portfolios/:portfolioId/members', (c) => membersPage(c, { memberType: c.req.query('type') }))
  .post('/projects/:projectId/portfolios/:portfolioId/rename', async (c) => {
    const { name = '' } = await formOf(c);
    if (!name) return membersPage(c, { name, errors: { name: 'Enter a name.' } });
    const answer = await api(c).send('PUT', portfolioApi(projectOf(c), c.req.param('portfolioId')), { name });
    if (answer.status === 400) return membersPage(c, { name, errors: { name: messageOf(answer) } });
    ok(answer);
    return c.redirect(`${portfolioHref(projectOf(c), c.req.param('portfolioId'))}/members?saved=1`, 303);
  })
  .post('/projects/:projectId/portfolios/:portfolioId/members', async (c) => {
    const { type = 'subject', value = '' } = await formOf(c);
    const memberType = type === 'package' ? 'package' : 'subject';
    if (!value) return membersPage(c, { member: value, memberType, errors: { member: 'Enter a subject name or a package URL.' } });
    const answer = await api(c).send('POST', `${portfolioApi(projectOf(c), c.req.param('portfolioId'))}/member`, { type: memberType, value });
    if (answer.status === 400) return membersPage(c, { member: value, memberType, errors: { member: messageOf(answer) } });
    ok(answer);
    return c.redirect(`${portfolioHref(projectOf(c), c.req.param('portfolioId'))}/members?saved=1`, 303);
  })
  .post('/projects/:projectId/portfolios/:portfolioId/members/remove', async (c) => {
    const { type = 'subject', value = '' } = await formOf(c);
    const query = type === 'package' ? '?type=package' : '';
    await api(c).must('DELETE', `${portfolioApi(projectOf(c), c.req.param('portfolioId'))}/member/${encodeURIComponent(value)}${query}`);
    return c.redirect(`${portfolioHref(projectOf(c), c.req.param('portfolioId'))}/members?saved=1`, 303);
  })
  .post('/projects/:projectId/portfolios/:portfolioId/delete', async (c) => {
    await api(c).must('DELETE', portfolioApi(projectOf(c), c.req.param('portfolioId')));
    return c.redirect(portfolioHref(projectOf(c)), 303);
  })
  .route('/', fixesRoutes);
