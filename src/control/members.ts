// Organization membership: who belongs, and the checks every family shares.
import { and, eq, isNull } from 'drizzle-orm';
import { ApiError } from '../lib/errors';
import type { ControlDb } from './db';
import { orgMembers, projects, users } from './schema';

/** The person if they are an active member of the organization, else undefined. */
export async function findMember(db: ControlDb, orgId: string, userId: string) {
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name })
    .from(orgMembers)
    .innerJoin(users, eq(users.id, orgMembers.userId))
    .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId), isNull(orgMembers.removedAt)));
  return row;
}

/** 404 `not_found` unless the person is an active member of the organization. */
export async function requireMember(db: ControlDb, orgId: string, userId: string) {
  const member = await findMember(db, orgId, userId);
  if (!member) throw new ApiError('not_found', 'No such person is a member of this organization.');
  return member;
}

/** The organization's active project with this id, else undefined. */
export async function findActiveProject(db: ControlDb, orgId: string, projectId: string) {
  return db.query.projects.findFirst({ where: and(eq(projects.id, projectId), eq(projects.orgId, orgId), isNull(projects.deletedAt)) });
}
