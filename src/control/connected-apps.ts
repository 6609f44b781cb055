// Connected apps (spec part 5 rule 9): each approval of an AI assistant is a credential of kind
// `connected_app` in one organization, reaching every project its person reaches there. Canceling it,
// from any of those projects, or removing the person disconnects it and cancels every API token and
// upload pass the assistant created (they name it as their parent).
import { and, eq, inArray, isNull, or, type SQL } from 'drizzle-orm';
import { addDays, newId, nowIso } from '../lib/ids';
import { activityInsert, activityInsertWhen, type Actor } from './activity';
import type { ControlDb } from './db';
import { credentials } from './schema';

/** An approval lasts this long; the assistant then asks again (its refresh tokens end with it). */
export const CONNECTED_APP_DAYS = 90;

export interface Approval {
  orgId: string;
  userId: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  traceId: string;
}

/** Records an approval and its activity entry; answers the new credential's id. */
export async function connectApp(db: ControlDb, approval: Approval): Promise<{ jti: string; expiresAt: string }> {
  const jti = newId();
  const createdAt = nowIso();
  const expiresAt = addDays(createdAt, CONNECTED_APP_DAYS);
  await db.batch([
    db.insert(credentials).values({
      jti, kind: 'connected_app', orgId: approval.orgId, projectId: null, userId: approval.userId,
      name: approval.clientName, scopes: approval.scopes, clientId: approval.clientId, createdAt, expiresAt,
    }),
    activityInsert(db, {
      orgId: approval.orgId, actor: { userId: approval.userId, kind: 'connected_app' }, action: 'connected_app.approved',
      data: { jti, client: approval.clientName, clientId: approval.clientId, scopes: approval.scopes, expiresAt }, traceId: approval.traceId,
    }),
  ]);
  return { jti, expiresAt };
}

/** The app itself and everything it created, while still active. */
const appAndChildren = (jtis: string[]): SQL =>
  and(isNull(credentials.revokedAt), or(inArray(credentials.jti, jtis), inArray(credentials.parentJti, jtis)))!;

/**
 * Disconnects one app: it and the tokens and passes it created are canceled at once, with one
 * activity entry naming what was canceled. Disconnecting one already disconnected changes nothing.
 */
export async function disconnectApp(
  db: ControlDb,
  input: { orgId: string; projectId: string | null; jti: string; actor: Actor; traceId: string },
): Promise<void> {
  const app = await db.query.credentials.findFirst({ where: and(eq(credentials.jti, input.jti), eq(credentials.kind, 'connected_app'), eq(credentials.orgId, input.orgId)) });
  if (!app || app.revokedAt) return;
  const children = await db.select({ jti: credentials.jti }).from(credentials).where(and(eq(credentials.parentJti, app.jti), isNull(credentials.revokedAt)));
  await db.batch([
    db.update(credentials).set({ revokedAt: nowIso() }).where(appAndChildren([app.jti])),
    activityInsert(db, {
      orgId: input.orgId, projectId: input.projectId, actor: input.actor, action: 'connected_app.disconnected',
      data: { jti: app.jti, client: app.name, clientId: app.clientId, reason: 'canceled', canceled: children.map((c) => c.jti) }, traceId: input.traceId,
    }),
  ]);
}

/**
 * The statements that disconnect a person's apps in an organization when they are removed from it,
 * guarded by `removedNow` so they only run with the removal itself. Answers the apps' ids (their OAuth
 * grants are revoked afterwards) and the statements to add to the removal's batch.
 */
export async function disconnectOnRemoval(db: ControlDb, input: { orgId: string; userId: string; actor: Actor; traceId?: string | null; removedNow: SQL }) {
  const apps = await db.select({ jti: credentials.jti, name: credentials.name, clientId: credentials.clientId }).from(credentials)
    .where(and(eq(credentials.kind, 'connected_app'), eq(credentials.orgId, input.orgId), eq(credentials.userId, input.userId), isNull(credentials.revokedAt)));
  if (!apps.length) return { jtis: [] as string[], statements: [] };
  const jtis = apps.map((a) => a.jti);
  return {
    jtis,
    statements: [
      db.update(credentials).set({ revokedAt: nowIso() }).where(and(appAndChildren(jtis), input.removedNow)),
      ...apps.map((app) => activityInsertWhen(db, {
        orgId: input.orgId, actor: input.actor, action: 'connected_app.disconnected',
        data: { jti: app.jti, client: app.name, clientId: app.clientId, reason: 'member_removed', userId: input.userId }, traceId: input.traceId,
      }, input.removedNow)),
    ],
  };
}
