// Triage (issue 23, docs/triage.md): the project's findings no decision covers yet, filtered by type and
// subject and paged with the queue's cursor, each with a small form to decide (people holding
// project:edit; the API checks it again), the decisions made so far, and a decision's history.
import { Hono } from 'hono';
import { api, messageOf, ok } from '../api';
import { Empty, Notice, PageTitle, Pager, Table, Tag, Time } from '../components/common';
import { holds, type DashContext, type DashEnv } from '../context';
import { JUSTIFICATIONS } from '../../triage/decision';
import { shellPage } from '../respond';
import { formOf } from './form';
import { withQuery } from './reports/shape';

const AREA = 'Triage';
const QUEUE_SIZE = 50;
const DECISIONS_SIZE = 20;
/** The states a person picks here, in the order of the decision they make most. */
const STATES = ['not_affected', 'false_positive', 'resolved', 'exploitable', 'in_triage'] as const;

interface Undecided {
  subject: string; type: 'vulnerability' | 'crypto'; key: string; name: string | null;
  advisory_id?: string | null; aliases?: string[]; package?: string | null; version?: string | null; severity?: string; fixed_version?: string | null;
  algorithm?: string | null; section?: string | null; deadline?: string | null; observed?: boolean;
}
interface Decision {
  id: string; version: number; state: string; justification: string | null; response: string[]; detail: string | null; expires: string | null; suppressed: boolean;
  finding: { type: string; advisory_id?: string | null; package?: string | null; version?: string | null; version_range?: string | null; algorithm?: string | null; asset?: string | null; subject: string | null };
  source: { author?: string | null; document_id?: string | null; format?: string } | null;
  decided_by: { id: string; email: string | null; kind: string }; decided_at: string;
}

const projectApi = (projectId: string) => `/api/v1/project/${projectId}/v1`;
export const triageHref = (projectId: string) => `/projects/${projectId}/triage`;
export const decisionHref = (projectId: string, id: string) => `/projects/${projectId}/decisions/${id}`;

/** What a decision is about, in a few words. */
function aboutText(f: Decision['finding']): string {
  const where = f.subject ? ` in ${f.subject}` : ' in every subject';
  if (f.type === 'crypto') return `${f.algorithm ?? f.asset}${where}`;
  const version = f.version ? `@${f.version}` : f.version_range ? ` ${f.version_range}` : '';
  return `${f.advisory_id}${f.package ? ` in ${f.package}${version}` : ''}${where}`;
}

const byText = (d: Decision) => (d.source ? `VEX: ${d.source.author ?? d.source.document_id ?? d.source.format}` : d.decided_by.email ?? d.decided_by.id);

/** A decision's state as a tag, marked when it takes the finding out of the counts. */
export function DecisionTag(props: { state: string; suppressed: boolean; href?: string }) {
  const tag = <Tag value={props.state} label={`${props.state.replace(/_/g, ' ')}${props.suppressed ? ' · suppressed' : ''}`} />;
  return props.href ? <a href={props.href} title="The decision's history">{tag}</a> : tag;
}

/** The form deciding about one finding: what it is about travels in hidden fields. */
function DecideForm(props: { projectId: string; finding: Undecided; index: number; back: string }) {
  const f = props.finding;
  const id = (name: string) => `decide-${props.index}-${name}`;
  return (
    <form method="post" action={`${triageHref(props.projectId)}/decide`} class="decide">
      <input type="hidden" name="type" value={f.type} />
      <input type="hidden" name="subject" value={f.subject} />
      <input type="hidden" name="back" value={props.back} />
      {f.type === 'vulnerability'
        ? <><input type="hidden" name="advisory_id" value={f.advisory_id ?? ''} /><input type="hidden" name="package" value={f.package ?? ''} /></>
        : <input type="hidden" name="asset" value={f.key} />}
      <label class="visually-hidden" for={id('state')}>Decision</label>
      <select class="select" id={id('state')} name="state">
        {STATES.map((s) => <option value={s}>{s.replace(/_/g, ' ')}</option>)}
      </select>
      <label class="visually-hidden" for={id('justification')}>Justification (for not affected)</label>
      <select class="select" id={id('justification')} name="justification">
        <option value="">justification…</option>
        {JUSTIFICATIONS.map((j) => <option value={j}>{j.replace(/_/g, ' ')}</option>)}
      </select>
      <label class="visually-hidden" for={id('detail')}>Detail</label>
      <input class="input" id={id('detail')} name="detail" placeholder="why (kept in the history)" maxlength={2000} />
      {f.type === 'crypto' ? <><label class="visually-hidden" for={id('expires')}>Accepted until</label><input class="input" type="date" id={id('expires')} name="expires" title="Accepted until (with exploitable)" /></> : null}
      <button type="submit" class="btn btn-secondary">Decide</button>
    </form>
  );
}

