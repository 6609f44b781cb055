// What a principal may do: permissions on the organization and on a project (ARCHITECTURE section 3).
// A person's project permissions are the union of the roles of their teams that reach the project;
// organization permissions the union of `org:*` over all their teams. An API token holds its fixed list.
import { ALL_PERMISSIONS, isOrgPermission, type Permission } from './permissions';
import type { AccessCache } from './access-cache';
import type { Principal } from './principal';

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
  const load = () => personPermissions(db, principal.orgId, principal.userId, projectId);
  return cache ? cache.get(`permissions:${principal.userId}:${projectId ?? ''}`, load) : load();
}

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

/** Every permission the person holds through any team of the organization, whatever the team reaches. */
export async function permissionsHeldAnywhere(db: D1Database, orgId: string, userId: string): Promise<Set<Permission>> {
  const { results } = await db
    .prepare(
      `SELECT r.permissions AS permissions FROM team_members tm
       JOIN teams t ON t.id = tm.team_id AND t.org_id = ?
       JOIN team_roles tr ON tr.team_id = t.id JOIN roles r ON r.id = tr.role_id
       WHERE tm.user_id = ?`,
    )
    .bind(orgId, userId)
    .all<{ permissions: string }>();
  return new Set(results.flatMap((row) => JSON.parse(row.permissions) as Permission[]));
}

/** Permissions the roles of these teams grant, in the order of ALL_PERMISSIONS. */
export async function permissionsGrantedByTeams(db: D1Database, teamIds: readonly string[]): Promise<Permission[]> {
  if (!teamIds.length) return [];
  const { results } = await db
    .prepare(
      `SELECT r.permissions AS permissions FROM team_roles tr JOIN roles r ON r.id = tr.role_id
       WHERE tr.team_id IN (SELECT value FROM json_each(?))`,
    )
    .bind(JSON.stringify(teamIds))
    .all<{ permissions: string }>();
  const granted = new Set(results.flatMap((row) => JSON.parse(row.permissions) as Permission[]));
  return ALL_PERMISSIONS.filter((p) => granted.has(p));
}
