// Who changes a project's data, for the activity entry the change leaves: shared by the HTTP handlers
// and the MCP tools, so a change reads the same in the log whoever made it (a session, an API token,
// or an assistant as `connected_app`).
import type { Principal } from '../auth/principal';
import type { Env } from '../env';
import type { JsonObject } from '../lib/json';
import { recordActivity, type ActivityAction } from './activity';
import { controlDb } from './db';

/** The caller, the project changed and the request's id (the entry's trace id). */
export interface Changer {
  principal: Principal;
  projectId: string;
  traceId: string;
}

/** A handler's caller changing a project's data (`c.var`: who calls, and the request's id). */
export const changerOf = (vars: { principal: Principal; requestId: string }, projectId: string): Changer => ({ principal: vars.principal, projectId, traceId: vars.requestId });

/** Records a change to the project's data in the activity log, by whoever made it. */
export const recordChange = (env: Env, by: Changer, action: ActivityAction, data: JsonObject) =>
  recordActivity(controlDb(env.DB), { orgId: by.principal.orgId, projectId: by.projectId, actor: by.principal, action, data, traceId: by.traceId });
