// API refusals as pages (issue 21): 401 leads to sign-in and back here; `permission_denied` names the
// permission; a portfolio being scored or a project being set up shows so and refreshes itself; a rate
// limit says how long to wait; a 404 says nothing about what may exist elsewhere.
import type { ApiRefusal } from './api';
import type { DashContext } from './context';
import { messageResponse } from './respond';
import { toSignIn } from './frame';
import { forgetSession } from './session-cookie';

/** Codes that mean "not yet": the page refreshes itself after a while (a `Refresh` header, no script). */
const NOT_YET: Record<string, string> = {
  unscored: 'This portfolio is being scored for the first time.',
  rescoring: 'This portfolio is being scored again after a change.',
  provisioning: 'This project is being set up.',
  starting: 'This is starting.',
};

export function refusalPage(c: DashContext, refusal: ApiRefusal): Response {
  const code = refusal.code;
  if (refusal.status === 401) {
    forgetSession(c);
    return toSignIn(c);
  }
  if (code === 'permission_denied') {
    const permission = refusal.permission;
    return messageResponse(c, {
      title: 'You cannot do this here', status: 403, retryHref: '/',
      message: permission ? `It needs the permission ${permission}, which none of your roles grants here. An administrator can give it to you.` : refusal.message,
    });
  }
  // A page refreshes itself (a GET again); a refused form leads back instead of re-sending nothing.
  const again = (seconds: number): Record<string, string> => (c.req.method === 'GET' ? { Refresh: String(seconds) } : {});
  const retryHref = c.req.method === 'GET' ? undefined : backTo(c);
  if (code && NOT_YET[code]) {
    return messageResponse(c, { title: 'Not ready yet', kind: 'info', status: 409, message: `${NOT_YET[code]} ${retryHref ? 'Try again in a moment.' : 'This page refreshes itself.'}`, headers: again(5), retryHref });
  }
  if (refusal.status === 429) {
    const wait = Number(refusal.headers.get('retry-after') ?? 30);
    return messageResponse(c, {
      title: 'Too many requests', status: 429, message: retryHref ? `Wait ${wait} seconds, then try again.` : `Wait ${wait} seconds: this page tries again then.`,
      headers: { ...again(wait), 'Retry-After': String(wait) }, retryHref,
    });
  }
  // A project whose storage is still being set up answers its portfolio and data-health reads 404 with Retry-After.
  if (refusal.status === 404 && refusal.headers.get('retry-after')) {
    return messageResponse(c, { title: 'Not ready yet', kind: 'info', status: 409, message: `${NOT_YET.provisioning} This page refreshes itself.`, headers: again(5), retryHref });
  }
  if (notVisible(refusal.status)) return messageResponse(c, { title: 'Not found', status: 404, message: 'There is nothing at this address that you can see.', retryHref: '/' });
  if (refusal.status === 400) return messageResponse(c, { title: 'That did not work', status: 400, message: refusal.message, retryHref: backTo(c) });
  // A conflict (a report not rendered yet, a retention that ended) says what the API said.
  if (refusal.status === 409) return messageResponse(c, { title: 'That cannot be done now', status: 409, message: refusal.message, retryHref: backTo(c) });
  return messageResponse(c, { title: 'The service could not answer', status: 502, message: `${refusal.message} (request ${c.var.requestId})`, retryHref: new URL(c.req.url).pathname });
}

/** The page a refused form was sent from (this dashboard's only), else the start. */
function backTo(c: DashContext): string {
  try {
    const from = new URL(c.req.header('referer') ?? '', c.req.url);
    if (from.origin === new URL(c.req.url).origin) return from.pathname + from.search;
  } catch {
    // no usable Referer
  }
  return '/';
}

/** 403 `forbidden` (another organization's or project's id) answers as 404: nothing leaks. */
const notVisible = (status: number) => status === 404 || status === 403;
