// The dashboard's cookies. The session: the sign-in's session token, `__Host-` prefixed (this host only,
// path /, Secure), HttpOnly (no script reads it), SameSite=Strict (no other site sends it), expiring with
// the sign-in. It authenticates dashboard pages only: the API stays bearer-only (pages pass it on as a
// bearer token when they call the API in-process). Beside it: how the person wants times and colours
// shown (a copy of their preferences, so a page needs no call for them) and, while signing in, the page
// to return to.
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Theme } from './context';

export const SESSION_COOKIE = '__Host-posture-session';
const DISPLAY_COOKIE = '__Host-posture-display';
const RETURN_COOKIE = '__Host-posture-return';
const STRICT = { path: '/', secure: true, httpOnly: true, sameSite: 'Strict' } as const;

export const sessionOf = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE) || undefined;

/** Sets the cookie until the session's own expiry. */
export function keepSession(c: Context, jwt: string, expiresAt: string): void {
  const seconds = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
  setCookie(c, SESSION_COOKIE, jwt, { ...STRICT, maxAge: seconds });
}

export function forgetSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, STRICT);
}

export interface Display {
  timezone: string;
  theme: Theme;
}

const THEMES: readonly Theme[] = ['system', 'light', 'dark'];

export function displayOf(c: Context): Display {
  const saved = new URLSearchParams(getCookie(c, DISPLAY_COOKIE) ?? '');
  const theme = saved.get('theme') as Theme | null;
  return { timezone: saved.get('tz') || 'UTC', theme: theme && THEMES.includes(theme) ? theme : 'system' };
}

/** Kept a year: it is how the person likes to see things, not a credential. */
export function keepDisplay(c: Context, display: Partial<Display>): void {
  const next = { ...displayOf(c), ...display };
  setCookie(c, DISPLAY_COOKIE, new URLSearchParams({ tz: next.timezone, theme: next.theme }).toString(), { ...STRICT, maxAge: 365 * 86_400 });
}

export const isTheme = (value: string): value is Theme => (THEMES as readonly string[]).includes(value);

/** A path of this dashboard to come back to after signing in (never another site's address). */
export const safeReturn = (value: string | undefined | null): string | undefined =>
  value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : undefined;

export function keepReturn(c: Context, path: string): void {
  setCookie(c, RETURN_COOKIE, path, { ...STRICT, maxAge: 3600 });
}

export function takeReturn(c: Context): string | undefined {
  const path = safeReturn(getCookie(c, RETURN_COOKIE));
  if (path) deleteCookie(c, RETURN_COOKIE, STRICT);
  return path;
}