function findingCells(f: Undecided) {
  if (f.type === 'vulnerability') {
    return {
      what: <><span class="wrap">{f.advisory_id}</span>{f.aliases?.length ? <><br /><span class="small muted wrap">{f.aliases.join(' · ')}</span></> : null}</>,
      where: <span class="mono small wrap">{f.package ?? f.name}</span>,
      weight: <Tag value={f.severity ?? 'unknown'} />,
    };
  }
  return {
    what: <span class="wrap">{f.algorithm ?? f.name}{f.observed ? <span class="small muted"> (observed at runtime)</span> : null}</span>,
    where: <span class="mono small wrap">{f.key}</span>,
    weight: <>{f.section ? <Tag value={f.section} /> : null}{f.deadline ? <span class="small muted"> by {f.deadline}</span> : null}</>,
  };
}

async function triagePage(c: DashContext, notice: { error?: string } = {}) {
  const projectId = c.var.frame.projectId!;
  const type = c.req.query('type') === 'vulnerability' || c.req.query('type') === 'crypto' ? c.req.query('type')! : '';
  const subject = (c.req.query('subject') ?? '').trim();
  const after = c.req.query('after') ?? '';
  const query = new URLSearchParams({ limit: String(QUEUE_SIZE), ...(type ? { type } : {}), ...(subject ? { subject } : {}), ...(after ? { after } : {}) });
  const calls = api(c);
  const [queue, decisions] = await Promise.all([
    calls.get<{ findings: Undecided[]; next: string | null }>(`${projectApi(projectId)}/triage?${query}`),
    calls.get<{ decisions: Decision[]; pagination: { total: number } }>(`${projectApi(projectId)}/decision?limit=${DECISIONS_SIZE}`),
  ]);
  const path = triageHref(projectId);
  const here = withQuery(path, { type: type || null, subject: subject || null, after: after || null });
  const canDecide = holds(c.var.frame, 'project:edit');
  return shellPage(c, { title: 'Triage', area: AREA, status: notice.error ? 400 : 200 }, (
    <>
      <PageTitle title="Triage" />
      <p>Findings no decision covers yet, in every subject's latest survey. A decision applies to every survey after it: <em>not affected</em>, <em>false positive</em> and <em>resolved</em> take the finding out of scores, ranked fixes and the CLI's gate; it stays in the reports, marked.</p>
      {c.req.query('decided') ? <Notice kind="info" live>Decided. The portfolios holding the finding are being scored again.</Notice> : null}
      {notice.error ? <Notice kind="error">{notice.error}</Notice> : null}
      <form method="get" action={path} class="toolbar" role="search" aria-label="Filter the triage queue">
        <div class="field">
          <label class="label" for="triage-type">Type</label>
          <select class="select" id="triage-type" name="type">
            <option value="" selected={!type}>all</option>
            <option value="vulnerability" selected={type === 'vulnerability'}>vulnerabilities</option>
            <option value="crypto" selected={type === 'crypto'}>cryptography</option>
          </select>
        </div>
        <div class="field">
          <label class="label" for="triage-subject">Subject</label>
          <input class="input" id="triage-subject" name="subject" value={subject} />
        </div>
        <button type="submit" class="btn btn-secondary">Filter</button>
      </form>
      {queue.findings.length ? (
        <>
          <Table
            caption="Undecided findings, by subject"
            rows={queue.findings.map((f, index) => ({ f, index, cells: findingCells(f) }))}
            columns={[
              { label: 'Subject', cell: (r) => r.f.subject },
              { label: 'Finding', cell: (r) => r.cells.what },
              { label: 'Where', cell: (r) => r.cells.where },
              { label: 'Weight', cell: (r) => r.cells.weight },
              ...(canDecide ? [{ label: 'Decide', cell: (r: { f: Undecided; index: number }) => <DecideForm projectId={projectId} finding={r.f} index={r.index} back={here} /> }] : []),
            ]}
          />
          <Pager
            label="Triage pages"
            shown={`${queue.findings.length} undecided on this page${queue.next ? '; more after it' : ''}`}
            previous={after ? withQuery(path, { type: type || null, subject: subject || null }) : null}
            next={queue.next ? withQuery(path, { type: type || null, subject: subject || null, after: queue.next }) : null}
          />
        </>
      ) : queue.next ? (
        <Empty><p>Nothing undecided on this stretch of the queue. <a href={withQuery(path, { type: type || null, subject: subject || null, after: queue.next })}>Look further</a>.</p></Empty>
      ) : (
        <Empty><p>Every finding{subject ? ` of ${subject}` : ''} is decided{after ? ' after this point' : ''}. New findings of later surveys appear here.</p></Empty>
      )}
      {canDecide ? null : <p class="small muted">Deciding needs the project:edit permission.</p>}
      <h2 id="decisions">Decisions</h2>
      {decisions.decisions.length ? (
        <Table
          caption={`The latest ${Math.min(DECISIONS_SIZE, decisions.pagination.total)} of ${decisions.pagination.total} decisions`}
          rows={decisions.decisions}
          columns={[
            { label: 'Decision', cell: (d) => <DecisionTag state={d.state} suppressed={d.suppressed} href={decisionHref(projectId, d.id)} /> },
            { label: 'About', cell: (d) => <span class="wrap">{aboutText(d.finding)}</span> },
            { label: 'By', cell: (d) => <span class="wrap">{byText(d)}</span> },
            { label: 'When', cell: (d) => <Time iso={d.decided_at} timezone={c.var.frame.timezone} /> },
          ]}
        />
      ) : <Empty><p>No decisions yet. Decide above, or import a supplier's VEX (<code>posture vex import FILE</code>).</p></Empty>}
    </>
  ));
}

export const triageRoutes = new Hono<DashEnv>()
  .get('/projects/:projectId/triage', (c) => triagePage(c))
  .post('/projects/:projectId/triage/decide', async (c) => {
    const projectId = c.var.frame.projectId!;
    const form = await formOf(c);
    const finding = form.type === 'crypto'
      ? { type: 'crypto', asset: form.asset, subject: form.subject }
      : { type: 'vulnerability', advisory_id: form.advisory_id, package: form.package || null, subject: form.subject };
    const answer = await api(c).send('POST', `${projectApi(projectId)}/decision`, {
      finding, state: form.state, justification: form.justification || null, detail: form.detail || null, expires: form.expires || null,
    });
    if (answer.status === 400) return triagePage(c, { error: messageOf(answer) });
    ok(answer);
    // Back to the page the form was on (only a path of this project's queue).
    const back = new URL(form.back?.startsWith(triageHref(projectId)) ? form.back : triageHref(projectId), 'https://dashboard.invalid');
    back.searchParams.set('decided', '1');
    return c.redirect(`${back.pathname}${back.search}`, 303);
  })
  .get('/projects/:projectId/decisions/:decisionId', async (c) => {
    const projectId = c.var.frame.projectId!;
    const id = c.req.param('decisionId');
    const { versions } = await api(c).get<{ versions: Decision[] }>(`${projectApi(projectId)}/decision/${encodeURIComponent(id)}/history`);
    const current = versions[0]!;
    return shellPage(c, { title: 'Decision', area: AREA }, (
      <>
        <PageTitle title={aboutText(current.finding)} crumbs={[{ href: triageHref(projectId), label: 'Triage' }]} />
        <p><DecisionTag state={current.state} suppressed={current.suppressed} /> {current.expires ? <span class="small">accepted until {current.expires}</span> : null}</p>
        <Table
          caption="Every version of this decision, newest first"
          rows={versions}
          columns={[
            { label: 'Version', numeric: true, cell: (v) => String(v.version) },
            { label: 'State', cell: (v) => <DecisionTag state={v.state} suppressed={v.suppressed} /> },
            { label: 'Justification · response', cell: (v) => <span class="small wrap">{[v.justification, ...v.response].filter(Boolean).join(' · ') || '–'}</span> },
            { label: 'Detail', cell: (v) => (v.detail ? <span class="wrap">{v.detail}</span> : <span class="muted">none</span>) },
            { label: 'By', cell: (v) => <span class="wrap">{byText(v)}</span> },
            { label: 'When', cell: (v) => <Time iso={v.decided_at} timezone={c.var.frame.timezone} /> },
          ]}
        />
      </>
    ));
  });
