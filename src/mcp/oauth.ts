// OAuth 2.1 in front of the MCP server (spec part 5 rule 9), by @cloudflare/workers-oauth-provider:
// metadata discovery, dynamic client registration, authorization code with PKCE, refresh. Clients,
// grants and tokens live in the OAUTH_KV namespace (hashed, props encrypted). The authorize pages are
// ours (src/mcp/authorize.ts); what an approval allows is a `connected_app` credential in D1, checked
// on every call, so canceling it or removing its person takes effect at once.
import { getOAuthApi, OAuthProvider, type OAuthHelpers, type OAuthProviderOptions } from '@cloudflare/workers-oauth-provider';
import { CONNECTED_APP_DAYS } from '../control/connected-apps';
import type { Env } from '../env';
import { SCOPES } from '../auth/scopes';
import { ApiError, errorResponse } from '../lib/errors';

export const AUTHORIZE_PATH = '/authorize';
export const MCP_PATH = '/mcp';
/** How long a dynamically registered client that no one approved is kept. */
export const UNUSED_CLIENT_SECONDS = 86_400;
const GRANT_SECONDS = CONNECTED_APP_DAYS * 86_400;

/** What the provider stores with a grant and hands the MCP handler on every call: only the approval's id. */
export interface AssistantProps {
  appJti: string;
}

/** Paths the provider serves (or guards); everything else goes straight to the API without it. */
export function isOAuthPath(pathname: string): boolean {
  return pathname === MCP_PATH || pathname.startsWith(`${MCP_PATH}/`) || pathname.startsWith('/oauth/') || pathname.startsWith('/.well-known/oauth-');
}

/** 403 `api_host_required`: assistants call the API host, never the dashboard's (spec part 5 rule 5); the Worker's entry answers it before the provider looks at the token. */
export const dashboardRefusal = (env: Env) =>
  errorResponse(new ApiError('api_host_required', `Assistants must call the API host ${env.API_HOST}, not the dashboard.`), { 'X-Request-Id': crypto.randomUUID() });

/** The public base URL of the API host (`API_URL`, e.g. https://api.posture.example), without a trailing slash. */
export const apiBaseUrl = (env: Env): string => env.API_URL.replace(/\/+$/, '');

/** Whether a request came to `API_URL`'s own origin, the only one where the OAuth issuer and resource live. */
export const onApiOrigin = (url: URL, env: Env): boolean => url.origin === new URL(apiBaseUrl(env)).origin;

/** Where the protected resource's metadata is (RFC 9728: the well-known prefix, then the resource's path). */
export const resourceMetadataUrl = (env: Env): string => `${apiBaseUrl(env)}/.well-known/oauth-protected-resource${MCP_PATH}`;

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
    // Published as the protected resource's `scopes_supported` and in the 401's `scope`, so a client sees
    // every choice before it asks; the person still ticks what it gets (approval page).
    requiredScopes: [...SCOPES],
    accessTokenTTL: 3600,
    // A grant ends with its approval: the assistant then signs in and asks again.
    refreshTokenTTL: GRANT_SECONDS,
    // A registration nobody approves is gone after a day; an approved client is kept for its grant's life.
    clientRegistrationTTL: UNUSED_CLIENT_SECONDS,
    clientRegistrationCallback: ({ clientMetadata }) => {
      const grants = clientMetadata.grant_types;
      // The authorization code flow, which always needs PKCE (S256) here, is the only way to a token.
      if (Array.isArray(grants) && !grants.includes('authorization_code')) {
        return { description: 'Register for the authorization code flow (grant_types authorization_code, with PKCE S256): it is the only way to use this server.' };
      }
    },
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

/**
 * The provider's answer, with `API_URL` as the only issuer and resource: on another host (127.0.0.1 for
 * localhost, the dashboard's) the discovery documents are `API_URL`'s own and a 401 names `API_URL`'s
 * resource metadata, so a client learns the address to use at once instead of after the emailed link.
 */
export async function answerOAuth(request: Request, url: URL, env: Env, ctx: ExecutionContext): Promise<Response> {
  const provider = oauthProvider(env);
  if (onApiOrigin(url, env)) return provider.fetch(request, env, ctx);
  if (url.pathname.startsWith('/.well-known/oauth-')) {
    return provider.fetch(new Request(new URL(`${url.pathname}${url.search}`, apiBaseUrl(env)), request), env, ctx);
  }
  const response = await provider.fetch(request, env, ctx);
  const challenge = response.headers.get('www-authenticate');
  if (response.status !== 401 || !challenge?.startsWith('Bearer') || challenge.includes('resource_metadata=')) return response;
  const answer = new Response(response.body, response);
  answer.headers.set('www-authenticate', `${challenge}, resource_metadata="${resourceMetadataUrl(env)}"`);
  return answer;
}

/**
 * Keeps an approved client as long as the grant it is about to get can live (the grant's lifetime from
 * the code exchange, plus a day): registrations expire after a day otherwise, and a client whose record
 * expired could no longer refresh. The record is the provider's own (`client:{id}`, storage-schema of
 * workers-oauth-provider), rewritten as its `putRegisteredClient` writes it, with a longer lifetime.
 */
export async function keepClientForGrant(env: Env, clientId: string): Promise<void> {
  const key = `client:${clientId}`;
  const record = await env.OAUTH_KV.get<Record<string, unknown>>(key, 'json');
  if (!record || record.registrationExpiresAt === undefined) return; // gone, or a client that never expires
  const seconds = GRANT_SECONDS + UNUSED_CLIENT_SECONDS;
  const registrationExpiresAt = Math.floor(Date.now() / 1000) + seconds;
  await env.OAUTH_KV.put(key, JSON.stringify({ ...record, registrationExpiresAt }), { expirationTtl: seconds });
}

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
