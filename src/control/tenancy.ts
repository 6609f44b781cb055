// Creating tenants: a person, an organization of their own with its built-in teams, a project.
// Used by sign-up, by project creation and by the local seed, so all three make the same shape.
import { and, eq, isNull } from 'drizzle-orm';
import { ADMIN_ROLE_ID, MEMBER_ROLE_ID } from '../auth/permissions';
import { newId, nowIso } from '../lib/ids';
import { activityInsert, type Actor } from './activity';
import type { ControlDb } from './db';
import { orgMembers, organizations, projects, teamMembers, teamRoles, teams, users } from './schema';

export const ADMINISTRATORS_TEAM = 'Administrators';
export const MEMBERS_TEAM = 'Members';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function slugify(name: string): string {
  const base = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48);
  return base || 'org';
}

export async function findUserByEmail(db: ControlDb, email: string) {
  return db.query.users.findFirst({ where: eq(users.email, normalizeEmail(email)) });
}

/** The person with this email, created when unknown (name defaults to the email's local part). */
export async function ensureUser(db: ControlDb, email: string, name?: string) {
  const normalized = normalizeEmail(email);
  const existing = await findUserByEmail(db, normalized);
  if (existing) return existing;
  const user = { id: newId(), email: normalized, name: name?.trim() || normalized.split('@')[0]!, createdAt: nowIso(), timezone: null, lastContext: null };
  await db.insert(users).values(user).onConflictDoNothing();
  return (await findUserByEmail(db, normalized))!;
}

export interface NewOrganization {
  orgId: string;
  projectId: string;
  administratorsTeamId: string;
  membersTeamId: string;
}

/**
 * An organization owned by `ownerId`: built-in teams `Administrators` (Admin, all projects) with the
 * owner in it and `Members` (Member, all projects), and a first project. One atomic batch, with its
 * `organization.created` entry (by the owner signing up, unless another actor or null for the service is given).
 */
export async function createOrganization(
  db: ControlDb,
  input: { name: string; ownerId: string; projectName: string; demoProject?: boolean; orgId?: string; projectId?: string; actor?: Actor | null; traceId?: string },
): Promise<NewOrganization> {
  const now = nowIso();
  const orgId = input.orgId ?? newId();
  const projectId = input.projectId ?? newId();
  const administratorsTeamId = newId();
  const membersTeamId = newId();
  const slug = `${slugify(input.name)}-${orgId.slice(0, 8)}`;
  await db.batch([
    db.insert(organizations).values({ id: orgId, name: input.name, slug, retentionDays: 90, createdAt: now }),
    db.insert(orgMembers).values({ orgId, userId: input.ownerId, joinedAt: now }),
    db.insert(teams).values([
      { id: administratorsTeamId, orgId, name: ADMINISTRATORS_TEAM, builtIn: true, allProjects: true, createdAt: now },
      { id: membersTeamId, orgId, name: MEMBERS_TEAM, builtIn: true, allProjects: true, createdAt: now },
    ]),
    db.insert(teamRoles).values([
      { teamId: administratorsTeamId, roleId: ADMIN_ROLE_ID },
      { teamId: membersTeamId, roleId: MEMBER_ROLE_ID },
    ]),
    db.insert(teamMembers).values({ teamId: administratorsTeamId, userId: input.ownerId, addedAt: now }),
    db.insert(projects).values({ id: projectId, orgId, name: input.projectName, demoProject: input.demoProject ?? false, featureFlags: [], createdAt: now }),
    activityInsert(db, {
      orgId, actor: input.actor === undefined ? { userId: input.ownerId, kind: 'sign_in' } : input.actor, action: 'organization.created',
      data: { name: input.name, slug, ownerId: input.ownerId, projectId, projectName: input.projectName }, traceId: input.traceId ?? null,
    }),
  ]);
  return { orgId, projectId, administratorsTeamId, membersTeamId };
}

/** Organizations the person is an active member of, oldest membership first. */
export async function activeMemberships(db: ControlDb, userId: string) {
  return db
    .select({ orgId: orgMembers.orgId })
    .from(orgMembers)
    .innerJoin(organizations, eq(organizations.id, orgMembers.orgId))
    .where(and(eq(orgMembers.userId, userId), isNull(orgMembers.removedAt), isNull(organizations.deletedAt)))
    .orderBy(orgMembers.joinedAt);
}
