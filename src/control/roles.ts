// Roles (spec 4.4, ARCHITECTURE section 3): the built-in Admin, Member and Viewer (org_id null,
// shared by every organization) and each organization's own roles. The `roles` table has no unique
// index on names, so creating and renaming decide "name taken" inside the write statement itself.
import { and, count, desc, eq, isNull, or, sql } from 'drizzle-orm';
import type { GrantCheck } from '../auth/grants';
import { ALL_PERMISSIONS, isPermission, type Permission } from '../auth/permissions';
import { activityRow, type Actor } from './activity';
import { ApiError, conflict, invalidRequest, notFound } from '../lib/errors';
import { newId, nowIso } from '../lib/ids';
import { inJsonList, type ControlDb } from './db';
import { roles, teamRoles } from './schema';

export const ROLE_NAME_MAX = 255;

/** The role answer (spec part 2). */
export interface RoleAnswer {
  id: string;
  name: string;
  systemRole: boolean;
  permissions: Permission[];
}

type RoleRow = typeof roles.$inferSelect;

/** Permissions in the order of ALL_PERMISSIONS, each once: every answer lists them the same way. */
export function canonicalPermissions(values: readonly string[]): Permission[] {
  const held = new Set(values);
  return ALL_PERMISSIONS.filter((p) => held.has(p));
}

export const roleAnswer = (row: Pick<RoleRow, 'id' | 'name' | 'systemRole' | 'permissions'>): RoleAnswer => ({
  id: row.id,
  name: row.name,
  systemRole: row.systemRole,
  permissions: canonicalPermissions(row.permissions),
});

/** Roles an organization may use: the built-in ones and its own. */
export const availableTo = (orgId: string) => or(isNull(roles.orgId), eq(roles.orgId, orgId));

/** Built-in roles first in their fixed order, then the organization's own by name. */
export const roleOrder = [desc(roles.systemRole), roles.position, sql`${roles.name} collate nocase`, roles.name] as const;

export async function listRoles(db: ControlDb, orgId: string): Promise<RoleAnswer[]> {
  const rows = await db.select().from(roles).where(availableTo(orgId)).orderBy(...roleOrder);
  return rows.map(roleAnswer);
}

/** The role if it is built in or the organization's own; 404 otherwise (never another organization's). */
export async function requireRole(db: ControlDb, orgId: string, roleId: string): Promise<RoleRow> {
  const [row] = await db.select().from(roles).where(and(eq(roles.id, roleId.toLowerCase()), availableTo(orgId)));
  if (!row) throw notFound('No role with this id is built in or belongs to this organization.');
  return row;
}

/**
 * The ids of roles the organization may use, in the order given, each once; 400 naming the first
 * that is not built in nor the organization's own.
 */
export async function resolveRoleIds(db: ControlDb, orgId: string, roleIds: readonly string[]): Promise<string[]> {
  const ids = [...new Set(roleIds.map((id) => id.toLowerCase()))];
  if (!ids.length) return [];
  const found = new Set((await db.select({ id: roles.id }).from(roles).where(and(inJsonList(roles.id, ids), availableTo(orgId)))).map((r) => r.id));
  const missing = ids.find((id) => !found.has(id));
  if (missing) throw invalidRequest(`Role ${missing} does not exist in this organization.`);
  return ids;
}

/** 400 unless every value is a known permission; answers them in canonical order. */
export function validPermissions(values: readonly string[]): Permission[] {
  const unknown = values.find((v) => !isPermission(v));
  if (unknown !== undefined) throw invalidRequest(`Unknown permission ${JSON.stringify(unknown)}; GET /api/v1/permission lists them.`);
  return canonicalPermissions(values);
}

const nameTaken = (name: string) => new ApiError('name_taken', `A role named ${JSON.stringify(name)} already exists (built-in or in this organization).`);

// Guarded writes go to D1 directly: drizzle cannot batch raw SQL on D1. The guard sits inside the
// statement, so two requests can never both pass it.
const NAME_IN_USE = `exists (select 1 from roles where (org_id is null or org_id = ?) and lower(name) = lower(?) and id is not ?)`;
const NO_GRANTS = `not exists (select 1 from team_roles where role_id = ?)`;

interface Change {
  orgId: string;
  actor: Actor;
  traceId: string | null;
}

/**
 * The activity insert for a guarded write, to follow it in the same batch: it is kept only when the
 * statement just before it changed a row (SQLite `changes()`), so a refused write records nothing.
 */
