// What a principal may do: permissions on the organization and on a project (ARCHITECTURE section 3).
// A person's project permissions are the union of the roles of their teams that reach the project;
// organization permissions the union of `org:*` over all their teams. An API token holds its fixed list.
import { isOrgPermission, type Permission } from './permissions';
import type { AccessCache } from './access-cache';
import type { Principal } from './principal';
import { scopePermissions } from './scopes';

interface GrantRow {
  permissions: string;
  reaches: number;
}

async function personGrants(db: D1Database, orgId: string, userId: string, projectId: string | null): Promise<GrantRow[]> {
  const { results } = await db
    .prepare(
      `SELECT r.permissions AS permissions,
              (t.all_projects = 1 OR EXISTS (SELECT 1 FROM team_projects tp WHERE tp.team_id = t.id AND tp.project_id = ?)) AS reaches
       FROM team_members tm
       JOIN teams t ON t.id = tm.team_id AND t.org_id = ?
       JOIN team_roles tr ON tr.team_id = t.id
       JOIN roles r ON r.id = tr.role_id
       WHERE tm.user_id = ?`,
    )
    .bind(projectId ?? '', orgId, userId)
    .all<GrantRow>();
  return results;
}

export interface PermissionSets {
  org: Set<Permission>;
  /** Permissions on the project asked about (empty when none was asked or it is not reached). */
  project: Set<Permission>;
}

/** Permissions of a person (not a token) in an organization and optionally on one of its projects. */
export async function personPermissions(db: D1Database, orgId: string, userId: string, projectId: string | null): Promise<PermissionSets> {
  const sets: PermissionSets = { org: new Set(), project: new Set() };
  for (const row of await personGrants(db, orgId, userId, projectId)) {
    for (const permission of JSON.parse(row.permissions) as Permission[]) {
      if (isOrgPermission(permission)) sets.org.add(permission);
      else if (projectId && row.reaches) sets.project.add(permission);
    }
  }
  return sets;
}

/** Permissions of the caller, on `projectId` when given (a person's read through the access cache when given). */
export async function principalPermissions(db: D1Database, principal: Principal, projectId: string | null, cache?: AccessCache): Promise<PermissionSets> {
  if (principal.kind === 'upload_pass') return { org: new Set(), project: new Set() };
  if (principal.kind === 'api_token') {
    const held = (principal.tokenPermissions ?? []) as Permission[];
    return {
      org: new Set(held.filter(isOrgPermission)),
      project: new Set(projectId && projectId === principal.projectId ? held.filter((p) => !isOrgPermission(p)) : []),
    };
  }
  const load = (from: D1Database) => personPermissions(from, principal.orgId, principal.userId, projectId);
  const person = await (cache ? cache.get(`permissions:${principal.userId}:${projectId ?? ''}`, load) : load(db));
  // An AI assistant holds the person's permissions cut down to the scopes they ticked, never more.
  return principal.kind === 'connected_app' ? intersectScopes(person, principal.scopes ?? []) : person;
}

/** Whether the principal acts as its person across the projects they reach (a session or an assistant), not one project's credential. */
export const actsAsPerson = (principal: Principal): boolean => principal.kind === 'session' || principal.kind === 'connected_app';

/**
 * Ids of the organization's active projects that one of the person's teams reaches; with
 * `includeDeleted`, also the deleted ones they would reach (their history stays readable).
 */
