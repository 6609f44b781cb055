// A project's credentials as the Credentials area shows them (spec 4.11, ARCHITECTURE section 4):
// its API tokens and upload passes, and the sign-ins that have a session on it. Secrets are never
// read here: the JWTs are not stored and a pass's challenge hash is not selected.
import { and, eq, isNull } from 'drizzle-orm';
import type { PermissionSets } from '../auth/access';
import { isOrgPermission, isPermission, type Permission } from '../auth/permissions';
import { ApiError, invalidRequest, notFound } from '../lib/errors';
import { nowIso } from '../lib/ids';
import { activityInsert, type Actor } from './activity';
import { disconnectApp } from './connected-apps';
import type { ControlDb } from './db';
import { credentials, users } from './schema';

export type ListedKind = 'api_token' | 'upload_pass' | 'sign_in' | 'connected_app';

export interface CredentialRecord {
  jti: string;
  kind: ListedKind;
  name: string | null;
  /** The fixed list of an API token; null for passes and sign-ins. */
  permissions: string[] | null;
  /** What a connected app's person allowed; null for other kinds. */
  scopes: string[] | null;
  /** The connected app that created an API token or upload pass. */
  parentJti: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  /** For a sign-in, the latest use of any of its sessions. */
  lastUsedAt: string | null;
  createdBy: { id: string; email: string };
}

interface CredentialRow {
  jti: string;
  kind: ListedKind;
  name: string | null;
  permissions: string | null;
  scopes: string | null;
  parent_jti: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  creator_id: string;
  creator_email: string;
}

// A sign-in belongs to every project it has opened a session on, whichever organization it was opened
// in (a session may switch organization); sessions themselves are not listed (canceling their sign-in
// is how they end, in every organization). A connected app belongs to every project of its
// organization its person reaches (one of their teams reaches all projects or this one).
const PROJECT_CREDENTIALS = `
SELECT c.jti, c.kind, c.name, c.permissions, c.scopes, c.parent_jti, c.created_at, c.expires_at, c.revoked_at,
       CASE c.kind WHEN 'sign_in' THEN (SELECT MAX(s.last_used_at) FROM credentials s WHERE s.parent_jti = c.jti)
                   ELSE c.last_used_at END AS last_used_at,
       u.id AS creator_id, u.email AS creator_email
FROM credentials c
JOIN users u ON u.id = c.user_id
WHERE ((c.kind IN ('api_token', 'upload_pass') AND c.org_id = ?1 AND c.project_id = ?2)
  OR (c.kind = 'sign_in' AND c.jti IN (SELECT s.parent_jti FROM credentials s WHERE s.kind = 'session' AND s.org_id = ?1 AND s.project_id = ?2))
  OR (c.kind = 'connected_app' AND c.org_id = ?1 AND EXISTS (
    SELECT 1 FROM team_members tm JOIN teams t ON t.id = tm.team_id
    WHERE tm.user_id = c.user_id AND t.org_id = ?1
      AND (t.all_projects = 1 OR EXISTS (SELECT 1 FROM team_projects tp WHERE tp.team_id = t.id AND tp.project_id = ?2)))))`;

function toRecord(row: CredentialRow): CredentialRecord {
  return {
    jti: row.jti,
    kind: row.kind,
    name: row.name,
    permissions: row.kind === 'api_token' && row.permissions ? (JSON.parse(row.permissions) as string[]) : null,
    scopes: row.kind === 'connected_app' && row.scopes ? (JSON.parse(row.scopes) as string[]) : null,
    parentJti: row.kind === 'api_token' || row.kind === 'upload_pass' ? row.parent_jti : null,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
    createdBy: { id: row.creator_id, email: row.creator_email },
  };
}

/** Every credential of the project, newest first, canceled and expired ones included. */
export async function listProjectCredentials(d1: D1Database, orgId: string, projectId: string): Promise<CredentialRecord[]> {
  const { results } = await d1
    .prepare(`${PROJECT_CREDENTIALS} ORDER BY c.created_at DESC, c.jti DESC`)
    .bind(orgId, projectId)
    .all<CredentialRow>();
  return results.map(toRecord);
}

