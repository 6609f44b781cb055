// A person's page (spec 4.15, 4.3 rule 12): what they may do in the organization and on each project,
// and the teams it comes from.
import { Empty, PageTitle, Table } from '../../components/common';
import { TeamsSection } from './views';
import type { Member, Permissions, TeamSummary } from './types';

export function PersonPage(props: {
  person: Member; permissions: Permissions; teams: TeamSummary[] | null; projectNames: Map<string, string>; self: boolean;
}) {
  const { person, permissions } = props;
  const projects = Object.entries(permissions.projectPermissions)
    .map(([id, list]) => ({ id, name: props.projectNames.get(id) ?? id, list }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      <PageTitle title={person.name || person.email} crumbs={[{ href: '/people', label: 'People' }]}>
        <p class="lead"><span class="wrap">{person.email}</span>{props.self ? ' (you)' : null}</p>
      </PageTitle>
      <h2 id="org-permissions">In the organization</h2>
      {permissions.orgPermissions.length
        ? <ul>{permissions.orgPermissions.map((p) => <li><code>{p}</code></li>)}</ul>
        : <Empty><p>No organization permission. Adding them to a team whose roles grant some gives them.</p></Empty>}
      <h2 id="project-permissions">On projects</h2>
      {projects.length ? (
        <Table caption={`Projects where ${person.name || person.email} holds permissions`} captionHidden rows={projects} columns={[
          { label: 'Project', cell: (p) => <a href={`/projects/${p.id}`}>{p.name}</a> },
          { label: 'Permissions', cell: (p) => <span>{p.list.join(', ')}</span> },
        ]} />
      ) : <Empty><p>No permission on any project. A team reaching projects with a role grants them.</p></Empty>}
      <h2 id="teams">Teams</h2>
      <TeamsSection teams={props.teams} empty="On no team: add them to one from its page." />
    </>
  );
}
