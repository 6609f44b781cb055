// Authentication and authorization for one operation: bearer JWT (jose), credential kind, host,
// rate limit, credential lookup, path scope, permissions. Built once per route from its `Access`.
import type { Context, MiddlewareHandler } from 'hono';
import { bumpAccessEpoch, openAccessCache } from '../auth/access-cache';
import { principalPermissions } from '../auth/access';
import type { Permission } from '../auth/permissions';
import { loadPrincipal, needsTouch, touchCredential, type Principal } from '../auth/principal';
import { CREDENTIAL_KINDS, signingKeys, verifyToken, type CredentialTokenKind } from '../auth/tokens';
import type { AppEnv } from '../lib/context';
import { ApiError, forbidden, invalidParameter, permissionDenied } from '../lib/errors';
import { UUID_PATTERN } from '../lib/ids';
import { checkRateLimitOnce, rateLimitKey } from './rate-limit';
import { openReadSession, primaryDb } from './read-session';

/**
 * Which credentials an operation accepts: spec "Any", "Session" or "Pass"; `anyOrPass` also takes an
 * upload pass, whose `permissions` are not checked (the handler decides what the pass may read).
 */
export type Creds = 'any' | 'session' | 'pass' | 'anyOrPass';

export interface Access {
  creds: Creds;
  /**
   * How a path `{projectId}` relates to the credential: `own` (default) must be the credential's
   * project (403 otherwise); `reachable` lets a session name any project of its organization, the
   * handler deciding between 404 and success.
   */
  project?: 'own' | 'reachable';
  /**
   * How a path `{orgId}` relates to the credential: `own` (default) must be the credential's
   * organization (403 otherwise); `member` lets a session name any organization, the handler
   * answering 404 unless the person is an active member of it.
   */
  org?: 'own' | 'member';
  /** Permissions the operation needs, all of them; project ones are checked on the path's project. */
  permissions?: Permission[];
  /**
   * The operation changes nothing the access cache holds (no credential, membership, team, role,
   * project or activity entry), so a success need not invalidate it: frequent data-plane writes
   * such as progress reports.
   */
  keepsAccess?: boolean;
  /**
   * A POST that only reads (simulation): it reads through a read session like a GET (a client's
   * bookmark honoured, the nearest replica otherwise) and, changing nothing, keeps the access cache.
   */
  changesNothing?: boolean;
}

function kindAccepted(creds: Creds, kind: CredentialTokenKind): void {
  if (creds === 'anyOrPass' && kind === 'upload_pass') return;
  if (creds === 'pass') {
    if (kind !== 'upload_pass') throw new ApiError('unauthorized', 'This operation accepts only an upload pass.');
    return;
  }
  if (kind === 'upload_pass') throw new ApiError('unauthorized', 'An upload pass cannot be used for this operation.');
  if (creds === 'session' && kind !== 'session') {
    throw new ApiError('session_required', 'This operation needs a dashboard session; API tokens are not accepted.');
  }
}

function bearerToken(header: string | undefined): string {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw new ApiError('unauthorized', 'Send a credential as Authorization: Bearer <token>.');
  return match[1]!;
}

/** Whether a request is addressed to the dashboard's host (API tokens and assistants are refused there). */
export function isDashboardHost(url: string, dashboardHost: string): boolean {
  return !!dashboardHost && new URL(url).hostname.toLowerCase() === dashboardHost.toLowerCase();
}

/** Verifies who calls, without looking at the path: used by every authenticated route. */
export async function authenticateRequest(c: Parameters<MiddlewareHandler<AppEnv>>[0], creds: Creds): Promise<Principal> {
  const claims = await verifyToken(await signingKeys(c.env), bearerToken(c.req.header('authorization')));
  if (!(CREDENTIAL_KINDS as readonly string[]).includes(claims.kind)) {
    throw new ApiError('unauthorized', 'This kind of token is not a credential.');
  }
  const kind = claims.kind as CredentialTokenKind;
  kindAccepted(creds, kind);
  if (kind === 'api_token' && isDashboardHost(c.req.url, c.env.DASHBOARD_HOST)) {
    throw new ApiError('api_host_required', `API tokens must call the API host ${c.env.API_HOST}, not the dashboard.`);
  }
  if (!claims.org) throw new ApiError('unauthorized', 'The token names no organization.');
  const [, cache] = await Promise.all([checkRateLimitOnce(c.env, c.req.raw, rateLimitKey(claims)), openAccessCache(c.env, claims.org)]);
  c.set('access', cache);
  const principal = await loadPrincipal(c.env.DB, claims, new Date(), cache);
  if (needsTouch(principal)) c.executionCtx.waitUntil(touchCredential(c.env.DB, principal.jti).catch(() => undefined));
  return principal;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function requireAccess(access: Access): MiddlewareHandler<AppEnv> {
  const permissions = access.permissions ?? [];
  return async (c, next) => {
    const principal = await authenticateRequest(c, access.creds);
    c.set('principal', principal);

    // Ids are UUIDs: compared without regard to case (handlers see them lower-cased by `uuidParam`).
    const pathOrg = c.req.param('orgId')?.toLowerCase();
    const pathProject = c.req.param('projectId')?.toLowerCase();
    // A malformed id is a bad parameter, not another tenant's id.
    if (pathOrg !== undefined && !UUID_PATTERN.test(pathOrg)) throw invalidParameter('orgId', 'orgId must be a UUID.');
    if (pathProject !== undefined && !UUID_PATTERN.test(pathProject)) throw invalidParameter('projectId', 'projectId must be a UUID.');
    const anyOrg = access.org === 'member' && principal.kind === 'session';
    if (pathOrg !== undefined && !anyOrg && pathOrg !== principal.orgId) {
      throw forbidden('This credential belongs to another organization.');
    }
    const ownOnly = access.project !== 'reachable' || principal.kind !== 'session';
    if (pathProject !== undefined && ownOnly && pathProject !== principal.projectId) {
      throw forbidden('This credential was made for another project.');
    }
    // On `reachable` routes the handler first answers 404 for a project the session cannot see.
    // A pass on an `anyOrPass` operation holds no permissions: the handler limits it to what it started.
    const passOnly = access.creds === 'anyOrPass' && principal.kind === 'upload_pass';
    if (access.project !== 'reachable' && !passOnly) await assertPermissions(c, permissions, pathProject ?? principal.projectId);
    const changes = !READ_METHODS.has(c.req.method) && !access.changesNothing;
    const answerBookmark = openReadSession(c, changes);
    await next();
    answerBookmark();
    // A change that succeeded invalidates what any isolate cached about this organization.
    if (changes && !access.keepsAccess && c.res.status < 400) await bumpAccessEpoch(c.env, principal.orgId);
  };
}

/** Throws `permission_denied` naming the first permission the caller lacks (project ones on `projectId`). */
export async function assertPermissions(c: Context<AppEnv>, permissions: readonly Permission[], projectId: string | null): Promise<void> {
  if (!permissions.length) return;
  // Always the primary: a permission taken away is refused at once, whatever a replica has seen.
  const held = await principalPermissions(primaryDb(c), c.var.principal, projectId, c.var.access);
  for (const permission of permissions) {
    const set = permission.startsWith('org:') ? held.org : held.project;
    if (!set.has(permission)) throw permissionDenied(permission);
  }
}
