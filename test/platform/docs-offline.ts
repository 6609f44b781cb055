// The API reference at /api/v1/docs works without internet: its page references nothing off-origin
// and the viewer's script (@scalar/api-reference's standalone bundle) is a static asset of the same host.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

const ORIGIN = 'http://localhost';
const get = (path: string, init?: RequestInit) => exports.default.fetch(new Request(`${ORIGIN}${path}`, init));

/** Every URL the page's HTML would make a browser load: script src, link href, img/iframe/source src, CSS url(). */
function referencedUrls(html: string): string[] {
  const urls: string[] = [];
  for (const m of html.matchAll(/<(script|link|img|iframe|source|embed)\b[^>]*?\s(?:src|href)\s*=\s*["']?([^"'\s>]+)/gi)) urls.push(m[2]!);
  for (const m of html.matchAll(/url\(\s*["']?([^"')]+)/gi)) urls.push(m[1]!);
  for (const m of html.matchAll(/@import\s+["']([^"']+)/gi)) urls.push(m[1]!);
  for (const m of html.matchAll(/\bimport\s*(?:\(|[^'"]*from)\s*["']([^"']+)/g)) urls.push(m[1]!);
  return urls;
}

describe('API reference without internet', () => {
  it('answers the page with only same-origin scripts and styles', async () => {
    const res = await get('/api/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();

    const scripts = [...html.matchAll(/<script\b[^>]*\ssrc\s*=\s*["']([^"']+)/gi)].map((m) => m[1]);
    expect(scripts).toEqual(['/api/v1/docs/scalar.js']);
    for (const url of referencedUrls(html)) {
      expect(new URL(url, `${ORIGIN}/api/v1/docs`).origin, url).toBe(ORIGIN);
    }
    // Nothing absolute or protocol-relative anywhere in the page (the CDN build's addresses included).
    expect(html).not.toMatch(/https?:\/\/(?!localhost[/:"'])/i);
    expect(html).not.toMatch(/["'(]\/\/[a-z0-9]/i);
    expect(html).not.toMatch(/jsdelivr|unpkg|fonts\.scalar\.com/i);
    // The viewer is told where the document is and not to fetch its web fonts.
    expect(html).toContain('"url": "/api/v1/openapi.json"');
    expect(html).toContain('"withDefaultFonts": false');
    expect(html).toContain("Scalar.createApiReference('#app'");
  });

  it('serves the viewer script as a static asset of this host, with long caching and nosniff', async () => {
    // Static assets are answered before the Worker runs; in tests they are read through the binding.
    const res = await env.ASSETS.fetch(`${ORIGIN}/api/v1/docs/scalar.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await res.text();
    // The package's standalone bundle (about 4.3 MB), less its trailing source-map comment (the map is not served).
    expect(text.length).toBeGreaterThan(3_000_000);
    expect(text.startsWith('(function(){')).toBe(true);
    expect(text).toContain('window.Scalar={createApiReference:');
    expect(text).not.toContain('sourceMappingURL=standalone.js.map');
  });
});
