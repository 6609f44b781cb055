// Teams (spec 4.3, ARCHITECTURE sections 3 and 4): who is on a team, which roles it grants and which
// projects it reaches. Reads and the answer shapes live here; changes in src/routes/teams/teams.service.ts.
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { invalidRequest, notFound } from '../lib/errors';
import { inJsonList, type ControlDb } from './db';
import { roleAnswer, roleOrder, type RoleAnswer } from './roles';
import { orgMembers, projects, roles, teamMembers, teamProjects, teamRoles, teams, users } from './schema';

export const TEAM_NAME_MAX = 255;

export type TeamRow = typeof teams.$inferSelect;

/** A team member (spec part 2). */
export interface TeamMemberAnswer {
  id: string;
  email: string;
  name: string;
}

/** The team list entry: `projectCount` is left out when the team reaches all projects. */
export interface TeamSummary {
  id: string;
  name: string;
  allProjects: boolean;
  memberCount: number;
  projectCount?: number;
  roles: string[];
}

export interface TeamAnswer extends Omit<TeamSummary, 'roles'> {
  builtIn: boolean;
  members: TeamMemberAnswer[];
  /** The active projects it reaches: every one of the organization's when `allProjects`. */
  projects: { id: string; name: string }[];
  roles: RoleAnswer[];
}

export type Statement = BatchItem<'sqlite'>;

/** Runs statements as one atomic D1 batch. */
export async function runBatch(db: ControlDb, statements: Statement[]): Promise<void> {
  if (statements.length) await db.batch(statements as [Statement, ...Statement[]]);
}

const byName = (column: typeof users.name | typeof projects.name) => [sql`${column} collate nocase`, column] as const;

/** Team members who are still active members of the organization (a former member's rows are kept for restoring). */
const activeMembership = and(eq(orgMembers.orgId, teams.orgId), eq(orgMembers.userId, teamMembers.userId), isNull(orgMembers.removedAt));
const activeProject = and(eq(projects.id, teamProjects.projectId), eq(projects.orgId, teams.orgId), isNull(projects.deletedAt));

function summaryOf(team: TeamRow, memberCount: number, projectCount: number, roleNames: string[]): TeamSummary {
  return {
    id: team.id,
    name: team.name,
    allProjects: team.allProjects,
    memberCount,
    ...(team.allProjects ? {} : { projectCount }),
    roles: roleNames,
  };
}

/** The organization's teams as list entries (built-in first, then by name); only the person's teams when `userId` is given. */
export async function teamSummaries(db: ControlDb, orgId: string, filter: { userId?: string } = {}): Promise<TeamSummary[]> {
  const inOrg = eq(teams.orgId, orgId);
  const where = filter.userId
    ? and(inOrg, inArray(teams.id, db.select({ id: teamMembers.teamId }).from(teamMembers).where(eq(teamMembers.userId, filter.userId))))
    : inOrg;
  const [teamRows, memberCounts, projectCounts, roleRows] = await db.batch([
    db.select().from(teams).where(where).orderBy(sql`${teams.builtIn} desc`, sql`${teams.name} collate nocase`, teams.name),
    db.select({ teamId: teamMembers.teamId, n: count() }).from(teamMembers)
      .innerJoin(teams, eq(teams.id, teamMembers.teamId)).innerJoin(orgMembers, activeMembership)
      .where(inOrg).groupBy(teamMembers.teamId),
    db.select({ teamId: teamProjects.teamId, n: count() }).from(teamProjects)
      .innerJoin(teams, eq(teams.id, teamProjects.teamId)).innerJoin(projects, activeProject)
      .where(inOrg).groupBy(teamProjects.teamId),
    db.select({ teamId: teamRoles.teamId, name: roles.name }).from(teamRoles)
      .innerJoin(teams, eq(teams.id, teamRoles.teamId)).innerJoin(roles, eq(roles.id, teamRoles.roleId))
      .where(inOrg).orderBy(...roleOrder),
  ]);
  const members = new Map(memberCounts.map((r) => [r.teamId, r.n]));
  const reached = new Map(projectCounts.map((r) => [r.teamId, r.n]));
  const roleNames = new Map<string, string[]>();
  for (const r of roleRows) roleNames.set(r.teamId, [...(roleNames.get(r.teamId) ?? []), r.name]);
  return teamRows.map((t) => summaryOf(t, members.get(t.id) ?? 0, reached.get(t.id) ?? 0, roleNames.get(t.id) ?? []));
}

/** The organization's team with this id; 404 otherwise (never another organization's). */
export async function requireTeam(db: ControlDb, orgId: string, teamId: string): Promise<TeamRow> {
  const [team] = await db.select().from(teams).where(and(eq(teams.id, teamId.toLowerCase()), eq(teams.orgId, orgId)));
  if (!team) throw notFound('No team with this id exists in this organization.');
  return team;
}

/** The team's members who belong to the organization, by name. */
export function teamMembersQuery(db: ControlDb, team: TeamRow) {
  return db.select({ id: users.id, email: users.email, name: users.name }).from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .innerJoin(orgMembers, activeMembership)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(eq(teamMembers.teamId, team.id))
    .orderBy(...byName(users.name), users.email);
}

export async function listTeamMembers(db: ControlDb, team: TeamRow): Promise<TeamMemberAnswer[]> {
  return teamMembersQuery(db, team);
}

/** The full team answer: members, the projects it reaches, its roles with their permissions. */
export async function fullTeam(db: ControlDb, team: TeamRow): Promise<TeamAnswer> {
  const orgProjects = and(eq(projects.orgId, team.orgId), isNull(projects.deletedAt));
  const reached = team.allProjects
    ? db.select({ id: projects.id, name: projects.name }).from(projects).where(orgProjects).orderBy(...byName(projects.name))
    : db.select({ id: projects.id, name: projects.name }).from(teamProjects)
      .innerJoin(projects, eq(projects.id, teamProjects.projectId))
      .where(and(eq(teamProjects.teamId, team.id), orgProjects)).orderBy(...byName(projects.name));
  const [members, projectRows, roleRows] = await db.batch([
    teamMembersQuery(db, team),
    reached,
    db.select({ id: roles.id, name: roles.name, systemRole: roles.systemRole, permissions: roles.permissions }).from(teamRoles)
      .innerJoin(roles, eq(roles.id, teamRoles.roleId)).where(eq(teamRoles.teamId, team.id)).orderBy(...roleOrder),
  ]);
  const summary = summaryOf(team, members.length, projectRows.length, []);
  return { ...summary, builtIn: team.builtIn, members, projects: projectRows, roles: roleRows.map(roleAnswer) };
}

/** The organization's active projects with these ids, each once; 400 naming the first that is not one. */
export async function resolveProjectIds(db: ControlDb, orgId: string, projectIds: readonly string[]): Promise<string[]> {
  const ids = [...new Set(projectIds.map((id) => id.toLowerCase()))];
  if (!ids.length) return [];
  const found = await db.select({ id: projects.id }).from(projects)
    .where(and(inJsonList(projects.id, ids), eq(projects.orgId, orgId), isNull(projects.deletedAt)));
  const known = new Set(found.map((p) => p.id));
  const missing = ids.find((id) => !known.has(id));
  if (missing) throw invalidRequest(`Project ${missing} does not exist in this organization.`);
  return ids;
}
