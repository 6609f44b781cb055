import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../lib/context';

/** Every answer names its request in `X-Request-Id`, the id logs and activity entries carry. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const id = incoming && /^[\w-]{8,128}$/.test(incoming) ? incoming : crypto.randomUUID();
    c.set('requestId', id);
    await next();
    c.header('X-Request-Id', id);
  };
}
