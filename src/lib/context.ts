// The request context every handler sees: bindings plus what the middleware established.
import type { Env } from '../env';
import type { AccessCache } from '../auth/access-cache';
import type { Principal } from '../auth/principal';

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

