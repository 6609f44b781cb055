// A new production deployment has sign-up closed: its first administrator signs up through
// BOOTSTRAP_ADMIN_EMAIL, and only while no organization exists (docs/deploy.md).
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { app } from '../../src/app';
import type { Env } from '../../src/env';
import { latestLinkToken } from '../helpers';

const closed: Env = { ...(env as unknown as Env), OPEN_SIGNUP: 'false', BOOTSTRAP_ADMIN_EMAIL: 'First.Admin@Example.test' };
const post = (path: string, body: unknown) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, closed);
const linksFor = async (email: string) =>
  (await env.DB.prepare('SELECT count(*) AS n FROM sign_in_links WHERE email = ?').bind(email).first<{ n: number }>())!.n;

describe('the first administrator of a closed deployment', () => {
  it('signs up through BOOTSTRAP_ADMIN_EMAIL while no organization exists; nobody else does, before or after', async () => {
    expect(await env.DB.prepare('SELECT count(*) AS n FROM organizations').first('n')).toBe(0);
    expect((await post('/api/v1/auth/sign-in', { email: 'someone@example.test' })).status).toBe(202);
    expect(await linksFor('someone@example.test')).toBe(0);

    expect((await post('/api/v1/auth/sign-in', { email: 'first.admin@example.test' })).status).toBe(202);
    expect(await linksFor('first.admin@example.test')).toBe(1);
    const session = await post('/api/v1/auth/sign-in/exchange', { token: await latestLinkToken('first.admin@example.test') });
    expect(session.status).toBe(200);
    expect(await env.DB.prepare('SELECT count(*) AS n FROM organizations').first('n')).toBe(1);

    // Once an organization exists the bootstrap is over: a second person is refused even with the same setting.
    const later: Env = { ...closed, BOOTSTRAP_ADMIN_EMAIL: 'second@example.test' };
    expect((await app.request('/api/v1/auth/sign-in', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'second@example.test' }) }, later)).status).toBe(202);
    expect(await linksFor('second@example.test')).toBe(0);
  });
});
