// What `npm run test:browser` and `npm run screenshots` decide without a browser: which links of a page
// to follow, when two addresses are the same page (one visit per kind of page), what a page's screenshot
// is called, and whether a focused control shows a visible focus indicator. Plain functions
// (test-node/browser-walk.test.mjs).

/** Path segments that name one item rather than a page: UUIDs, ULID-like and long hex ids, numbers. */
const ID_SEGMENT = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9A-HJKMNP-TV-Z]{26}|[0-9a-f]{16,}|\d+)$/i;
/** Not pages: the API, the OAuth server and MCP, static files, and what signs out or streams. */
const NOT_PAGES = /^\/(?:api|oauth|mcp|authorize|assets|\.well-known)(?:\/|$)|\/(?:events|stream|download)(?:\/|$)|^\/sign-(?:in|out)(?:\/|$)|^\/session$/;

/**
 * The links worth visiting among a page's anchors (`{ href, group }`, as the page's `linksOf` answers
 * them): same origin, pages (not the API, files, streams or sign-in/out), without the fragment, not
 * a download, one per list (`group`: the table and column a link sits in; the first link of each stands
 * for its rows). Keeps their order; answers absolute URLs without duplicates.
 */
export function pageLinks(anchors, origin) {
  const out = [];
  const seen = new Set();
  const groups = new Set();
  for (const { href, group = null, download = false } of anchors) {
    let url;
    try {
      url = new URL(href, origin);
    } catch {
      continue;
    }
    if (url.origin !== origin || download || NOT_PAGES.test(url.pathname)) continue;
    url.hash = '';
    const key = url.href;
    if (seen.has(key)) continue;
    seen.add(key);
    if (group) {
      if (groups.has(group)) continue;
      groups.add(group);
    }
    out.push(key);
  }
  return out;
}

/** Which kind of page an address is: its path with item ids as `:id` (the query is not part of it). */
export function pageKind(href) {
  const { pathname } = new URL(href, 'http://x');
  const segments = pathname.split('/').filter(Boolean).map((s) => (ID_SEGMENT.test(s) ? ':id' : s));
  return `/${segments.join('/')}`;
}

/**
 * The file name (without theme and extension) of a page's screenshot: a project's pages by their area
 * (`/projects/{id}` is `overview`, `/projects/{id}/reports/{id}` is `reports-detail`), the others by
 * their path (`/profile` is `profile`); lower-case letters, digits and dashes.
 */
export function screenshotName(href) {
  let segments = pageKind(href).split('/').filter(Boolean);
  if (segments[0] === 'projects' && segments[1] === ':id') segments = segments.length === 2 ? ['overview'] : segments.slice(2);
  const name = segments
    .map((s) => (s === ':id' ? 'detail' : decodeURIComponent(s).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')))
    .filter(Boolean)
    .join('-');
  return name || 'home';
}

/** A computed outline or shadow is there: not `none`, at least 1px wide, not transparent. */
const drawn = (style) => {
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1 && !/rgba\([^)]*,\s*0\)|transparent/.test(style.outlineColor);
  const shadow = !!style.boxShadow && style.boxShadow !== 'none';
  return { outline, shadow };
};

/**
 * Whether a control shows where focus is: focused, it draws an outline (or a box shadow) that it does
 * not draw unfocused. `focused` and `unfocused` are computed styles' outline and shadow properties.
 */
export function focusVisible(focused, unfocused) {
  const on = drawn(focused);
  const off = drawn(unfocused);
  const outlineChanged = on.outline && (!off.outline || focused.outlineColor !== unfocused.outlineColor || focused.outlineWidth !== unfocused.outlineWidth || focused.outlineStyle !== unfocused.outlineStyle);
  const shadowChanged = on.shadow && focused.boxShadow !== unfocused.boxShadow;
  return outlineChanged || shadowChanged;
}

/** axe-core's violations that fail the run (critical and serious), as one line each. */
export function seriousViolations(violations, where) {
  return violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${where}: axe ${v.impact} ${v.id} (${v.help}) at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ''}`);
}

/** The one-time sign-in link in an email wrangler wrote (.eml, plain text). */
export function signInLinkOf(eml) {
  return /https?:\/\/\S+\/sign-in(?:\?\S*)?#token=[^\s]+/.exec(eml.replace(/=\r?\n/g, ''))?.[0] ?? null;
}

/** The dashboard address and the sign-in link `npm run dev` ends with, once its output holds them. */
export function devReadyLines(output) {
  const dashboard = /^Dashboard: (\S+)$/m.exec(output)?.[1];
  const link = /^\s+(\S+\/sign-in#token=\S+)$/m.exec(output)?.[1];
  return dashboard && link ? { dashboard, link } : null;
}

/** What each export format's file starts with (after a UTF-8 byte order mark), and a word inside that names it. */
const EXPORT_SHAPES = {
  pdf: { start: /^%PDF-\d/, what: '%PDF-' },
  xlsx: { start: /^PK\x03\x04/, inside: 'xl/', what: 'a ZIP (PK) holding xl/' },
  pptx: { start: /^PK\x03\x04/, inside: 'ppt/', what: 'a ZIP (PK) holding ppt/' },
  csv: { start: /^section,/, what: 'the header row "section,…"' },
  html: { start: /^\s*(?:<!doctype html|<html)/i, what: '<!doctype html or <html' },
  json: { start: /^\s*\{/, what: '{' },
  cyclonedx: { start: /^\s*\{/, inside: '"bomFormat"', what: '{ with "bomFormat"' },
};

/**
 * Whether a downloaded export looks like its format: null when it does, else why not. `bytes` is the
 * file (a Buffer or Uint8Array; only its first and, for ZIP names and CycloneDX, a few thousand bytes are read).
 */
export function exportProblem(format, bytes) {
  const shape = EXPORT_SHAPES[format];
  if (!shape) return `no known shape for the format ${format}`;
  if (!bytes?.length) return `the ${format} file is empty`;
  let text = Buffer.from(bytes.subarray(0, 64 * 1024)).toString('latin1');
  if (text.startsWith('\xEF\xBB\xBF')) text = text.slice(3);
  if (!shape.start.test(text)) return `the ${format} file starts with ${JSON.stringify(text.slice(0, 24))}, not ${shape.what}`;
  if (shape.inside && !text.includes(shape.inside)) return `the ${format} file holds no ${shape.inside}`;
  return null;
}

/** The export formats the dashboard offers, as `exportProblem` knows them (the CycloneDX one only for CBOM and SBOM reports). */
export const EXPORT_FORMATS = Object.keys(EXPORT_SHAPES);
