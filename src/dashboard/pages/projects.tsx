// The organization's projects (issue 21, pages 2): the list, creating one (then its overview), renaming
// (project:admin on it), deleting (org:delete_project, confirmed; the API's `last_project` shown) and
// the deleted ones with restore. Actions post to /projects/… paths that name no project in the address,
// so the session is not switched onto a project that is about to be deleted.
import { Hono } from 'hono';
import { api, messageOf, ok, type ApiAnswer } from '../api';
import { ConfirmAction, Empty, Field, Notice, PageTitle, Tag, Time } from '../components/common';
import { holds, type DashContext, type DashEnv } from '../context';
import { shellPage } from '../respond';
import { keepSession } from '../session-cookie';
import { formOf } from './form';
import { overviewRoutes } from './overview';
import { surveyRoutes } from './surveys';
import { UUID_PATTERN } from '../../lib/ids';

interface ProjectList { org_uuid: string; org_name: string; projects: { uuid: string; name: string }[] }
interface DeletedList { projects: { uuid: string; name: string; deletedAt: string }[] }
interface Switched { jwt: string; expiresAt: string }


/** What the page says after an action (carried in the address after post/redirect/get). */
const DONE: Record<string, string> = {
  renamed: 'The project was renamed.',
  deleted: 'The project was deleted. It is listed under "Deleted projects" and can be restored there.',
  restored: 'The project was restored.',
};

interface ListInput {
  created?: { name: string; error?: string };
  renamed?: { id: string; name: string; error: string };
  failure?: string;
}

