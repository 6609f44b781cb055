// The upload pass's challenge (ARCHITECTURE section 2): upload init carries `encryptedChallenge`, a
// compact JWE (`dir`, `A256GCM`) under SHA-256 of the pass's challenge bytes, whose plaintext names
// the bundle being announced. Decrypting it proves the caller holds the pass itself, not just a
// replayed request, and binds the proof to this bundle and to the last few minutes.
import { base64url, compactDecrypt } from 'jose';
import { ApiError, forbidden } from '../lib/errors';

/** How old `iat` may be, and how far ahead of our clock a client's clock may run. */
export const CHALLENGE_MAX_AGE_SECONDS = 600;
export const CHALLENGE_MAX_SKEW_SECONDS = 60;

export interface AnnouncedBundle {
  sha256: string;
  sizeBytes: number;
}

async function challengeKey(challenge: string): Promise<Uint8Array> {
  const bytes = base64url.decode(challenge);
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

/**
 * Checks `encryptedChallenge` against the pass's challenge (`chl`, base64url) and the announced
 * bundle; anything that does not answer it is 403 `forbidden` saying what was wrong.
 */
export async function verifyUploadChallenge(
  challenge: string | null,
  encryptedChallenge: string,
  announced: AnnouncedBundle,
  now = Math.floor(Date.now() / 1000),
): Promise<void> {
  if (!challenge) throw forbidden('This upload pass carries no challenge; create a new upload pass.');
  let plaintext: Uint8Array;
  try {
    ({ plaintext } = await compactDecrypt(encryptedChallenge, await challengeKey(challenge), {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    }));
  } catch {
    throw forbidden('encryptedChallenge does not answer this upload pass\'s challenge: it must be a compact JWE (alg dir, enc A256GCM) under SHA-256 of the pass\'s chl bytes.');
  }
  let claim: unknown;
  try {
    claim = JSON.parse(new TextDecoder().decode(plaintext));
  } catch {
    throw forbidden('encryptedChallenge does not hold a JSON object {sha256, sizeBytes, iat}.');
  }
  const { sha256, sizeBytes, iat } = (claim ?? {}) as Record<string, unknown>;
  if (typeof sha256 !== 'string' || sha256.toLowerCase() !== announced.sha256.toLowerCase()) {
    throw forbidden('encryptedChallenge names another sha256 than the body.');
  }
  if (sizeBytes !== announced.sizeBytes) throw forbidden('encryptedChallenge names another sizeBytes than the body.');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw new ApiError('forbidden', 'encryptedChallenge has no iat (issued-at, unix seconds).');
  if (iat < now - CHALLENGE_MAX_AGE_SECONDS) {
    throw forbidden(`encryptedChallenge is stale: its iat is more than ${CHALLENGE_MAX_AGE_SECONDS / 60} minutes old; encrypt a fresh one.`);
  }
  if (iat > now + CHALLENGE_MAX_SKEW_SECONDS) {
    throw forbidden('encryptedChallenge has an iat in the future; check the client\'s clock.');
  }
}
