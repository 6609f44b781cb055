// OAuth 2.1 in front of the MCP server (spec part 5 rule 9), by @cloudflare/workers-oauth-provider:
// metadata discovery, dynamic client registration, authorization code with PKCE, refresh. Clients,
// grants and tokens live in the OAUTH_KV namespace (hashed, props encrypted). The authorize pages are
// ours (src/mcp/authorize.ts); what an approval allows is a `connected_app` credential in D1, checked
// on every call, so canceling it or removing its person takes effect at once.
import { getOAuthApi, OAuthProvider, type OAuthHelpers, type OAuthProviderOptions } from '@cloudflare/workers-oauth-provider';
import { CONNECTED_APP_DAYS } from '../control/connected-apps';
import type { Env } from '../env';
import { SCOPES } from './scopes';

export const AUTHORIZE_PATH = '/authorize';
export const MCP_PATH = '/mcp';

/** What the provider stores with a grant and hands the MCP handler on every call: only the approval's id. */
export interface AssistantProps {
  appJti: string;
}

/** Paths the provider serves (or guards); everything else goes straight to the API without it. */
export function isOAuthPath(pathname: string): boolean {
  return pathname === MCP_PATH || pathname.startsWith(`${MCP_PATH}/`) || pathname.startsWith('/oauth/') || pathname.startsWith('/.well-known/oauth-');
}

/** The public base URL of the API host (`API_URL`, e.g. https://api.posture.example), without a trailing slash. */
export const apiBaseUrl = (env: Env): string => env.API_URL.replace(/\/+$/, '');

type Handler = OAuthProviderOptions<Env>['defaultHandler'];
type ApiHandler = NonNullable<OAuthProviderOptions<Env>['apiHandler']>;

function options(env: Env, apiHandler: ApiHandler, defaultHandler: Handler): OAuthProviderOptions<Env> {
  const base = apiBaseUrl(env);
  return {
    apiRoute: MCP_PATH,
    apiHandler,
    defaultHandler,
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: '/oauth/token',
    clientRegistrationEndpoint: '/oauth/register',
    scopesSupported: [...SCOPES],
    accessTokenTTL: 3600,
    // A grant ends with its approval: the assistant then signs in and asks again.
    refreshTokenTTL: CONNECTED_APP_DAYS * 86_400,
    resourceMetadata: {
      resource: `${base}${MCP_PATH}`,
      authorization_servers: [base],
      bearer_methods_supported: ['header'],
      resource_name: 'Posture analysis MCP server',
    },
  };
}

// One provider per configuration (the settings are fixed for an isolate's life; tests may differ).
const providers = new Map<string, { provider: OAuthProvider<Env>; options: OAuthProviderOptions<Env> }>();
let handlers: { api: ApiHandler; fallback: Handler } | null = null;

/** Called once by the Worker entry: who answers MCP calls and everything the provider does not own. */
export function setOAuthHandlers(api: ApiHandler, fallback: Handler): void {
  handlers = { api, fallback };
}

function configured(env: Env) {
  if (!handlers) throw new Error('setOAuthHandlers was not called');
  const key = apiBaseUrl(env);
  let entry = providers.get(key);
  if (!entry) {
    const opts = options(env, handlers.api, handlers.fallback);
    entry = { provider: new OAuthProvider(opts), options: opts };
    providers.set(key, entry);
  }
  return entry;
}

export const oauthProvider = (env: Env): OAuthProvider<Env> => configured(env).provider;

/** The provider's helpers (parse and complete an authorization, consent, grants) outside its own dispatch. */
export const oauthApi = (env: Env): OAuthHelpers => getOAuthApi(configured(env).options, env);

/** Revokes every OAuth grant of these approvals, so their refresh tokens stop too (their calls already fail on the D1 check). */
export async function revokeGrants(env: Env, appJtis: readonly string[]): Promise<void> {
  const api = oauthApi(env);
  for (const jti of appJtis) {
    const { items } = await api.listUserGrants(jti);
    await Promise.all(items.map((grant) => api.revokeGrant(grant.id, jti)));
  }
}
