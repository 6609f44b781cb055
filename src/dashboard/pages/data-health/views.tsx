// What the data-health pages show: the per-subject summary, the runs with their filters and pager, the
// resolve box, and one run with its steps.
import type { Child } from 'hono/jsx';
import { Empty, Notice, Pager, Table, TableBox, Tag, Time } from '../../components/common';
import { hx } from '../../components/shell';
import { formatCount } from '../../format';
import {
  completenessText, runPath, STATUSES, subjectPath,
  type HealthRun, type RunFilters, type RunPage, type Step, type SubjectHealth, type SurveyJob,
} from './model';

const outcomeTag = (outcome: string | null, status: string) => (outcome ? <Tag value={outcome} /> : <Tag value={status.toLowerCase()} label={`${status.toLowerCase()}, no outcome yet`} />);

export function SummaryTable(props: { projectId: string; subjects: SubjectHealth[]; timezone: string; caption: string }) {
  const { projectId, timezone } = props;
  return (
    <Table
      caption={props.caption}
      rows={props.subjects}
      columns={[
        { label: 'Subject', cell: (s) => <a href={subjectPath(projectId, s.subject)} class="wrap">{s.subject}</a> },
        { label: 'Last analysed', cell: (s) => <Time iso={s.last_analyzed_at} timezone={timezone} /> },
        { label: 'Evidence', cell: (s) => (s.evidence.length ? s.evidence.join(', ') : <span class="muted">none completed</span>) },
        { label: 'Latest run', cell: (s) => <>{outcomeTag(s.latest_outcome, s.latest_status)} <a href={runPath(projectId, s.latest_run_id)}>open</a></> },
        { label: 'Completeness', cell: (s) => completenessText(s.completeness) },
      ]}
    />
  );
}

export function RunsTable(props: { projectId: string; page: RunPage; timezone: string; caption: string; highlight?: string }) {
  const { projectId, timezone } = props;
  return (
    <Table
      caption={props.caption}
      rows={props.page.runs}
      columns={[
        { label: 'Run', cell: (r) => <a href={runPath(projectId, r.id)} class="mono small wrap">{r.id}</a> },
        { label: 'Subject', cell: (r) => (r.subject ? <a href={subjectPath(projectId, r.subject)} class="wrap">{r.subject}</a> : <span class="muted">not known yet</span>) },
        { label: 'Outcome', cell: (r) => <>{outcomeTag(r.outcome, r.status)}{r.deleted_at ? <> <Tag value="deleted" /></> : null}</> },
        { label: 'Failure', cell: (r) => (r.failure_class ? <code>{r.failure_class}</code> : <span class="muted">none</span>) },
        { label: 'Kind', cell: (r) => r.survey_type.replace(/_SURVEY$/, '').toLowerCase() },
        { label: 'CI run', cell: (r) => (r.ci_run_id ? <code class="wrap">{r.ci_run_id}</code> : <span class="muted">none</span>) },
        { label: 'Tag', cell: (r) => (r.tag ? <span class="wrap">{r.tag}</span> : <span class="muted">none</span>) },
        { label: 'Started', cell: (r) => <Time iso={r.created_at} timezone={timezone} /> },
        { label: 'Completeness', cell: (r) => completenessText(r.completeness) },
      ]}
    />
  );
}

/** The runs (a fragment htmx swaps), with a pager whose links carry the API's cursors. */
export function RunList(props: {
  nonce: string; projectId: string; page: RunPage; timezone: string; caption: string; pages: { previous: string | null; next: string | null }; filtered: boolean;
}) {
  const { pages, page } = props;
  const swap = (href: string) => hx(props.nonce, { 'hx-get': href, 'hx-target': '#health-runs', 'hx-swap': 'outerHTML', 'hx-push-url': 'true' });
  return (
    <div id="health-runs">
      {page.runs.length ? (
        <>
          <RunsTable projectId={props.projectId} page={page} timezone={props.timezone} caption={props.caption} />
          <Pager
            label="Pages of runs" previous={pages.previous} next={pages.next} linked={swap}
            shown={`${formatCount(page.runs.length)} shown of ${formatCount(page.pagination.total)} matching ${page.pagination.total === 1 ? 'run' : 'runs'}`}
          />
        </>
      ) : (
        <Empty>
          <p aria-live="polite">
            {props.filtered
              ? 'No run matches these filters. Choose other filters, or show deleted runs too.'
              : 'No run yet. Each survey is a run: upload a bundle with the CLI (see Surveys) and its analysis shows here.'}
          </p>
          {pages.previous ? <p><a href={pages.previous}>Back to the first page</a></p> : null}
        </Empty>
      )}
    </div>
  );
}

export function RunFiltersForm(props: { nonce: string; action: string; filters: RunFilters; withSubject: boolean }) {
  const { filters } = props;
  return (
    <form method="get" action={props.action} class="toolbar" aria-label="Filter the runs"
      {...hx(props.nonce, { 'hx-get': props.action, 'hx-target': '#health-runs', 'hx-swap': 'outerHTML', 'hx-push-url': 'true' })}>
      {props.withSubject ? (
        <div class="field">
          <label class="label" for="runs-subject">Subject</label>
          <input class="input" id="runs-subject" name="subject" type="text" value={filters.subject} maxlength={512} autocomplete="off" />
        </div>
      ) : null}
      <div class="field">
        <label class="label" for="runs-status">Status</label>
        <select class="select" id="runs-status" name="status">
          <option value="" selected={!filters.status}>Any status</option>
          {STATUSES.map((s) => <option value={s} selected={filters.status === s}>{s.toLowerCase()}</option>)}
        </select>
      </div>
      <div class="field">
        <label class="label" for="runs-dir">Order</label>
        <select class="select" id="runs-dir" name="dir">
          <option value="desc" selected={filters.dir === 'desc'}>Newest first</option>
          <option value="asc" selected={filters.dir === 'asc'}>Oldest first</option>
        </select>
      </div>
      <div class="field check">
        <input type="checkbox" id="runs-deleted" name="deleted" value="1" checked={filters.deleted} />
        <label for="runs-deleted">Include deleted runs</label>
      </div>
      <button type="submit" class="btn btn-primary btn-small">Show runs</button>
    </form>
  );
}

