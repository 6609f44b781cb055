// The upload client's side of the upload protocol (spec 4.7), as cli/lib/upload.mjs speaks it: the
// pass's challenge, init, parts sent to their signed URLs, complete. Shared by the upload tests and
// those that repeat its calls.
import { exports } from 'cloudflare:workers';
import { base64url, CompactEncrypt, decodeJwt } from 'jose';
import { expect } from 'vitest';
import { api, json } from './helpers';

const P = (projectId: string) => `/api/v1/project/${projectId}`;
/** What the calls need of a tenant: its project and its upload pass. */
export interface Tenant {
  projectId: string;
  pass: string;
}
export type Start = { parts: { partNumber: number; presignedUrl: string; offset: number; size: number }[]; expiresIn: number; uploadId: string; blobKey: string; bundleId: string; jobId: string };

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** encryptedChallenge exactly as cli/lib/challenge.mjs builds it (SHA-256 of the decoded chl as the dir key). */
export async function challenge(pass: string, claim: { sha256: string; sizeBytes: number; iat?: number }, chl = String(decodeJwt(pass).chl)): Promise<string> {
  const key = new Uint8Array(await crypto.subtle.digest('SHA-256', base64url.decode(chl)));
  const { sha256, sizeBytes, iat = Math.floor(Date.now() / 1000) } = claim;
  const plaintext = new TextEncoder().encode(JSON.stringify({ sha256, sizeBytes, iat }));
  return new CompactEncrypt(plaintext).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(key);
}

export function init(t: Tenant, body: Record<string, unknown>, key: string | null = crypto.randomUUID(), token = t.pass) {
  return api(`${P(t.projectId)}/bundle/upload/init`, { token, body, headers: key ? { 'idempotency-key': key } : {} });
}

/** The init body for `bytes`, with a fresh valid challenge. */
export async function initBody(t: Tenant, bytes: Uint8Array, extra: Record<string, unknown> = {}) {
  const sha256 = await sha256Hex(bytes);
  return { sha256, sizeBytes: bytes.length, encryptedChallenge: await challenge(t.pass, { sha256, sizeBytes: bytes.length }), ...extra };
}

export async function started(t: Tenant, bytes: Uint8Array, extra: Record<string, unknown> = {}, key = crypto.randomUUID()): Promise<Start> {
  const res = await init(t, await initBody(t, bytes, extra), key);
  expect(res.status).toBe(200);
  return json<Start>(res);
}

export function putPart(url: string, body: BodyInit | null, headers: Record<string, string> = {}) {
  return exports.default.fetch(new Request(url, { method: 'PUT', body, headers }));
}

export async function sendPart(start: Start, bytes: Uint8Array, partNumber: number) {
  const part = start.parts[partNumber - 1]!;
  // As the CLI sends it: octet-stream with an exact Content-Length, no Authorization header.
  const res = await putPart(part.presignedUrl, bytes.slice(part.offset, part.offset + part.size), { 'content-length': String(part.size), 'content-type': 'application/octet-stream' });
  expect(res.status).toBe(200);
  const body = await json(res);
  expect(res.headers.get('etag')).toBe(`"${body.etag}"`);
  return { partNumber, etag: res.headers.get('etag')! };
}

export function complete(t: Tenant, body: Record<string, unknown>, key: string | null = crypto.randomUUID(), token = t.pass) {
  return api(`${P(t.projectId)}/bundle/upload/complete`, { token, body, headers: key ? { 'idempotency-key': key } : {} });
}

/** A whole small upload (one part) into a new survey; answers the start and the complete answer. */
export async function uploadBundle(t: Tenant, bytes: Uint8Array, extra: Record<string, unknown> = {}) {
  const start = await started(t, bytes, extra);
  const parts = [];
  for (const part of start.parts) parts.push(await sendPart(start, bytes, part.partNumber));
  const res = await complete(t, { uploadId: start.uploadId, blobKey: start.blobKey, sha256: await sha256Hex(bytes), parts });
  expect(res.status).toBe(200);
  return { start, done: await json(res) };
}

