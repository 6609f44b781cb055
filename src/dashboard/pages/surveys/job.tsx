// A job's page (spec 4.8, 4.9): what it is, its steps (reports linking to the report viewer), the bundle
// it analysed, what it replaces, and the actions the person holds: regenerate and delete (project:edit),
// restore (project:admin). The state part is also what the live stream swaps in as the job changes.
import { ConfirmAction, Notice, PageTitle, Tag, Time } from '../../components/common';
import { hx } from '../../components/shell';
import { holds, type Frame } from '../../context';
import { isSurvey, jobName, Status, stepLabel, typeLabel, type Job } from './views';

export interface JobNotice { kind: 'info' | 'error'; text: string }

/** The bundle a survey analysed: named by its analysis step (or, regenerated, by the survey itself). */
export const bundleOf = (job: Job): string | null => {
  const fromSurvey = job.metadata?.bundleId;
  if (typeof fromSurvey === 'string') return fromSurvey;
  const named = job.steps?.map((s) => s.metadata?.bundleId).find((id): id is string => typeof id === 'string');
  return named ?? null;
};

/** The part of the page that changes while the job runs: status and steps (swapped by the live stream). */
export function JobState(props: { job: Job; projectId: string; timezone: string; oob?: string }) {
  const { job, projectId, timezone } = props;
  const steps = job.steps ?? [];
  return (
    <div id="job-state" hx-swap-oob={props.oob}>
      <dl class="facts">
        <dt>Status</dt><dd><Status job={job} />{job.deleted_at ? <> <Tag value="deleted" /></> : null}</dd>
        {job.message ? <><dt>Message</dt><dd class="wrap">{job.message}</dd></> : null}
        {job.failure_class ? <><dt>Failure</dt><dd><code>{job.failure_class}</code></dd></> : null}
        <dt>Created</dt><dd><Time iso={job.created_at} timezone={timezone} /></dd>
        <dt>Started</dt><dd><Time iso={job.started_at} timezone={timezone} /></dd>
        <dt>Finished</dt><dd>{job.finished_at ? <Time iso={job.finished_at} timezone={timezone} /> : <span class="muted">not yet</span>}</dd>
      </dl>
      {steps.length ? (
        <div class="table-box">
          <table>
            <caption>Steps ({steps.length})</caption>
            <thead>
              <tr><th scope="col">Step</th><th scope="col">Status</th><th scope="col">Message</th><th scope="col">Started</th><th scope="col">Finished</th></tr>
            </thead>
            <tbody>
              {steps.map((s) => (
                <tr id={`step-${s.id}`}>
                  <th scope="row">
                    {s.step_type === 'REPORT' && s.status === 'COMPLETED'
                      ? <a href={`/projects/${projectId}/reports/${s.id}`}>Report: {stepLabel(s)}</a>
                      : <>{s.step_type === 'REPORT' ? 'Report: ' : ''}{stepLabel(s)}</>}
                  </th>
                  <td><Status job={s} /></td>
                  <td>{s.message ? <span class="wrap">{s.message}</span> : <span class="muted">None</span>}{s.failure_class ? <> (<code>{s.failure_class}</code>)</> : null}</td>
                  <td><Time iso={s.started_at} timezone={timezone} /></td>
                  <td>{s.finished_at ? <Time iso={s.finished_at} timezone={timezone} /> : <span class="muted">not yet</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

export function JobPageView(props: { job: Job; projectId: string; frame: Frame; nonce: string; notice?: JobNotice }) {
  const { job, projectId, frame } = props;
  const survey = isSurvey(job);
  const bundle = survey ? bundleOf(job) : null;
  const ciRun = typeof job.json_tags?.ci_run_id === 'string' ? job.json_tags.ci_run_id : null;
  const base = `/projects/${projectId}/surveys/${job.id}`;
  const mayEdit = holds(frame, 'project:edit');
  const mayRestore = holds(frame, 'project:admin');
  const finished = ['COMPLETED', 'FAILED', 'SKIPPED'].includes(job.status);
  return (
    <>
      <PageTitle title={jobName(job)} crumbs={[{ href: `/projects/${projectId}/surveys`, label: 'Surveys' }]}>
        <p class="muted">{typeLabel(job.type)} <span class="mono">{job.id}</span></p>
      </PageTitle>
      {props.notice?.text ? <Notice kind={props.notice.kind} live={props.notice.kind === 'info'}>{props.notice.text}</Notice> : null}
      {finished ? null : <p class="small muted">This page follows the job as it runs. <span id="job-live" aria-live="polite" {...hx(props.nonce, { 'hx-sse:connect': `/projects/${projectId}/surveys/live?job=${job.id}` })}></span></p>}
      <JobState job={job} projectId={projectId} timezone={frame.timezone} />
      <h2>About it</h2>
      <dl class="facts">
        {job.target ? <><dt>Subject</dt><dd class="wrap">{job.target}</dd></> : null}
        {job.tag ? <><dt>Tag</dt><dd class="wrap">{job.tag}</dd></> : null}
        {job.notes ? <><dt>Notes</dt><dd class="wrap">{job.notes}</dd></> : null}
        {ciRun ? <><dt>CI run</dt><dd class="wrap">{ciRun}</dd></> : null}
        {survey ? <><dt>Bundle</dt><dd>{bundle ? <a href={`/projects/${projectId}/bundles#bundle-${bundle}`} class="mono">{bundle}</a> : <span class="muted">Not uploaded yet</span>}</dd></> : null}
        {job.supersedes ? <><dt>Replaces</dt><dd><a href={`/projects/${projectId}/surveys/${job.supersedes}`} class="mono">{job.supersedes}</a></dd></> : null}
        {job.deleted_at ? <><dt>Deleted</dt><dd><Time iso={job.deleted_at} timezone={frame.timezone} /></dd></> : null}
        {survey ? <><dt>Data health</dt><dd><a href={`/projects/${projectId}/data-health/runs/${job.id}`}>This run's data health</a></dd></> : null}
      </dl>
      {survey && (mayEdit || (mayRestore && job.deleted_at)) ? (
        <>
          <h2>Actions</h2>
          {mayEdit && !job.deleted_at ? (
            <form method="post" action={`${base}/regenerate`} class="panel" aria-labelledby="regenerate-title">
              <h3 id="regenerate-title">Regenerate</h3>
              <p>Runs this survey again from the bundle it already has (no new upload). The new survey replaces this one, and this one's unfinished steps are skipped.</p>
              <input type="hidden" name="key" value={crypto.randomUUID()} />
              <div class="field check">
                <input type="checkbox" id="regenerate-analyze" name="analyze" value="1" />
                <label for="regenerate-analyze">Analyse the bundle again (otherwise only the reports are made again)</label>
              </div>
              <button type="submit" class="btn btn-primary">Regenerate</button>
            </form>
          ) : null}
          <p class="actions">
            {mayEdit && !job.deleted_at ? (
              <ConfirmAction id="delete-survey" action={`${base}/delete`} label="Delete survey" title="Delete this survey?" danger>
                <p>It is hidden from the list and from data health; someone who administers the project can restore it.</p>
              </ConfirmAction>
            ) : null}
            {mayRestore && job.deleted_at ? (
              <form method="post" action={`${base}/restore`} class="inline">
                <button type="submit" class="btn btn-primary">Restore survey</button>
              </form>
            ) : null}
          </p>
        </>
      ) : null}
    </>
  );
}
