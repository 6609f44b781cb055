// Headers every answer carries, whoever produced it (the API, the authorize pages, the OAuth provider,
// the MCP server): what browsers and scanners expect of a service holding security data.
import type { Env } from '../env';

/** Production hosts: every answer over HTTPS tells browsers to use nothing else for a year. */
const HSTS = 'max-age=31536000; includeSubDomains';
/** Answers that are not pages: nothing in them may load, and nobody may frame them. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

export function withSecurityHeaders(response: Response, url: URL, env: Env): Response {
  // Some answers (redirects, fetched ones) have immutable headers: copy them.
  const secured = new Response(response.body, response);
  const headers = secured.headers;
  headers.set('x-content-type-options', 'nosniff');
  if (!headers.has('referrer-policy')) headers.set('referrer-policy', 'no-referrer');
  // Pages set their own policy (the authorize pages, the API reference); everything else gets the strict one.
  if (!headers.has('content-security-policy')) {
    headers.set('content-security-policy', (headers.get('content-type') ?? '').startsWith('text/html') ? "frame-ancestors 'none'" : API_CSP);
  }
  if (!headers.has('x-frame-options')) headers.set('x-frame-options', 'DENY');
  const productionHost = url.protocol === 'https:' && [env.API_HOST, env.DASHBOARD_HOST].includes(url.hostname);
  if (productionHost) headers.set('strict-transport-security', HSTS);
  // No server or framework banner.
  headers.delete('server');
  headers.delete('x-powered-by');
  return secured;
}
