// Shaping the project's credential list (spec 4.11) for the Credentials page: the four kinds apart,
// each row's state (active, expired, canceled: revoked and expired ones stay listed), and which
// connected app made a token or pass.
import type { CredentialRecord, ListedKind } from '../../../control/credentials';

// The API's own answer types (spec 4.11): the page reads what the API sends.
export type CredentialKind = ListedKind;
export type Credential = CredentialRecord;

export type CredentialState = 'active' | 'expired' | 'canceled';

export interface CredentialRow extends Credential {
  state: CredentialState;
  /** The connected app's name when an assistant made this token or pass. */
  madeBy: string | null;
  /** The sign-in this page is shown through (canceling it signs the person out). */
  own: boolean;
}

export const PAGE_SIZE = 100;

export const stateOf = (credential: Credential, now: number): CredentialState =>
  credential.revokedAt ? 'canceled' : Date.parse(credential.expiresAt) <= now ? 'expired' : 'active';

/** One page of at most PAGE_SIZE credentials (newest first, as the API lists them), split by kind. */
export function credentialRows(list: Credential[], input: { page: number; signInJti: string | null; now: number }) {
  const apps = new Map(list.filter((c) => c.kind === 'connected_app').map((c) => [c.jti, c.name ?? 'An assistant']));
  const pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
  const page = Math.min(Math.max(1, input.page), pages);
  const rows: CredentialRow[] = list.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((c) => ({
    ...c,
    state: stateOf(c, input.now),
    madeBy: c.parentJti ? apps.get(c.parentJti) ?? 'An assistant' : null,
    own: c.kind === 'sign_in' && c.jti === input.signInJti,
  }));
  const of = (kind: CredentialKind) => rows.filter((r) => r.kind === kind);
  return {
    page, pages, total: list.length,
    apiTokens: of('api_token'), uploadPasses: of('upload_pass'), signIns: of('sign_in'), connectedApps: of('connected_app'),
  };
}

/** Which field of the token or pass form an API 400 is about ("Invalid request body: duration_days: …"). */
export function fieldOfError(message: string): 'permissions' | 'duration' | 'name' {
  if (/duration_days/.test(message)) return 'duration';
  if (/permission/i.test(message)) return 'permissions';
  return 'name';
}
