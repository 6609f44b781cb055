// No one grants what they do not hold (the model is Kubernetes RBAC escalation prevention).
// A team's grant is its roles' permissions times its reach: every active project when it reaches all
// projects, else its assigned active projects; `org:*` permissions count organization-wide. A change
// to teams, roles or memberships is refused unless the caller holds every permission it would ADD to
// some team's grant, in every project it reaches. Removing grants is never checked.
import { permissionDenied } from '../lib/errors';
import { activeProjectIds, principalPermissions, teamShapes, type TeamShape } from './access';
import { ALL_PERMISSIONS, isOrgPermission, type Permission } from './permissions';
import type { Principal } from './principal';

/** Permission -> where it is granted: project ids, or ORG for an organization permission. */
export type Grant = Map<Permission, Set<string>>;
const ORG = 'org';

export { type TeamShape } from './access';

/** The union of a team's role permissions. */
export const teamPermissions = (team: Pick<TeamShape, 'roles'>): Set<Permission> => new Set(team.roles.flatMap((r) => r.permissions));

/** `permissions` x `projectIds` (organization permissions organization-wide). */
export function grantOf(permissions: Iterable<Permission>, projectIds: readonly string[]): Grant {
  const grant: Grant = new Map();
  for (const permission of permissions) {
    const where = isOrgPermission(permission) ? [ORG] : projectIds;
    if (where.length) grant.set(permission, new Set([...(grant.get(permission) ?? []), ...where]));
  }
  return grant;
}

export function unionGrants(grants: Iterable<Grant>): Grant {
  const union: Grant = new Map();
  for (const grant of grants) for (const [permission, where] of grant) union.set(permission, new Set([...(union.get(permission) ?? []), ...where]));
  return union;
}

/** What `after` grants that `before` did not. */
export function addedGrant(before: Grant, after: Grant): Grant {
  const added: Grant = new Map();
  for (const [permission, where] of after) {
    const fresh = [...where].filter((w) => !before.get(permission)?.has(w));
    if (fresh.length) added.set(permission, new Set(fresh));
  }
  return added;
}

/** Who asks, in which organization: the organization's active projects are read once per check. */
export class GrantCheck {
  private projects?: Promise<string[]>;
  private held?: Promise<Grant>;

  constructor(private readonly db: D1Database, private readonly orgId: string, private readonly principal: Principal) {}

  orgProjects(): Promise<string[]> {
    this.projects ??= activeProjectIds(this.db, this.orgId);
    return this.projects;
  }

  /** A team's grant (null: a team that does not exist yet grants nothing). */
  async teamGrant(team: Pick<TeamShape, 'allProjects' | 'roles' | 'projectIds'> | null): Promise<Grant> {
    if (!team) return new Map();
    return grantOf(teamPermissions(team), team.allProjects ? await this.orgProjects() : team.projectIds);
  }

  /** What the caller holds, as a grant: a person through their teams, an API token in its own project only. */
  holdings(): Promise<Grant> {
    this.held ??= (async () => {
      if (this.principal.kind === 'session') {
        const teams = await teamShapes(this.db, this.orgId, { memberId: this.principal.userId });
        return unionGrants(await Promise.all(teams.map((t) => this.teamGrant(t))));
      }
      const sets = await principalPermissions(this.db, this.principal, this.principal.projectId);
      return unionGrants([grantOf(sets.org, []), grantOf(sets.project, this.principal.projectId ? [this.principal.projectId] : [])]);
    })();
    return this.held;
  }

  /** 403 `permission_denied` naming the first permission (canonical order) the caller lacks somewhere `grant` reaches. */
  async assertHolds(grant: Grant): Promise<void> {
    if (!grant.size) return;
    const held = await this.holdings();
    const lacking = ALL_PERMISSIONS.find((p) => [...(grant.get(p) ?? [])].some((where) => !held.get(p)?.has(where)));
    if (lacking) throw permissionDenied(lacking);
  }

  /** A change of one team: what the team grants after it beyond what it granted before. */
  async assertTeamChange(before: TeamShape | null, after: Pick<TeamShape, 'allProjects' | 'roles' | 'projectIds'>): Promise<void> {
    await this.assertHolds(addedGrant(await this.teamGrant(before), await this.teamGrant(after)));
  }

  /** Joining these teams (a member added, an invitation): their whole grant. */
  async assertJoin(teams: readonly TeamShape[]): Promise<void> {
    await this.assertHolds(unionGrants(await Promise.all(teams.map((t) => this.teamGrant(t)))));
  }

  /**
   * A role's permissions changing from `before` to `after` (a new role: `before` empty): what every
   * team granting it would add. A role no team grants gives nobody anything yet, but it is a grant in
   * waiting: each added permission must be held somewhere in the organization (an organization
   * permission as such, a project permission on at least one project).
   */
  async assertRoleChange(roleId: string | null, before: readonly Permission[], after: readonly Permission[]): Promise<void> {
    const added = after.filter((p) => !before.includes(p));
    if (!added.length) return;
    const teams = roleId ? await teamShapes(this.db, this.orgId, { roleId }) : [];
    if (!teams.length) {
      const held = await this.holdings();
      const lacking = ALL_PERMISSIONS.find((p) => added.includes(p) && !held.get(p)?.size);
      if (lacking) throw permissionDenied(lacking);
      return;
    }
    const changed = teams.map((t) => ({ ...t, roles: t.roles.map((r) => (r.id === roleId ? { ...r, permissions: [...after] } : r)) }));
    const deltas = await Promise.all(teams.map(async (t, i) => addedGrant(await this.teamGrant(t), await this.teamGrant(changed[i]!))));
    await this.assertHolds(unionGrants(deltas));
  }
}