export async function reachableProjectIds(db: D1Database, orgId: string, userId: string, options: { includeDeleted?: boolean } = {}): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT DISTINCT p.id AS id FROM projects p
       WHERE p.org_id = ? AND (p.deleted_at IS NULL OR ?) AND EXISTS (
         SELECT 1 FROM team_members tm JOIN teams t ON t.id = tm.team_id
         WHERE tm.user_id = ? AND t.org_id = p.org_id
           AND (t.all_projects = 1 OR EXISTS (SELECT 1 FROM team_projects tp WHERE tp.team_id = t.id AND tp.project_id = p.id)))
       ORDER BY p.created_at, p.id`,
    )
    .bind(orgId, options.includeDeleted ? 1 : 0, userId)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** A team as grants see it: its roles (with their permissions), whether it reaches every project, its active assigned projects. */
export interface TeamShape {
  id: string;
  allProjects: boolean;
  roles: { id: string; permissions: Permission[] }[];
  projectIds: string[];
}

/**
 * The organization's teams selected by id, by member or by a role they grant (any of the three),
 * in one query. Deleted projects are left out of `projectIds`: they grant nothing while deleted.
 */
export async function teamShapes(
  db: D1Database,
  orgId: string,
  select: { teamIds?: readonly string[]; memberId?: string; roleId?: string },
): Promise<TeamShape[]> {
  const { results } = await db
    .prepare(
      `SELECT t.id AS id, t.all_projects AS all_projects,
              (SELECT json_group_array(json_object('id', r.id, 'permissions', json(r.permissions)))
                 FROM team_roles tr JOIN roles r ON r.id = tr.role_id WHERE tr.team_id = t.id) AS roles,
              (SELECT json_group_array(tp.project_id) FROM team_projects tp
                 JOIN projects p ON p.id = tp.project_id AND p.org_id = t.org_id AND p.deleted_at IS NULL
                 WHERE tp.team_id = t.id) AS projects
       FROM teams t
       WHERE t.org_id = ?1 AND (t.id IN (SELECT value FROM json_each(?2))
         OR t.id IN (SELECT team_id FROM team_members WHERE user_id = ?3)
         OR t.id IN (SELECT team_id FROM team_roles WHERE role_id = ?4))
       ORDER BY t.id`,
    )
    .bind(orgId, JSON.stringify(select.teamIds ?? []), select.memberId ?? null, select.roleId ?? null)
    .all<{ id: string; all_projects: number; roles: string; projects: string }>();
  return results.map((row) => ({
    id: row.id,
    allProjects: !!row.all_projects,
    roles: JSON.parse(row.roles) as TeamShape['roles'],
    projectIds: JSON.parse(row.projects) as string[],
  }));
}

/** The emails of the people holding project:admin on a project: their teams reach it with a role that grants it (as personGrants reads it). */
export async function projectAdministratorEmails(db: D1Database, orgId: string, projectId: string): Promise<string[]> {
  const { results } = await db.prepare(
    `SELECT DISTINCT u.email AS email FROM team_members tm
     JOIN teams t ON t.id = tm.team_id AND t.org_id = ?1
     JOIN team_roles tr ON tr.team_id = t.id JOIN roles r ON r.id = tr.role_id
     JOIN users u ON u.id = tm.user_id
     WHERE EXISTS (SELECT 1 FROM json_each(r.permissions) p WHERE p.value = 'project:admin')
       AND (t.all_projects = 1 OR EXISTS (SELECT 1 FROM team_projects tp WHERE tp.team_id = t.id AND tp.project_id = ?2))`,
  ).bind(orgId, projectId).all<{ email: string }>();
  return results.map((r) => r.email);
}

/** Ids of the organization's active projects. */
export async function activeProjectIds(db: D1Database, orgId: string): Promise<string[]> {
  const { results } = await db.prepare('SELECT id FROM projects WHERE org_id = ? AND deleted_at IS NULL').bind(orgId).all<{ id: string }>();
  return results.map((r) => r.id);
}

/** The permissions of each of these roles, by id (roles not found are left out). */
export async function rolePermissions(db: D1Database, roleIds: readonly string[]): Promise<Map<string, Permission[]>> {
  if (!roleIds.length) return new Map();
  const { results } = await db
    .prepare('SELECT id, permissions FROM roles WHERE id IN (SELECT value FROM json_each(?))')
    .bind(JSON.stringify(roleIds))
    .all<{ id: string; permissions: string }>();
  return new Map(results.map((r) => [r.id, JSON.parse(r.permissions) as Permission[]]));
}

/** The person's permissions cut down to what the scopes let through: never more than either. */
function intersectScopes(person: PermissionSets, scopes: readonly string[]): PermissionSets {
  const allowed = scopePermissions(scopes);
  const keep = (set: Set<Permission>) => new Set([...set].filter((p) => allowed.has(p)));
  return { org: keep(person.org), project: keep(person.project) };
}
