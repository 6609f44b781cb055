// Limits on the routes anyone may call without a credential: sign-in and its exchange, the OAuth
// registration and token endpoints, the authorize pages. Each client address gets 60 requests a minute
// across them (Workers Rate Limiting binding `PUBLIC_RATE_LIMITER`), and at most 20 client registrations
// an hour (counted in D1: the binding only knows periods of 10 or 60 s). Applied by the Worker's entry,
// before the OAuth provider (which owns /oauth/*) or the app sees the request.
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { newId, sha256Hex } from '../lib/ids';

export const PUBLIC_REQUESTS_PER_MINUTE = 60;
export const REGISTRATIONS_PER_HOUR = 20;
const HOUR_MS = 3_600_000;
export const REGISTER_PATH = '/oauth/register';

const PUBLIC_PATHS = new Set(['/api/v1/auth/sign-in', '/api/v1/auth/sign-in/exchange', REGISTER_PATH, '/oauth/token']);

/** Whether a path is one of the routes that need no credential (the authorize pages included). */
export function isPublicRoute(pathname: string): boolean {
  return PUBLIC_PATHS.has(pathname) || pathname === '/authorize' || pathname.startsWith('/authorize/');
}

/**
 * The address a request is counted under: `CF-Connecting-IP`, which Cloudflare sets on every request
 * from the internet (and `wrangler dev` from the socket); an IPv6 address by its /64, the block one
 * subscriber holds. Null without the header: only in-process callers (tests) send none, and they are
 * not counted.
 */
export function clientAddress(request: Request): string | null {
  const ip = request.headers.get('cf-connecting-ip')?.trim();
  if (!ip) return null;
  return ip.includes(':') ? ipv6Block(ip) : ip;
}

/** `2001:db8:1:2:3:4:5:6` (or any spelling of it) as `2001:db8:1:2::/64`; an unreadable value as it came. */
function ipv6Block(ip: string): string {
  const [head = '', tail] = ip.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const full = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  const block = full.slice(0, 4);
  if (block.length < 4 || block.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return ip;
  return `${block.map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

const tooMany = (message: string, retryAfterSeconds: number) =>
  new ApiError('rate_limited', message, { headers: { 'Retry-After': String(retryAfterSeconds) } });

/**
 * Counts a request to a public route against its address; answers the refusal (429 `rate_limited`)
 * when the address is over its allowance, else null. A registration also takes one of the address's
 * registrations of the hour.
 */
export async function checkPublicRoute(request: Request, url: URL, env: Env): Promise<ApiError | null> {
  if (request.method === 'OPTIONS' || !isPublicRoute(url.pathname)) return null;
  const address = clientAddress(request);
  if (!address) return null;
  const { success } = await env.PUBLIC_RATE_LIMITER.limit({ key: `ip:${address}` });
  if (!success) return tooMany(`Too many requests from your address; at most ${PUBLIC_REQUESTS_PER_MINUTE} a minute to sign-in and connection routes.`, 60);
  if (url.pathname === REGISTER_PATH && request.method === 'POST') return takeRegistration(env, address);
  return null;
}

/**
 * Records one registration for the address unless it made `REGISTRATIONS_PER_HOUR` in the last hour
 * (one statement: two registrations at once cannot both take the last one). Failed registrations count
 * too. The address is kept only as a keyed hash.
 */
async function takeRegistration(env: Env, address: string): Promise<ApiError | null> {
  const clientKey = await sha256Hex(`${env.JWT_SECRET}:registration:${address}`);
  const now = Date.now();
  const since = new Date(now - HOUR_MS).toISOString();
  const taken = await env.DB.prepare(
    `INSERT INTO oauth_registrations (id, client_key, created_at)
     SELECT ?1, ?2, ?3 WHERE (SELECT count(*) FROM oauth_registrations WHERE client_key = ?2 AND created_at > ?4) < ?5`,
  ).bind(newId(), clientKey, new Date(now).toISOString(), since, REGISTRATIONS_PER_HOUR).run();
  if (taken.meta.changes) return null;
  const oldest = await env.DB.prepare('SELECT min(created_at) AS at FROM oauth_registrations WHERE client_key = ?1 AND created_at > ?2')
    .bind(clientKey, since).first<{ at: string | null }>();
  const wait = oldest?.at ? Math.ceil((Date.parse(oldest.at) + HOUR_MS - now) / 1000) : 3600;
  return tooMany(`Too many client registrations from your address; at most ${REGISTRATIONS_PER_HOUR} an hour.`, Math.max(1, wait));
}
