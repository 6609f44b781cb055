// The People page's parts: members (with removal), the invite form, teams (with a create form), roles
// with their permissions, and the list of checkboxes both forms use.
import type { Child } from 'hono/jsx';
import { ConfirmAction, Empty, Field, Pager, Table, Tag } from '../../components/common';
import type { Errors, Member, Role, TeamSummary } from './types';

/** Checkboxes under one legend, their error tied to the group. */
export function Checks(props: {
  id: string; name: string; legend: string; hint?: string; error?: string;
  items: { value: string; label: string; description?: string; checked?: boolean }[];
}) {
  const described = [props.error ? `${props.id}-error` : null, props.hint ? `${props.id}-hint` : null].filter(Boolean).join(' ') || undefined;
  return (
    <fieldset aria-describedby={described}>
      <legend>{props.legend}</legend>
      {props.hint ? <p class="hint" id={`${props.id}-hint`}>{props.hint}</p> : null}
      {props.error ? <p class="field-error" id={`${props.id}-error`}>{props.error}</p> : null}
      {props.items.length ? (
        <ul class="scopes">
          {props.items.map((item, i) => (
            <li class="scope">
              <input type="checkbox" id={`${props.id}-${i}`} name={props.name} value={item.value} checked={item.checked} aria-describedby={item.description ? `${props.id}-${i}-desc` : undefined} />
              <span class="scope-text">
                <label class="scope-label" for={`${props.id}-${i}`}>{item.label}</label>
                {item.description ? <span class="scope-desc" id={`${props.id}-${i}-desc`}>{item.description}</span> : null}
              </span>
            </li>
          ))}
        </ul>
      ) : <p class="none">There is nothing to choose.</p>}
    </fieldset>
  );
}

export interface InviteForm { email: string; teamIds: string[]; projectId: string; errors?: Errors }

export function InvitePanel(props: { form: InviteForm; teams: TeamSummary[] | null; projects: { id: string; name: string }[] }) {
  const errors = props.form.errors ?? {};
  if (!props.teams) {
    return (
      <section class="panel" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite a person</h2>
        <p class="muted">An invitation names the teams the person joins, and choosing them needs the permission org:manage_teams. Ask an administrator.</p>
      </section>
    );
  }
  return (
    <form method="post" action="/people/invite" class="panel" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a person</h2>
      <p class="hint">They get an email with a sign-in link and join at once in the teams chosen. Someone who was a member before comes back into their former teams.</p>
      <Field name="email" id="invite-email" label="Email address" type="email" value={props.form.email} required autocomplete="off" inputmode="email" error={errors.email} />
      <Checks
        id="invite-teams" name="teamIds" legend="Teams they join" error={errors.teamIds}
        hint="At least one. You can invite only into teams granting no more than you hold."
        items={props.teams.map((t) => ({ value: t.id, label: t.name, description: teamReach(t), checked: props.form.teamIds.includes(t.id) }))}
      />
      {props.projects.length ? (
        <div class="field">
          <label class="label" for="invite-project">Project the invitation opens</label>
          {errors.projectUuid ? <p class="field-error" id="invite-project-error">{errors.projectUuid}</p> : null}
          <select class="select" id="invite-project" name="projectUuid" aria-describedby={errors.projectUuid ? 'invite-project-error' : undefined}>
            <option value="">The project you are in</option>
            {props.projects.map((p) => <option value={p.id} selected={p.id === props.form.projectId}>{p.name}</option>)}
          </select>
        </div>
      ) : null}
      <button type="submit" class="btn btn-primary">Send the invitation</button>
    </form>
  );
}

export const teamReach = (t: { allProjects: boolean; projectCount?: number; roles: string[] | { name: string }[] }) => {
  const roles = t.roles.map((r) => (typeof r === 'string' ? r : r.name));
  const reach = t.allProjects ? 'every project' : `${t.projectCount ?? 0} project${t.projectCount === 1 ? '' : 's'}`;
  return `${roles.length ? roles.join(', ') : 'no role'} on ${reach}`;
};

