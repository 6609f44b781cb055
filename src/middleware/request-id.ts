import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../lib/context';

/** A caller's own `X-Request-Id` (8-128 word characters) is kept, so traces join up; else a new one. */
export const requestIdOf = (incoming: string | null | undefined): string =>
  incoming && /^[\w-]{8,128}$/.test(incoming) ? incoming : crypto.randomUUID();

/** Every answer names its request in `X-Request-Id`, the id logs and activity entries carry. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', id);
    await next();
    c.header('X-Request-Id', id);
  };
}
