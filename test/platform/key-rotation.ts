// Rotating the JWT key set (docs/key-rotation.md, src/auth/tokens.ts): tokens name their key (`kid`),
// previous keys keep verifying until retired, unknown or forged kids answer 401. Key A is the fixed
// test binding (vitest.config.mts), so everything the normal helpers issue is signed with A; the
// rotated instance is the same Worker called through `app.request` with other secrets.
import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { keyId, signingKeys, signToken, verifyToken } from '../../src/auth/tokens';
import { app } from '../../src/app';
import type { Env } from '../../src/env';
import { api, expectError, json, latestLinkToken, newTenant, uniqueEmail } from '../helpers';
import { apiToken } from '../people';

const A = env.JWT_SECRET;
const B = 'rotation-key-B-Zq6v1kV7m3T0xWb9sJ2nR8yPcL4uE5aH0dG7fK1iO6tQ3wX9zM2';
const C = 'an-attackers-key-that-is-long-enough-0123456789abcdef0123456789ab';

/** The instance after the rotation: B signs, A still verifies. */
const rotated: Env = { ...env, JWT_SECRET: B, JWT_PREVIOUS_SECRETS: A };
/** The instance after A is retired. */
const retired: Env = { ...env, JWT_SECRET: B };

async function call(instance: Env, path: string, options: { token?: string; body?: unknown; method?: string } = {}): Promise<Response> {
  const headers = new Headers();
  if (options.token) headers.set('authorization', `Bearer ${options.token}`);
  if (options.body !== undefined) headers.set('content-type', 'application/json');
  const init = { method: options.method ?? (options.body !== undefined ? 'POST' : 'GET'), headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) };
  return app.request(`http://localhost${path}`, init, instance, createExecutionContext());
}

const P = (projectId: string) => `/api/v1/project/${projectId}`;
const kidOf = (token: string) => decodeProtectedHeader(token).kid;
const claimsOf = (token: string) => JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
const hmac = (secret: string) => new TextEncoder().encode(secret);

describe('the key set (src/auth/tokens.ts)', () => {
  it('derives each kid from its secret and signs with the current key', async () => {
    const expected = [...new Uint8Array(await crypto.subtle.digest('SHA-256', hmac(B)))].map((b) => b.toString(16).padStart(2, '0')).join('').slice(0, 16);
    expect(await keyId(B)).toBe(expected);
    const keys = await signingKeys(rotated);
    expect(keys.current.kid).toBe(await keyId(B));
    expect([...keys.byKid.keys()]).toEqual([await keyId(B), await keyId(A)]);
    const token = await signToken(keys, { kind: 'session', jti: crypto.randomUUID(), sub: 'u', exp: Math.floor(Date.now() / 1000) + 60 });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT', kid: await keyId(B) });
    expect(await verifyToken(keys, token)).toMatchObject({ kind: 'session', sub: 'u' });
  });

  it('is memoised per configuration, ignores spaces and empty entries, and refuses short secrets', async () => {
    expect(signingKeys(rotated)).toBe(signingKeys({ JWT_SECRET: B, JWT_PREVIOUS_SECRETS: A }));
    const spaced = await signingKeys({ JWT_SECRET: B, JWT_PREVIOUS_SECRETS: ` ${A} ,, ${C} ,` });
    expect([...spaced.byKid.keys()]).toEqual([await keyId(B), await keyId(A), await keyId(C)]);
    // The current secret repeated among the previous ones is one key.
    expect((await signingKeys({ JWT_SECRET: B, JWT_PREVIOUS_SECRETS: B })).byKid.size).toBe(1);
    await expect(signingKeys({ JWT_SECRET: 'short' })).rejects.toThrow(/JWT_SECRET/);
    await expect(signingKeys({ JWT_SECRET: B, JWT_PREVIOUS_SECRETS: `${A},too-short` })).rejects.toThrow(/JWT_PREVIOUS_SECRETS entry 2/);
  });
});

