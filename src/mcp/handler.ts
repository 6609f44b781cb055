// The MCP endpoint behind OAuth: the provider has verified the access token and hands over the
// approval's id; here it is checked like any credential on every call (canceled, expired, person
// removed: 401, and the assistant signs in again), the call is rate-limited, and a stateless MCP
// server bound to this assistant answers it.
import { createMcpHandler } from 'agents/mcp';
import { loadConnectedApp, needsTouch, touchCredential, type Principal } from '../auth/principal';
import type { Env } from '../env';
import { ApiError, errorResponse } from '../lib/errors';
import { checkRateLimit } from '../middleware/rate-limit';
import { MCP_PATH, type AssistantProps } from './oauth';
import { buildServer } from './server';

/** A refused credential as OAuth clients expect it: 401 with `invalid_token`, so they sign in again. */
function refused(error: ApiError, requestId: string): Response {
  const challenge = `Bearer error="invalid_token", error_description="${error.message.replace(/["\\]/g, '')}"`;
  return errorResponse(error, { 'WWW-Authenticate': challenge, 'X-Request-Id': requestId });
}

export const mcpApiHandler = {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const requestId = crypto.randomUUID();
    let app: Principal;
    try {
      app = await loadConnectedApp(env.DB, (ctx.props as AssistantProps | undefined)?.appJti ?? '');
      await checkRateLimit(env, app.jti);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return error.status === 401 ? refused(error, requestId) : errorResponse(error, { 'X-Request-Id': requestId });
    }
    if (needsTouch(app)) ctx.waitUntil(touchCredential(env.DB, app.jti).catch(() => undefined));
    const context = { env, app, requestId };
    const handle = createMcpHandler(() => buildServer(context), { route: MCP_PATH });
    const response = await handle(request, env, ctx);
    response.headers.set('X-Request-Id', requestId);
    return response;
  },
};
