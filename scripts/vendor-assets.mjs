// Copies the browser files the Worker serves as static assets (wrangler.toml [assets], ./public) out of
// node_modules: the API reference viewer's standalone bundle (@scalar/api-reference). Runs after every
// `npm install` / `npm ci` (postinstall), so the files always match the locked package version; they
// are not committed. Static assets do not count towards the Worker's size limit.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
// The package's exports map hides dist/ (and package.json); a direct dependency, so npm places it here.
const scalarDir = path.join(root, 'node_modules/@scalar/api-reference');
const source = readFileSync(path.join(scalarDir, 'dist/browser/standalone.js'), 'utf8');
const target = path.join(root, 'public/api/v1/docs/scalar.js');
mkdirSync(path.dirname(target), { recursive: true });
// The trailing source-map comment is dropped: the map is not served.
writeFileSync(target, source.replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '\n'));
console.log(`vendor-assets: ${path.relative(root, target)} (${(source.length / 1024).toFixed(0)} KiB)`);
await import('./build-dashboard-assets.mjs');
