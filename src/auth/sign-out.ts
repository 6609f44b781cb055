// Signing out (DELETE /api/v1/auth/session): the sign-in behind the session ends, with every session
// it opened in any organization, and each of those organizations' logs records it (`user.signed_out`),
// as they recorded the sign-in or the switch into them.
import { and, eq, isNull } from 'drizzle-orm';
import { activityInsert } from '../control/activity';
import { signInOrgIds } from '../control/credentials';
import type { ControlDb } from '../control/db';
import { credentials } from '../control/schema';
import { nowIso } from '../lib/ids';
import type { Principal } from './principal';

/** Ends the session's sign-in; answers the organizations it reached (their access caches must be invalidated). */
export async function signOut(db: ControlDb, principal: Principal, traceId: string): Promise<string[]> {
  const signInJti = principal.signInJti!;
  const orgIds = await signInOrgIds(db.$client, signInJti);
  await db.batch([
    db.update(credentials).set({ revokedAt: nowIso() }).where(and(eq(credentials.jti, signInJti), isNull(credentials.revokedAt))),
    ...orgIds.map((orgId) => activityInsert(db, {
      orgId, projectId: orgId === principal.orgId ? principal.projectId : null,
      actor: { userId: principal.userId, kind: 'session' }, action: 'user.signed_out', data: { signInJti }, traceId,
    })),
  ]);
  return orgIds;
}
