// The API reference (Scalar) at /api/v1/docs, served without any CDN: the page loads the viewer's
// standalone browser bundle (@scalar/api-reference, the build jsDelivr would serve) from this host,
// where it is a static asset (wrangler.toml [assets]; scripts/vendor-assets.mjs copies it out of
// node_modules), so the reference renders on a machine without internet. Not in the OpenAPI document.
import { Scalar } from '@scalar/hono-api-reference';
import { createRouter } from '../../lib/router';

export const DOCS_PATH = '/api/v1/docs';
/** A static asset (public/api/v1/docs/scalar.js): answered before the Worker runs. */
export const DOCS_SCRIPT_PATH = '/api/v1/docs/scalar.js';

export const docsRouter = createRouter().get(
  DOCS_PATH,
  Scalar({
    url: '/api/v1/openapi.json',
    pageTitle: 'Posture Analysis Service API',
    cdn: DOCS_SCRIPT_PATH,
    // The default fonts come from fonts.scalar.com; the system's fonts need no network.
    withDefaultFonts: false,
    // Features that are Scalar's online services (its AI chat, which is sent the document, its MCP
    // generator, and on localhost its share/deploy toolbar): they cannot work offline.
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
  }),
);
