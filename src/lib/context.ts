// The request context every handler sees: bindings plus what the middleware established.
import type { Context } from 'hono';
import type { Env } from '../env';
import type { AccessCache } from '../auth/access-cache';
import type { Principal } from '../auth/principal';
import type { Changer } from '../control/changes';

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    principal: Principal;
    /** Cached reads of the caller's organization (credential, permissions, read models). */
    access: AccessCache;
    /** The control database's primary, kept when `env.DB` becomes a read session (src/middleware/read-session.ts). */
    primaryDb?: D1Database;
  };
}

/** A handler's caller changing a project's data, for the change's activity entry. */
export const changerOf = (c: Context<AppEnv>, projectId: string): Changer => ({ principal: c.var.principal, projectId, traceId: c.var.requestId });
