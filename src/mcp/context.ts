// What every MCP tool works with: the verified assistant (a `connected_app` principal), the scopes
// its person ticked, and the same permission checks the HTTP handlers use, on the project a tool names.
import { personPermissions, principalPermissions } from '../auth/access';
import type { Permission } from '../auth/permissions';
import type { Principal } from '../auth/principal';
import { recordActivity, type ActivityAction } from '../control/activity';
import { controlDb } from '../control/db';
import { requireReachableProject } from '../control/projects';
import type { Env } from '../env';
import { ApiError, permissionDenied } from '../lib/errors';
import { SCOPE_INFO, type Scope } from './scopes';

export interface ToolContext {
  env: Env;
  /** The assistant's approval: its person, organization and scopes (projectId is null: it reaches the person's projects). */
  app: Principal;
  /** The request's id, recorded as the trace id of activity entries. */
  requestId: string;
}

/** Refuses unless the person ticked this scope when approving the assistant. */
export function requireScope(context: ToolContext, scope: Scope): void {
  if (!(context.app.scopes ?? []).includes(scope)) {
    throw new ApiError('permission_denied', `This assistant was not allowed to "${SCOPE_INFO[scope].label.toLowerCase()}". Its person can approve it again with that ticked.`, { permission: scope });
  }
}

/**
 * The assistant acting on one project: 404 unless the person reaches it in the approval's
 * organization (another organization's project is never found), then `permission_denied` naming the
 * first permission the person lacks or the scopes do not let through. Answers the principal to act as.
 */
export async function onProject(context: ToolContext, projectId: string, permissions: readonly Permission[], options: { personOnly?: boolean } = {}): Promise<Principal> {
  const db = controlDb(context.env.DB);
  const project = await requireReachableProject(db, context.app, projectId.toLowerCase());
  const principal: Principal = { ...context.app, projectId: project.id };
  // `personOnly`: the person's own permissions decide (the credentials scope is its own tick; what a
  // credential then holds is still cut down to the scopes).
  const held = options.personOnly
    ? await personPermissions(context.env.DB, principal.orgId, principal.userId, project.id)
    : await principalPermissions(context.env.DB, principal, project.id);
  for (const permission of permissions) {
    const set = permission.startsWith('org:') ? held.org : held.project;
    if (!set.has(permission)) throw permissionDenied(permission);
  }
  return principal;
}

/** The organization-level check (activity log): `permission_denied` unless the person holds it and the scopes let it through. */
export async function onOrganization(context: ToolContext, permission: Permission): Promise<Principal> {
  const held = await principalPermissions(context.env.DB, context.app, null);
  if (!held.org.has(permission)) throw permissionDenied(permission);
  return context.app;
}

/** Records an assistant's change in the activity log, as the HTTP handlers do (the actor kind is `connected_app`). */
export async function recordFor(context: ToolContext, principal: Principal, action: ActivityAction, data: Record<string, unknown>): Promise<void> {
  await recordActivity(controlDb(context.env.DB), { orgId: principal.orgId, projectId: principal.projectId, actor: principal, action, data, traceId: context.requestId });
}
