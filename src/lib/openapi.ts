// Route definitions: every operation declares who may call it (`access`) and the errors it can
// answer; this adds the security requirement, the shared error responses and the auth middleware,
// so the OpenAPI document and the behaviour come from the same object.
import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import type { Permission } from '../auth/permissions';
import { requireAccess, type Access } from '../middleware/auth';
import { emptyBodyIsNoBody } from '../middleware/optional-body';
import { ErrorSchema } from './errors';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (`invalid_request`, `invalid_parameter` naming the parameter, `name_taken`, `last_project`).',
  401: 'Missing, invalid, expired (`token_expired`) or canceled (`token_revoked`) credential, a kind the operation does not accept (`unauthorized`, `session_required`).',
  403: 'Path organization or project other than the credential\'s (`forbidden`), a missing permission (`permission_denied`), an API token on the dashboard host (`api_host_required`).',
  404: 'Not found, or not visible to this credential (`not_found`).',
  405: 'The path exists but not with this method (`method_not_allowed`, `Allow` header).',
  406: 'The `Accept` header does not allow the answer\'s media type.',
  409: 'Conflicts with the current state (`conflict`); the project\'s stored data reached its limit (`storage_full`, on operations that start a survey).',
  415: 'The body is not JSON (`unsupported_media_type`).',
  429: 'More than 600 requests a minute from this credential (`rate_limited`, `Retry-After`).',
  500: 'A fault on the service side (`internal`); the `X-Request-Id` header names it in the logs.',
  502: 'The connection to the project\'s data failed part way (`bad_gateway`, `Retry-After`); retry after a moment.',
  503: 'The project\'s data is not reachable right now (`provisioning`, `starting`, `unavailable` (also when it did not answer within the deadline), `try_again`; `Retry-After`).',
};

export const errorResponse = (status: number) => ({
  description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
  content: { 'application/json': { schema: ErrorSchema } },
});

export const CREDENTIAL_SCHEMES = {
  any: [{ apiToken: [] }, { session: [] }],
  session: [{ session: [] }],
  pass: [{ uploadPass: [] }],
  anyOrPass: [{ apiToken: [] }, { session: [] }, { uploadPass: [] }],
  none: [],
} as const;

type Extra = {
  /** Unique across the API; also the name of the MCP tool over the same operation. */
  operationId: string;
  access: Access | 'public';
  /** Error statuses this operation answers beyond 401/403/429/500 (which every authenticated one can). */
  errors?: number[];
};

function describeAccess(access: Access | 'public'): string {
  if (access === 'public') return 'No credential needed.';
  const creds = {
    any: 'Any (API token or dashboard session)', session: 'Session only', pass: 'Upload pass only',
    anyOrPass: 'Any (API token or dashboard session), or the upload pass that started the survey',
  }[access.creds];
  const by = access.creds === 'anyOrPass' ? ' (not for the pass)' : '';
  const needs = access.permissions?.length ? ` Requires ${access.permissions.map((p: Permission) => `\`${p}\``).join(', ')}${by}.` : '';
  return `Credentials: ${creds}.${needs}`;
}

export function defineRoute<R extends RouteConfig>(config: R & Extra) {
  const { access, errors = [], ...route } = config;
  const statuses = new Set<number>(errors);
  if (access !== 'public') [401, 403, 429].forEach((s) => statuses.add(s));
  if (route.request?.body) statuses.add(415);
  if (route.request?.body || route.request?.query || route.request?.params || route.request?.headers) statuses.add(400);
  // What reaches the project's data (503) can also lose its connection to it part way (502).
  if (statuses.has(503)) statuses.add(502);
  statuses.add(500);
  const errorResponses = Object.fromEntries([...statuses].sort().map((s) => [s, errorResponse(s)]));
  const middleware = access === 'public' ? [] : [requireAccess(access)];
  // An optional body sent empty with a JSON Content-Type is no body, not invalid JSON.
  if (route.request?.body && !route.request.body.required) middleware.push(emptyBodyIsNoBody as never);
  return createRoute({
    ...route,
    description: [route.description, describeAccess(access)].filter(Boolean).join('\n\n'),
    security: access === 'public' ? [] : [...CREDENTIAL_SCHEMES[access.creds]],
    middleware: [...middleware, ...((route.middleware as never[] | undefined) ?? [])],
    responses: { ...errorResponses, ...route.responses },
    ...(access !== 'public' && access.permissions?.length ? { 'x-permissions': access.permissions } : {}),
  } as unknown as R);
}
