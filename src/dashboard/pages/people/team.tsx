// A team's page (spec 4.3): its members, projects and roles (each with its permissions), and the
// changes `org:manage_teams` allows: add or remove members, replace projects and roles, rename, reach
// every project, delete. Built-in teams keep their name and roles and cannot be deleted.
import { ConfirmAction, Empty, Field, Notice, PageTitle, Table, Tag } from '../../components/common';
import { Checks, teamReach } from './views';
import type { Errors, Member, Role, Team } from './types';

const Err = (props: { id: string; error?: string }) => (props.error ? <p class="field-error" id={props.id}>{props.error}</p> : null);

export function TeamPage(props: {
  team: Team; members: Member[]; projects: { id: string; name: string }[]; errors?: Errors; done?: string | null;
}) {
  const { team } = props;
  const errors = props.errors ?? {};
  const base = `/people/teams/${team.id}`;
  const onTeam = new Set(team.members.map((m) => m.id));
  const candidates = props.members.filter((m) => !onTeam.has(m.id));
  const choices = new Map([...props.projects, ...team.projects].map((p) => [p.id, p]));
  const assigned = new Set(team.projects.map((p) => p.id));
  return (
    <>
      <PageTitle title={`Team ${team.name}`} crumbs={[{ href: '/people', label: 'People' }]}>
        <p class="lead">
          {team.builtIn ? <><Tag value="built-in" />{' '}</> : null}
          {teamReach(team)}; {team.memberCount} member{team.memberCount === 1 ? '' : 's'}.
        </p>
      </PageTitle>
      {props.done ? <Notice kind="info" live>{props.done}</Notice> : null}

      <h2 id="members">Members</h2>
      {team.members.length ? (
        <Table caption={`Members of ${team.name}`} captionHidden rows={team.members} columns={[
          { label: 'Name', cell: (m) => <a href={`/people/${m.id}`}>{m.name || m.email}</a> },
          { label: 'Email', cell: (m) => <span>{m.email}</span> },
          {
            label: 'Actions',
            cell: (m) => (
              <ConfirmAction id={`leave-${m.id}`} action={`${base}/members/${m.id}/remove`} label="Remove from team" subject={m.name || m.email} title={`Remove ${m.name || m.email} from ${team.name}?`} danger>
                <p>They stay in the organization and on their other teams.</p>
              </ConfirmAction>
            ),
          },
        ]} />
      ) : <Empty><p>No one is on this team yet. Add a member of the organization below.</p></Empty>}
      {candidates.length ? (
        <form method="post" action={`${base}/members`} class="toolbar">
          <div class="field">
            <label class="label" for="add-member">Add a member of the organization</label>
            <Err id="add-member-error" error={errors.member} />
            <select class="select" id="add-member" name="userId" aria-describedby={errors.member ? 'add-member-error' : undefined}>
              {candidates.map((m) => <option value={m.id}>{m.name ? `${m.name} (${m.email})` : m.email}</option>)}
            </select>
          </div>
          <button type="submit" class="btn btn-secondary">Add to team</button>
        </form>
      ) : <p class="hint">Every member of the organization is on this team; invite someone from the <a href="/people/invite">invitation page</a>.</p>}

      <h2 id="projects">Projects</h2>
      {team.projects.length ? (
        <Table caption={`Projects ${team.name} reaches`} captionHidden rows={team.projects} columns={[
          { label: 'Project', cell: (p) => <a href={`/projects/${p.id}`}>{p.name}</a> },
        ]} />
      ) : <Empty><p>This team reaches no project: choose some below, or let it reach every project.</p></Empty>}
      {team.allProjects ? <p class="hint">It reaches every project of the organization, including those created later.</p> : (
        <form method="post" action={`${base}/projects`} class="panel">
          <Checks id="team-projects" name="projectIds" legend="Projects it reaches" error={errors.projects}
            hint="Projects not ticked are taken off the team."
            items={[...choices.values()].map((p) => ({ value: p.id, label: p.name, checked: assigned.has(p.id) }))} />
          <button type="submit" class="btn btn-secondary">Save projects</button>
        </form>
      )}

      <h2 id="roles">Roles</h2>
      {team.roles.length ? (
        <Table caption={`Roles ${team.name} grants and their permissions`} captionHidden rows={team.roles} columns={[
          { label: 'Role', cell: (r) => r.name },
          { label: 'Permissions', cell: (r) => <span>{r.permissions.join(', ') || 'none'}</span> },
        ]} />
      ) : <Empty><p>This team grants no role, so its members get no permission through it. Choose roles below.</p></Empty>}
      {team.builtIn ? <p class="hint">The roles of a built-in team cannot be changed.</p> : <p><a href={`${base}/roles`}>Change the roles it grants</a></p>}

      {team.builtIn ? null : (
        <>
          <h2 id="settings">Name and reach</h2>
          <form method="post" action={base} class="panel">
            <Field name="name" id="team-rename" label="Team name" value={team.name} required maxlength={255} error={errors.rename} />
            <Checks id="team-all" name="allProjects" legend="Reach" hint="Turning it on drops the individual projects."
              items={[{ value: 'true', label: 'Every project of the organization, now and later', checked: team.allProjects }]} />
            <button type="submit" class="btn btn-secondary">Save</button>
          </form>
          <ConfirmAction id="delete-team" action={`${base}/delete`} label="Delete team" title={`Delete ${team.name}?`} danger>
            <p>Its memberships and its role and project assignments go at once and cannot be restored. The people stay in the organization.</p>
          </ConfirmAction>
        </>
      )}
    </>
  );
}

/** The roles a team grants, changed on their own page (the list of the organization's roles is one more read). */
export function TeamRolesPage(props: { team: Team; roles: Role[]; error?: string }) {
  const { team } = props;
  return (
    <>
      <PageTitle title={`Roles of ${team.name}`} crumbs={[{ href: '/people', label: 'People' }, { href: `/people/teams/${team.id}`, label: `Team ${team.name}` }]} />
      {team.builtIn ? <Notice kind="info">The roles of a built-in team cannot be changed.</Notice> : (
        <form method="post" action={`/people/teams/${team.id}/roles`} class="panel">
          <Checks id="team-roles" name="roleIds" legend="Roles it grants" error={props.error}
            hint="Roles not ticked are taken off the team. You can grant only what you hold yourself on the projects the team reaches."
            items={props.roles.map((r) => ({ value: r.id, label: r.name, description: r.permissions.join(', '), checked: team.roles.some((t) => t.id === r.id) }))} />
          <button type="submit" class="btn btn-primary">Save roles</button>
        </form>
      )}
    </>
  );
}
