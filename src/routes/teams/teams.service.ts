// Changes to teams (spec 4.3 rules 1 to 11): each one atomic, with its activity entry in the same batch.
import { and, eq, ne, sql } from 'drizzle-orm';
import { rolePermissions, teamShapes, type TeamShape } from '../../auth/access';
import type { GrantCheck } from '../../auth/grants';
import { activityInsert, type ActivityAction, type Actor } from '../../control/activity';
import { chunks, isUniqueViolation, type ControlDb } from '../../control/db';
import { resolveRoleIds } from '../../control/roles';
import { findActiveProject, findMember } from '../../control/members';
import { teamMembers, teamProjects, teamRoles, teams } from '../../control/schema';
import { fullTeam, resolveProjectIds, runBatch, type Statement, type TeamAnswer, type TeamMemberAnswer, type TeamRow } from '../../control/teams';
import { ApiError, invalidRequest, notFound } from '../../lib/errors';
import { newId, nowIso } from '../../lib/ids';

export interface Caller {
  orgId: string;
  actor: Actor;
  traceId: string | null;
  /** The caller's side of "no one grants what they do not hold", checked before any write. */
  grants: GrantCheck;
}

const nameTaken = (name: string) => new ApiError('name_taken', `A team named ${JSON.stringify(name)} already exists in this organization.`);

/** 400 `name_taken` when another team of the organization has the name, compared without case. */
async function assertNameFree(db: ControlDb, orgId: string, name: string, exceptId: string | null): Promise<void> {
  const sameName = and(eq(teams.orgId, orgId), sql`lower(${teams.name}) = lower(${name})`);
  const [other] = await db.select({ id: teams.id }).from(teams).where(exceptId ? and(sameName, ne(teams.id, exceptId)) : sameName).limit(1);
  if (other) throw nameTaken(name);
}

/** Runs a batch that writes a team name; a concurrent writer of the same name trips the unique index: still `name_taken`. */
async function writeNamed(db: ControlDb, name: string, statements: Statement[]): Promise<void> {
  try {
    await runBatch(db, statements);
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(name);
    throw error;
  }
}

const entry = (db: ControlDb, caller: Caller, team: Pick<TeamRow, 'id' | 'name'>, action: ActivityAction, data: Record<string, unknown> = {}) =>
  activityInsert(db, { orgId: caller.orgId, projectId: null, actor: caller.actor, action, traceId: caller.traceId, data: { teamId: team.id, teamName: team.name, ...data } });

const notBuiltIn = (team: TeamRow, what: string) => {
  if (team.builtIn) throw invalidRequest(`${team.name} is a built-in team: ${what}`);
};
const notAllProjects = (team: TeamRow) => {
  if (team.allProjects) throw invalidRequest('The team reaches all projects; turn allProjects off to assign projects one by one.');
};

/** The team as grants see it (roles with permissions, active projects). */
const shapeOf = async (db: ControlDb, team: TeamRow): Promise<TeamShape> => (await teamShapes(db.$client, team.orgId, { teamIds: [team.id] }))[0]!;

/** The roles with these ids and their permissions, in the order given. */
async function rolesOf(db: ControlDb, roleIds: readonly string[]): Promise<TeamShape['roles']> {
  const permissions = await rolePermissions(db.$client, roleIds);
  return roleIds.map((id) => ({ id, permissions: permissions.get(id) ?? [] }));
}

const reload = async (db: ControlDb, id: string): Promise<TeamAnswer> => fullTeam(db, (await db.select().from(teams).where(eq(teams.id, id)))[0]!);

export async function createTeam(
  db: ControlDb,
  caller: Caller,
  input: { name: string; allProjects?: boolean | undefined; projectIds?: string[] | undefined; roleIds?: string[] | undefined },
): Promise<TeamAnswer> {
  const allProjects = input.allProjects ?? false;
  if (allProjects && input.projectIds?.length) throw invalidRequest('Give either allProjects or projectIds, not both.');
  const roleIds = await resolveRoleIds(db, caller.orgId, input.roleIds ?? []);
  const projectIds = await resolveProjectIds(db, caller.orgId, input.projectIds ?? []);
  // A team grants its roles on its reach even before anyone joins it.
  await caller.grants.assertTeamChange(null, { allProjects, roles: await rolesOf(db, roleIds), projectIds });
  await assertNameFree(db, caller.orgId, input.name, null);
  const team = { id: newId(), orgId: caller.orgId, name: input.name, builtIn: false, allProjects, createdAt: nowIso() };
  await writeNamed(db, input.name, [
    db.insert(teams).values(team),
    ...chunks(roleIds).map((part) => db.insert(teamRoles).values(part.map((roleId) => ({ teamId: team.id, roleId })))),
    ...chunks(projectIds).map((part) => db.insert(teamProjects).values(part.map((projectId) => ({ teamId: team.id, projectId })))),
    entry(db, caller, team, 'team.created', { allProjects, projectIds, roleIds }),
  ]);
  return fullTeam(db, team);
}

