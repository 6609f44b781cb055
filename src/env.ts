// Bindings and settings of the Worker (wrangler.toml). Secrets come from `.dev.vars` locally.
// The Durable Object namespaces are declared beside their classes, which add them to Env: `PROJECT`
// in src/project/project-object.ts, `ACCESS_EPOCH` in src/auth/access-cache.ts. So this file imports
// nothing, and the many modules that take an Env are never imported back by it.

export interface Env {
  DB: D1Database;
  BUNDLES: R2Bucket;
  /** Static files (public/): the API reference viewer's script. */
  ASSETS: Fetcher;
  /** The MCP server's OAuth clients, grants and tokens (src/mcp/oauth.ts). */
  OAUTH_KV: KVNamespace;
  ANALYSIS_QUEUE: Queue;
  SCORING_QUEUE: Queue;
  RENDER_QUEUE: Queue;
  RATE_LIMITER: RateLimit;
  /** Requests per client address on the routes that need no credential (src/middleware/public-limits.ts). */
  PUBLIC_RATE_LIMITER: RateLimit;
  EMAIL: SendEmail;

  API_HOST: string;
  /** The API host's public base URL (OAuth issuer; the MCP resource is `{API_URL}/mcp`). */
  API_URL: string;
  DASHBOARD_HOST: string;
  DASHBOARD_URL: string;
  EMAIL_FROM: string;
  OPEN_SIGNUP: string;
  /** With sign-up closed, the one email that may sign up while no organization exists: a new deployment's first administrator. */
  BOOTSTRAP_ADMIN_EMAIL?: string;
  /** The largest bundle an upload may announce (src/routes/bundles/bundles.service.ts; default 200 MiB). */
  MAX_BUNDLE_BYTES: string;
  /**
   * The size of a project object's SQLite at which it starts no new surveys (409 `storage_full`;
   * src/project/store-limit.ts, default 9 GB of the 10 GB Cloudflare allows). Tests set a small one.
   */
  PROJECT_STORE_MAX_BYTES?: string;
  /**
   * `off`: every survey analyses its bundle in full. Otherwise (the default) a survey whose bundle has
   * the same bytes as the subject's current analysis reuses it (src/project/analysis-reuse.ts).
   */
  INCREMENTAL_SURVEYS?: string;
  /** Reports with more entries are rendered as they are read, never held whole (src/queues/render.ts, default 20,000). Tests set a small one. */
  RENDER_HELD_ENTRIES?: string;
  /** The rows an XLSX sheet may have (default Excel's 1,048,576). Tests set a small one. */
  XLSX_SHEET_ROWS?: string;
  /** Where the daily refresh fetches OSV data: `{url}/{ecosystem}/all.zip`; unset, no refresh. */
  VULNDB_SOURCE_URL?: string;
  /** Comma-separated OSV ecosystems the refresh fetches (default in src/vulndb/refresh.ts). */
  VULNDB_ECOSYSTEMS?: string;

  /** The current HMAC key: signs every JWT the service issues (at least 32 characters; docs/key-rotation.md). */
  JWT_SECRET: string;
  /**
   * Older JWT secrets still accepted for verification after a rotation, comma-separated (each at
   * least 32 characters). Tokens they signed keep working until they expire or the secret is
   * removed from here (retired). Unset: only `JWT_SECRET` is accepted.
   */
  JWT_PREVIOUS_SECRETS?: string;
  /**
   * Milliseconds a request waits for one call to its project's object before answering 503
   * `unavailable` (src/project/client.ts; default 20000). Tests set a short one.
   */
  PROJECT_CALL_DEADLINE_MS?: string;
  /**
   * Seals notification destinations' URLs and signing secrets (src/notify/sealing.ts; at least 32
   * characters; `npm run setup:cloudflare` sets it). Without it notifications cannot be configured.
   */
  NOTIFY_KEY?: string;
  /** Milliseconds a notification delivery waits for an answer (src/notify/deliver.ts; default 10000). Tests set a short one. */
  NOTIFY_TIMEOUT_MS?: string;
  NOTIFY_QUEUE: Queue;
  /** Only on local instances: enables the development routes (seed, session). */
  DEV_SECRET?: string;
}