describe('rotation across requests', () => {
  it('keeps a session and an API token issued under A working after B becomes current', async () => {
    const tenant = await newTenant();
    const token = await apiToken(tenant, ['project:view']);
    expect(kidOf(tenant.token)).toBe(await keyId(A));
    expect(kidOf(token)).toBe(await keyId(A));
    for (const bearer of [tenant.token, token]) {
      const res = await call(rotated, P(tenant.projectId), { token: bearer });
      expect(res.status).toBe(200);
      expect((await json(res)).id).toBe(tenant.projectId);
    }
  });

  it('signs new tokens with B: they carry its kid, and outlive A', async () => {
    const tenant = await newTenant();
    const created = await call(rotated, `${P(tenant.projectId)}/credential/api-token`, { token: tenant.token, body: { permissions: ['project:view'] } });
    expect(created.status).toBe(201);
    const { bearer_token: token } = await json(created);
    expect(kidOf(token)).toBe(await keyId(B));
    expect((await call(rotated, P(tenant.projectId), { token })).status).toBe(200);
    expect((await call(retired, P(tenant.projectId), { token })).status).toBe(200);
    // An instance that never had B (the fixed binding: A only) does not know its kid.
    await expectError(await api(P(tenant.projectId), { token }), 401, 'unauthorized');
  });

  it('lets a sign-in link sent under A open a session under B', async () => {
    const email = uniqueEmail('rotating');
    expect((await api('/api/v1/auth/sign-in', { body: { email } })).status).toBe(202);
    const link = await latestLinkToken(email);
    expect(kidOf(link)).toBe(await keyId(A));
    const res = await call(rotated, '/api/v1/auth/sign-in/exchange', { body: { token: link } });
    expect(res.status).toBe(200);
    const session = await json(res);
    expect(kidOf(session.jwt)).toBe(await keyId(B));
    expect((await call(retired, P(session.projectId), { token: session.jwt })).status).toBe(200);
  });

  it('answers 401 for everything A signed once A is retired', async () => {
    const tenant = await newTenant();
    const token = await apiToken(tenant, ['project:view']);
    for (const bearer of [tenant.token, token]) {
      const body = await expectError(await call(retired, P(tenant.projectId), { token: bearer }), 401, 'unauthorized');
      expect(body.error).toMatch(/unknown kid/);
    }
  });
});

describe('forged and missing kids', () => {
  it('answers 401 for a kid no key has, for a non-string kid, and for B\'s kid signed with another secret', async () => {
    const tenant = await newTenant();
    const claims = claimsOf(tenant.token);
    const path = P(tenant.projectId);
    const unknownKid = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'ffffffffffffffff' }).sign(hmac(A));
    await expectError(await call(rotated, path, { token: unknownKid }), 401, 'unauthorized');
    await expectError(await api(path, { token: unknownKid }), 401, 'unauthorized');
    const numericKid = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 7 as unknown as string }).sign(hmac(A));
    await expectError(await api(path, { token: numericKid }), 401, 'unauthorized');
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: await keyId(B) }).sign(hmac(C));
    await expectError(await call(rotated, path, { token: forged }), 401, 'unauthorized');
    await expectError(await call(retired, path, { token: forged }), 401, 'unauthorized');
    // A's kid on a token signed with B: the kid decides the key, and the signature fails.
    const swapped = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: await keyId(A) }).sign(hmac(B));
    await expectError(await call(rotated, path, { token: swapped }), 401, 'unauthorized');
  });

  it('verifies a token without kid (issued before kids) with the current key, then the previous ones, until they are retired', async () => {
    const tenant = await newTenant();
    const claims = claimsOf(tenant.token);
    const path = P(tenant.projectId);
    const legacyA = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(hmac(A));
    expect(kidOf(legacyA)).toBeUndefined();
    expect((await api(path, { token: legacyA })).status).toBe(200);
    // After the rotation a kid-less token A signed still works while A is a previous key, and stops once A is retired.
    expect((await call(rotated, path, { token: legacyA })).status).toBe(200);
    await expectError(await call(retired, path, { token: legacyA }), 401, 'unauthorized');
    const legacyB = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(hmac(B));
    expect((await call(rotated, path, { token: legacyB })).status).toBe(200);
    const legacyC = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(hmac(C));
    await expectError(await call(rotated, path, { token: legacyC }), 401, 'unauthorized');
  });
});
