// The dashboard's static assets (scripts/build-dashboard-assets.mjs): content-hashed names listed in the
// manifest the Worker renders links from, each file's text as built, and the one stylesheet (shared
// with the MCP pages) loading nothing from elsewhere.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

describe('dashboard assets', () => {
  execFileSync(process.execPath, [path.join(root, 'scripts/build-dashboard-assets.mjs')], { stdio: 'ignore' });
  const manifest = JSON.parse(/ASSET_PATHS = (\{[\s\S]*?\}) as const/.exec(readFileSync(path.join(root, 'src/dashboard/assets.gen.ts'), 'utf8'))[1]);

  it('names every file by its content, under /assets/', () => {
    expect(Object.keys(manifest)).toEqual(expect.arrayContaining(['dashboard.css', 'sign-in.js', 'htmx.js', 'hx-sse.js', 'hx-csp.js']));
    for (const [name, served] of Object.entries(manifest)) {
      const ext = path.extname(name);
      expect(served).toMatch(new RegExp(`^/assets/${path.basename(name, ext)}\\.[0-9a-f]{10}\\${ext}$`));
      const body = readFileSync(path.join(root, 'public', served), 'utf8');
      expect(served).toContain(createHash('sha256').update(body).digest('hex').slice(0, 10));
      expect(body).not.toMatch(/sourceMappingURL/);
    }
  });

  it('the stylesheet loads nothing from elsewhere, has focus rings, both themes and 44 px controls', () => {
    const css = readFileSync(path.join(root, 'public', manifest['dashboard.css']), 'utf8');
    expect(css).not.toMatch(/url\(|@import|@font-face/i);
    expect(css).toContain(':focus-visible');
    expect(css).toContain('light-dark(');
    expect(css).toMatch(/:root\[data-theme="dark"\]/);
    expect(css).toMatch(/min-height: 44px/);
    expect(css).toMatch(/prefers-reduced-motion: reduce/);
  });

  it('htmx loads every extension the shell lists, by the name it registers (an unlisted one never loads)', () => {
    const shell = readFileSync(path.join(root, 'src/dashboard/components/shell.tsx'), 'utf8');
    const listed = /extensions:"([^"]*)"/.exec(shell)[1].split(/,\s*/);
    const registered = ['hx-csp.js', 'hx-sse.js'].map((name) => /registerExtension\(['"]([^'"]+)['"]/.exec(readFileSync(path.join(root, 'public', manifest[name]), 'utf8'))?.[1]);
    expect(registered).toEqual(['hx-csp', 'sse']);
    expect(listed.sort()).toEqual([...registered].sort());
  });

  it('htmx is the pinned 4.0.1', () => {
    expect(readFileSync(path.join(root, 'public', manifest['htmx.js']), 'utf8')).toContain('version="4.0.1"');
  });
});
