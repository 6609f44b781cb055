// Projects (spec 4.6): the organization's list, creation, reading and renaming, deletion with a
// retention period, restore, and the purge of what outlived its retention.
import { and, asc, desc, eq, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { actsAsPerson, reachableProjectIds, teamShapes } from '../auth/access';
import { isOrgPermission } from '../auth/permissions';
import type { Principal } from '../auth/principal';
import { issueSession } from '../auth/sign-in';
import type { Env } from '../env';
import { ApiError, invalidRequest, notFound } from '../lib/errors';
import { addDays, newId, nowIso } from '../lib/ids';
import { activityInsert, activityInsertWhen, activityRow } from './activity';
import { chunks, isUniqueViolation, type ControlDb } from './db';
import { changedRows, getOrganization } from './organizations';
import { credentials, projects, teamMembers, teamProjects, teamRoles, teams } from './schema';
import { TEAM_NAME_MAX } from './teams';

type ProjectRow = typeof projects.$inferSelect;

export interface ProjectAnswer {
  id: string;
  name: string;
  orgId: string;
  demoProject: boolean;
  featureFlags: string[];
  createdAt: string;
}

export const projectAnswer = (p: ProjectRow): ProjectAnswer => ({
  id: p.id, name: p.name, orgId: p.orgId, demoProject: p.demoProject, featureFlags: p.featureFlags, createdAt: p.createdAt,
});

const nameTaken = () => new ApiError('name_taken', 'Another project in the organization has this name.');

/** Runs a write that may hit the active-name unique index; a race answers `name_taken`, not 500. */
async function guardName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, /projects\.org_id, projects\.name/)) throw nameTaken();
    throw error;
  }
}

async function assertNameFree(db: ControlDb, orgId: string, name: string, exceptId?: string): Promise<void> {
  const clash = await db.query.projects.findFirst({
    where: and(eq(projects.orgId, orgId), eq(projects.name, name), isNull(projects.deletedAt), exceptId ? ne(projects.id, exceptId) : undefined),
  });
  if (clash) throw nameTaken();
}

/** The organization's active projects, by name. */
export async function listProjects(db: ControlDb, orgId: string) {
  const org = await getOrganization(db, orgId);
  const rows = await db.select({ name: projects.name, uuid: projects.id }).from(projects)
    .where(and(eq(projects.orgId, orgId), isNull(projects.deletedAt))).orderBy(asc(projects.name), asc(projects.id));
  return { org_uuid: org.id, org_name: org.name, projects: rows };
}

/** Deleted projects still restorable (inside the retention period), most recently deleted first. */
export async function listDeletedProjects(db: ControlDb, orgId: string, now = new Date()) {
  const org = await getOrganization(db, orgId);
  const rows = await db.select().from(projects)
    .where(and(eq(projects.orgId, orgId), isNotNull(projects.deletedAt))).orderBy(desc(projects.deletedAt), asc(projects.id));
  return {
    org_uuid: org.id,
    org_name: org.name,
    projects: rows
      .map((p) => ({ name: p.name, uuid: p.id, deletedAt: p.deletedAt!, restorableUntil: addDays(p.deletedAt!, org.retentionDays) }))
      .filter((p) => p.restorableUntil > now.toISOString()),
  };
}

/**
 * The active project a caller names on a `reachable` route: a session may name any project of its
 * organization one of its teams reaches, a token only its own (the middleware refuses others). 404 otherwise.
 */
export async function requireReachableProject(db: ControlDb, principal: Principal, projectId: string): Promise<ProjectRow> {
  const project = await db.query.projects.findFirst({
    where: and(eq(projects.id, projectId), eq(projects.orgId, principal.orgId), isNull(projects.deletedAt)),
  });
  const visible = project && (!actsAsPerson(principal)
    ? project.id === principal.projectId
    : (await reachableProjectIds(db.$client, principal.orgId, principal.userId)).includes(project.id));
  if (!visible) throw notFound('No project with this id is reachable in the organization.');
  return project;
}

/** The organization's project in any state (not yet purged), else 404. */
export async function requireOrgProject(db: ControlDb, orgId: string, projectId: string): Promise<ProjectRow> {
  const project = await db.query.projects.findFirst({ where: and(eq(projects.id, projectId), eq(projects.orgId, orgId)) });
  if (!project) throw notFound('No project with this id exists in the organization.');
  return project;
}

