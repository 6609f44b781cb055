// Issuing API tokens and upload passes (spec 4.11, ARCHITECTURE section 2). Secrets are returned
// once and never stored: the JWT is not kept, a pass's challenge is kept as its SHA-256.
import { activityInsert, type Actor } from '../control/activity';
import type { ControlDb } from '../control/db';
import { credentials } from '../control/schema';
import type { Env } from '../env';
import { addDays, base64url, newId, nowIso, sha256Hex } from '../lib/ids';
import { secondsFromIso, signingKeys, signToken } from './tokens';

export const API_TOKEN_DAYS = { min: 1, max: 365, default: 14 } as const;
export const UPLOAD_PASS_DAYS = { min: 1, max: 367, default: 14 } as const;

/** How long it lasts: days (people's credentials), or hours (what an AI assistant creates: ASSISTANT_TOKEN_HOURS, ASSISTANT_PASS_HOURS). */
type Lifetime = { durationDays: number; durationHours?: never } | { durationHours: number; durationDays?: never };

export type IssueInput = Lifetime & {
  orgId: string;
  projectId: string;
  /** Who creates it; the person is recorded as `createdBy`. */
  actor: Actor;
  /** The connected app that creates it: canceling the app cancels it (the credential lookup checks the parent). */
  parentJti?: string | null;
  name?: string | null;
  traceId?: string | null;
};

function expiryOf(createdAt: string, input: Lifetime): string {
  return input.durationHours !== undefined ? new Date(Date.parse(createdAt) + input.durationHours * 3_600_000).toISOString() : addDays(createdAt, input.durationDays);
}

export async function issueApiToken(db: ControlDb, env: Env, input: IssueInput & { permissions: string[] }) {
  const jti = newId();
  const createdAt = nowIso();
  const expiresAt = expiryOf(createdAt, input);
  const row = {
    jti, kind: 'api_token' as const, orgId: input.orgId, projectId: input.projectId, userId: input.actor.userId,
    parentJti: input.parentJti ?? null, name: input.name ?? null, permissions: input.permissions, createdAt, expiresAt,
  };
  await db.batch([
    db.insert(credentials).values(row),
    activityInsert(db, {
      orgId: input.orgId, projectId: input.projectId, actor: input.actor,
      action: 'credential.created', data: { jti, kind: 'api_token', permissions: input.permissions, expiresAt }, traceId: input.traceId,
    }),
  ]);
  const token = await signToken(await signingKeys(env), { kind: 'api_token', jti, sub: input.actor.userId, org: input.orgId, prj: input.projectId, exp: secondsFromIso(expiresAt) });
  return { ...row, token };
}

export async function issueUploadPass(db: ControlDb, env: Env, input: IssueInput) {
  const jti = newId();
  const createdAt = nowIso();
  const expiresAt = expiryOf(createdAt, input);
  const challenge = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const row = {
    jti, kind: 'upload_pass' as const, orgId: input.orgId, projectId: input.projectId, userId: input.actor.userId,
    parentJti: input.parentJti ?? null, name: input.name ?? null, permissions: null, challengeHash: await sha256Hex(challenge), createdAt, expiresAt,
  };
  await db.batch([
    db.insert(credentials).values(row),
    activityInsert(db, {
      orgId: input.orgId, projectId: input.projectId, actor: input.actor,
      action: 'credential.created', data: { jti, kind: 'upload_pass', expiresAt }, traceId: input.traceId,
    }),
  ]);
  const token = await signToken(await signingKeys(env), { kind: 'upload_pass', jti, sub: input.actor.userId, org: input.orgId, prj: input.projectId, chl: challenge, exp: secondsFromIso(expiresAt) });
  return { ...row, token };
}
