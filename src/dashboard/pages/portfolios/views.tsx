// The portfolio pages' pieces: the list, the create form, the state per axis, the costliest findings,
// the per-subject breakdown, the history (a chart per axis and the same numbers as a table) and the
// members editor.
import type { Child } from 'hono/jsx';
import { ConfirmAction, Empty, Field, Pager, Table, Tag, Time } from '../../components/common';
import { formatCount } from '../../format';
import { HistoryChart, type Thresholds } from './chart';
import {
  AXES, AXIS_LABEL, CAUSE_LABEL, deltaText, historyByAxis, hrefWith, portfolioHref, scoreText,
  type HistoryRow, type Member, type PortfolioEntry, type State, type SubjectScore,
} from './data';

export const subjectHref = (projectId: string, subject: string) => `/projects/${projectId}/subjects/${encodeURIComponent(subject)}`;

const scoringWord = (p: PortfolioEntry) => (p.scoring === 'scored' ? 'scored' : p.scoring === 'unscored' ? 'being scored' : 'being rescored');

export function PortfolioList(props: { projectId: string; portfolios: PortfolioEntry[]; timezone: string; shown: string; previous: string | null; next: string | null }) {
  if (!props.portfolios.length) {
    return <Empty><p>No portfolios here yet. Create one below from subject names or package URLs; every project also has the built-in portfolio of all subjects once it is set up.</p></Empty>;
  }
  return (
    <>
      <Table
        caption="Portfolios"
        rows={props.portfolios}
        columns={[
          { label: 'Portfolio', cell: (p) => <><a href={portfolioHref(props.projectId, p.portfolio_id)} class="wrap">{p.name}</a>{p.is_implicit ? <span class="muted small"> (built in)</span> : null}</> },
          { label: 'Members', numeric: true, cell: (p) => formatCount(p.members.length) },
          { label: 'Score', numeric: true, cell: (p) => scoreText(p.score) },
          { label: 'Band', cell: (p) => (p.band ? <Tag value={p.band} /> : <span class="muted">none</span>) },
          { label: 'Scoring', cell: (p) => <Tag value={p.scoring === 'scored' ? 'completed' : 'pending'} label={scoringWord(p)} /> },
          { label: 'Scored', cell: (p) => <Time iso={p.scored_at} timezone={props.timezone} /> },
        ]}
      />
      <Pager shown={props.shown} previous={props.previous} next={props.next} label="Portfolio pages" />
    </>
  );
}

export function CreatePortfolioForm(props: { action: string; name?: string; members?: string; errors?: { name?: string; members?: string } }) {
  const membersError = props.errors?.members;
  return (
    <form method="post" action={props.action} class="panel">
      <h2>Create a portfolio</h2>
      <Field name="name" label="Name" value={props.name} required maxlength={255} error={props.errors?.name} />
      <div class="field">
        <label class="label" for="field-members">Members (optional)</label>
        <p class="hint" id="field-members-hint">One per line: a subject name (like payments-api), or a package URL without a version (like pkg:npm/lodash), which brings in every subject using it.</p>
        {membersError ? <p class="field-error" id="field-members-error">{membersError}</p> : null}
        <textarea
          class="input textarea" id="field-members" name="members" rows={5}
          aria-describedby={membersError ? 'field-members-error field-members-hint' : 'field-members-hint'} aria-invalid={membersError ? 'true' : undefined}
        >{props.members ?? ''}</textarea>
      </div>
      <button type="submit" class="btn btn-primary">Create portfolio</button>
    </form>
  );
}

/** The state per axis and overall: score, band, weight, findings. */
export function AxisTable(props: { state: State }) {
  const { state } = props;
  const rows = [
    { label: 'Overall', score: state.score.score, band: state.score.band, weight: null as number | null, findings: state.findings },
    ...AXES.map((axis) => ({ label: AXIS_LABEL[axis], score: state.breakdown.axes[axis].score, band: state.breakdown.axes[axis].band, weight: state.breakdown.axes[axis].weight, findings: state.breakdown.axes[axis].findings })),
  ];
  return (
    <Table
      caption="Score per axis (0 to 100; 100 means nothing to fix)"
      rows={rows}
      columns={[
        { label: 'Axis', cell: (r) => r.label },
        { label: 'Score', numeric: true, cell: (r) => <strong>{scoreText(r.score)}</strong> },
        { label: 'Band', cell: (r) => (r.band ? <Tag value={r.band} /> : <span class="muted">none</span>) },
        { label: 'Weight in overall', numeric: true, cell: (r) => (r.weight == null ? '–' : `${Math.round(r.weight * 100)}%`) },
        { label: 'Findings', numeric: true, cell: (r) => formatCount(r.findings) },
      ]}
    />
  );
}

