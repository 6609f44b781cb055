// Test helpers: call the Worker through its real fetch handler, sign people in through the real
// email-link flow (the link's JWT is minted with the instance's key, as the email would carry it).
import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import { signingKeys, signToken } from '../src/auth/tokens';

export const API = 'http://localhost';

export interface CallOptions {
  method?: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  host?: string;
}

/** Calls the Worker's own fetch handler, as a client on the network would. */
export async function api(path: string, options: CallOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set('authorization', `Bearer ${options.token}`);
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const base = options.host ? `http://${options.host}` : API;
  return exports.default.fetch(new Request(`${base}${path}`, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body }));
}

export async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Asserts the specification's error shape and code; returns the body for further checks. */
export async function expectError(res: Response, status: number, code: string, extra: Record<string, unknown> = {}) {
  const body = await json(res);
  expect({ status: res.status, body }).toMatchObject({ status, body: { status, code, error: expect.any(String), ...extra } });
  return body;
}

export interface Session {
  jwt: string;
  orgId: string;
  projectId: string | null;
  user: { id: string; email: string; name: string };
}

let counter = 0;
export const uniqueEmail = (label = 'person') => `${label}-${Date.now().toString(36)}-${++counter}@example.test`;

/** The token an emailed link would carry for the latest link requested for this address. */
export async function latestLinkToken(email: string): Promise<string> {
  const row = await env.DB.prepare('SELECT jti, expires_at FROM sign_in_links WHERE email = ? ORDER BY created_at DESC LIMIT 1')
    .bind(email.toLowerCase())
    .first<{ jti: string; expires_at: string }>();
  if (!row) throw new Error(`no sign-in link was recorded for ${email}`);
  // The service's own signToken: the link carries the current key's kid, as a real one does.
  return signToken(await signingKeys(env), { kind: 'sign_in_link', jti: row.jti, sub: email.toLowerCase(), exp: Math.floor(Date.parse(row.expires_at) / 1000) });
}

/** Signs a person in through POST /auth/sign-in and the link exchange; signs them up when new. */
export async function signIn(email = uniqueEmail()): Promise<Session> {
  const requested = await api('/api/v1/auth/sign-in', { body: { email } });
  expect(requested.status).toBe(202);
  const res = await api('/api/v1/auth/sign-in/exchange', { body: { token: await latestLinkToken(email) } });
  expect(res.status).toBe(200);
  return json<Session>(res);
}

/** A fresh tenant: a new person who signs up with an organization and a first project. */
export async function newTenant(label = 'owner') {
  const session = await signIn(uniqueEmail(label));
  return { ...session, token: session.jwt, projectId: session.projectId! };
}

/**
 * The limiter's windows are aligned to the clock minute: near a minute's end the next one is awaited,
 * so that what a test spends and the request it expects refused fall in one window (61 real requests
 * take several seconds on a busy machine).
 */
export async function oneMinuteAhead() {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 35_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 200));
}
