// What every MCP tool works with: the verified assistant (a `connected_app` principal), the scopes
// its person ticked, and the same permission checks the HTTP handlers use, on the project a tool names.
import { personPermissions, principalPermissions } from '../auth/access';
import type { Permission } from '../auth/permissions';
import type { Principal } from '../auth/principal';
import type { Changer } from '../control/changes';
import { controlDb } from '../control/db';
import { requireReachableProject } from '../control/projects';
import type { Env } from '../env';
import { ApiError, permissionDenied } from '../lib/errors';
import { SCOPE_INFO, type Scope } from '../auth/scopes';

export interface ToolContext {
  env: Env;
  /** The assistant's approval: its person, organization and scopes (projectId is null: it reaches the person's projects). */
  app: Principal;
  /** The request's id, recorded as the trace id of activity entries. */
  requestId: string;
}

/** Whether the person ticked this scope when approving the assistant. */
export const hasScope = (context: ToolContext, scope: Scope): boolean => (context.app.scopes ?? []).includes(scope);

/** Refuses unless the person ticked this scope when approving the assistant. */
export function requireScope(context: ToolContext, scope: Scope): void {
  if (!hasScope(context, scope)) {
    throw new ApiError('permission_denied', `This assistant was not allowed to "${SCOPE_INFO[scope].label.toLowerCase()}". Its person can approve it again with that ticked.`, { permission: scope });
  }
}

/**
 * The assistant acting on one project (its id as the tool's schema normalised it, lower-cased, so the
 * project authorized is the one whose data is read): 404 unless the person reaches it in the approval's
 * organization (another organization's project is never found), then `permission_denied` naming the
 * first permission the person lacks or the scopes do not let through. Answers the principal to act as.
 */
export async function onProject(context: ToolContext, projectId: string, permissions: readonly Permission[], options: { personOnly?: boolean } = {}): Promise<Principal> {
  const db = controlDb(context.env.DB);
  const project = await requireReachableProject(db, context.app, projectId);
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

/** The assistant changing a project's data, once the permissions are checked: who its activity entries name. */
export const changerOn = async (context: ToolContext, projectId: string, permissions: readonly Permission[]): Promise<Changer> =>
  ({ principal: await onProject(context, projectId, permissions), projectId, traceId: context.requestId });