/** Rule 2: fields left out are unchanged; turning `allProjects` on drops project assignments. */
export async function updateTeam(db: ControlDb, caller: Caller, team: TeamRow, input: { name?: string | undefined; allProjects?: boolean | undefined }): Promise<TeamAnswer> {
  notBuiltIn(team, 'it cannot be renamed or changed.');
  const name = input.name ?? team.name;
  const allProjects = input.allProjects ?? team.allProjects;
  if (name === team.name && allProjects === team.allProjects) return reload(db, team.id);
  if (allProjects && !team.allProjects) {
    const before = await shapeOf(db, team);
    await caller.grants.assertTeamChange(before, { ...before, allProjects: true });
  }
  if (name !== team.name) await assertNameFree(db, caller.orgId, name, team.id);
  const data: Record<string, unknown> = { allProjects };
  if (name !== team.name) data.previousName = team.name;
  await writeNamed(db, name, [
    db.update(teams).set({ name, allProjects }).where(eq(teams.id, team.id)),
    ...(allProjects && !team.allProjects ? [db.delete(teamProjects).where(eq(teamProjects.teamId, team.id))] : []),
    entry(db, caller, { id: team.id, name }, 'team.updated', data),
  ]);
  return reload(db, team.id);
}

/** Rule 3: memberships, role and project assignments go with the team, at once. */
export async function deleteTeam(db: ControlDb, caller: Caller, team: TeamRow): Promise<void> {
  notBuiltIn(team, 'it cannot be deleted.');
  await runBatch(db, [
    db.delete(teamMembers).where(eq(teamMembers.teamId, team.id)),
    db.delete(teamRoles).where(eq(teamRoles.teamId, team.id)),
    db.delete(teamProjects).where(eq(teamProjects.teamId, team.id)),
    db.delete(teams).where(eq(teams.id, team.id)),
    entry(db, caller, team, 'team.deleted'),
  ]);
}

const assignedProjectIds = async (db: ControlDb, teamId: string) =>
  (await db.select({ id: teamProjects.projectId }).from(teamProjects).where(eq(teamProjects.teamId, teamId))).map((r) => r.id);

/** Rule 4: projects already assigned are skipped. */
export async function addProjects(db: ControlDb, caller: Caller, team: TeamRow, requested: string[]): Promise<TeamAnswer> {
  notAllProjects(team);
  const ids = await resolveProjectIds(db, caller.orgId, requested);
  const assigned = new Set(await assignedProjectIds(db, team.id));
  const added = ids.filter((id) => !assigned.has(id));
  if (!added.length) return fullTeam(db, team);
  const before = await shapeOf(db, team);
  await caller.grants.assertTeamChange(before, { ...before, projectIds: [...before.projectIds, ...added] });
  await runBatch(db, [
    ...chunks(added).map((part) => db.insert(teamProjects).values(part.map((projectId) => ({ teamId: team.id, projectId }))).onConflictDoNothing()),
    entry(db, caller, team, 'team.project.added', { projectIds: added }),
  ]);
  return fullTeam(db, team);
}

/** Rule 5: the list becomes the team's projects; an empty list leaves none. */
export async function replaceProjects(db: ControlDb, caller: Caller, team: TeamRow, requested: string[]): Promise<TeamAnswer> {
  notAllProjects(team);
  const ids = await resolveProjectIds(db, caller.orgId, requested);
  const before = await assignedProjectIds(db, team.id);
  const shape = await shapeOf(db, team);
  await caller.grants.assertTeamChange(shape, { ...shape, projectIds: ids });
  await runBatch(db, [
    db.delete(teamProjects).where(eq(teamProjects.teamId, team.id)),
    ...chunks(ids).map((part) => db.insert(teamProjects).values(part.map((projectId) => ({ teamId: team.id, projectId })))),
    entry(db, caller, team, 'team.projects.replaced', {
      projectIds: ids, added: ids.filter((id) => !before.includes(id)), removed: before.filter((id) => !ids.includes(id)),
    }),
  ]);
  return fullTeam(db, team);
}

