// The dashboard's one cookie: the sign-in's session token, `__Host-` prefixed (this host only, path /,
// Secure), HttpOnly (no script reads it), SameSite=Strict (no other site sends it), expiring with the
// sign-in. It authenticates dashboard pages only: the API stays bearer-only (pages pass it on as a
// bearer token when they call the API in-process).
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

export const SESSION_COOKIE = '__Host-posture-session';

export const sessionOf = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE) || undefined;

/** Sets the cookie until the session's own expiry. */
export function keepSession(c: Context, jwt: string, expiresAt: string): void {
  const seconds = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
  setCookie(c, SESSION_COOKIE, jwt, { path: '/', secure: true, httpOnly: true, sameSite: 'Strict', maxAge: seconds });
}

export function forgetSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: true, httpOnly: true, sameSite: 'Strict' });
}
