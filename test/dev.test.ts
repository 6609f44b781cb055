// Local development routes: only on an instance with a DEV_SECRET, and only with it.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { app } from '../src/app';
import { DEMO } from '../src/routes/dev';
import { api, expectError, json, uniqueEmail } from './helpers';

const dev = (path: string, body: unknown = {}, secret: string | null = env.DEV_SECRET!) =>
  api(path, { body, headers: secret === null ? {} : { 'x-dev-secret': secret } });

describe('local development routes', () => {
  it('uses the fixed test secret, not a local .dev.vars', () => {
    expect(env.DEV_SECRET).toBe('test-dev-secret');
  });

  it('seeds the demo organization, project and admin once', async () => {
    const first = await json(await dev('/api/v1/dev/seed'));
    expect(first).toEqual({ orgId: DEMO.orgId, projectId: DEMO.projectId, adminEmail: DEMO.adminEmail, created: true });
    expect((await json(await dev('/api/v1/dev/seed'))).created).toBe(false);
    const session = await json(await dev('/api/v1/dev/session'));
    expect(session.user.email).toBe(DEMO.adminEmail);
    const project = await json(await api(`/api/v1/project/${DEMO.projectId}`, { token: session.jwt }));
    expect(project).toMatchObject({ id: DEMO.projectId, demoProject: true, orgId: DEMO.orgId });
  });

  it('mints a session for any email, signing an unknown person up', async () => {
    const email = uniqueEmail('dev');
    const session = await json(await dev('/api/v1/dev/session', { email }));
    expect(session.user.email).toBe(email);
    expect(session.orgId).not.toBe(DEMO.orgId);
  });

  it('answers 401 without the secret or with a wrong one', async () => {
    await expectError(await dev('/api/v1/dev/session', {}, null), 401, 'unauthorized');
    await expectError(await dev('/api/v1/dev/session', {}, 'wrong'), 401, 'unauthorized');
  });

  it('answers 404 on an instance without a DEV_SECRET, as production is', async () => {
    const production = { ...env, DEV_SECRET: undefined } as unknown as typeof env;
    const request = new Request('http://localhost/api/v1/dev/seed', { method: 'POST', headers: { 'x-dev-secret': 'anything', 'content-type': 'application/json' }, body: '{}' });
    const ctx = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} } as unknown as ExecutionContext;
    await expectError(await app.fetch(request, production, ctx), 404, 'not_found');
  });
});
