// Part URL tokens (ARCHITECTURE section 4 "part URLs"): upload init hands out one URL per part,
// `.../bundle/upload/part?token=...`, where the token is a short-lived JWT naming exactly one part
// of one upload. It is not a credential: it cannot call anything else, and it is checked without
// a lookup so part uploads never wait on D1 or the project object.
import { decodeJwt } from 'jose';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import { signToken, verifyToken, type KeySet } from './tokens';

export interface PartGrant {
  projectId: string;
  uploadId: string;
  blobKey: string;
  partNumber: number;
  /** The part's exact length in bytes. */
  size: number;
}

export async function signPartToken(keys: KeySet, grant: PartGrant, exp: number): Promise<string> {
  return signToken(keys, {
    kind: 'upload_part', jti: newId(), sub: grant.uploadId, exp,
    prj: grant.projectId, blob: grant.blobKey, part: grant.partNumber, size: grant.size,
  });
}

/** The part a token grants; 401 `unauthorized` / `token_expired` for anything else. */
export async function verifyPartToken(keys: KeySet, token: string): Promise<PartGrant> {
  const claims = await verifyToken(keys, token);
  const { kind, sub, prj, blob, part, size } = claims;
  if (kind !== 'upload_part' || typeof prj !== 'string' || typeof blob !== 'string' || !Number.isInteger(part) || !Number.isInteger(size)) {
    throw new ApiError('unauthorized', 'The token is not a part upload token.');
  }
  return { projectId: prj, uploadId: sub, blobKey: blob, partNumber: part as number, size: size as number };
}

/** When a token we issued expires (unix seconds), read without verifying: only for our own stored answers. */
export function partTokenExpiry(token: string): number {
  try {
    return decodeJwt(token).exp ?? 0;
  } catch {
    return 0;
  }
}