function activityIfChanged(d1: D1Database, row: ReturnType<typeof activityRow>): D1PreparedStatement {
  return d1
    .prepare(`insert into activity (id, org_id, project_id, actor_id, actor_kind, action, data, trace_id, created_at)
      select ?, ?, ?, ?, ?, ?, ?, ?, ? where changes() > 0`)
    .bind(row.id, row.orgId, row.projectId, row.actorId, row.actorKind, row.action, JSON.stringify(row.data), row.traceId, row.createdAt);
}

/** No one grants what they do not hold: a role's added permissions are checked before any write. */
type Guarded = Change & { grants: GrantCheck };

export async function createRole(db: ControlDb, input: Guarded & { name: string; permissions: string[] }): Promise<RoleAnswer> {
  const permissions = validPermissions(input.permissions);
  await input.grants.assertRoleChange(null, [], permissions);
  const id = newId();
  const d1 = db.$client;
  const [inserted] = await d1.batch([
    d1.prepare(`insert into roles (id, org_id, name, system_role, permissions, position, created_at)
      select ?, ?, ?, 0, ?, 100, ? where not ${NAME_IN_USE}`)
      .bind(id, input.orgId, input.name, JSON.stringify(permissions), nowIso(), input.orgId, input.name, null),
    activityIfChanged(d1, activityRow({
      orgId: input.orgId, actor: input.actor, action: 'role.created', traceId: input.traceId,
      data: { roleId: id, roleName: input.name, permissions },
    })),
  ]);
  if (!inserted?.meta.changes) throw nameTaken(input.name);
  return { id, name: input.name, systemRole: false, permissions };
}

/** The organization's own role, for a change: 404 when unknown, 400 when built in. */
async function ownRole(db: ControlDb, orgId: string, roleId: string): Promise<RoleRow> {
  const row = await requireRole(db, orgId, roleId);
  if (row.systemRole || row.orgId === null) throw invalidRequest('Built-in roles cannot be changed.');
  return row;
}

export async function updateRole(
  db: ControlDb,
  input: Guarded & { roleId: string; name?: string | undefined; permissions?: string[] | undefined },
): Promise<RoleAnswer> {
  const current = await ownRole(db, input.orgId, input.roleId);
  const name = input.name ?? current.name;
  const permissions = input.permissions ? validPermissions(input.permissions) : canonicalPermissions(current.permissions);
  await input.grants.assertRoleChange(current.id, canonicalPermissions(current.permissions), permissions);
  const data: Record<string, unknown> = { roleId: current.id, roleName: name, permissions };
  if (name !== current.name) data.previousName = current.name;
  const d1 = db.$client;
  const [updated] = await d1.batch([
    d1.prepare(`update roles set name = ?, permissions = ? where id = ? and not ${NAME_IN_USE}`)
      .bind(name, JSON.stringify(permissions), current.id, input.orgId, name, current.id),
    activityIfChanged(d1, activityRow({ orgId: input.orgId, actor: input.actor, action: 'role.updated', traceId: input.traceId, data })),
  ]);
  if (!updated?.meta.changes) {
    // Either the name is taken or the role went away meanwhile.
    await ownRole(db, input.orgId, current.id);
    throw nameTaken(name);
  }
  return { id: current.id, name, systemRole: false, permissions };
}

/** Deletes an organization's own role; 409 while a team still grants it (the delete re-checks, so a race cannot strand a grant). */
export async function deleteRole(db: ControlDb, input: Change & { roleId: string }): Promise<void> {
  const current = await ownRole(db, input.orgId, input.roleId);
  const grantedBy = async () => (await db.select({ n: count() }).from(teamRoles).where(eq(teamRoles.roleId, current.id)))[0]?.n ?? 0;
  const inUse = (n: number) => conflict(`The role is granted by ${n} team${n === 1 ? '' : 's'}; take it off ${n === 1 ? 'that team' : 'those teams'} first.`);
  const before = await grantedBy();
  if (before) throw inUse(before);
  const d1 = db.$client;
  const [deleted] = await d1.batch([
    d1.prepare(`delete from roles where id = ? and ${NO_GRANTS}`).bind(current.id, current.id),
    activityIfChanged(d1, activityRow({ orgId: input.orgId, actor: input.actor, action: 'role.deleted', traceId: input.traceId, data: { roleId: current.id, roleName: current.name } })),
  ]);
  if (!deleted?.meta.changes) {
    const after = await grantedBy();
    if (after) throw inUse(after);
    throw notFound('No role with this id is built in or belongs to this organization.');
  }
}
