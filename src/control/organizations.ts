// Organizations (spec 4.5): reading and changing the organization, its members, removing a person.
// Invitations live in src/routes/organizations/invite.service.ts.
import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { ApiError, notFound } from '../lib/errors';
import { nowIso } from '../lib/ids';
import { activityInsert, activityInsertWhen, type Actor } from './activity';
import type { ControlDb } from './db';
import { disconnectOnRemoval } from './connected-apps';
import { requireMember } from './members';
import { credentials, orgMembers, organizations, projects, teamMembers, teams, users } from './schema';

export interface OrganizationAnswer {
  id: string;
  name: string;
  slug: string;
  retentionDays: number;
}

interface Change {
  orgId: string;
  actor: Actor;
  traceId: string;
}

/** The rows-changed count of a run statement inside a D1 batch. */
export const changedRows = (result: unknown): number => (result as { meta?: { changes?: number } }).meta?.changes ?? 0;

/** The organization unless deleted; 404 otherwise. */
export async function getOrganization(db: ControlDb, orgId: string): Promise<OrganizationAnswer> {
  const org = await db.query.organizations.findFirst({ where: and(eq(organizations.id, orgId), isNull(organizations.deletedAt)) });
  if (!org) throw notFound('No such organization.');
  return { id: org.id, name: org.name, slug: org.slug, retentionDays: org.retentionDays };
}

/** Renames the organization and/or changes its retention; fields left out stay as they are. */
export async function updateOrganization(
  db: ControlDb,
  input: Change & { changes: { name?: string; retentionDays?: number } },
): Promise<OrganizationAnswer> {
  const before = await getOrganization(db, input.orgId);
  const set: { name?: string; retentionDays?: number } = {};
  if (input.changes.name !== undefined && input.changes.name !== before.name) set.name = input.changes.name;
  if (input.changes.retentionDays !== undefined && input.changes.retentionDays !== before.retentionDays) set.retentionDays = input.changes.retentionDays;
  if (!Object.keys(set).length) return before;
  const data = Object.fromEntries(Object.entries(set).map(([field, to]) => [field, { from: before[field as keyof typeof set], to }]));
  await db.batch([
    db.update(organizations).set(set).where(eq(organizations.id, input.orgId)),
    activityInsert(db, { orgId: input.orgId, actor: input.actor, action: 'organization.updated', data, traceId: input.traceId }),
  ]);
  return { ...before, ...set };
}

/**
 * Marks the organization deleted with every project and membership, in one batch. Every credential
 * of the organization fails from its next request (the principal lookup checks the organization).
 */
export async function deleteOrganization(db: ControlDb, input: Change): Promise<void> {
  const org = await getOrganization(db, input.orgId);
  const now = nowIso();
  await db.batch([
    db.update(organizations).set({ deletedAt: now }).where(and(eq(organizations.id, org.id), isNull(organizations.deletedAt))),
    db.update(projects).set({ deletedAt: now }).where(and(eq(projects.orgId, org.id), isNull(projects.deletedAt))),
    db.update(orgMembers).set({ removedAt: now }).where(and(eq(orgMembers.orgId, org.id), isNull(orgMembers.removedAt))),
    activityInsert(db, { orgId: org.id, actor: input.actor, action: 'organization.deleted', data: { name: org.name, slug: org.slug }, traceId: input.traceId }),
  ]);
}

/** Active members, oldest membership first. */
export async function listMembers(db: ControlDb, orgId: string) {
  return db
    .select({ id: users.id, email: users.email, name: users.name })
    .from(orgMembers)
    .innerJoin(users, eq(users.id, orgMembers.userId))
    .where(and(eq(orgMembers.orgId, orgId), isNull(orgMembers.removedAt)))
    .orderBy(asc(orgMembers.joinedAt), asc(users.email));
}

const activeMemberCount = (orgId: string) =>
  sql`(SELECT count(*) FROM org_members WHERE org_id = ${orgId} AND removed_at IS NULL)`;

const noOtherMembership = (userId: string, orgId: string) => sql`NOT EXISTS (SELECT 1 FROM org_members m JOIN organizations o ON o.id = m.org_id
  WHERE m.user_id = ${userId} AND m.org_id <> ${orgId} AND m.removed_at IS NULL AND o.deleted_at IS NULL)`;

/**
 * Removes a person: out of every team of the organization (their team ids kept for a later
 * invitation), membership marked removed, their sessions there revoked so they end at once.
 * API tokens and upload passes they created keep working until canceled.
 */
export async function removeMember(db: ControlDb, input: Change & { userId: string }): Promise<{ disconnectedApps: string[] }> {
  const { orgId, userId } = input;
  const member = await requireMember(db, orgId, userId);
  const now = nowIso();
  // Every statement is guarded by the removal itself, so two concurrent removals can never leave
  // the organization without an active member.
  const removedNow = sql`EXISTS (SELECT 1 FROM org_members WHERE org_id = ${orgId} AND user_id = ${userId} AND removed_at = ${now})`;
  const orgTeams = db.select({ id: teams.id }).from(teams).where(eq(teams.orgId, orgId));
  const teamIds = (
    await db.select({ id: teamMembers.teamId }).from(teamMembers).where(and(eq(teamMembers.userId, userId), inArray(teamMembers.teamId, orgTeams)))
  ).map((t) => t.id);
  const apps = await disconnectOnRemoval(db, { orgId, userId, actor: input.actor, traceId: input.traceId, removedNow });
  const [removal] = await db.batch([
    db
      .update(orgMembers)
      .set({
        removedAt: now,
        formerTeamIds: sql`(SELECT json_group_array(tm.team_id) FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE tm.user_id = ${userId} AND t.org_id = ${orgId})`,
      })
      .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId), isNull(orgMembers.removedAt), sql`${activeMemberCount(orgId)} > 1`)),
    db.delete(teamMembers).where(and(eq(teamMembers.userId, userId), inArray(teamMembers.teamId, orgTeams), removedNow)),
    // Their sessions in this organization end for good; a sign-in opened here ends too unless it still
    // serves another organization they belong to (a session may switch organization under its sign-in).
    db
      .update(credentials)
      .set({ revokedAt: now })
      .where(and(
        eq(credentials.userId, userId), eq(credentials.orgId, orgId), isNull(credentials.revokedAt), removedNow,
        or(eq(credentials.kind, 'session'), and(eq(credentials.kind, 'sign_in'), noOtherMembership(userId, orgId))),
      )),
    activityInsertWhen(
      db,
      { orgId, actor: input.actor, action: 'organization.member.removed', data: { userId, email: member.email, teamIds }, traceId: input.traceId },
      removedNow,
    ),
    // Their AI assistants here are disconnected, with what they created (spec part 5 rule 9).
    ...apps.statements,
  ]);
  if (changedRows(removal)) return { disconnectedApps: apps.jtis };
  await requireMember(db, orgId, userId);
  throw new ApiError('invalid_request', 'This is the last member of the organization; delete the organization instead.');
}
