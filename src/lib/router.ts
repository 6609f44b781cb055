// One router factory: every family router validates with the same hook, so every validation
// failure has the specification's error shape.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { ZodError } from 'zod';
import type { AppEnv } from './context';
import { ApiError } from './errors';

/** Turns a zod failure into `invalid_request` (body) or `invalid_parameter` naming the parameter. */
export function validationError(target: string, error: ZodError): ApiError {
  const issue = error.issues[0];
  const path = issue?.path.map(String) ?? [];
  const detail = issue ? issue.message : 'Invalid value.';
  if (target === 'json' || target === 'form') {
    const where = path.length ? `${path.join('.')}: ` : '';
    return new ApiError('invalid_request', `Invalid request body: ${where}${detail}`);
  }
  const parameter = path[0] ?? target;
  return new ApiError('invalid_parameter', `Invalid ${target === 'param' ? 'path' : target} parameter ${parameter}: ${detail}`, { parameter });
}

export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    strict: false,
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.target, result.error);
    },
  });
}

export type AppRouter = ReturnType<typeof createRouter>;
