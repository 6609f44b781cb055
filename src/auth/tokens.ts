// Every JWT the service issues, made and checked with jose (HS256, ARCHITECTURE section 2).
//
// The HMAC secret is a key set, so it can be rotated without signing anyone out
// (docs/key-rotation.md): `JWT_SECRET` is the current key, which signs everything new;
// `JWT_PREVIOUS_SECRETS` (comma-separated) are older keys still accepted for verification. Every
// token names its key in the protected header (`kid`), derived from the secret itself: the first
// 16 hex characters of its SHA-256, so no id is configured and a kid reveals nothing usable.
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { sha256Hex } from '../lib/ids';

/** Credentials a request may carry, and the short-lived tokens used inside flows. */
export type TokenKind = 'session' | 'api_token' | 'upload_pass' | 'sign_in_link' | 'upload_part';
export const CREDENTIAL_KINDS = ['session', 'api_token', 'upload_pass'] as const;
export type CredentialTokenKind = (typeof CREDENTIAL_KINDS)[number];

export interface TokenClaims extends JWTPayload {
  kind: TokenKind;
  jti: string;
  sub: string;
  exp: number;
  org?: string;
  prj?: string;
  /** Sign-in id (sessions). */
  sid?: string;
  /** Upload challenge, base64url of 32 random bytes (upload passes). */
  chl?: string;
  [claim: string]: unknown;
}

/** One HMAC key of the set: its id (the JWT `kid`) and the imported key. */
export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

/** The keys this instance signs with (`current`) and accepts (`current` and the previous ones, by kid). */
export interface KeySet {
  current: SigningKey;
  byKid: ReadonlyMap<string, SigningKey>;
}

export type KeyConfig = Pick<Env, 'JWT_SECRET' | 'JWT_PREVIOUS_SECRETS'>;

const MIN_SECRET_LENGTH = 32;

/** A key's id: the first 16 hex characters of SHA-256 of the secret (`printf %s "$SECRET" | sha256sum | cut -c1-16`). */
export async function keyId(secret: string): Promise<string> {
  return (await sha256Hex(secret)).slice(0, 16);
}

/** The previous secrets, in order: comma-separated, spaces around each ignored, empty entries skipped. */
export function previousSecrets(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

async function buildKeySet(config: KeyConfig): Promise<KeySet> {
  // A missing or short secret is the service's fault (500 when used), not the caller's.
  if (!config.JWT_SECRET || config.JWT_SECRET.length < MIN_SECRET_LENGTH) {
    throw new Error(`JWT_SECRET is missing or shorter than ${MIN_SECRET_LENGTH} characters`);
  }
  const previous = previousSecrets(config.JWT_PREVIOUS_SECRETS);
  previous.forEach((secret, i) => {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new Error(`JWT_PREVIOUS_SECRETS entry ${i + 1} is shorter than ${MIN_SECRET_LENGTH} characters`);
    }
  });
  const secrets = [...new Set([config.JWT_SECRET, ...previous])];
  const keys = await Promise.all(secrets.map(async (secret): Promise<SigningKey> => ({
    kid: await keyId(secret),
    key: await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
  })));
  const byKid = new Map<string, SigningKey>();
  for (const key of keys) {
    // 64 bits of SHA-256: two distinct secrets sharing an id would be astonishing, but never guess between them.
    if (byKid.has(key.kid)) throw new Error(`Two JWT secrets share the key id ${key.kid}; replace one of them`);
    byKid.set(key.kid, key);
  }
  return { current: keys[0]!, byKid };
}

// Built once per isolate for each configuration (keyed by the secrets' values): importing keys and
// hashing secrets on every request would be waste. Only tests ever see more than one configuration.
const keySets = new Map<string, Promise<KeySet>>();

/** The key set configured in `env`, memoised per isolate; rejects (a 500) when a secret is missing or short. */
export function signingKeys(env: KeyConfig): Promise<KeySet> {
  const cacheKey = `${env.JWT_SECRET ?? ''}\n${env.JWT_PREVIOUS_SECRETS ?? ''}`;
  let set = keySets.get(cacheKey);
  if (!set) {
    set = buildKeySet(env);
    // A configuration error is not kept: the next request tries again (and fails again, loudly).
    set.catch(() => keySets.delete(cacheKey));
    if (keySets.size >= 16) keySets.clear();
    keySets.set(cacheKey, set);
  }
  return set;
}

/** Signs with the current key; the header names it (`kid`). */
export async function signToken(keys: KeySet, claims: Omit<TokenClaims, 'iat'>): Promise<string> {
  const { exp, ...rest } = claims;
  return new SignJWT(rest as JWTPayload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: keys.current.kid })
    .setIssuedAt()
    .setExpirationTime(exp as number)
    .sign(keys.current.key);
}

/**
 * The keys to check a token with: the one its kid names (401 `unauthorized` for a kid this instance
 * does not hold: retired, or never ours). A token without kid was issued before tokens named their
 * key: it is tried with the current key, then the previous ones, so the first rotation after kids
 * were introduced signs nobody out either; retiring a key still ends what it signed.
 */
function keysFor(keys: KeySet, token: string): SigningKey[] {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new ApiError('unauthorized', 'The token is not valid.');
  }
  if (kid === undefined) return [keys.current, ...[...keys.byKid.values()].filter((k) => k !== keys.current)];
  const key = typeof kid === 'string' ? keys.byKid.get(kid) : undefined;
  if (!key) {
    throw new ApiError('unauthorized', 'The token was signed with a key this service no longer accepts (unknown kid); sign in again or create a new token.');
  }
  return [key];
}

/** Verifies key, signature, algorithm and expiry; anything unreadable is `unauthorized`. */
export async function verifyToken(keys: KeySet, token: string): Promise<TokenClaims> {
  const candidates = keysFor(keys, token);
  for (const [index, { key }] of candidates.entries()) {
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
      if (typeof payload.kind !== 'string' || typeof payload.jti !== 'string' || typeof payload.sub !== 'string') {
        throw new ApiError('unauthorized', 'The token is missing required claims.');
      }
      return payload as TokenClaims;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // Another key may have signed a kid-less token: try the next one.
      if (error instanceof joseErrors.JWSSignatureVerificationFailed && index < candidates.length - 1) continue;
      if (error instanceof joseErrors.JWTExpired) throw new ApiError('token_expired', 'The token has expired.');
      throw new ApiError('unauthorized', 'The token is not valid.');
    }
  }
  throw new ApiError('unauthorized', 'The token is not valid.');
}

export const secondsFromIso = (iso: string): number => Math.floor(Date.parse(iso) / 1000);
