// API refusals as pages (issue 21): 401 leads to sign-in and back here; `permission_denied` names the
// permission; a portfolio being scored or a project being set up shows so and refreshes itself; a rate
// limit says how long to wait; a 404 says nothing about what may exist elsewhere.
import type { ApiRefusal } from './api';
import type { DashContext } from './context';
import { messageResponse } from './respond';
import { forgetSession, keepReturn } from './session-cookie';

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
    if (c.req.method === 'GET') keepReturn(c, new URL(c.req.url).pathname + new URL(c.req.url).search);
    return c.redirect('/sign-in', 303);
  }
  if (code === 'permission_denied') {
    const permission = refusal.permission;
    return messageResponse(c, {
      title: 'You cannot do this here', status: 403, retryHref: '/',
      message: permission ? `It needs the permission ${permission}, which none of your roles grants here. An administrator can give it to you.` : refusal.message,
    });
  }
  if (code && NOT_YET[code]) {
    return messageResponse(c, { title: 'Not ready yet', kind: 'info', status: 409, message: `${NOT_YET[code]} This page refreshes itself.`, headers: { Refresh: '5' } });
  }
  if (refusal.status === 429) {
    const wait = Number(refusal.headers.get('retry-after') ?? 30);
    return messageResponse(c, { title: 'Too many requests', status: 429, message: `Wait ${wait} seconds: this page tries again then.`, headers: { Refresh: String(wait), 'Retry-After': String(wait) } });
  }
  // A project whose storage is still being set up answers its portfolio and data-health reads 404 with Retry-After.
  if (refusal.status === 404 && refusal.headers.get('retry-after')) {
    return messageResponse(c, { title: 'Not ready yet', kind: 'info', status: 409, message: `${NOT_YET.provisioning} This page refreshes itself.`, headers: { Refresh: '5' } });
  }
  if (notVisible(refusal.status)) return messageResponse(c, { title: 'Not found', status: 404, message: 'There is nothing at this address that you can see.', retryHref: '/' });
  if (refusal.status === 400) return messageResponse(c, { title: 'That did not work', status: 400, message: refusal.message, retryHref: c.req.header('referer') ? undefined : '/' });
  return messageResponse(c, { title: 'The service could not answer', status: 502, message: `${refusal.message} (request ${c.var.requestId})`, retryHref: new URL(c.req.url).pathname });
}

/** 403 `forbidden` (another organization's or project's id) answers as 404: nothing leaks. */
const notVisible = (status: number) => status === 404 || status === 403;
