// A request that says `Content-Type: application/json` but sends no bytes is a request without a body
// (spec 4.8 regenerate, 4.11 upload pass): clients and proxies add the header to empty POSTs. Put in
// front of the validator of every operation whose body is optional, so the handler sees "no body"
// (no Content-Type) and can still tell it from `{}`.
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../lib/context';

/** Whether the request carries a body at all (after `emptyBodyIsNoBody`). */
export const hasBody = (request: Request) => request.headers.has('content-type');

export const emptyBodyIsNoBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const raw = c.req.raw;
  const length = raw.headers.get('content-length');
  const empty = raw.headers.has('content-type') && (length === '0' || !raw.body || (length === null && (await raw.clone().text()).trim() === ''));
  if (empty) {
    const headers = new Headers(raw.headers);
    headers.delete('content-type');
    headers.delete('content-length');
    c.req.raw = new Request(raw.url, { method: raw.method, headers });
  }
  await next();
};
