// 600 requests a minute per credential (Workers Rate Limiting binding). A sign-in is the credential
// of its sessions, so every session of one sign-in (one per project or organization switched to)
// shares one allowance; API tokens and upload passes count by their own `jti`.
import type { Env } from '../env';
import { ApiError } from '../lib/errors';

export async function checkRateLimit(env: Env, key: string): Promise<void> {
  const { success } = await env.RATE_LIMITER.limit({ key });
  if (!success) {
    throw new ApiError('rate_limited', 'Too many requests from this credential; at most 600 a minute.', {
      headers: { 'Retry-After': '60' },
    });
  }
}

/** The key a verified token's requests are counted under: a session's sign-in (`sid`), else its `jti`. */
export function rateLimitKey(claims: { kind: string; jti: string; sid?: unknown }): string {
  return claims.kind === 'session' && typeof claims.sid === 'string' ? claims.sid : claims.jti;
}

// A dashboard page makes several in-process API calls (its frame and its content); the person made
// one request, so the page counts once against the allowance. Each in-process request is tied to the
// page's own request, which remembers the keys already counted. Only objects made in this isolate can
// be tied: nothing a caller sends can claim it.
const keysCountedFor = new WeakMap<Request, Set<string>>();

/** Ties an in-process API request to the dashboard request it serves. */
export function countWithPage(apiRequest: Request, pageRequest: Request): void {
  let counted = keysCountedFor.get(pageRequest);
  if (!counted) keysCountedFor.set(pageRequest, (counted = new Set()));
  keysCountedFor.set(apiRequest, counted);
}

/** `checkRateLimit`, once per key for the requests of one dashboard page (`countWithPage`). */
export async function checkRateLimitOnce(env: Env, request: Request, key: string): Promise<void> {
  const counted = keysCountedFor.get(request);
  if (counted?.has(key)) return;
  // Marked before the wait: the page's parallel calls see it and are not counted again.
  counted?.add(key);
  await checkRateLimit(env, key);
}
