// What a person may do in an organization (spec 4.15): organization permissions and, per active
// project they reach, the project permissions their teams grant there.
import { personPermissions, reachableProjectIds } from '../../auth/access';
import { canonicalPermissions } from '../../control/roles';
import type { Permission } from '../../auth/permissions';

export interface PermissionsAnswer {
  orgPermissions: Permission[];
  projectPermissions: Record<string, Permission[]>;
}

export async function permissionsOf(d1: D1Database, orgId: string, userId: string): Promise<PermissionsAnswer> {
  const [org, projectIds] = await Promise.all([personPermissions(d1, orgId, userId, null), reachableProjectIds(d1, orgId, userId)]);
  const perProject = await Promise.all(projectIds.map(async (id) => [id, (await personPermissions(d1, orgId, userId, id)).project] as const));
  const projectPermissions: Record<string, Permission[]> = {};
  // A team may reach a project through a role holding only org:* permissions: no project entry then.
  for (const [id, held] of perProject) if (held.size) projectPermissions[id] = canonicalPermissions([...held]);
  return { orgPermissions: canonicalPermissions([...org.org]), projectPermissions };
}
