// How every page of the MCP server's OAuth flow is sent (by the authorize routes, and by the Worker's entry
// when it refuses one before the routes run): HTML nobody may frame, cache or leak through the Referer.
import { messagePage, PAGE_CSP } from './pages';

export interface PageInit {
  status?: number;
  requestId: string;
  /** The page's Content-Security-Policy: PAGE_CSP unless the page loads its one script. */
  csp?: string;
  headers?: HeadersInit;
  cookies?: readonly string[];
}

export function htmlPage(html: string, init: PageInit): Response {
  const headers = new Headers(init.headers);
  headers.set('content-type', 'text/html; charset=utf-8');
  headers.set('content-security-policy', init.csp ?? PAGE_CSP);
  headers.set('x-frame-options', 'DENY');
  // same-origin: nothing on a page leaves in a Referer, and form posts keep their Origin.
  headers.set('referrer-policy', 'same-origin');
  headers.set('cache-control', 'no-store');
  headers.set('x-content-type-options', 'nosniff');
  headers.set('x-request-id', init.requestId);
  for (const cookie of init.cookies ?? []) headers.append('set-cookie', cookie);
  return new Response(html, { status: init.status ?? 200, headers });
}

/** The 429 of an HTML route: a page saying when to try again, with `Retry-After`. */
export function tooManyRequestsPage(requestId: string, message: string, retryAfterSeconds: number): Response {
  const html = messagePage({ title: 'Too many requests', message, status: 'error' });
  return htmlPage(html, { status: 429, requestId, headers: { 'retry-after': String(retryAfterSeconds) } });
}
