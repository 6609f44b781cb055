// Sign-in by email link, sign-up on first sign-in, and dashboard sessions (ARCHITECTURE section 2).
import { and, eq, gte, isNotNull, isNull } from 'drizzle-orm';
import { activityInsert, type ActivityInput } from '../control/activity';
import type { ControlDb } from '../control/db';
import { credentials, orgMembers, projects, signInLinks, users } from '../control/schema';
import { activeMemberships, createOrganization, ensureUser, findUserByEmail, normalizeEmail } from '../control/tenancy';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { addDays, newId, nowIso } from '../lib/ids';
import { reachableProjectIds } from './access';
import { sendAssistantSignInEmail, sendSignInEmail, SIGN_IN_LINK_MINUTES } from './emails';
import { secondsFromIso, signingKeys, signToken, verifyToken } from './tokens';

export const SIGN_IN_DAYS = 7;
/** At most this many unused links wait for one address at a time (each is valid 15 minutes). */
export const LIVE_LINKS_PER_ADDRESS = 5;

export interface SessionAnswer {
  jwt: string;
  expiresAt: string;
  orgId: string;
  projectId: string | null;
  user: { id: string; email: string; name: string };
}

/** Records a one-time link and returns its token (an invitation's, a development session's). */
export async function createSignInLink(db: ControlDb, env: Env, email: string): Promise<string> {
  return (await recordLink(db, env, email, false))!;
}

/**
 * Records a one-time link unless `LIVE_LINKS_PER_ADDRESS` links sent to the address in the last 15
 * minutes are still unused (null then). One statement, so requests at once cannot pass the bound together.
 */
async function recordLink(db: ControlDb, env: Env, email: string, bounded: boolean): Promise<string | null> {
  const jti = newId();
  const address = normalizeEmail(email);
  const createdAt = nowIso();
  const expiresAt = new Date(Date.parse(createdAt) + SIGN_IN_LINK_MINUTES * 60_000).toISOString();
  if (bounded) {
    const recorded = await db.$client.prepare(
      `INSERT INTO sign_in_links (jti, email, created_at, expires_at)
       SELECT ?1, ?2, ?3, ?4 WHERE (SELECT count(*) FROM sign_in_links WHERE email = ?2 AND created_at > ?5 AND used_at IS NULL) < ?6`,
    ).bind(jti, address, createdAt, expiresAt, new Date(Date.parse(createdAt) - SIGN_IN_LINK_MINUTES * 60_000).toISOString(), LIVE_LINKS_PER_ADDRESS).run();
    if (!recorded.meta.changes) return null;
  } else {
    await db.insert(signInLinks).values({ jti, email: address, createdAt, expiresAt });
  }
  return signToken(await signingKeys(env), { kind: 'sign_in_link', jti, sub: address, exp: secondsFromIso(expiresAt) });
}

/**
 * Whether an email no organization knows may sign up (and get an organization of its own): when
 * sign-up is open, or, on a new deployment with sign-up closed, the first administrator named by
 * `BOOTSTRAP_ADMIN_EMAIL` while no organization exists yet (docs/deploy.md).
 */
async function signUpAllowed(db: ControlDb, env: Env, email: string): Promise<boolean> {
  if (env.OPEN_SIGNUP === 'true') return true;
  if (!env.BOOTSTRAP_ADMIN_EMAIL || normalizeEmail(env.BOOTSTRAP_ADMIN_EMAIL) !== normalizeEmail(email)) return false;
  const any = await db.$client.prepare('SELECT 1 FROM organizations LIMIT 1').first();
  return !any;
}

/** Where an assistant's sign-in link leads (its Continue page, from the token) and which assistant asks. */
export interface AssistantSignIn {
  linkFor: (token: string) => string;
  clientName: string;
}

/**
 * Starts a sign-in: known people, and unknown ones when sign-up is open, get a link by email, to the
 * dashboard or, with `assistant`, to the page that connects that assistant. An address with
 * `LIVE_LINKS_PER_ADDRESS` unused links gets no more for now; the caller answers the same either way,
 * so nobody learns whether an address is known (or flooded).
 */
export async function requestSignIn(db: ControlDb, env: Env, email: string, assistant?: AssistantSignIn): Promise<void> {
  const known = await findUserByEmail(db, email);
  if (!known && !(await signUpAllowed(db, env, email))) return;
  const token = await recordLink(db, env, email, true);
  if (!token) return;
  const to = normalizeEmail(email);
  if (assistant) await sendAssistantSignInEmail(env, to, assistant.linkFor(token), assistant.clientName);
  else await sendSignInEmail(env, to, token);
}

/** Consumes a link once and opens a sign-in with a first session; signs the person up when new. */
export async function exchangeSignInLink(db: ControlDb, env: Env, token: string, traceId: string): Promise<SessionAnswer> {
  const { user, signedUp } = await consumeSignInLink(db, env, token, traceId);
  const context = await chooseContext(db, user.id, user.lastContext);
  return openSignIn(db, env, { userId: user.id, ...context, traceId, signedUp });
}

