// Invitations (spec 4.5 rule 5): a new person joins in the given teams, an active member is added
// to the given teams they are not in, a former member comes back into their former teams. Each
// gets a sign-in link worded as an invitation.
import { and, eq } from 'drizzle-orm';
import { reachableProjectIds, teamShapes } from '../../auth/access';
import type { GrantCheck } from '../../auth/grants';
import { sendInvitationEmail } from '../../auth/emails';
import { createSignInLink } from '../../auth/sign-in';
import { activityInsert, type Actor } from '../../control/activity';
import { chunks, inJsonList, type ControlDb } from '../../control/db';
import { findActiveProject } from '../../control/members';
import { getOrganization } from '../../control/organizations';
import { orgMembers, teamMembers, teams, users } from '../../control/schema';
import { ensureUser, findUserByEmail, normalizeEmail } from '../../control/tenancy';
import type { Env } from '../../env';
import { notFound } from '../../lib/errors';
import { nowIso } from '../../lib/ids';

export interface InviteInput {
  orgId: string;
  email: string;
  teamIds: string[];
  /** The project the invitation points at: the body's `projectUuid`, else the session's project. */
  projectId: string | null;
  actor: Actor;
  traceId: string;
  /** No invitation grants more than the inviter holds (src/auth/grants.ts). */
  grants: GrantCheck;
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

  // Decide the case and check the grant before anything is written: a refused invitation leaves
  // no person, no membership and no activity entry behind.
  const email = normalizeEmail(input.email);
  const known = await findUserByEmail(db, email);
  const membership = known ? await db.query.orgMembers.findFirst({ where: and(eq(orgMembers.orgId, org.id), eq(orgMembers.userId, known.id)) }) : undefined;
  let kind: InviteCase;
  let joining: string[];
  if (!membership) {
    kind = 'invited';
    joining = teamIds;
  } else if (!membership.removedAt) {
    kind = 'already_exists';
    const current = await db.select({ id: teamMembers.teamId }).from(teamMembers).where(and(eq(teamMembers.userId, membership.userId), inJsonList(teamMembers.teamId, teamIds)));
    joining = teamIds.filter((id) => !current.some((t) => t.id === id));
  } else {
    kind = 'restored';
    // A former member returns to the teams they were in that still exist; `teamIds` is not applied.
    const former = membership.formerTeamIds ?? [];
    joining = former.length
      ? (await db.select({ id: teams.id }).from(teams).where(and(eq(teams.orgId, org.id), inJsonList(teams.id, former)))).map((t) => t.id)
      : [];
  }
  // The teams joined hand the person their whole grant: each team's roles on that team's reach.
  if (joining.length) await input.grants.assertJoin(await teamShapes(db.$client, org.id, { teamIds: joining }));

  const user = known ?? (await ensureUser(db, email));
  const now = nowIso();
  const log = (action: 'organization.member.invited' | 'organization.member.restored', data: Record<string, unknown>) =>
    activityInsert(db, { orgId: org.id, projectId: null, actor: input.actor, action, data: { userId: user.id, email, ...data }, traceId: input.traceId });
  const joinTeams = (ids: string[]) => chunks(ids).map((part) => db.insert(teamMembers).values(part.map((teamId) => ({ teamId, userId: user.id, addedAt: now }))).onConflictDoNothing());

  let message: string;
  if (kind === 'invited') {
    await db.batch([
      db.insert(orgMembers).values({ orgId: org.id, userId: user.id, joinedAt: now }).onConflictDoNothing(),
      ...joinTeams(joining),
      log('organization.member.invited', { teamIds: joining, projectId: project.id }),
    ]);
    message = `${email} was invited to ${org.name}.`;
  } else if (kind === 'already_exists') {
    await db.batch([
      log('organization.member.invited', { status: kind, addedTeamIds: joining, projectId: project.id }),
      ...joinTeams(joining),
    ]);
    message = joining.length
      ? `${email} is already a member of ${org.name}; added to ${joining.length} more team${joining.length === 1 ? '' : 's'}.`
      : `${email} is already a member of ${org.name} and of these teams.`;
  } else {
    await db.batch([
      db.update(orgMembers).set({ removedAt: null, formerTeamIds: null }).where(and(eq(orgMembers.orgId, org.id), eq(orgMembers.userId, user.id))),
      ...joinTeams(joining),
      log('organization.member.restored', { teamIds: joining, projectId: project.id }),
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
