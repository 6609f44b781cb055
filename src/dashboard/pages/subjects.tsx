// Subjects (issue 21, page 7): the list with each subject's criticality (filtered by name, paged in
// the URL), and a subject's page: its current contents (paged through the API's offset), its rating
// with a rationale (a form for people holding project:portfolio:rate; the API takes ratings from
// sessions only) and its rating history, newest first.
import { Hono } from 'hono';
import { api, messageOf, ok } from '../api';
import { Empty, Notice, PageTitle, Pager, Table, Tag, Time } from '../components/common';
import { holds, type DashContext, type DashEnv } from '../context';
import { formatCount } from '../format';
import { shellPage } from '../respond';
import { hrefWith, offsetOf } from './portfolios/data';
import { formOf } from './form';
import { pageLinks, shownText, subjectHref } from './portfolios/views';

const AREA = 'Subjects';
const LIST_SIZE = 100;
const CONTENT_SIZE = 50;
const RATINGS_SIZE = 50;
const VALUES = ['high', 'medium', 'low', 'unclassified'] as const;
type Criticality = (typeof VALUES)[number];

interface SubjectRow { name: string; criticality: Criticality; first_seen: string; last_seen: string; latest_survey_id: string | null }
interface ContentItem { kind: string; key: string; name: string | null; version: string | null; purl: string | null; survey_id: string }
interface ContentPage { items: ContentItem[]; total: number; offset: number; limit: number }
interface Rating { value: Criticality; prior_value: Criticality; rater: { id: string; email: string | null }; rationale: string | null; rated_at: string }

const subjectApi = (projectId: string, subject = '') => `/api/v1/project/${projectId}/v1/subject${subject ? `/${encodeURIComponent(subject)}` : ''}`;
const KIND_LABEL: Record<string, string> = {
  component: 'component', crypto_asset: 'crypto asset', observation: 'runtime observation', vuln_finding: 'vulnerability finding',
};
const kindLabel = (kind: string) => KIND_LABEL[kind] ?? kind.replace(/_/g, ' ');

