// `npm run samples`: the pictures of the documents in docs/samples, made again from the public fixtures
// as a new user makes them. Starts `wrangler dev` on port 18316 (or $SAMPLES_PORT) with a throwaway
// state, imports the fixture OSV records, uploads the temurin CBOM (cbomkit-theia, 319 assets) and the
// elastic/harp SBOM with the CLI, waits for their reports' documents, downloads the PDF, PPTX, XLSX and
// HTML, and turns pages of them into PNGs: pdftoppm (poppler-utils) for the PDF, LibreOffice for the
// PPTX and XLSX (converted to PDF first), Debian's Chromium (puppeteer-core) for the HTML. Run by hand
// (CI has none of these): `apt-get install poppler-utils libreoffice-impress libreoffice-calc chromium`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { benchService, cli, createPass, until } from '../bench/harness.mjs';
import { root } from './local.mjs';

const PORT = Number(process.env.SAMPLES_PORT || 18316);
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SAMPLES = join(root, 'docs/samples');
const FORMATS = ['pdf', 'pptx', 'xlsx', 'html'];
/** What is surveyed, the report pictured, and the pages of each document worth a picture (1-based). */
const SUBJECTS = [
  { name: 'temurin', file: 'test/fixtures/cbom/ibm-cbomkit-theia__temurin-jdk-image.cbom.json', report: 'pqc-inventory', pages: { pdf: [1, 3], pptx: [2, 3], xlsx: [1, 2] } },
  { name: 'harp', file: 'test/fixtures/sbom/golang__elastic-harp-v0.2.10.cdx-1.4.json', report: 'composition', pages: { pdf: [2, 3], pptx: [3] } },
];

const service = await benchService(PORT, 'samples');
const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  execFileSync(process.execPath, [join(root, 'scripts/vulndb-import.mjs'), join(root, 'test/fixtures/osv'), '--persist-to', join(service.work, 'state'), '--quiet'], { stdio: 'inherit' });
  const pass = await createPass(service.P, service.session);
  const headers = { authorization: `Bearer ${service.session}` };
  const read = async (path) => (await fetch(`${service.P}${path}`, { headers })).json();
  for (const subject of SUBJECTS) {
    const { surveyId } = await cli(['upload', join(root, subject.file), '--api', service.base, '--project', service.projectId, '--target', subject.name, '--wait'], pass);
    const step = (await read(`/v1/job/${surveyId}`)).steps?.find((s) => s.step_type === 'REPORT' && s.step_label === subject.report);
    if (!step) throw new Error(`the survey of ${subject.name} has no ${subject.report} report`);
    const rendered = async () => { const { formats = [] } = await read(`/v1/report/${step.id}/export`); return FORMATS.every((f) => formats.includes(f)); };
    await until(rendered, `the ${subject.report} documents of ${subject.name} were not rendered in 5 minutes`, 300_000, 500);
    const dir = join(service.work, subject.name);
    mkdirSync(dir);
    for (const format of FORMATS) {
      const res = await fetch(`${service.P}/v1/report/${step.id}/export/${format}`, { headers });
      if (!res.ok) throw new Error(`${subject.name} ${format}: ${res.status} ${await res.text()}`);
      writeFileSync(join(dir, `document.${format}`), Buffer.from(await res.arrayBuffer()));
    }
    const stem = `${subject.name}-${subject.report}`;
    pdfPages(join(dir, 'document.pdf'), subject.pages.pdf, `${stem}-pdf`);
    for (const format of ['pptx', 'xlsx']) {
      if (!subject.pages[format]) continue;
      execFileSync('libreoffice', ['--headless', `-env:UserInstallation=file://${join(service.work, 'lo')}`, '--convert-to', 'pdf', '--outdir', join(dir, format), join(dir, `document.${format}`)], { stdio: 'ignore' });
      // A sheet is printed small (fitted to the page's width): a finer picture keeps it legible.
      pdfPages(join(dir, format, 'document.pdf'), subject.pages[format], `${stem}-${format}`, format === 'xlsx' ? 130 : 80);
    }
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1400 });
    await page.goto(`file://${join(dir, 'document.html')}`);
    await page.screenshot({ path: join(SAMPLES, `${stem}-html.png`) });
    await page.close();
    console.log(`${subject.name}: ${subject.report} pictured`);
  }
} finally {
  await browser.close();
  await service.stop();
}

/** Pages of a PDF as `<name>-<page>.png` in docs/samples, `dpi` pixels an inch. */
function pdfPages(pdf, pages, name, dpi = 80) {
  const out = join(SAMPLES, '.pages');
  mkdirSync(out, { recursive: true });
  for (const n of pages) {
    execFileSync('pdftoppm', ['-png', '-r', String(dpi), '-f', String(n), '-l', String(n), pdf, join(out, 'page')]);
    const made = readdirSync(out).find((f) => f.endsWith('.png'));
    renameSync(join(out, made), join(SAMPLES, `${name}-${n}.png`));
  }
  rmSync(out, { recursive: true, force: true });
}