/**
 * Consumes a sign-in link once and answers its person, signing them up when new (and sign-up is
 * open). The dashboard then opens a sign-in; an assistant's approval page asks what it may do.
 */
export async function consumeSignInLink(db: ControlDb, env: Env, token: string, traceId: string) {
  const claims = await verifyToken(await signingKeys(env), token).catch((error: ApiError) => {
    throw new ApiError(error.code === 'token_expired' ? 'token_expired' : 'unauthorized', 'The sign-in link is not valid or has expired.');
  });
  if (claims.kind !== 'sign_in_link') throw new ApiError('unauthorized', 'This is not a sign-in link.');
  const used = await db
    .update(signInLinks)
    .set({ usedAt: nowIso() })
    .where(and(eq(signInLinks.jti, claims.jti), isNull(signInLinks.usedAt)))
    .returning({ email: signInLinks.email, createdAt: signInLinks.createdAt });
  if (!used.length) throw new ApiError('token_revoked', 'The sign-in link was already used.');
  const { email, createdAt: issuedAt } = used[0]!;

  let user = await findUserByEmail(db, email);
  let signedUp = false;
  if (!user || !(await activeMemberships(db, user.id)).length) {
    // Removal ends a person's sign-ins, including one waiting in their mailbox: a link issued before
    // their last removal signs in nowhere. A link asked for afterwards signs up as anyone new would.
    if (user && (await removedSince(db, user.id, issuedAt))) throw new ApiError('unauthorized', 'This person was removed from their organization after the link was sent.');
    if (!(await signUpAllowed(db, env, email))) throw new ApiError('unauthorized', 'No organization knows this email.');
    user = await ensureUser(db, email);
    await createOrganization(db, { name: `${user.name}'s organization`, ownerId: user.id, projectName: 'First project', traceId });
    signedUp = true;
  }
  return { user, email, signedUp };
}

async function removedSince(db: ControlDb, userId: string, since: string): Promise<boolean> {
  const [row] = await db.select({ orgId: orgMembers.orgId }).from(orgMembers)
    .where(and(eq(orgMembers.userId, userId), isNotNull(orgMembers.removedAt), gte(orgMembers.removedAt, since))).limit(1);
  return !!row;
}

/** The organization and project a new sign-in starts in: the last context when still valid. */
async function chooseContext(db: ControlDb, userId: string, last: { orgId: string; projectId: string } | null) {
  const memberships = (await activeMemberships(db, userId)).map((m) => m.orgId);
  if (last && memberships.includes(last.orgId)) {
    const reachable = await reachableProjectIds(db.$client, last.orgId, userId);
    if (reachable.includes(last.projectId)) return { orgId: last.orgId, projectId: last.projectId };
  }
  const orgId = memberships[0];
  if (!orgId) throw new ApiError('unauthorized', 'This person belongs to no organization.');
  const reachable = await reachableProjectIds(db.$client, orgId, userId);
  return { orgId, projectId: reachable[0] ?? null };
}

/** Opens a sign-in (a credential of kind `sign_in`) and its first session. */
export async function openSignIn(
  db: ControlDb,
  env: Env,
  input: { userId: string; orgId: string; projectId: string | null; traceId: string; signedUp?: boolean },
): Promise<SessionAnswer> {
  const signInJti = newId();
  const createdAt = nowIso();
  const expiresAt = addDays(createdAt, SIGN_IN_DAYS);
  await db.batch([
    db.insert(credentials).values({ jti: signInJti, kind: 'sign_in', orgId: input.orgId, projectId: null, userId: input.userId, name: 'Dashboard sign-in', createdAt, expiresAt }),
    activityInsert(db, {
      orgId: input.orgId,
      actor: { userId: input.userId, kind: 'sign_in' },
      action: input.signedUp ? 'user.signed_up' : 'user.signed_in',
      data: { signInJti },
      traceId: input.traceId,
    }),
  ]);
  return issueSession(db, env, { signInJti, userId: input.userId, orgId: input.orgId, projectId: input.projectId, expiresAt });
}

/** A session token under an open sign-in, scoped to one organization and project. */
export async function issueSession(
  db: ControlDb,
  env: Env,
  input: { signInJti: string; userId: string; orgId: string; projectId: string | null; expiresAt: string; activity?: ActivityInput },
): Promise<SessionAnswer> {
  const jti = newId();
  await db.batch([
    db.insert(credentials).values({
      jti, kind: 'session', orgId: input.orgId, projectId: input.projectId, userId: input.userId,
      parentJti: input.signInJti, createdAt: nowIso(), expiresAt: input.expiresAt,
    }),
    ...(input.activity ? [activityInsert(db, input.activity)] : []),
  ]);
  return sessionToken(db, env, { ...input, jti });
}

