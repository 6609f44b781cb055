// Every JWT the service issues, made and checked with jose (HS256, ARCHITECTURE section 2).
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { ApiError } from '../lib/errors';

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

// Imported once per isolate: jose would otherwise import a raw key on every verification.
const keys = new Map<string, Promise<CryptoKey>>();
function signingKey(secret: string): Promise<CryptoKey> {
  if (!secret || secret.length < 32) throw new Error('JWT_SECRET is missing or shorter than 32 characters');
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

export async function signToken(secret: string, claims: Omit<TokenClaims, 'iat'>): Promise<string> {
  const { exp, ...rest } = claims;
  return new SignJWT(rest as JWTPayload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(exp as number)
    .sign(await signingKey(secret));
}

/** Verifies signature, algorithm and expiry; anything unreadable is `unauthorized`. */
export async function verifyToken(secret: string, token: string): Promise<TokenClaims> {
  // A missing or short secret is the service's fault (500), not the caller's.
  const key = await signingKey(secret);
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
    if (typeof payload.kind !== 'string' || typeof payload.jti !== 'string' || typeof payload.sub !== 'string') {
      throw new ApiError('unauthorized', 'The token is missing required claims.');
    }
    return payload as TokenClaims;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new ApiError('token_expired', 'The token has expired.');
    throw new ApiError('unauthorized', 'The token is not valid.');
  }
}

export const secondsFromIso = (iso: string): number => Math.floor(Date.parse(iso) / 1000);
