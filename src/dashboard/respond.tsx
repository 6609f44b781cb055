// Answering with a page: the complete document, its CSP (scripts of this origin carrying the page's
// nonce, trusted types for htmx only), no caching, and how many API calls it took (Server-Timing).
import type { Child } from 'hono/jsx';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { messagePage } from '../mcp/pages';
import { Shell } from './components/shell';
import type { DashContext } from './context';

/** The CSP of every dashboard page; `nonce` is the page's own. */
export const dashboardCsp = (nonce: string): string =>
  [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
    // hx-csp's policy is the one allowed to write HTML into the page.
    'trusted-types htmx',
  ].join('; ');

export type PageStatus = 200 | 201 | 400 | 403 | 404 | 409 | 422 | 429 | 500 | 502 | 503;

/** A page as a complete HTML document; every component is synchronous. */
export function renderPage(page: JSX.Element): string {
  const html = page.toString();
  if (typeof html !== 'string') throw new Error('Dashboard pages must render synchronously');
  return '<!doctype html>' + html;
}

export function respond(c: DashContext, html: string, status: PageStatus = 200, headers: Record<string, string> = {}): Response {
  c.header('Content-Security-Policy', dashboardCsp(c.var.nonce));
  c.header('Cache-Control', 'no-store');
  // With the service's default `no-referrer`, browsers send `Origin: null` on a form post, and the
  // origin check could not tell the dashboard's own forms from another site's.
  c.header('Referrer-Policy', 'same-origin');
  if (c.var.apiCalls) c.header('Server-Timing', `api;dur=${c.var.apiMs ?? 0};desc="${c.var.apiCalls} calls"`);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.html(html, status);
}

/** A signed-in page: the frame around the page's content. */
export function shellPage(c: DashContext, input: { title: string; area?: string; status?: PageStatus; headers?: Record<string, string> }, content: Child): Response {
  const html = renderPage(
    <Shell frame={c.var.frame} nonce={c.var.nonce} title={input.title} area={input.area}>
      {content}
    </Shell>,
  );
  return respond(c, html, input.status, input.headers);
}

/** A message: inside the frame when the person is known, else on its own card. */
export function messageResponse(
  c: DashContext, input: { title: string; message: string; status: PageStatus; retryHref?: string; kind?: 'error' | 'info'; headers?: Record<string, string> },
): Response {
  if (c.var.frame) {
    return shellPage(c, { title: input.title, status: input.status, headers: input.headers }, (
      <>
        <h1>{input.title}</h1>
        <p>{input.message}</p>
        {input.retryHref ? <p><a href={input.retryHref}>Go on</a></p> : null}
      </>
    ));
  }
  return respond(c, messagePage({ title: input.title, message: input.message, status: input.kind ?? 'error', retryHref: input.retryHref }), input.status, input.headers);
}

/** Whether htmx asked for a fragment (a search, a page of rows, a simulation) rather than the page. */
export const wantsFragment = (c: DashContext): boolean => c.req.header('hx-request') === 'true' && c.req.header('hx-history-restore-request') !== 'true';

/**
 * A fragment for htmx to swap in. It carries its own CSP and nonce like a page: hx-csp rewrites the
 * fragment's nonce to the page's before it parses it, and strips htmx attributes without one.
 */
export function fragment(c: DashContext, content: JSX.Element, status: PageStatus = 200): Response {
  const html = content.toString();
  if (typeof html !== 'string') throw new Error('Dashboard fragments must render synchronously');
  return respond(c, html, status);
}
