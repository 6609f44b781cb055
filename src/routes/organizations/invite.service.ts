// Invitations (spec 4.5 rule 5): a new person joins in the given teams, an active member is added
// to the given teams they are not in, a former member comes back into their former teams. Each
// gets a sign-in link worded as an invitation.
import { and, eq } from 'drizzle-orm';
import { permissionsGrantedByTeams, permissionsHeldAnywhere, reachableProjectIds } from '../../auth/access';
import { createSignInLink, sendInvitationEmail } from '../../auth/sign-in';
import { activityInsert, type Actor } from '../../control/activity';
import { chunks, inJsonList, type ControlDb } from '../../control/db';
import { findActiveProject } from '../../control/members';
import { getOrganization } from '../../control/organizations';
import { orgMembers, teamMembers, teams, users } from '../../control/schema';
import { ensureUser, normalizeEmail } from '../../control/tenancy';
import type { Env } from '../../env';
import { notFound, permissionDenied } from '../../lib/errors';
import { nowIso } from '../../lib/ids';

export interface InviteInput {
  orgId: string;
  email: string;
  teamIds: string[];
  /** The project the invitation points at: the body's `projectUuid`, else the session's project. */
  projectId: string | null;
  actor: Actor;
  traceId: string;
}

/**
 * No one hands out more than they hold: every permission the joined teams grant must be one the
 * inviter holds somewhere in the organization (else 403 naming it). Team managers change teams directly.
 */
async function assertNoEscalation(db: ControlDb, orgId: string, inviterId: string, teamIds: string[]): Promise<void> {
  const [granted, held] = await Promise.all([permissionsGrantedByTeams(db.$client, teamIds), permissionsHeldAnywhere(db.$client, orgId, inviterId)]);
  const beyond = granted.find((permission) => !held.has(permission));
  if (beyond) throw permissionDenied(beyond);
}

export type InviteCase = 'invited' | 'already_exists' | 'restored';

export interface InviteResult {
  ok: true;
  message: string;
  status?: 'already_exists';
  userId: string;
  emailSent: boolean;
}

/** Checks the project and teams, applies the invitation's case, then sends the email. */
export async function invite(db: ControlDb, env: Env, input: InviteInput): Promise<InviteResult> {
  const org = await getOrganization(db, input.orgId);
  const project = input.projectId ? await findActiveProject(db, org.id, input.projectId) : undefined;
  if (!project) throw notFound('No active project with this id exists in the organization.');
  const teamIds = [...new Set(input.teamIds)];
  const found = await db.select({ id: teams.id }).from(teams).where(and(eq(teams.orgId, org.id), inJsonList(teams.id, teamIds)));
  const missing = teamIds.find((id) => !found.some((t) => t.id === id));
  if (missing) throw notFound(`No team ${missing} exists in the organization.`);

  const email = normalizeEmail(input.email);
  const user = await ensureUser(db, email);
  const membership = await db.query.orgMembers.findFirst({ where: and(eq(orgMembers.orgId, org.id), eq(orgMembers.userId, user.id)) });
  const now = nowIso();
  const log = (action: 'organization.member.invited' | 'organization.member.restored', data: Record<string, unknown>) =>
    activityInsert(db, { orgId: org.id, projectId: null, actor: input.actor, action, data: { userId: user.id, email, ...data }, traceId: input.traceId });
  const joinTeams = (ids: string[]) => chunks(ids).map((part) => db.insert(teamMembers).values(part.map((teamId) => ({ teamId, userId: user.id, addedAt: now }))).onConflictDoNothing());

  let kind: InviteCase;
  let message: string;
  if (!membership) {
    kind = 'invited';
    await assertNoEscalation(db, org.id, input.actor.userId, teamIds);
    await db.batch([
      db.insert(orgMembers).values({ orgId: org.id, userId: user.id, joinedAt: now }).onConflictDoNothing(),
      ...joinTeams(teamIds),
      log('organization.member.invited', { teamIds, projectId: project.id }),
    ]);
    message = `${email} was invited to ${org.name}.`;
  } else if (!membership.removedAt) {
    kind = 'already_exists';
    const current = await db.select({ id: teamMembers.teamId }).from(teamMembers).where(and(eq(teamMembers.userId, user.id), inJsonList(teamMembers.teamId, teamIds)));
    const added = teamIds.filter((id) => !current.some((t) => t.id === id));
    await assertNoEscalation(db, org.id, input.actor.userId, added);
    await db.batch([
      log('organization.member.invited', { status: kind, addedTeamIds: added, projectId: project.id }),
      ...joinTeams(added),
    ]);
    message = added.length
      ? `${email} is already a member of ${org.name}; added to ${added.length} more team${added.length === 1 ? '' : 's'}.`
      : `${email} is already a member of ${org.name} and of these teams.`;
  } else {
    kind = 'restored';
    // A former member returns to the teams they were in that still exist; `teamIds` is not applied.
    const former = membership.formerTeamIds ?? [];
    const restored = former.length
      ? (await db.select({ id: teams.id }).from(teams).where(and(eq(teams.orgId, org.id), inJsonList(teams.id, former)))).map((t) => t.id)
      : [];
    await assertNoEscalation(db, org.id, input.actor.userId, restored);
    await db.batch([
      db.update(orgMembers).set({ removedAt: null, formerTeamIds: null }).where(and(eq(orgMembers.orgId, org.id), eq(orgMembers.userId, user.id))),
      ...joinTeams(restored),
      log('organization.member.restored', { teamIds: restored, projectId: project.id }),
    ]);
    message = `${email} is a member of ${org.name} again, in their former teams.`;
  }

  // A person new to the organization opens it on their next sign-in, at the invited project
  // when they reach it; an existing member's own last context is left alone.
  if (kind !== 'already_exists' && (await reachableProjectIds(db.$client, org.id, user.id)).includes(project.id)) {
    await db.update(users).set({ lastContext: { orgId: org.id, projectId: project.id } }).where(eq(users.id, user.id));
  }

  const emailSent = await createSignInLink(db, env, email)
    .then((token) => sendInvitationEmail(env, email, org.name, token, { id: project.id, name: project.name }))
    .then(() => true)
    .catch((error: unknown) => {
      // The membership change stands; the person can still ask for a sign-in link themselves.
      console.error(JSON.stringify({ level: 'error', requestId: input.traceId, message: 'invitation email failed', error: String(error) }));
      return false;
    });
  if (!emailSent) message += ' The invitation email could not be sent; they can request a sign-in link with this address.';
  return { ok: true, message, ...(kind === 'already_exists' ? { status: kind } : {}), userId: user.id, emailSent };
}
