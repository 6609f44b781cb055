// Who is calling: the credential behind a verified token, looked up by `jti` on every request so a
// canceled credential fails on its very next request.
import { ApiError } from '../lib/errors';
import type { AccessCache } from './access-cache';
import type { CredentialTokenKind, TokenClaims } from './tokens';

/** Who a request acts as: a credential carried as a JWT, or an AI assistant's approval (src/mcp). */
export type PrincipalKind = CredentialTokenKind | 'connected_app';

export interface Principal {
  kind: PrincipalKind;
  jti: string;
  userId: string;
  orgId: string;
  /** The project the credential was made for (null for a session of a person who reaches none). */
  projectId: string | null;
  /** The sign-in a session belongs to. */
  signInJti: string | null;
  /** The fixed permission list of an API token. */
  tokenPermissions: string[] | null;
  /** What a connected app's person ticked (src/auth/scopes.ts); null for every other kind. */
  scopes: string[] | null;
  /** Upload pass challenge (base64url), from the verified token. */
  challenge: string | null;
  lastUsedAt: string | null;
}

interface CredentialRow {
  kind: string;
  org_id: string;
  project_id: string | null;
  user_id: string;
  parent_jti: string | null;
  permissions: string | null;
  scopes: string | null;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  parent_revoked_at: string | null;
  parent_expires_at: string | null;
  member_active: number | null;
  project_deleted_at: string | null;
  org_deleted_at: string | null;
}

const LOOKUP = `
SELECT c.kind, c.org_id, c.project_id, c.user_id, c.parent_jti, c.permissions, c.scopes, c.expires_at, c.revoked_at,
       c.last_used_at, p.revoked_at AS parent_revoked_at, p.expires_at AS parent_expires_at,
       (m.user_id IS NOT NULL AND m.removed_at IS NULL) AS member_active,
       pr.deleted_at AS project_deleted_at, o.deleted_at AS org_deleted_at
FROM credentials c
LEFT JOIN credentials p ON p.jti = c.parent_jti
LEFT JOIN org_members m ON m.org_id = c.org_id AND m.user_id = c.user_id
LEFT JOIN projects pr ON pr.id = c.project_id
LEFT JOIN organizations o ON o.id = c.org_id
WHERE c.jti = ?`;

/**
 * Resolves verified claims to a principal, or throws the credential's error (revoked, expired,
 * unknown). The row may come from the access cache; expiry is judged against `now` every time.
 */
export async function loadPrincipal(db: D1Database, claims: TokenClaims, now = new Date(), cache?: AccessCache): Promise<Principal> {
  const read = (from: D1Database) => from.prepare(LOOKUP).bind(claims.jti).first<CredentialRow>();
  const row = await (cache ? cache.get(`credential:${claims.jti}`, read) : read(db));
  if (!row || row.kind !== claims.kind || row.user_id !== claims.sub || row.org_id !== claims.org) {
    throw new ApiError('unauthorized', 'The token is not known.');
  }
  return principalOf(claims.jti, row, now, typeof claims.chl === 'string' ? claims.chl : null);
}

/** An AI assistant's approval (kind `connected_app`) by its id, checked like any credential on every call. */
export async function loadConnectedApp(db: D1Database, jti: string, now = new Date()): Promise<Principal> {
  const row = await db.prepare(LOOKUP).bind(jti).first<CredentialRow>();
  if (!row || row.kind !== 'connected_app') throw new ApiError('unauthorized', 'This assistant is not connected.');
  return principalOf(jti, row, now, null);
}

function principalOf(jti: string, row: CredentialRow, now: Date, challenge: string | null): Principal {
  const nowIso = now.toISOString();
  if (row.revoked_at || row.parent_revoked_at) throw new ApiError('token_revoked', 'The credential was canceled.');
  if (row.org_deleted_at) throw new ApiError('token_revoked', 'The organization of this credential was deleted.');
  if (row.expires_at <= nowIso || (row.parent_expires_at && row.parent_expires_at <= nowIso)) {
    throw new ApiError('token_expired', 'The credential has expired.');
  }
  // A person removed from the organization loses every sign-in and assistant there at once; their tokens and passes stay.
  if ((row.kind === 'session' || row.kind === 'connected_app') && !row.member_active) {
    throw new ApiError('token_revoked', 'The sign-in ended: the person left the organization.');
  }
  if (row.project_deleted_at) throw new ApiError('token_revoked', 'The project of this credential was deleted.');
  return {
    kind: row.kind as PrincipalKind,
    jti,
    userId: row.user_id,
    orgId: row.org_id,
    projectId: row.project_id,
    signInJti: row.kind === 'session' ? row.parent_jti : null,
    tokenPermissions: row.permissions ? (JSON.parse(row.permissions) as string[]) : null,
    scopes: row.scopes ? (JSON.parse(row.scopes) as string[]) : null,
    challenge,
    lastUsedAt: row.last_used_at,
  };
}

// When this isolate last recorded each credential's use (the cached row's lastUsedAt lags behind).
const touchedAt = new Map<string, number>();

/** Whether `lastUsedAt` is stale enough to record again: at most one write a minute per credential. */
export function needsTouch(principal: Principal, now = Date.now()): boolean {
  const last = Math.max(principal.lastUsedAt ? Date.parse(principal.lastUsedAt) : 0, touchedAt.get(principal.jti) ?? 0);
  return last < now - 60_000;
}

export async function touchCredential(db: D1Database, jti: string, now = new Date()): Promise<void> {
  if (touchedAt.size > 50_000) touchedAt.clear();
  touchedAt.set(jti, now.getTime());
  await db.prepare('UPDATE credentials SET last_used_at = ? WHERE jti = ?').bind(now.toISOString(), jti).run();
}