/** Finds what a reference someone holds points at: a run, a step, an upload, an idempotency key, a tag or a CI run. */
export function ResolveBox(props: { action: string; value?: string; error?: string }) {
  const id = 'resolve-ref';
  return (
    <form method="get" action={props.action} class="panel resolve" role="search" aria-label="Find a run by reference">
      <div class="field">
        <label class="label" for={id}>Find by reference</label>
        <p class="hint" id={`${id}-hint`}>A run or step id, an upload id, an idempotency key, a tag or a CI run id, as the CLI or your CI printed it.</p>
        {props.error ? <p class="field-error" id={`${id}-error`}>{props.error}</p> : null}
        <input class="input" id={id} name="ref" type="search" value={props.value ?? ''} maxlength={512} autocomplete="off" required
          aria-describedby={props.error ? `${id}-error ${id}-hint` : `${id}-hint`} aria-invalid={props.error ? 'true' : undefined} />
      </div>
      <button type="submit" class="btn btn-secondary btn-small">Find</button>
    </form>
  );
}

const Fact = (props: { term: string; children: Child }) => (
  <>
    <dt>{props.term}</dt>
    <dd>{props.children}</dd>
  </>
);

export function RunFacts(props: { projectId: string; run: HealthRun; timezone: string }) {
  const { run, timezone } = props;
  const c = run.completeness;
  const count = (n: number | null) => (n == null ? <span class="muted">not counted</span> : formatCount(n));
  return (
    <>
      <dl class="facts">
        <Fact term="Outcome">{outcomeTag(run.outcome, run.status)}{run.deleted_at ? <> <Tag value="deleted" /></> : null}</Fact>
        <Fact term="Status">{run.status.toLowerCase()}</Fact>
        <Fact term="Failure class">{run.failure_class ? <code>{run.failure_class}</code> : <span class="muted">none</span>}</Fact>
        <Fact term="Subject">{run.subject ? <a href={subjectPath(props.projectId, run.subject)} class="wrap">{run.subject}</a> : <span class="muted">not known yet</span>}</Fact>
        <Fact term="Kind">{run.survey_type}</Fact>
        <Fact term="CI run">{run.ci_run_id ? <code class="wrap">{run.ci_run_id}</code> : <span class="muted">not given by the upload</span>}</Fact>
        <Fact term="Tag">{run.tag ?? <span class="muted">none</span>}</Fact>
        <Fact term="Started"><Time iso={run.created_at} timezone={timezone} /></Fact>
        <Fact term="Finished"><Time iso={run.finished_at} timezone={timezone} /></Fact>
        {run.deleted_at ? <Fact term="Deleted"><Time iso={run.deleted_at} timezone={timezone} /></Fact> : null}
      </dl>
      <h2>Completeness</h2>
      <p>{completenessText(c)}{c.previous_run_id ? <> (compared with <a href={runPath(props.projectId, c.previous_run_id)}>the previous run</a>)</> : null}.</p>
      <TableBox captionId="completeness-caption">
        <table>
          <caption id="completeness-caption">Items found by this run and by the previous one</caption>
          <thead>
            <tr><th scope="col">Kind of item</th><th scope="col" class="num">This run</th><th scope="col" class="num">Previous run</th></tr>
          </thead>
          <tbody>
            <tr><th scope="row">Components</th><td class="num">{count(c.components)}</td><td class="num">{count(c.previous_components)}</td></tr>
            <tr><th scope="row">Cryptographic assets</th><td class="num">{count(c.crypto_assets)}</td><td class="num">{count(c.previous_crypto_assets)}</td></tr>
            <tr><th scope="row">Runtime observations</th><td class="num">{count(c.observations)}</td><td class="num">{count(c.previous_observations)}</td></tr>
          </tbody>
        </table>
      </TableBox>
    </>
  );
}

export function StepsTable(props: { survey: SurveyJob; step?: string; timezone: string }) {
  const steps = props.survey.steps ?? [];
  if (!steps.length) return <Empty><p>This run has no steps yet.</p></Empty>;
  return (
    <Table
      caption="Steps of this run"
      rows={steps}
      columns={[
        { label: 'Step', cell: (s: Step) => <span id={`step-${s.id}`}>{s.step_label ?? s.step_type ?? 'step'}{s.id === props.step ? <> <Tag value="info" label="the step you asked for" /></> : null}</span> },
        { label: 'Status', cell: (s) => <Tag value={s.status.toLowerCase()} /> },
        { label: 'Failure', cell: (s) => (s.failure_class ? <code>{s.failure_class}</code> : <span class="muted">none</span>) },
        { label: 'Message', cell: (s) => (s.message ? <span class="wrap">{s.message}</span> : <span class="muted">none</span>) },
        { label: 'Finished', cell: (s) => <Time iso={s.finished_at} timezone={props.timezone} /> },
        { label: 'Step id', cell: (s) => <code class="small wrap">{s.id}</code> },
      ]}
    />
  );
}

export const StepNotice = (props: { survey: SurveyJob; step?: string }) =>
  props.step && !(props.survey.steps ?? []).some((s) => s.id === props.step)
    ? <Notice kind="warn">The step {props.step} is not a step of this run.</Notice>
    : null;
