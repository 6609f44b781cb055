// The organization's People area (issue 21, page 9; spec 4.3, 4.4, 4.5, 4.15): members and their
// removal, invitations, teams (members, projects, roles), roles with their permissions, a person's
// permissions. Each page reads at most three things; forms post here, the API decides (permissions,
// no granting beyond one's own), and a 400 or 404 is shown beside its field.
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { api, messageOf, ok, type ApiAnswer, type ApiErrorBody } from '../../api';
import { Notice, PageTitle } from '../../components/common';
import { holds, type DashContext, type DashEnv } from '../../context';
import { shellPage, type PageStatus } from '../../respond';
import { PersonPage } from './person';
import { TeamPage, TeamRolesPage } from './team';
import { fieldOf, pageOf, type Errors, type InviteResult, type Member, type Permissions, type Posted, type Role, type Team, type TeamSummary } from './types';
import { InvitePanel, MembersTable, RolesTable, TeamCreatePanel, TeamsSection, type InviteForm, type TeamCreateForm } from './views';

const AREA = 'People';
const org = (c: DashContext) => `/api/v1/org/${c.var.frame.orgId}`;
const manages = (c: DashContext) => holds(c.var.frame, 'org:manage_teams');

async function posted(c: DashContext): Promise<Posted> {
  const body = await c.req.parseBody({ all: true }).catch(() => ({}) as Record<string, unknown>);
  return {
    one: (name) => (typeof body[name] === 'string' ? (body[name] as string).trim() : ''),
    many: (name) => ([] as unknown[]).concat(body[name] ?? []).filter((v): v is string => typeof v === 'string' && v !== ''),
  };
}

/**
 * A refused change the form shows: a 400, a 404 (an unknown team or project named in the form), and a
 * grant beyond one's own (403 `permission_denied` naming a permission other than the one the action
 * itself needs, which the person holds). Other refusals become the error page.
 */
const shownInPlace = (answer: ApiAnswer<unknown>, needs: string) => {
  if (answer.status === 400 || answer.status === 404) return true;
  const body = answer.body as ApiErrorBody | null;
  return answer.status === 403 && body?.code === 'permission_denied' && !!body.permission && body.permission !== needs;
};

const page = (c: DashContext, title: string, content: Child, status?: PageStatus) => shellPage(c, { title, area: AREA, status }, content);

// --- The people page ---------------------------------------------------------------------------

async function peoplePage(c: DashContext) {
  const { frame } = c.var;
  const calls = api(c);
  const [{ users }, teams, { roles }] = await Promise.all([
    calls.get<{ users: Member[] }>(`${org(c)}/user`),
    manages(c) ? calls.get<{ teams: TeamSummary[] }>(`${org(c)}/team`).then((t) => t.teams) : Promise.resolve(null),
    calls.get<{ roles: Role[] }>(`${org(c)}/role`),
  ]);
  const members = pageOf(users, Number(c.req.query('page') ?? 1));
  const invited = c.req.query('invited');
  return page(c, AREA, (
    <>
      <PageTitle title="People">
        <p class="lead">Who belongs to {frame.orgName}, the teams that give them projects and roles, and what each role allows.</p>
      </PageTitle>
      {invited ? <Notice kind="info" live>Invitation sent to <span class="wrap">{invited}</span>.</Notice> : null}
      {c.req.query('removed') === '1' ? <Notice kind="info" live>Removed from the organization; their sign-ins ended.</Notice> : null}
      {c.req.query('deleted') === '1' ? <Notice kind="info" live>Team deleted.</Notice> : null}
      <h2 id="members">Members</h2>
      {holds(frame, 'org:invite_user') ? <p><a class="btn btn-primary btn-small" href="/people/invite">Invite a person</a></p> : null}
      <MembersTable
        members={members.rows} page={members.page} pages={members.pages} total={members.total}
        selfId={frame.user.id} canRemove={holds(frame, 'org:remove_user')} canLookUp={manages(c)}
      />
      <h2 id="teams">Teams</h2>
      {manages(c) ? <p><a class="btn btn-secondary btn-small" href="/people/teams/new">New team</a></p> : null}
      <TeamsSection teams={teams} />
      <h2 id="roles">Roles</h2>
      <RolesTable roles={roles} />
    </>
  ));
}

