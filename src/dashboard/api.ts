// How a page calls the API: in-process, through the Worker's own entry (so the API's permissions,
// errors, rate limits and activity entries apply as to any caller), on the dashboard's origin, with the
// session as a bearer token and the page's request id. Never domain functions.
import type { Context } from 'hono';
import type { AppEnv } from '../lib/context';

/** The Worker's entry, given by src/index.ts (a page's call goes through the same door as any request). */
export type Entry = (request: Request, env: AppEnv['Bindings'], ctx: ExecutionContext) => Promise<Response>;

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

/** What the API answered on error: the specification's error shape. */
export interface ApiErrorBody {
  error: { code: string; message: string };
}

export async function callApi<T>(
  c: Context<AppEnv>, entry: Entry, method: string, path: string, options: { session?: string; body?: unknown } = {},
): Promise<ApiAnswer<T>> {
  const headers = new Headers({ 'x-request-id': c.var.requestId, accept: 'application/json' });
  if (options.session) headers.set('authorization', `Bearer ${options.session}`);
  if (options.body !== undefined) headers.set('content-type', 'application/json');
  // The caller's address counts against the public routes' limits, as if it had called the API itself.
  const client = c.req.header('cf-connecting-ip');
  if (client) headers.set('cf-connecting-ip', client);
  const url = new URL(path, c.req.url);
  const res = await entry(new Request(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }), c.env, c.executionCtx as ExecutionContext);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}
