// How a page calls the API: in-process, through the Worker's own entry (so the API's permissions,
// errors, rate limits and activity entries apply as to any caller, though a page counts once against
// the rate limit), on the dashboard's origin, with the session as a bearer token and the page's
// request id. Never domain functions.
import type { Context } from 'hono';
import type { AppEnv } from '../lib/context';
import { countWithPage } from '../middleware/rate-limit';
import type { DashContext, Entry } from './context';

export type { Entry };

export interface ApiAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** What the API answered on error: the specification's error shape (part 7). */
export interface ApiErrorBody {
  error: string;
  status?: number;
  code?: string;
  permission?: string;
  parameter?: string;
}

/** A field of an error body (spec part 7: `error` is the message, `code`, `permission` and `parameter` beside it). */
const errorField = (body: ApiErrorBody | null | undefined, field: 'code' | 'message' | 'permission' | 'parameter'): string | undefined => {
  if (!body || typeof body !== 'object') return undefined;
  const value = field === 'message' ? body.error : body[field];
  return typeof value === 'string' ? value : undefined;
};

/** A call the page cannot go on without that the API refused: the error page tells why (errors.tsx). */
export class ApiRefusal extends Error {
  constructor(readonly status: number, readonly body: ApiErrorBody | null, readonly headers: Headers) {
    super(errorField(body, 'message') ?? `The API answered ${status}`);
  }
  get code(): string | undefined {
    return errorField(this.body, 'code');
  }
  /** The permission a `permission_denied` names. */
  get permission(): string | undefined {
    return errorField(this.body, 'permission');
  }
}

/** The API's answer as it came (its body unread): what downloads pass through as a stream. */
export async function fetchApi(
  c: Context<AppEnv>, entry: Entry, method: string, path: string, options: { session?: string; body?: unknown; accept?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers = new Headers({ 'x-request-id': c.var.requestId, accept: options.accept ?? 'application/json' });
  if (options.session) headers.set('authorization', `Bearer ${options.session}`);
  if (options.body !== undefined) headers.set('content-type', 'application/json');
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
  // The caller's address counts against the public routes' limits, as if it had called the API itself.
  const client = c.req.header('cf-connecting-ip');
  if (client) headers.set('cf-connecting-ip', client);
  const url = new URL(path, c.req.url);
  // A value from the address or a form interpolated as `..` or `.` (a member, a subject name) would
  // otherwise climb to its parent (`…/member/..` is the portfolio itself): such a path is not called.
  if (url.pathname !== path.split('?')[0]) throw new ApiRefusal(404, { error: 'There is nothing at this address.', code: 'not_found' }, new Headers());
  const request = new Request(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  countWithPage(request, c.req.raw);
  return entry(request, c.env, c.executionCtx as ExecutionContext);
}

/** The body as JSON (or text when it is not), read whole. */
async function answerOf<T>(res: Response): Promise<ApiAnswer<T>> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body: body as T, headers: res.headers };
}

export async function callApi<T>(
  c: Context<AppEnv>, entry: Entry, method: string, path: string, options: { session?: string; body?: unknown; accept?: string; headers?: Record<string, string> } = {},
): Promise<ApiAnswer<T>> {
  return answerOf<T>(await fetchApi(c, entry, method, path, options));
}

/** The signed-in page's calls: with its session, counted (Server-Timing). */
export function api(c: DashContext) {
  const call = async <T>(method: string, path: string, body?: unknown, extra?: Record<string, string>): Promise<ApiAnswer<T>> => {
    const started = Date.now();
    c.set('apiCalls', (c.var.apiCalls ?? 0) + 1);
    try {
      return await callApi<T>(c as unknown as Context<AppEnv>, c.var.entry, method, path, { session: c.var.session, body, headers: extra });
    } finally {
      c.set('apiMs', (c.var.apiMs ?? 0) + Date.now() - started);
    }
  };
  return {
    /** A read the page needs: a refusal becomes the error page. */
    async get<T>(path: string): Promise<T> {
      return ok(await call<T>('GET', path));
    },
    /** A change: the answer as it is, so a form can show a 400 beside its field (`headers`: e.g. an Idempotency-Key). */
    send: <T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>) => call<T>(method, path, body, headers),
    /** A change the page cannot go on without. */
    async must<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
      return ok(await call<T>(method, path, body));
    },
    /** A read whose refusal the page shows in place (a 404 section, an unscored portfolio). */
    try: <T>(path: string) => call<T>('GET', path),
    /**
     * A download: the API's answer with its body unread, to pass through as a stream (never read
     * whole here). A refusal becomes the error page.
     */
    async stream(path: string, accept = '*/*'): Promise<Response> {
      const started = Date.now();
      c.set('apiCalls', (c.var.apiCalls ?? 0) + 1);
      try {
        const res = await fetchApi(c as unknown as Context<AppEnv>, c.var.entry, 'GET', path, { session: c.var.session, accept });
        if (res.ok) return res;
        return ok(await answerOf<never>(res));
      } finally {
        c.set('apiMs', (c.var.apiMs ?? 0) + Date.now() - started);
      }
    },
  };
}

/** The body of a successful answer, or the refusal thrown for the error page. */
export function ok<T>(answer: ApiAnswer<T>): T {
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  throw new ApiRefusal(answer.status, answer.body as ApiErrorBody | null, answer.headers);
}

/** The error message of a refused change, for a form. */
export const messageOf = (answer: ApiAnswer<unknown>): string => errorField(answer.body as ApiErrorBody | null, 'message') ?? `The service answered ${answer.status}.`;

/** The error code of a refused call (`not_found`, `permission_denied`...). */
export const codeOf = (answer: ApiAnswer<unknown>): string | undefined => errorField(answer.body as ApiErrorBody | null, 'code');