/** Rule 6: 404 for a project that is not one of the organization's active projects, 400 when not assigned. */
export async function removeProject(db: ControlDb, caller: Caller, team: TeamRow, projectId: string): Promise<void> {
  const project = await findActiveProject(db, caller.orgId, projectId.toLowerCase());
  if (!project) throw notFound('No such project exists in this organization.');
  notAllProjects(team);
  if (!(await assignedProjectIds(db, team.id)).includes(project.id)) throw invalidRequest('The project is not assigned to this team.');
  await runBatch(db, [
    db.delete(teamProjects).where(and(eq(teamProjects.teamId, team.id), eq(teamProjects.projectId, project.id))),
    entry(db, caller, team, 'team.project.removed', { projectId: project.id, projectName: project.name }),
  ]);
}

const heldRoleIds = async (db: ControlDb, teamId: string) =>
  (await db.select({ id: teamRoles.roleId }).from(teamRoles).where(eq(teamRoles.teamId, teamId))).map((r) => r.id);

/** Rules 7 and 9: roles already held are skipped; a built-in team's roles never change. */
export async function addRoles(db: ControlDb, caller: Caller, team: TeamRow, requested: string[]): Promise<TeamAnswer> {
  notBuiltIn(team, 'its roles cannot be changed.');
  const ids = await resolveRoleIds(db, caller.orgId, requested);
  const held = new Set(await heldRoleIds(db, team.id));
  const added = ids.filter((id) => !held.has(id));
  if (!added.length) return fullTeam(db, team);
  const before = await shapeOf(db, team);
  await caller.grants.assertTeamChange(before, { ...before, roles: [...before.roles, ...(await rolesOf(db, added))] });
  await runBatch(db, [
    ...chunks(added).map((part) => db.insert(teamRoles).values(part.map((roleId) => ({ teamId: team.id, roleId }))).onConflictDoNothing()),
    entry(db, caller, team, 'team.role.added', { roleIds: added }),
  ]);
  return fullTeam(db, team);
}

/** Rules 8 and 9: the list becomes the team's roles; an empty list leaves none. */
export async function replaceRoles(db: ControlDb, caller: Caller, team: TeamRow, requested: string[]): Promise<TeamAnswer> {
  notBuiltIn(team, 'its roles cannot be changed.');
  const ids = await resolveRoleIds(db, caller.orgId, requested);
  const before = await heldRoleIds(db, team.id);
  const shape = await shapeOf(db, team);
  await caller.grants.assertTeamChange(shape, { ...shape, roles: await rolesOf(db, ids) });
  await runBatch(db, [
    db.delete(teamRoles).where(eq(teamRoles.teamId, team.id)),
    ...chunks(ids).map((part) => db.insert(teamRoles).values(part.map((roleId) => ({ teamId: team.id, roleId })))),
    entry(db, caller, team, 'team.roles.replaced', {
      roleIds: ids, added: ids.filter((id) => !before.includes(id)), removed: before.filter((id) => !ids.includes(id)),
    }),
  ]);
  return fullTeam(db, team);
}

const onTeam = async (db: ControlDb, teamId: string, userId: string) =>
  (await db.select({ userId: teamMembers.userId }).from(teamMembers).where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))).length > 0;

const requireOrgMember = async (db: ControlDb, orgId: string, userId: string) => {
  const member = await findMember(db, orgId, userId.toLowerCase());
  if (!member) throw notFound('No such person is a member of this organization.');
  return member;
};

/** Rule 10: only a member of the organization can join; the addition is in the activity log. */
export async function addMember(db: ControlDb, caller: Caller, team: TeamRow, userId: string): Promise<TeamMemberAnswer> {
  const member = await requireOrgMember(db, caller.orgId, userId);
  const already = () => invalidRequest(`${member.email} is already on the team.`);
  if (await onTeam(db, team.id, member.id)) throw already();
  // Joining hands the person the team's whole grant.
  await caller.grants.assertJoin([await shapeOf(db, team)]);
  try {
    await runBatch(db, [
      db.insert(teamMembers).values({ teamId: team.id, userId: member.id, addedAt: nowIso() }),
      entry(db, caller, team, 'team.member.added', { userId: member.id, email: member.email }),
    ]);
  } catch (error) {
    if (isUniqueViolation(error)) throw already();
    throw error;
  }
  return member;
}

/** Rule 11: the person stays in the organization and on their other teams. */
export async function removeMember(db: ControlDb, caller: Caller, team: TeamRow, userId: string): Promise<void> {
  const member = await requireOrgMember(db, caller.orgId, userId);
  if (!(await onTeam(db, team.id, member.id))) throw invalidRequest(`${member.email} is not on the team.`);
  await runBatch(db, [
    db.delete(teamMembers).where(and(eq(teamMembers.teamId, team.id), eq(teamMembers.userId, member.id))),
    entry(db, caller, team, 'team.member.removed', { userId: member.id, email: member.email }),
  ]);
}

