// Driving the dashboard as a browser would, through the Worker's entry on DASHBOARD_HOST: pages with the
// session cookie, forms posted from the dashboard's origin, htmx fragment requests, and what a page shows.
import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import { SESSION_COOKIE } from '../src/dashboard/session-cookie';
import { latestLinkToken } from './helpers';

export const DASHBOARD = env.DASHBOARD_URL.replace(/\/$/, '');
export const FROM_DASHBOARD = { origin: new URL(DASHBOARD).origin };

export const visit = (path: string, init: RequestInit = {}) => exports.default.fetch(new Request(`${DASHBOARD}${path}`, { redirect: 'manual', ...init }));

/** A page as the signed-in person (`cookie` from signInThroughDashboard). */
export const page = (path: string, cookie: string, headers: Record<string, string> = {}) => visit(path, { headers: { cookie, ...headers } });

/** An htmx request for a fragment. */
export const fragmentOf = (path: string, cookie: string) => page(path, cookie, { 'hx-request': 'true' });

export const post = (path: string, form: Record<string, string | string[]>, headers: Record<string, string> = FROM_DASHBOARD) => {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
  return visit(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: body.toString() });
};

/** A form posted by the signed-in person from the dashboard. */
export const submit = (path: string, cookie: string, form: Record<string, string | string[]> = {}) => post(path, form, { ...FROM_DASHBOARD, cookie });

export const unescape = (html: string) => html.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
export const textOf = (html: string) => unescape(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
export const h1Of = (html: string) => unescape(/<h1[^>]*>([\s\S]*?)<\/h1>/.exec(html)?.[1]?.replace(/<[^>]+>/g, '').trim() ?? '');

export const cookieOf = (res: Response) => (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie().find((set) => set.startsWith(`${SESSION_COOKIE}=`)) ?? null;

/** Signs in as a person would: email form, then the emailed link's token posted by the link page's form. Returns the Cookie header. */
export async function signInThroughDashboard(email: string): Promise<string> {
  expect((await post('/sign-in/email', { email })).status).toBe(200);
  const res = await post('/session', { token: await latestLinkToken(email) });
  expect(res.status).toBe(303);
  return cookieOf(res)!.split(';')[0]!;
}

/** The page's status and HTML, asserting its one h1. */
export async function expectPage(res: Response, status: number, h1: string | RegExp): Promise<string> {
  const html = await res.text();
  expect(res.status, html.slice(0, 300)).toBe(status);
  expect(html.match(/<h1[\s>]/g) ?? []).toHaveLength(1);
  if (typeof h1 === 'string') expect(h1Of(html)).toBe(h1);
  else expect(h1Of(html)).toMatch(h1);
  return html;
}