/** The token of a session row (a new one, or one the sign-in already holds). */
async function sessionToken(
  db: ControlDb, env: Env, input: { jti: string; signInJti: string; userId: string; orgId: string; projectId: string | null; expiresAt: string },
): Promise<SessionAnswer> {
  const jwt = await signToken(await signingKeys(env), {
    kind: 'session', jti: input.jti, sub: input.userId, org: input.orgId, ...(input.projectId ? { prj: input.projectId } : {}),
    sid: input.signInJti, exp: secondsFromIso(input.expiresAt),
  });
  const user = (await db.query.users.findFirst({ where: eq(users.id, input.userId) }))!;
  return { jwt, expiresAt: input.expiresAt, orgId: input.orgId, projectId: input.projectId, user: { id: user.id, email: user.email, name: user.name } };
}

/** The session switched from, for `session.switched`. */
export interface SwitchFrom {
  signInJti: string;
  userId: string;
  orgId: string;
  projectId: string | null;
  traceId: string;
}

const switched = (from: SwitchFrom, orgId: string, projectId: string | null): ActivityInput => ({
  orgId, projectId, actor: { userId: from.userId, kind: 'session' }, action: 'session.switched', traceId: from.traceId,
  data: { signInJti: from.signInJti, from: { orgId: from.orgId, projectId: from.projectId } },
});

async function signInExpiry(db: ControlDb, signInJti: string): Promise<string> {
  const signIn = await db.query.credentials.findFirst({ where: eq(credentials.jti, signInJti) });
  if (!signIn) throw new ApiError('token_revoked', 'The sign-in of this session ended.');
  return signIn.expiresAt;
}

/**
 * Moves a session to another project of its organization that the person reaches, and remembers it as
 * the person's `last_context`. A session the sign-in already holds for that project is reused (the
 * dashboard switches on every page whose project differs from its cookie's: two tabs on two projects
 * would otherwise add a credential row and an activity entry per page); only opening a new one is
 * recorded as `session.switched`.
 */
export async function switchSession(db: ControlDb, env: Env, from: SwitchFrom, projectId: string) {
  const project = await db.query.projects.findFirst({ where: and(eq(projects.id, projectId), eq(projects.orgId, from.orgId), isNull(projects.deletedAt)) });
  const reachable = project ? await reachableProjectIds(db.$client, from.orgId, from.userId) : [];
  if (!project || !reachable.includes(project.id)) throw new ApiError('not_found', 'No project with this id is reachable in the organization.');
  const expiresAt = await signInExpiry(db, from.signInJti);
  // Written only when it changes: a page view in a second tab switches back and forth.
  const person = await db.query.users.findFirst({ where: eq(users.id, from.userId) });
  if (person?.lastContext?.orgId !== from.orgId || person.lastContext.projectId !== project.id) {
    await db.update(users).set({ lastContext: { orgId: from.orgId, projectId: project.id } }).where(eq(users.id, from.userId));
  }
  const held = await db.query.credentials.findFirst({
    where: and(eq(credentials.parentJti, from.signInJti), eq(credentials.kind, 'session'), eq(credentials.orgId, from.orgId), eq(credentials.projectId, project.id), isNull(credentials.revokedAt)),
  });
  const base = { signInJti: from.signInJti, userId: from.userId, orgId: from.orgId, projectId: project.id, expiresAt };
  if (held) return sessionToken(db, env, { ...base, jti: held.jti });
  return issueSession(db, env, { ...base, activity: switched(from, from.orgId, project.id) });
}

/**
 * Moves a session to another organization the person is an active member of, under the same sign-in
 * (signing out or canceling it ends every organization's sessions). It lands in the project the
 * person used last there when they still reach it, else the first they reach (or none), and saves
 * that as the person's `last_context`.
 */
export async function switchOrganization(db: ControlDb, env: Env, from: SwitchFrom, orgId: string) {
  const memberships = (await activeMemberships(db, from.userId)).map((m) => m.orgId);
  if (!memberships.includes(orgId)) throw new ApiError('not_found', 'No organization with this id is one you belong to.');
  const reachable = await reachableProjectIds(db.$client, orgId, from.userId);
  const { results: used } = await db.$client
    .prepare(`SELECT project_id FROM credentials WHERE kind = 'session' AND user_id = ? AND org_id = ? AND project_id IS NOT NULL
              ORDER BY COALESCE(last_used_at, created_at) DESC LIMIT 100`)
    .bind(from.userId, orgId)
    .all<{ project_id: string }>();
  const projectId = used.map((r) => r.project_id).find((id) => reachable.includes(id)) ?? reachable[0] ?? null;
  // Where the person works now, as a project switch saves it (a context names a project).
  if (projectId) await db.update(users).set({ lastContext: { orgId, projectId } }).where(eq(users.id, from.userId));
  return issueSession(db, env, {
    signInJti: from.signInJti, userId: from.userId, orgId, projectId,
    expiresAt: await signInExpiry(db, from.signInJti), activity: switched(from, orgId, projectId),
  });
}