export function CostliestTable(props: { projectId: string; state: State }) {
  const rows = AXES.flatMap((axis) => props.state.breakdown.axes[axis].costliest.map((f) => ({ ...f, axis })));
  if (!rows.length) return <p class="muted">No finding costs this portfolio any points.</p>;
  return (
    <Table
      caption="The findings costing the most points, per axis"
      rows={rows}
      columns={[
        { label: 'Finding', cell: (f) => <span class="wrap mono">{f.name ? `${f.name} (${f.finding_key})` : f.finding_key}</span> },
        { label: 'Axis', cell: (f) => f.axis },
        { label: 'Subject', cell: (f) => (f.subject ? <a href={subjectHref(props.projectId, f.subject)} class="wrap">{f.subject}</a> : '–') },
        { label: 'Points', numeric: true, cell: (f) => f.points.toFixed(2) },
      ]}
    />
  );
}

export function SubjectBreakdown(props: { projectId: string; rows: SubjectScore[]; shown: string; previous: string | null; next: string | null }) {
  if (!props.rows.length) return <Empty><p>No subject is in this portfolio yet. Add subjects or packages to its members, or upload a survey of a member subject.</p></Empty>;
  return (
    <>
      <Table
        caption="Per subject, lowest score first"
        rows={props.rows}
        columns={[
          { label: 'Subject', cell: (s) => <a href={subjectHref(props.projectId, s.subject)} class="wrap">{s.subject}</a> },
          { label: 'Criticality', cell: (s) => <Tag value={s.criticality} /> },
          { label: 'Weight', numeric: true, cell: (s) => s.weight },
          { label: 'Score', numeric: true, cell: (s) => <strong>{scoreText(s.score)}</strong> },
          { label: 'Band', cell: (s) => (s.band ? <Tag value={s.band} /> : <span class="muted">none</span>) },
          { label: 'pqc', numeric: true, cell: (s) => scoreText(s.axes.pqc) },
          { label: 'vuln', numeric: true, cell: (s) => scoreText(s.axes.vuln) },
          { label: 'agility', numeric: true, cell: (s) => scoreText(s.axes.agility) },
          { label: 'Findings', numeric: true, cell: (s) => formatCount(s.findings) },
        ]}
      />
      <Pager shown={props.shown} previous={props.previous} next={props.next} label="Subject pages" />
    </>
  );
}

export interface HistoryTableRow extends HistoryRow { change: number | null }

/** Every row with its change since the axis's previous row, newest first. */
export function historyTableRows(rows: HistoryRow[]): HistoryTableRow[] {
  const by = historyByAxis(rows);
  const withChange = AXES.flatMap((axis) => by[axis].map((row, i) => ({ ...row, change: i ? row.score - by[axis][i - 1]!.score : null })));
  return withChange.sort((a, b) => b.at.localeCompare(a.at) || AXES.indexOf(b.axis) - AXES.indexOf(a.axis));
}

export function HistorySection(props: { rows: HistoryRow[]; page: HistoryTableRow[]; thresholds: Thresholds; timezone: string; shown: string; previous: string | null; next: string | null }) {
  if (!props.rows.length) return <Empty><p>No score movements yet: the first appears when this portfolio is scored.</p></Empty>;
  const by = historyByAxis(props.rows);
  return (
    <>
      {AXES.map((axis) => (
        <section aria-labelledby={`history-${axis}`}>
          <h3 id={`history-${axis}`}>{AXIS_LABEL[axis]}</h3>
          {by[axis].length ? <HistoryChart axis={axis} rows={by[axis]} thresholds={props.thresholds} timezone={props.timezone} /> : <p class="muted">No movement on this axis yet.</p>}
        </section>
      ))}
      <Table
        id="history-table"
        caption="Every score movement, newest first (the charts' numbers)"
        rows={props.page}
        columns={[
          { label: 'When', cell: (r) => <Time iso={r.at} timezone={props.timezone} /> },
          { label: 'Axis', cell: (r) => r.axis },
          { label: 'Score', numeric: true, cell: (r) => scoreText(r.score) },
          { label: 'Change', numeric: true, cell: (r) => (r.change == null ? 'first' : deltaText(r.change)) },
          { label: 'Band', cell: (r) => (r.band ? <Tag value={r.band} /> : <span class="muted">none</span>) },
          { label: 'Cause', cell: (r) => CAUSE_LABEL[r.cause] ?? r.cause },
        ]}
      />
      <Pager shown={props.shown} previous={props.previous} next={props.next} label="History pages" />
    </>
  );
}