/** The project's credential with this id, or undefined when none with the id belongs to the project. */
export async function findProjectCredential(d1: D1Database, orgId: string, projectId: string, jti: string): Promise<CredentialRecord | undefined> {
  const row = await d1.prepare(`${PROJECT_CREDENTIALS} AND c.jti = ?3`).bind(orgId, projectId, jti).first<CredentialRow>();
  return row ? toRecord(row) : undefined;
}

/**
 * Cancels a credential of the project and answers it (undefined when it was already canceled, which
 * changes and records nothing). A connected app is disconnected with what it created. A sign-in's sessions fail with it because the credential lookup checks the parent.
 */
export async function revokeProjectCredential(
  db: ControlDb,
  input: { orgId: string; projectId: string; jti: string; actor: Actor; traceId: string },
): Promise<CredentialRecord | undefined> {
  const credential = await findProjectCredential(db.$client, input.orgId, input.projectId, input.jti);
  if (!credential) throw notFound('No credential with this id belongs to the project.');
  if (credential.revokedAt) return undefined;
  if (credential.kind === 'connected_app') {
    await disconnectApp(db, input);
    return credential;
  }
  await db.batch([
    db.update(credentials).set({ revokedAt: nowIso() }).where(and(eq(credentials.jti, input.jti), isNull(credentials.revokedAt))),
    activityInsert(db, {
      orgId: input.orgId, projectId: input.projectId, actor: input.actor, action: 'credential.revoked',
      data: { jti: input.jti, kind: credential.kind, name: credential.name }, traceId: input.traceId,
    }),
  ]);
  return credential;
}

/**
 * The permissions an API token may be given: known ones the creator holds (project ones on the
 * token's project, `org:*` on the organization), without repeats. 400 naming the first that is not.
 */
export function grantablePermissions(requested: readonly string[], held: PermissionSets): Permission[] {
  const granted = new Set<Permission>();
  for (const permission of requested) {
    if (!isPermission(permission)) throw invalidRequest(`Unknown permission ${permission}; GET /api/v1/permission lists them.`);
    const set = isOrgPermission(permission) ? held.org : held.project;
    if (!set.has(permission)) throw invalidRequest(`You do not hold the permission ${permission}, so a token cannot be given it.`);
    granted.add(permission);
  }
  return [...granted];
}

/** The record of a credential just issued, in the same shape as the list (secret added by the caller). */
export async function issuedRecord(
  db: ControlDb,
  issued: { jti: string; kind: 'api_token' | 'upload_pass'; userId: string; name: string | null; permissions: string[] | null; parentJti: string | null; createdAt: string; expiresAt: string },
): Promise<CredentialRecord> {
  const creator = await db.query.users.findFirst({ columns: { id: true, email: true }, where: eq(users.id, issued.userId) });
  if (!creator) throw new ApiError('internal', 'The creator of the credential is not known.');
  return {
    jti: issued.jti,
    kind: issued.kind,
    name: issued.name,
    permissions: issued.kind === 'api_token' ? issued.permissions : null,
    scopes: null,
    parentJti: issued.parentJti,
    createdAt: issued.createdAt,
    expiresAt: issued.expiresAt,
    revokedAt: null,
    lastUsedAt: null,
    createdBy: { id: creator.id, email: creator.email },
  };
}

/** Every organization a sign-in has sessions in (and its own): canceling it must reach each one's access cache. */
export async function signInOrgIds(d1: D1Database, signInJti: string): Promise<string[]> {
  const { results } = await d1.prepare('SELECT DISTINCT org_id FROM credentials WHERE jti = ?1 OR parent_jti = ?1').bind(signInJti).all<{ org_id: string }>();
  return results.map((r) => r.org_id);
}
