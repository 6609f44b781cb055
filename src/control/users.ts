// The signed-in person (spec 4.13): profile and preferences. The email is the identity a person
// signs in with and cannot be changed here.
import { and, asc, eq, isNull } from 'drizzle-orm';
import { reachableProjectIds } from '../auth/access';
import type { Principal } from '../auth/principal';
import { invalidRequest, notFound } from '../lib/errors';
import { activityInsert } from './activity';
import type { ControlDb } from './db';
import { findActiveProject } from './members';
import { orgMembers, organizations, users } from './schema';
import { activeMemberships, normalizeEmail } from './tenancy';

export interface Profile {
  id: string;
  email: string;
  name: string;
}

export interface LastContext {
  orgId: string;
  projectId: string;
}

export interface Preferences {
  timezone?: string;
  last_context?: LastContext;
}

async function requireUser(db: ControlDb, userId: string) {
  const user = await db.query.users.findFirst({ where: eq(users.id, userId) });
  if (!user) throw notFound('No such person.');
  return user;
}

export async function getProfile(db: ControlDb, userId: string): Promise<Profile> {
  const user = await requireUser(db, userId);
  return { id: user.id, email: user.email, name: user.name };
}

/** Renames the caller. An `email` other than the current one is refused: it cannot be changed. */
export async function updateProfile(db: ControlDb, principal: Principal, input: { name: string; email?: string }, traceId: string): Promise<Profile> {
  const user = await requireUser(db, principal.userId);
  if (input.email !== undefined && normalizeEmail(input.email) !== user.email) throw invalidRequest('The email cannot be changed.');
  if (input.name === user.name) return { id: user.id, email: user.email, name: user.name };
  await db.batch([
    db.update(users).set({ name: input.name }).where(eq(users.id, user.id)),
    activityInsert(db, { orgId: principal.orgId, actor: principal, action: 'user.updated', data: { name: { from: user.name, to: input.name } }, traceId }),
  ]);
  return { id: user.id, email: user.email, name: input.name };
}

const preferencesOf = (user: { timezone: string | null; lastContext: LastContext | null }): Preferences => ({
  ...(user.timezone ? { timezone: user.timezone } : {}),
  ...(user.lastContext ? { last_context: { orgId: user.lastContext.orgId, projectId: user.lastContext.projectId } } : {}),
});

export async function getPreferences(db: ControlDb, userId: string): Promise<Preferences> {
  return preferencesOf(await requireUser(db, userId));
}

let zones: Set<string> | undefined;

/**
 * An IANA zone name, or `UTC`. The runtime lists one name per zone (sometimes the older one:
 * `Asia/Calcutta`), so a link such as `Asia/Kolkata` is accepted when it resolves to a listed zone;
 * a listed name spelled in another case is refused, so stored names stay canonical.
 */
export function isTimeZone(value: string): boolean {
  zones ??= new Set(Intl.supportedValuesOf('timeZone'));
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  if (value === 'UTC' || zones.has(value)) return true;
  return (zones.has(resolved) || resolved === 'UTC') && /^[A-Za-z]/.test(value) && value.toLowerCase() !== resolved.toLowerCase();
}

/**
 * Changes preferences: a field left out is unchanged, null clears it. `last_context` must name an
 * organization the caller belongs to (any of them, so the next sign-in can open it) and an active
 * project in it they reach.
 */
export async function updatePreferences(
  db: ControlDb,
  principal: Principal,
  patch: { timezone?: string | null; last_context?: LastContext | null },
  traceId: string,
): Promise<Preferences> {
  const user = await requireUser(db, principal.userId);
  const set: { timezone?: string | null; lastContext?: LastContext | null } = {};
  if (patch.timezone !== undefined) {
    if (patch.timezone !== null && !isTimeZone(patch.timezone)) throw invalidRequest('timezone must be an IANA time zone name, such as Europe/Paris or UTC.');
    set.timezone = patch.timezone;
  }
  if (patch.last_context !== undefined) {
    const context = patch.last_context;
    if (context !== null) {
      const memberships = (await activeMemberships(db, principal.userId)).map((m) => m.orgId);
      if (!memberships.includes(context.orgId)) throw invalidRequest('last_context.orgId must be an organization you belong to.');
      const project = await findActiveProject(db, context.orgId, context.projectId);
      const reachable = project ? await reachableProjectIds(db.$client, context.orgId, principal.userId) : [];
      if (!project || !reachable.includes(project.id)) throw invalidRequest('last_context.projectId must be an active project of the organization you reach.');
    }
    set.lastContext = context === null ? null : { orgId: context.orgId, projectId: context.projectId };
  }
  if (!Object.keys(set).length) return preferencesOf(user);
  const changed = Object.keys(patch).filter((k) => k === 'timezone' || k === 'last_context');
  await db.batch([
    db.update(users).set(set).where(eq(users.id, user.id)),
    activityInsert(db, { orgId: principal.orgId, actor: principal, action: 'user.preferences.updated', data: { fields: changed }, traceId }),
  ]);
  return preferencesOf({
    timezone: set.timezone !== undefined ? set.timezone : user.timezone,
    lastContext: set.lastContext !== undefined ? set.lastContext : user.lastContext,
  });
}

export interface MyOrganization {
  id: string;
  name: string;
  slug: string;
  /** Whether this session is in it. */
  current: boolean;
}

/** The organizations the person is an active member of (not deleted), oldest membership first. */
export async function myOrganizations(db: ControlDb, principal: Principal): Promise<MyOrganization[]> {
  const rows = await db.select({ id: organizations.id, name: organizations.name, slug: organizations.slug }).from(orgMembers)
    .innerJoin(organizations, eq(organizations.id, orgMembers.orgId))
    .where(and(eq(orgMembers.userId, principal.userId), isNull(orgMembers.removedAt), isNull(organizations.deletedAt)))
    .orderBy(asc(orgMembers.joinedAt), asc(organizations.id));
  return rows.map((org) => ({ ...org, current: org.id === principal.orgId }));
}
