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