/**
 * Spec 4.6 rule 2: the creator, and only the creator, becomes a member of the new project. A team of
 * theirs that reaches every project reaches it already (as it does for everyone on that team), so
 * nothing is added. Otherwise a new team named after the project holds only the creator, assigned the
 * project, with the roles through which they hold project permissions on some project today: they work
 * in the new project as they do elsewhere, and no one else gains reach.
 */
async function creatorTeamRoles(db: ControlDb, orgId: string, userId: string): Promise<string[] | null> {
  const mine = await teamShapes(db.$client, orgId, { memberId: userId });
  if (mine.some((t) => t.allProjects)) return null;
  const roles = mine.filter((t) => t.projectIds.length).flatMap((t) => t.roles).filter((r) => r.permissions.some((p) => !isOrgPermission(p)));
  return [...new Set(roles.map((r) => r.id))];
}

/** The project's name as a team name, made unique among the organization's teams (ignoring case). */
async function freeTeamName(db: ControlDb, orgId: string, projectName: string): Promise<string> {
  const taken = new Set((await db.select({ name: teams.name }).from(teams).where(eq(teams.orgId, orgId))).map((t) => t.name.toLowerCase()));
  const base = projectName.slice(0, TEAM_NAME_MAX - 8);
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base} (${n})`;
    if (!taken.has(name.toLowerCase())) return name;
  }
}

/** Creates a project the caller (only) reaches, and a session for it under the caller's same sign-in. */
export async function createProject(db: ControlDb, env: Env, principal: Principal, name: string, traceId: string) {
  const org = await getOrganization(db, principal.orgId);
  await assertNameFree(db, org.id, name);
  const id = newId();
  const now = nowIso();
  const roleIds = await creatorTeamRoles(db, org.id, principal.userId);
  const team = roleIds && { id: newId(), orgId: org.id, name: await freeTeamName(db, org.id, name), builtIn: false, allProjects: false, createdAt: now };
  const teamWrites = team && roleIds ? [
    db.insert(teams).values(team),
    db.insert(teamMembers).values({ teamId: team.id, userId: principal.userId, addedAt: now }),
    db.insert(teamProjects).values({ teamId: team.id, projectId: id }),
    ...chunks(roleIds).map((part) => db.insert(teamRoles).values(part.map((roleId) => ({ teamId: team.id, roleId })))),
    activityInsert(db, { orgId: org.id, actor: principal, action: 'team.created', traceId, data: { teamId: team.id, teamName: team.name, allProjects: false, projectIds: [id], roleIds, userIds: [principal.userId] } }),
  ] : [];
  await guardName(() => db.batch([
    db.insert(projects).values({ id, orgId: org.id, name, demoProject: false, featureFlags: [], createdAt: now }),
    ...teamWrites,
    activityInsert(db, { orgId: org.id, projectId: id, actor: principal, action: 'project.created', data: { name, teamIds: team ? [team.id] : [] }, traceId }),
  ]));
  const signIn = await db.query.credentials.findFirst({ where: eq(credentials.jti, principal.signInJti!) });
  if (!signIn) throw new ApiError('token_revoked', 'The sign-in of this session ended.');
  const session = await issueSession(db, env, { signInJti: signIn.jti, userId: principal.userId, orgId: org.id, projectId: id, expiresAt: signIn.expiresAt });
  return { uuid: id, project: name, jwt: session.jwt };
}

/** Renames a project; a name used by another active project of the organization answers `name_taken`. */
export async function updateProject(db: ControlDb, principal: Principal, project: ProjectRow, changes: { name?: string }, traceId: string) {
  if (changes.name === undefined || changes.name === project.name) return projectAnswer(project);
  const name = changes.name;
  await assertNameFree(db, project.orgId, name, project.id);
  await guardName(() => db.batch([
    db.update(projects).set({ name }).where(eq(projects.id, project.id)),
    activityInsert(db, { orgId: project.orgId, projectId: project.id, actor: principal, action: 'project.updated', data: { name: { from: project.name, to: name } }, traceId }),
  ]));
  return projectAnswer({ ...project, name });
}

/**
 * Deletes a project: it leaves the list at once, its sessions are revoked (its API tokens and
 * passes are refused while it is deleted), and it stays restorable during the retention period.
 */
export async function deleteProject(db: ControlDb, principal: Principal, projectId: string, traceId: string): Promise<void> {
  const { orgId } = principal;
  const project = await db.query.projects.findFirst({ where: and(eq(projects.id, projectId), eq(projects.orgId, orgId), isNull(projects.deletedAt)) });
  if (!project) throw notFound('No active project with this id exists in the organization.');
  const now = nowIso();
  const activeCount = sql`(SELECT count(*) FROM projects WHERE org_id = ${orgId} AND deleted_at IS NULL)`;
  // Guarded by the deletion itself: two concurrent deletions never remove the last project.
  const deletedNow = sql`EXISTS (SELECT 1 FROM projects WHERE id = ${projectId} AND deleted_at = ${now})`;
  const [deletion] = await db.batch([
    db.update(projects).set({ deletedAt: now })
      .where(and(eq(projects.id, projectId), eq(projects.orgId, orgId), isNull(projects.deletedAt), sql`${activeCount} > 1`)),
    db.update(credentials).set({ revokedAt: now })
      .where(and(eq(credentials.projectId, projectId), eq(credentials.kind, 'session'), isNull(credentials.revokedAt), deletedNow)),
    activityInsertWhen(db, { orgId, projectId, actor: principal, action: 'project.deleted', data: { name: project.name }, traceId }, deletedNow),
  ]);
  if (changedRows(deletion)) return;
  const still = await db.query.projects.findFirst({ where: and(eq(projects.id, projectId), isNull(projects.deletedAt)) });
  if (!still) throw notFound('No active project with this id exists in the organization.');
  throw new ApiError('last_project', 'This is the organization\'s last project; it cannot be deleted.');
}

/** Restores a deleted project within the organization's retention period (404 after it). */
export async function restoreProject(db: ControlDb, principal: Principal, projectId: string, traceId: string, now = new Date()) {
  const org = await getOrganization(db, principal.orgId);
  const project = await requireOrgProject(db, org.id, projectId);
  if (!project.deletedAt) throw invalidRequest('The project is not deleted.');
  if (addDays(project.deletedAt, org.retentionDays) <= now.toISOString()) {
    throw notFound('The project\'s retention period has ended; it can no longer be restored.');
  }
  await assertNameFree(db, org.id, project.name);
  await guardName(() => db.batch([
    db.update(projects).set({ deletedAt: null }).where(eq(projects.id, project.id)),
    activityInsert(db, { orgId: org.id, projectId: project.id, actor: principal, action: 'project.restored', data: { name: project.name, deletedAt: project.deletedAt }, traceId }),
  ]));
  return projectAnswer({ ...project, deletedAt: null });
}

/** The caller's reachable active projects in the session's organization. */
export async function myProjects(db: ControlDb, principal: Principal) {
  const org = await getOrganization(db, principal.orgId);
  const ids = await reachableProjectIds(db.$client, org.id, principal.userId);
  const rows = ids.length
    ? await db.select({ name: projects.name, uuid: projects.id }).from(projects)
      .where(and(eq(projects.orgId, org.id), isNull(projects.deletedAt))).orderBy(asc(projects.name), asc(projects.id))
    : [];
  return { org_uuid: org.id, org_name: org.name, user_uuid: principal.userId, projects: rows.filter((p) => ids.includes(p.uuid)) };
}

export interface PurgeResult {
  /** Projects removed for good; queued in `erasures`, so their R2 objects and storage go next. */
  projectIds: string[];
  organizationIds: string[];
  /** Every organization whose control plane changed (for the access cache). */
  touchedOrgIds: string[];
}

const EXPIRED = (column: string) => `julianday(${column}) + o.retention_days <= julianday(?1)`;

/**
 * The scheduled retention purge: projects deleted longer than their organization's `retentionDays`
 * ago lose their row, team assignments and credentials; organizations deleted that long ago lose
 * everything (members, teams, roles, projects, credentials). In the same batch each purged project
 * (and organization) is queued in `erasures`, which the cron works afterwards in bounded slices
 * (src/control/erasures.ts): the project's R2 objects and Durable Object storage, the organization's
 * activity entries. A purged project's activity entries stay in its organization's log.
 */
export async function purgeExpiredProjects(d1: D1Database, now = new Date()): Promise<PurgeResult> {
  const at = now.toISOString();
  const { results: expiredProjects } = await d1
    .prepare(`SELECT p.id, p.org_id, p.name FROM projects p JOIN organizations o ON o.id = p.org_id
              WHERE p.deleted_at IS NOT NULL AND o.deleted_at IS NULL AND ${EXPIRED('p.deleted_at')}`)
    .bind(at).all<{ id: string; org_id: string; name: string }>();
  for (const p of expiredProjects) {
    const entry = activityRow({ orgId: p.org_id, projectId: p.id, actor: null, action: 'project.purged', data: { name: p.name } });
    await d1.batch([
      d1.prepare('DELETE FROM team_projects WHERE project_id = ?1').bind(p.id),
      d1.prepare('DELETE FROM credentials WHERE project_id = ?1').bind(p.id),
      d1.prepare('DELETE FROM projects WHERE id = ?1 AND deleted_at IS NOT NULL').bind(p.id),
      d1.prepare("INSERT OR IGNORE INTO erasures (kind, target_id, org_id, step, queued_at, updated_at) VALUES ('project', ?1, ?2, 'close', ?3, ?3)").bind(p.id, p.org_id, at),
      d1.prepare('INSERT INTO activity (id, org_id, project_id, actor_id, actor_kind, action, data, trace_id, created_at) VALUES (?1, ?2, ?3, NULL, ?4, ?5, ?6, NULL, ?7)')
        .bind(entry.id, entry.orgId, entry.projectId, entry.actorKind, entry.action, JSON.stringify(entry.data), entry.createdAt),
    ]);
  }

  const { results: expiredOrgs } = await d1
    .prepare(`SELECT o.id FROM organizations o WHERE o.deleted_at IS NOT NULL AND ${EXPIRED('o.deleted_at')}`)
    .bind(at).all<{ id: string }>();
  const projectIds = expiredProjects.map((p) => p.id);
  for (const { id } of expiredOrgs) {
    const { results: orgProjects } = await d1.prepare('SELECT id FROM projects WHERE org_id = ?1').bind(id).all<{ id: string }>();
    const orgTeams = 'SELECT id FROM teams WHERE org_id = ?1';
    await d1.batch([
      d1.prepare(`INSERT OR IGNORE INTO erasures (kind, target_id, org_id, step, queued_at, updated_at)
                  SELECT 'project', id, org_id, 'close', ?2, ?2 FROM projects WHERE org_id = ?1`).bind(id, at),
      d1.prepare("INSERT OR IGNORE INTO erasures (kind, target_id, org_id, step, queued_at, updated_at) VALUES ('organization', ?1, ?1, 'activity', ?2, ?2)").bind(id, at),
      d1.prepare(`DELETE FROM team_members WHERE team_id IN (${orgTeams})`).bind(id),
      d1.prepare(`DELETE FROM team_roles WHERE team_id IN (${orgTeams})`).bind(id),
      d1.prepare(`DELETE FROM team_projects WHERE team_id IN (${orgTeams}) OR project_id IN (SELECT id FROM projects WHERE org_id = ?1)`).bind(id),
      d1.prepare('DELETE FROM teams WHERE org_id = ?1').bind(id),
      d1.prepare('DELETE FROM roles WHERE org_id = ?1').bind(id),
      d1.prepare('DELETE FROM credentials WHERE org_id = ?1').bind(id),
      d1.prepare('DELETE FROM projects WHERE org_id = ?1').bind(id),
      d1.prepare('DELETE FROM org_members WHERE org_id = ?1').bind(id),
      d1.prepare('DELETE FROM organizations WHERE id = ?1 AND deleted_at IS NOT NULL').bind(id),
    ]);
    projectIds.push(...orgProjects.map((p) => p.id));
  }
  const organizationIds = expiredOrgs.map((o) => o.id);
  const touchedOrgIds = [...new Set([...expiredProjects.map((p) => p.org_id), ...organizationIds])];
  return { projectIds, organizationIds, touchedOrgIds };
}
