// `npm run screenshots`: docs/screenshots/<page>-<theme>.png (1280x800, what the window shows) of every
// dashboard page found from the navigation (scripts/browser: the service started as `npm run dev` starts
// it, on a free port with a throwaway state and the demo data, signed in through the emailed link), in
// the light and dark themes. Pages answering 404 (not built yet) are left out. Screenshots of pages no
// longer found are removed.
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DESKTOP, chooseTheme, discoverPages, launch, signInByEmail, startService, watchedPage } from './browser/harness.mjs';
import { screenshotName } from './browser/walk.mjs';
import { root } from './local.mjs';

const OUT = join(root, 'docs/screenshots');
const started = Date.now();
const say = (line) => console.error(line);

const service = await startService({ log: (line) => say(`  ${line}`) });
let browser;
try {
  browser = await launch();
  const page = await watchedPage(await browser.newContext({ viewport: DESKTOP }), []);
  await signInByEmail(page, service, 'admin@demo.posture.local');
  const home = page.url();
  const pages = (await discoverPages(page, home, service.origin)).filter((p) => p.status === 200);
  await mkdir(OUT, { recursive: true });
  const written = new Set();
  for (const theme of ['light', 'dark']) {
    await page.goto(home, { waitUntil: 'load' });
    await chooseTheme(page, theme);
    for (const p of pages) {
      await page.goto(p.url, { waitUntil: 'load' });
      const file = `${screenshotName(p.url)}-${theme}.png`;
      await page.screenshot({ path: join(OUT, file), animations: 'disabled', caret: 'hide' });
      written.add(file);
    }
  }
  for (const file of await readdir(OUT)) if (file.endsWith('.png') && !written.has(file)) await rm(join(OUT, file));
  say(`screenshots: ${written.size} files in docs/screenshots (${[...written].join(', ')}) in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
} finally {
  await browser?.close();
  await service.stop();
}