async function subjectPage(c: DashContext, input: { value?: string; rationale?: string; error?: string } = {}) {
  const projectId = c.var.frame.projectId!;
  const name = c.req.param('subject')!;
  const offset = offsetOf(c.req.query('offset'));
  const roffset = offsetOf(c.req.query('roffset'));
  const calls = api(c);
  const [contents, ratings, list] = await Promise.all([
    calls.get<ContentPage>(`${subjectApi(projectId, name)}/content?offset=${offset}&limit=${CONTENT_SIZE}`),
    calls.get<Rating[]>(`${subjectApi(projectId, name)}/criticality/history`),
    calls.get<{ subjects: SubjectRow[] }>(subjectApi(projectId)),
  ]);
  const subject = list.subjects.find((s) => s.name === name);
  const criticality: Criticality = subject?.criticality ?? ratings[0]?.value ?? 'unclassified';
  const path = subjectHref(projectId, name);
  const ratingPage = ratings.slice(roffset, roffset + RATINGS_SIZE);
  const canRate = holds(c.var.frame, 'project:portfolio:rate');
  const chosen = input.value ?? criticality;
  return shellPage(c, { title: name, area: AREA, status: input.error ? 400 : 200 }, (
    <>
      <PageTitle title={name} crumbs={[{ href: `/projects/${projectId}/subjects`, label: 'Subjects' }]} />
      {c.req.query('rated') ? <Notice kind="info" live>Rated. Every portfolio holding this subject is being scored again.</Notice> : null}
      <div class="grid">
        <div class="panel">
          <p class="figure-label">Criticality</p>
          <p class="figure"><Tag value={criticality} /></p>
          {subject ? <p class="small muted">First seen <Time iso={subject.first_seen} timezone={c.var.frame.timezone} />, last seen <Time iso={subject.last_seen} timezone={c.var.frame.timezone} />.</p> : null}
        </div>
      </div>
      {canRate ? (
        <form method="post" action={`${path}/rating`} class="panel">
          <h2>Rate this subject</h2>
          <p class="hint">A portfolio weighs its subjects by criticality: high 4, medium 2, low 1, unclassified 2. Rating rescores every portfolio holding the subject.</p>
          <div class="field">
            <label class="label" for="rating-value">Criticality</label>
            {input.error ? <p class="field-error" id="rating-value-error">{input.error}</p> : null}
            <select class="select" id="rating-value" name="value" aria-describedby={input.error ? 'rating-value-error' : undefined} aria-invalid={input.error ? 'true' : undefined}>
              {VALUES.map((v) => <option value={v} selected={v === chosen}>{v}</option>)}
            </select>
          </div>
          <div class="field">
            <label class="label" for="rating-rationale">Rationale (optional)</label>
            <p class="hint" id="rating-rationale-hint">Why this rating: it is kept in the history with your name.</p>
            <textarea class="input textarea" id="rating-rationale" name="rationale" rows={3} maxlength={2000} aria-describedby="rating-rationale-hint">{input.rationale ?? ''}</textarea>
          </div>
          <button type="submit" class="btn btn-primary">Save rating</button>
        </form>
      ) : null}
      <h2 id="ratings">Rating history</h2>
      {ratingPage.length ? (
        <>
          <Table
            caption="Ratings, newest first"
            rows={ratingPage}
            columns={[
              { label: 'When', cell: (r) => <Time iso={r.rated_at} timezone={c.var.frame.timezone} /> },
              { label: 'Rating', cell: (r) => <><Tag value={r.value} /> <span class="small muted">(was {r.prior_value})</span></> },
              { label: 'Rated by', cell: (r) => <span class="wrap">{r.rater.email ?? r.rater.id}</span> },
              { label: 'Rationale', cell: (r) => (r.rationale ? <span class="wrap">{r.rationale}</span> : <span class="muted">none given</span>) },
            ]}
          />
          <Pager shown={shownText(roffset, ratingPage.length, ratings.length, 'ratings')} label="Rating pages" {...pageLinks(path, [['offset', offset || null]], 'roffset', roffset, RATINGS_SIZE, ratings.length)} />
        </>
      ) : (
        <Empty><p>Never rated: it counts as unclassified (weight 2). {canRate ? 'Rate it above.' : 'Someone with the project:portfolio:rate permission can rate it.'}</p></Empty>
      )}
      <h2 id="contents">Contents</h2>
      {contents.items.length ? (
        <>
          <Table
            caption="What the subject holds now (components, crypto assets, observations and the findings derived from them)"
            rows={contents.items}
            columns={[
              { label: 'Name', cell: (i) => <span class="wrap">{i.name ?? i.key}</span> },
              { label: 'Kind', cell: (i) => kindLabel(i.kind) },
              { label: 'Version', cell: (i) => i.version ?? '–' },
              { label: 'Identity', cell: (i) => <span class="wrap mono small">{i.purl ?? i.key}</span> },
            ]}
          />
          <Pager shown={shownText(contents.offset, contents.items.length, contents.total, 'items')} label="Content pages" {...pageLinks(path, [['roffset', roffset || null]], 'offset', offset, CONTENT_SIZE, contents.total)} />
        </>
      ) : (
        <Empty><p>Nothing inside yet: upload a survey of {name} (the CLI's upload command) and its contents appear here.</p></Empty>
      )}
    </>
  ));
}

export const subjectRoutes = new Hono<DashEnv>()
  .get('/projects/:projectId/subjects', async (c) => {
    const projectId = c.var.frame.projectId!;
    const q = (c.req.query('q') ?? '').trim();
    const { subjects } = await api(c).get<{ subjects: SubjectRow[] }>(subjectApi(projectId));
    const matching = q ? subjects.filter((s) => s.name.toLowerCase().includes(q.toLowerCase())) : subjects;
    const offset = Math.min(offsetOf(c.req.query('offset')), Math.max(0, matching.length - 1));
    const page = matching.slice(offset, offset + LIST_SIZE);
    const path = `/projects/${projectId}/subjects`;
    return shellPage(c, { title: 'Subjects', area: AREA }, (
      <>
        <PageTitle title="Subjects" />
        <p>The things scored: each application or component a survey named. Criticality weighs a subject in every portfolio holding it.</p>
        <form method="get" action={path} class="toolbar" role="search" aria-label="Filter subjects">
          <div class="field">
            <label class="label" for="subject-filter">Name contains</label>
            <input class="input" id="subject-filter" name="q" type="search" value={q} />
          </div>
          <button type="submit" class="btn btn-secondary">Filter</button>
          {q ? <a href={path}>Show all</a> : null}
        </form>
        {page.length ? (
          <>
            <Table
              caption={q ? `Subjects whose name contains “${q}”` : 'Subjects'}
              rows={page}
              columns={[
                { label: 'Subject', cell: (s) => <a href={subjectHref(projectId, s.name)} class="wrap">{s.name}</a> },
                { label: 'Criticality', cell: (s) => <Tag value={s.criticality} /> },
                { label: 'First seen', cell: (s) => <Time iso={s.first_seen} timezone={c.var.frame.timezone} /> },
                { label: 'Last seen', cell: (s) => <Time iso={s.last_seen} timezone={c.var.frame.timezone} /> },
              ]}
            />
            <Pager shown={shownText(offset, page.length, matching.length, 'subjects')} label="Subject pages" {...pageLinks(path, [['q', q || null]], 'offset', offset, LIST_SIZE, matching.length)} />
          </>
        ) : q ? (
          <Empty><p>No subject's name contains “{q}”. <a href={path}>Show all subjects</a>.</p></Empty>
        ) : (
          <Empty><p>No subjects yet. Upload a survey with the CLI (see Surveys): the subject it names appears here, ready to rate.</p></Empty>
        )}
        <p class="small muted">{formatCount(subjects.length)} subjects in all. <a href={hrefWith(`/projects/${projectId}/portfolios`, [])}>Portfolios</a> score them together.</p>
      </>
    ));
  })
  .get('/projects/:projectId/subjects/:subject', (c) => subjectPage(c))
  .post('/projects/:projectId/subjects/:subject/rating', async (c) => {
    const { value = '', rationale = '' } = await formOf(c);
    const name = c.req.param('subject');
    const answer = await api(c).send('PUT', `${subjectApi(c.var.frame.projectId!, name)}/criticality`, { value, rationale: rationale || null });
    if (answer.status === 400) return subjectPage(c, { value, rationale, error: messageOf(answer) });
    ok(answer);
    return c.redirect(`${subjectHref(c.var.frame.projectId!, name)}?rated=1#ratings`, 303);
  });