// --- Invitations ---------------------------------------------------------------------------------

async function invitePage(c: DashContext, form: InviteForm, status?: PageStatus) {
  const teams = manages(c) ? (await api(c).get<{ teams: TeamSummary[] }>(`${org(c)}/team`)).teams : null;
  return page(c, 'Invite a person', (
    <>
      <PageTitle title="Invite a person" crumbs={[{ href: '/people', label: 'People' }]} />
      <InvitePanel form={form} teams={teams} projects={c.var.frame.projects} />
    </>
  ), status);
}

// --- Teams ----------------------------------------------------------------------------------------

async function newTeamPage(c: DashContext, form: TeamCreateForm, status?: PageStatus) {
  const { roles } = await api(c).get<{ roles: Role[] }>(`${org(c)}/role`);
  return page(c, 'New team', (
    <>
      <PageTitle title="New team" crumbs={[{ href: '/people', label: 'People' }]} />
      <TeamCreatePanel form={form} roles={roles} projects={c.var.frame.projects} />
    </>
  ), status);
}

const teamPath = (c: DashContext) => `${org(c)}/team/${encodeURIComponent(c.req.param('teamId') ?? '')}`;
const teamHref = (c: DashContext) => `/people/teams/${c.req.param('teamId')}`;

async function teamPage(c: DashContext, input: { errors?: Errors; status?: PageStatus } = {}) {
  const calls = api(c);
  const [team, { users }] = await Promise.all([calls.get<Team>(teamPath(c)), calls.get<{ users: Member[] }>(`${org(c)}/user`)]);
  const done = ({ added: 'Member added.', removed: 'Member removed from the team.', saved: 'Saved.' } as Record<string, string>)[c.req.query('done') ?? ''];
  return page(c, `Team ${team.name}`, <TeamPage team={team} members={users} projects={c.var.frame.projects} errors={input.errors} done={done} />, input.status);
}

async function teamRolesPage(c: DashContext, error?: string) {
  const calls = api(c);
  const [team, { roles }] = await Promise.all([calls.get<Team>(teamPath(c)), calls.get<{ roles: Role[] }>(`${org(c)}/role`)]);
  return page(c, `Roles of ${team.name}`, <TeamRolesPage team={team} roles={roles} error={error} />, error ? 400 : undefined);
}

/** A team change: done, back to the team's page; refused in place, the page again with the message at `field`. */
async function teamChange(c: DashContext, answer: ApiAnswer<unknown>, field: string, done: string) {
  if (shownInPlace(answer, 'org:manage_teams') && answer.status !== 404) return teamPage(c, { errors: { [field]: messageOf(answer) }, status: 400 });
  ok(answer);
  return c.redirect(`${teamHref(c)}?done=${done}`, 303);
}

// --- A person -------------------------------------------------------------------------------------

async function personPage(c: DashContext) {
  const userId = c.req.param('userId') ?? '';
  const calls = api(c);
  const [{ users }, permissions, teams] = await Promise.all([
    calls.get<{ users: Member[] }>(`${org(c)}/user`),
    calls.get<Permissions>(`${org(c)}/user/${encodeURIComponent(userId)}/permission`),
    manages(c) ? calls.get<{ teams: TeamSummary[] }>(`${org(c)}/user/${encodeURIComponent(userId)}/team`).then((t) => t.teams) : Promise.resolve(null),
  ]);
  const person = users.find((u) => u.id === userId.toLowerCase());
  if (!person) return page(c, 'Not found', <><PageTitle title="Not found" /><p>No such person is a member of this organization.</p></>, 404);
  const names = new Map(c.var.frame.projects.map((p) => [p.id, p.name]));
  return page(c, person.name || person.email, <PersonPage person={person} permissions={permissions} teams={teams} projectNames={names} self={person.id === c.var.frame.user.id} />);
}

