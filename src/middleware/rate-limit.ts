// 600 requests a minute per credential (Workers Rate Limiting binding, keyed by `jti`).
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
