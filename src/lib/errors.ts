// The one error class and the one table of codes (spec part 7). Handlers throw ApiError;
// `errorResponse` is the only place an error body is built.
import { z } from '@hono/zod-openapi';

export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_parameter: 400,
  name_taken: 400,
  last_project: 400,
  unauthorized: 401,
  token_expired: 401,
  token_revoked: 401,
  session_required: 401,
  forbidden: 403,
  permission_denied: 403,
  api_host_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  storage_full: 409,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  provisioning: 503,
  starting: 503,
  unavailable: 503,
  try_again: 503,
  unscored: 503,
  rescoring: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export interface ApiErrorOptions {
  /** The query, path or header parameter at fault (`invalid_parameter`). */
  parameter?: string;
  /** The permission that is lacking (`permission_denied`). */
  permission?: string;
  /** Extra response headers, such as `Allow` or `Retry-After`. */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly status: ErrorStatus;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }
}

export const invalidParameter = (parameter: string, message: string) =>
  new ApiError('invalid_parameter', message, { parameter });
export const invalidRequest = (message: string) => new ApiError('invalid_request', message);
export const notFound = (message: string) => new ApiError('not_found', message);
export const forbidden = (message: string) => new ApiError('forbidden', message);
export const permissionDenied = (permission: string) =>
  new ApiError('permission_denied', `This needs the permission ${permission}.`, { permission });
export const conflict = (message: string) => new ApiError('conflict', message);

export interface ErrorBody {
  error: string;
  status: number;
  code: ErrorCode;
  parameter?: string;
  permission?: string;
}

export function errorBody(error: ApiError): ErrorBody {
  const body: ErrorBody = { error: error.message, status: error.status, code: error.code };
  if (error.options.parameter !== undefined) body.parameter = error.options.parameter;
  if (error.options.permission !== undefined) body.permission = error.options.permission;
  return body;
}

export function errorResponse(error: ApiError, extraHeaders: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(errorBody(error)), {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...error.options.headers, ...extraHeaders },
  });
}

export const ErrorSchema = z
  .object({
    error: z.string().openapi({ description: 'A short message for people.' }),
    status: z.number().int().openapi({ description: 'The HTTP status repeated.' }),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).openapi({ description: 'Machine-readable reason: branch on this.' }),
    parameter: z.string().optional().openapi({ description: 'The parameter at fault (invalid_parameter).' }),
    permission: z.string().optional().openapi({ description: 'The missing permission (permission_denied).' }),
  })
  .openapi('Error');
