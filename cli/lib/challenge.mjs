// The upload pass carries a challenge (`chl`); upload init proves the caller holds the pass by
// sending the bundle's digest encrypted under SHA-256(challenge bytes).
import { createHash } from 'node:crypto';
import { CompactEncrypt } from 'jose';
import { UsageError } from './errors.mjs';

/**
 * Reads the claims the CLI needs from the pass WITHOUT verifying it (only the service can).
 * @param {string} pass
 * @returns {{ chl: string, prj?: string, exp?: number }}
 */
export function readPass(pass) {
  const parts = pass.trim().split('.');
  let claims;
  try {
    if (parts.length !== 3) throw new Error('not a JWT');
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    throw new UsageError('the pass is not an upload pass (not a JWT)');
  }
  if (typeof claims?.chl !== 'string' || claims.chl === '') {
    throw new UsageError('the pass is not an upload pass (it carries no challenge)');
  }
  return { chl: claims.chl, prj: typeof claims.prj === 'string' ? claims.prj : undefined, exp: claims.exp };
}

/**
 * The compact JWE (`dir`, `A256GCM`) upload init asks for in `encryptedChallenge`.
 * @param {string} chl the pass's base64url challenge
 * @param {{ sha256: string, sizeBytes: number, iat?: number }} claim
 */
export async function encryptChallenge(chl, { sha256, sizeBytes, iat = Math.floor(Date.now() / 1000) }) {
  const key = createHash('sha256').update(Buffer.from(chl, 'base64url')).digest();
  const plaintext = new TextEncoder().encode(JSON.stringify({ sha256, sizeBytes, iat }));
  return new CompactEncrypt(plaintext).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(new Uint8Array(key));
}