export const peopleRoutes = new Hono<DashEnv>()
  .get('/people', (c) => peoplePage(c))
  .get('/people/invite', (c) => invitePage(c, { email: '', teamIds: [], projectId: '' }))
  .post('/people/invite', async (c) => {
    const form = await posted(c);
    const input: InviteForm = { email: form.one('email'), teamIds: form.many('teamIds'), projectId: form.one('projectUuid') };
    if (!input.teamIds.length && holds(c.var.frame, 'org:invite_user')) return invitePage(c, { ...input, errors: { teamIds: 'Choose at least one team.' } }, 400);
    const answer = await api(c).send<InviteResult>('POST', `${org(c)}/invite`, { email: input.email, teamIds: input.teamIds, projectUuid: input.projectId || undefined });
    if (shownInPlace(answer, 'org:invite_user')) {
      const message = messageOf(answer);
      return invitePage(c, { ...input, errors: { [fieldOf(message, { teamIds: /team/i, projectUuid: /project/i }, 'email')]: message } }, 400);
    }
    ok(answer);
    return c.redirect(`/people?invited=${encodeURIComponent(input.email)}`, 303);
  })
  .post('/people/:userId/remove', async (c) => {
    await api(c).must('DELETE', `${org(c)}/user/${encodeURIComponent(c.req.param('userId'))}`);
    return c.redirect('/people?removed=1', 303);
  })
  .get('/people/teams/new', (c) => newTeamPage(c, { name: '', allProjects: false, projectIds: [], roleIds: [] }))
  .post('/people/teams', async (c) => {
    const form = await posted(c);
    const input: TeamCreateForm = { name: form.one('name'), allProjects: form.one('allProjects') === 'true', projectIds: form.many('projectIds'), roleIds: form.many('roleIds') };
    const answer = await api(c).send<Team>('POST', `${org(c)}/team`, {
      name: input.name, roleIds: input.roleIds, ...(input.allProjects ? { allProjects: true } : { projectIds: input.projectIds }),
    });
    if (shownInPlace(answer, 'org:manage_teams')) {
      const message = messageOf(answer);
      return newTeamPage(c, { ...input, errors: { [fieldOf(message, { roleIds: /role/i, projectIds: /project/i }, 'name')]: message } }, 400);
    }
    return c.redirect(`/people/teams/${ok(answer).id}`, 303);
  })
  .get('/people/teams/:teamId', (c) => teamPage(c))
  .post('/people/teams/:teamId', async (c) => {
    const form = await posted(c);
    const answer = await api(c).send('PUT', teamPath(c), { name: form.one('name'), allProjects: form.one('allProjects') === 'true' });
    return teamChange(c, answer, 'rename', 'saved');
  })
  .post('/people/teams/:teamId/projects', async (c) => {
    const form = await posted(c);
    return teamChange(c, await api(c).send('PUT', `${teamPath(c)}/project`, { projectIds: form.many('projectIds') }), 'projects', 'saved');
  })
  .post('/people/teams/:teamId/members', async (c) => {
    const form = await posted(c);
    return teamChange(c, await api(c).send('POST', `${teamPath(c)}/user`, { userId: form.one('userId') }), 'member', 'added');
  })
  .post('/people/teams/:teamId/members/:userId/remove', async (c) => {
    await api(c).must('DELETE', `${teamPath(c)}/user/${encodeURIComponent(c.req.param('userId'))}`);
    return c.redirect(`${teamHref(c)}?done=removed`, 303);
  })
  .post('/people/teams/:teamId/delete', async (c) => {
    await api(c).must('DELETE', teamPath(c));
    return c.redirect('/people?deleted=1', 303);
  })
  .get('/people/teams/:teamId/roles', (c) => teamRolesPage(c))
  .post('/people/teams/:teamId/roles', async (c) => {
    const form = await posted(c);
    const answer = await api(c).send('PUT', `${teamPath(c)}/role`, { roleIds: form.many('roleIds') });
    if (shownInPlace(answer, 'org:manage_teams') && answer.status !== 404) return teamRolesPage(c, messageOf(answer));
    ok(answer);
    return c.redirect(`${teamHref(c)}?done=saved`, 303);
  })
  .get('/people/:userId', (c) => personPage(c));