/** "Showing 51–100 of 1,000" for a page of a list. */
export const shownText = (offset: number, count: number, total: number, noun: string) =>
  total ? `Showing ${formatCount(offset + 1)}–${formatCount(offset + count)} of ${formatCount(total)} ${noun}` : `No ${noun}`;

/** The previous and next hrefs of an offset list, keeping the other parameters. */
export function pageLinks(path: string, keep: [string, string | number | null | undefined][], name: string, offset: number, size: number, total: number) {
  return {
    previous: offset > 0 ? hrefWith(path, [...keep, [name, Math.max(0, offset - size) || null]]) : null,
    next: offset + size < total ? hrefWith(path, [...keep, [name, offset + size]]) : null,
  };
}

export function MembersEditor(props: {
  projectId: string; portfolio: PortfolioEntry; page: Member[]; shown: string; previous: string | null; next: string | null;
  canEdit: boolean; errors?: { name?: string; member?: string }; name?: string; member?: string; memberType?: string;
}) {
  const base = portfolioHref(props.projectId, props.portfolio.portfolio_id);
  const { portfolio } = props;
  return (
    <>
      {props.canEdit && !portfolio.is_implicit ? (
        <div class="grid">
          <form method="post" action={`${base}/rename`} class="panel">
            <h2>Rename</h2>
            <Field name="name" label="Name" value={props.name ?? portfolio.name} required maxlength={255} error={props.errors?.name} />
            <button type="submit" class="btn btn-primary">Save name</button>
          </form>
          <form method="post" action={`${base}/members`} class="panel">
            <h2>Add a member</h2>
            <div class="field">
              <label class="label" for="member-type">Kind</label>
              <select class="select" id="member-type" name="type">
                <option value="subject" selected={props.memberType !== 'package'}>Subject</option>
                <option value="package" selected={props.memberType === 'package'}>Package (every subject using it)</option>
              </select>
            </div>
            <Field name="value" id="member-value" label="Subject name or package URL" value={props.member} required maxlength={2048} hint="A package URL has no version: pkg:npm/lodash." error={props.errors?.member} />
            <button type="submit" class="btn btn-primary">Add member</button>
          </form>
        </div>
      ) : null}
      <h2>Members</h2>
      {portfolio.is_implicit ? <p>The built-in portfolio holds every subject of the project; its members cannot be changed.</p> : null}
      {props.page.length ? (
        <>
          <Table
            caption={`Members of ${portfolio.name}`}
            rows={props.page}
            columns={[
              { label: 'Member', cell: (m) => (m.member_type === 'subject' ? <a href={subjectHref(props.projectId, m.value)} class="wrap">{m.value}</a> : <span class="wrap mono">{m.value}</span>) },
              { label: 'Kind', cell: (m) => m.member_type },
              ...(props.canEdit && !portfolio.is_implicit ? [{
                label: 'Action',
                cell: (m: Member): Child => (
                  <form method="post" action={`${base}/members/remove`} class="inline">
                    <input type="hidden" name="type" value={m.member_type} />
                    <input type="hidden" name="value" value={m.value} />
                    <button type="submit" class="btn btn-secondary btn-small">Remove<span class="visually-hidden"> {m.value}</span></button>
                  </form>
                ),
              }] : []),
            ]}
          />
          <Pager shown={props.shown} previous={props.previous} next={props.next} label="Member pages" />
        </>
      ) : (
        <Empty><p>No members yet. {props.canEdit ? 'Add a subject name or a package URL above.' : 'Someone with the project:edit permission can add them.'}</p></Empty>
      )}
      {props.canEdit && !portfolio.is_implicit ? (
        <>
          <h2>Delete</h2>
          <p>Deleting the portfolio deletes its scores and history; its subjects and their ratings stay.</p>
          <ConfirmAction id="delete-portfolio" action={`${base}/delete`} label="Delete portfolio" title={`Delete ${portfolio.name}?`} danger>
            <p>Its scores and history are deleted and cannot be restored.</p>
          </ConfirmAction>
        </>
      ) : null}
    </>
  );
}