async function listPage(c: DashContext, input: ListInput = {}) {
  const { frame } = c.var;
  const calls = api(c);
  const [list, deleted] = await Promise.all([
    calls.get<ProjectList>(`/api/v1/org/${frame.orgId}/project`),
    calls.get<DeletedList>(`/api/v1/org/${frame.orgId}/project/deleted`),
  ]);
  const reached = new Set(frame.projects.map((p) => p.id));
  const mayCreate = holds(frame, 'org:create_project');
  const mayDelete = holds(frame, 'org:delete_project');
  const mayRename = (id: string) => (frame.projectPermissionsById[id] ?? []).includes('project:admin');
  const done = DONE[c.req.query('done') ?? ''];
  const status = input.created?.error || input.renamed || input.failure ? 400 : 200;
  return shellPage(c, { title: 'Projects', area: 'Projects', status }, (
    <>
      <PageTitle title="Projects" />
      {done ? <Notice kind="info" live>{done}</Notice> : null}
      {input.failure ? <Notice kind="error">{input.failure}</Notice> : null}
      <p class="muted">The projects of {frame.orgName}. Each holds its own surveys, reports, portfolios and credentials.</p>
      {mayCreate ? (
        <form method="post" action="/projects" class="panel toolbar" aria-label="Create a project">
          <Field name="name" id="new-project-name" label="New project" value={input.created?.name} required maxlength={255} error={input.created?.error} hint="A name not used by another project of the organization." />
          <button type="submit" class="btn btn-primary">Create project</button>
        </form>
      ) : null}
      <div class="table-box">
        <table>
          <caption>Active projects ({list.projects.length})</caption>
          <thead>
            <tr><th scope="col">Project</th><th scope="col">Your access</th><th scope="col">Actions</th></tr>
          </thead>
          <tbody>
            {list.projects.map((p) => {
              const renaming = input.renamed?.id === p.uuid ? input.renamed : undefined;
              return (
                <tr id={`project-${p.uuid}`}>
                  <th scope="row">
                    {reached.has(p.uuid) ? <a href={`/projects/${p.uuid}`} class="wrap">{p.name}</a> : <span class="wrap">{p.name}</span>}
                    {p.uuid === frame.projectId ? <> <Tag value="current" /></> : null}
                  </th>
                  <td>{reached.has(p.uuid) ? 'Member' : <span class="muted">No team of yours reaches it</span>}</td>
                  <td>
                    {mayRename(p.uuid) ? (
                      <details class="rename" open={renaming ? true : undefined}>
                        <summary>Rename</summary>
                        <form method="post" action="/projects/rename">
                          <input type="hidden" name="projectId" value={p.uuid} />
                          <Field name="name" id={`rename-${p.uuid}`} label={`New name for ${p.name}`} value={renaming?.name ?? p.name} required maxlength={255} error={renaming?.error} />
                          <button type="submit" class="btn btn-secondary btn-small">Save name</button>
                        </form>
                      </details>
                    ) : null}
                    {mayDelete ? (
                      <ConfirmAction id={`delete-${p.uuid}`} action="/projects/delete" fields={{ projectId: p.uuid }} label={`Delete ${p.name}`} title={`Delete ${p.name}?`} danger>
                        <p>Its sessions stop working at once and it leaves the list. It can be restored from "Deleted projects" during the organization's retention period.</p>
                      </ConfirmAction>
                    ) : null}
                    {!mayRename(p.uuid) && !mayDelete ? <span class="muted">None</span> : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h2 id="deleted">Deleted projects</h2>
      {deleted.projects.length ? (
        <div class="table-box">
          <table>
            <caption>Deleted projects, restorable during the retention period</caption>
            <thead>
              <tr><th scope="col">Project</th><th scope="col">Deleted</th><th scope="col">Actions</th></tr>
            </thead>
            <tbody>
              {deleted.projects.map((p) => (
                <tr id={`deleted-${p.uuid}`}>
                  <th scope="row"><span class="wrap">{p.name}</span></th>
                  <td><Time iso={p.deletedAt} timezone={frame.timezone} /></td>
                  <td>
                    {mayDelete ? (
                      <form method="post" action="/projects/restore" class="inline">
                        <input type="hidden" name="projectId" value={p.uuid} />
                        <button type="submit" class="btn btn-secondary btn-small">Restore {p.name}</button>
                      </form>
                    ) : <span class="muted">None</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Empty><p>No deleted projects. A deleted project is listed here, restorable, until the organization's retention period ends.</p></Empty>
      )}
    </>
  ));
}

/** A refused change shown on the list (a 400 beside the field), any other refusal as its error page. */
const refused = (answer: ApiAnswer<unknown>): string | null => (answer.status === 400 ? messageOf(answer) : (ok(answer), null));

/** The organization's projects, and (mounted with them) a project's overview and its surveys pages. */
export const projectRoutes = new Hono<DashEnv>()
  .route('/', overviewRoutes)
  .route('/', surveyRoutes)
  .get('/projects', (c) => listPage(c))
  // The header's project switcher (a GET form).
  .get('/projects/go', (c) => {
    const project = c.req.query('project') ?? '';
    return c.redirect(UUID_PATTERN.test(project) ? `/projects/${project.toLowerCase()}` : '/projects', 303);
  })
  .post('/projects', async (c) => {
    const { name = '' } = await formOf(c);
    if (!name) return listPage(c, { created: { name, error: 'Enter a name for the project.' } });
    const answer = await api(c).send<{ uuid: string; jwt: string }>('POST', `/api/v1/org/${c.var.frame.orgId}/project`, { name });
    const error = refused(answer);
    if (error) return listPage(c, { created: { name, error } });
    return c.redirect(`/projects/${answer.body.uuid}`, 303);
  })
  .post('/projects/rename', async (c) => {
    const { projectId = '', name = '' } = await formOf(c);
    if (!UUID_PATTERN.test(projectId)) return listPage(c, { failure: 'No such project.' });
    if (!name) return listPage(c, { renamed: { id: projectId, name, error: 'Enter a name.' } });
    const error = refused(await api(c).send('PUT', `/api/v1/project/${projectId}`, { name }));
    if (error) return listPage(c, { renamed: { id: projectId, name, error } });
    return c.redirect('/projects?done=renamed', 303);
  })
  .post('/projects/delete', async (c) => {
    const { projectId = '' } = await formOf(c);
    if (!UUID_PATTERN.test(projectId)) return listPage(c, { failure: 'No such project.' });
    const { frame } = c.var;
    // Deleting the session's own project ends the session: move it to another project first.
    const other = frame.projects.find((p) => p.id !== projectId);
    if (projectId === frame.projectId && other && holds(frame, 'org:delete_project')) {
      const switched = await api(c).must<Switched>('POST', `/api/v1/project/${other.id}/session`);
      keepSession(c, switched.jwt, switched.expiresAt);
      c.set('session', switched.jwt);
    }
    const error = refused(await api(c).send('DELETE', `/api/v1/project/${projectId}`));
    if (error) return listPage(c, { failure: error });
    return c.redirect('/projects?done=deleted', 303);
  })
  .post('/projects/restore', async (c) => {
    const { projectId = '' } = await formOf(c);
    if (!UUID_PATTERN.test(projectId)) return listPage(c, { failure: 'No such project.' });
    const error = refused(await api(c).send('POST', `/api/v1/project/${projectId}/restore`));
    if (error) return listPage(c, { failure: error });
    return c.redirect('/projects?done=restored', 303);
  });
