// The request context every handler sees: bindings plus what the middleware established.
import type { Env } from '../env';
import type { Principal } from '../auth/principal';

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    principal: Principal;
  };
}