export function MembersTable(props: {
  members: Member[]; page: number; pages: number; total: number; selfId: string; canRemove: boolean; canLookUp: boolean;
}) {
  const href = (n: number) => `/people?page=${n}`;
  return (
    <>
      <Table caption={`Members (${props.total})`} rows={props.members} columns={[
        {
          label: 'Name',
          cell: (m) => props.canLookUp || m.id === props.selfId ? <a href={`/people/${m.id}`}>{m.name || m.email}</a> : <span>{m.name || m.email}</span>,
        },
        { label: 'Email', cell: (m) => <span>{m.email}</span> },
        {
          label: 'Actions',
          cell: (m): Child => m.id === props.selfId ? <Tag value="you" /> : props.canRemove ? (
            <ConfirmAction id={`remove-${m.id}`} action={`/people/${m.id}/remove`} label="Remove" subject={m.name || m.email} title={`Remove ${m.name || m.email}?`} danger>
              <p>They leave every team and their sign-ins end at once. API tokens and upload passes they created keep working until canceled.</p>
            </ConfirmAction>
          ) : null,
        },
      ]} />
      {props.pages > 1 ? (
        <Pager label="Pages of members" shown={`Page ${props.page} of ${props.pages}`} previous={props.page > 1 ? href(props.page - 1) : null} next={props.page < props.pages ? href(props.page + 1) : null} />
      ) : null}
    </>
  );
}

export function TeamsSection(props: { teams: TeamSummary[] | null; empty?: string }) {
  if (!props.teams) return <p class="muted">Seeing teams needs the permission org:manage_teams.</p>;
  if (!props.teams.length) return <Empty><p>{props.empty ?? 'No teams yet. Create one below, then add people to it.'}</p></Empty>;
  return (
    <Table caption="Teams: who reaches which projects with which roles" captionHidden rows={props.teams} columns={[
      { label: 'Team', cell: (t) => <a href={`/people/teams/${t.id}`}>{t.name}</a> },
      { label: 'Projects', cell: (t) => (t.allProjects ? 'All projects' : String(t.projectCount ?? 0)) },
      { label: 'Members', numeric: true, cell: (t) => String(t.memberCount) },
      { label: 'Roles', cell: (t) => <span>{t.roles.join(', ') || 'none'}</span> },
    ]} />
  );
}

export interface TeamCreateForm { name: string; allProjects: boolean; projectIds: string[]; roleIds: string[]; errors?: Errors }

export function TeamCreatePanel(props: { form: TeamCreateForm; roles: Role[]; projects: { id: string; name: string }[] }) {
  const errors = props.form.errors ?? {};
  return (
    <form method="post" action="/people/teams" class="panel" aria-labelledby="new-team-title">
      <h2 id="new-team-title">New team</h2>
      <Field name="name" id="team-name" label="Team name" value={props.form.name} required maxlength={255} error={errors.name} />
      <Checks id="team-roles" name="roleIds" legend="Roles it grants" error={errors.roleIds}
        items={props.roles.map((r) => ({ value: r.id, label: r.name, description: r.permissions.join(', '), checked: props.form.roleIds.includes(r.id) }))} />
      <Checks id="team-all" name="allProjects" legend="Reach" items={[{ value: 'true', label: 'Every project of the organization, now and later', checked: props.form.allProjects }]} />
      <Checks id="team-projects" name="projectIds" legend="Or these projects" error={errors.projectIds}
        items={props.projects.map((p) => ({ value: p.id, label: p.name, checked: props.form.projectIds.includes(p.id) }))} />
      <button type="submit" class="btn btn-primary">Create team</button>
    </form>
  );
}

export function RolesTable(props: { roles: Role[] }) {
  return (
    <Table caption="Roles and the permissions they grant" captionHidden rows={props.roles} columns={[
      { label: 'Role', cell: (r) => r.name },
      { label: 'Kind', cell: (r) => <Tag value={r.systemRole ? 'built-in' : 'custom'} /> },
      { label: 'Permissions', cell: (r) => <span>{r.permissions.join(', ') || 'none'}</span> },
    ]} />
  );
}
