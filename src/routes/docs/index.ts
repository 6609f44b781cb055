// The API reference (Scalar) at /api/v1/docs, served without any CDN: the page loads the viewer's
// standalone browser bundle (@scalar/api-reference, the build jsDelivr would serve) from this Worker,
// so the reference renders on a machine without internet. The bundle is imported as text
// (wrangler.toml [[rules]]); the package's exports map hides dist/, hence the path into node_modules
// (a direct dependency, so npm always places it there). Neither route is in the OpenAPI document.
import { Scalar } from '@scalar/hono-api-reference';
import standalone from '../../../node_modules/@scalar/api-reference/dist/browser/standalone.js';
import { createRouter } from '../../lib/router';

export const DOCS_PATH = '/api/v1/docs';
export const DOCS_SCRIPT_PATH = '/api/v1/docs/scalar.js';

// Encoded once per isolate (about 4 MB). The trailing source-map comment is dropped: the map is not served.
let scriptBytes: Uint8Array<ArrayBuffer> | undefined;
const scriptBody = () => (scriptBytes ??= new TextEncoder().encode(standalone.replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '\n')) as Uint8Array<ArrayBuffer>);

export const docsRouter = createRouter()
  .get(DOCS_SCRIPT_PATH, (c) =>
    c.body(scriptBody(), 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=86400',
      'X-Content-Type-Options': 'nosniff',
    }),
  )
  .get(
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
