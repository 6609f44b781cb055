// Builds the Hono application: middleware order, family routers, the OpenAPI document.
import { OpenAPIHono } from '@hono/zod-openapi';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './lib/context';
import { ApiError, errorResponse, type ErrorCode } from './lib/errors';
import { createRouter } from './lib/router';
import { methodsForPath } from './lib/methods';
import { BOOKMARK_HEADER } from './middleware/read-session';
import { countD1Queries } from './middleware/d1-count';
import { requestId } from './middleware/request-id';
import { routers } from './routes';
import { docsRouter } from './routes/docs';
import { authorizeRouter } from './mcp/authorize';

const HTTP_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed',
  406: 'not_acceptable', 409: 'conflict', 415: 'unsupported_media_type', 429: 'rate_limited',
};

/** Maps anything thrown to the specification's error body; unexpected faults are logged, never shown. */
export function toApiError(error: unknown, requestIdValue: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    const code = HTTP_CODES[error.status];
    if (code === 'invalid_request') return new ApiError(code, 'The request body is not valid JSON.');
    if (code === 'unsupported_media_type') return new ApiError(code, 'Send the body as JSON with Content-Type: application/json.');
    if (code) return new ApiError(code, error.message || code);
  }
  console.error(JSON.stringify({ level: 'error', requestId: requestIdValue, message: String(error), stack: (error as Error)?.stack }));
  return new ApiError('internal', `An internal error occurred; quote request id ${requestIdValue} when reporting it.`);
}

export function buildApp() {
  const app = createRouter();

  app.use('*', requestId());
  app.use('/api/*', countD1Queries());
  // The dashboard calls the API from its own origin; built once per configured origin.
  const corsByOrigin = new Map<string, ReturnType<typeof cors>>();
  app.use('/api/*', async (c, next) => {
    const origin = c.env.DASHBOARD_URL ?? '';
    let handler = corsByOrigin.get(origin);
    if (!handler) {
      handler = cors({ origin: origin ? [origin] : [], allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', BOOKMARK_HEADER], exposeHeaders: ['X-Request-Id', 'Retry-After', BOOKMARK_HEADER], maxAge: 600 });
      corsByOrigin.set(origin, handler);
    }
    return handler(c, next);
  });

  for (const router of routers) app.route('/', router);

  app.get('/api/v1/openapi.json', (c) => c.json(openApiDocument(new URL(c.req.url).origin)));
  app.openAPIRegistry.registerComponent('securitySchemes', 'session', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard session (sign in by email link).' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiToken', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'API token created in project settings.' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'uploadPass', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Upload pass of the command-line client.' });
  app.route('/', docsRouter);
  // The MCP server's sign-in and approval pages (HTML, outside the API's OpenAPI document).
  app.route('/', authorizeRouter);

  app.notFound((c) => {
    const allowed = methodsForPath(app, new URL(c.req.url).pathname);
    if (allowed.length) {
      return errorResponse(new ApiError('method_not_allowed', `${c.req.method} is not allowed here; use ${allowed.join(', ')}.`, { headers: { Allow: allowed.join(', ') } }), { 'X-Request-Id': c.var.requestId });
    }
    return errorResponse(new ApiError('not_found', 'No such path.'), { 'X-Request-Id': c.var.requestId });
  });
  app.onError((error, c) => errorResponse(toApiError(error, c.var.requestId), { 'X-Request-Id': c.var.requestId }));
  return app;
}

export type App = OpenAPIHono<AppEnv>;
export const app = buildApp();

// Built once per isolate from the route schemas; a fault here is an ordinary 500 `internal`.
let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;

/** The OpenAPI 3.1 document of every operation, served at /api/v1/openapi.json and as an MCP resource. */
export function openApiDocument(origin: string) {
  document ??= app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Posture Analysis Service API',
      version: '1.0.0',
      description: 'Posture analysis for software supply chains: surveys of CycloneDX SBOMs and CBOMs, post-quantum readiness, vulnerabilities, crypto-agility scores. Errors are `{error, status, code}`; branch on `code`.',
      // OpenAPI 3.1's SPDX `identifier` (the generator's 3.0 types do not know it yet).
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } as { name: string },
    },
  });
  return { ...document, servers: [{ url: origin }] };
}
