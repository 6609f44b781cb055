// The PDF renderer's text read back as a reader's PDF tool sees it (pdf.js): cover, tables, hostile
// strings shown literally, names in other scripts as the same characters, page numbers, footers.
// Node cannot import the bundled .ttf modules, so the test hands renderPdf the same files read from disk.
import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { decodePDFRawStream, PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PDF_GROUP_ROWS, PDF_MAX_SECTION_ROWS, renderPdf } from '../src/render/pdf.ts';
import { HOSTILE, SCRIPTS, sampleModel } from '../test/render-sample.ts';
import { fixtureReport } from '../test/fixture-reports.ts';

const fontFile = (name) => new Uint8Array(readFileSync(new URL(`../src/render/fonts/${name}`, import.meta.url)));
/** The fonts of src/render/fonts/index.ts, in the same order. */
const FONTS = {
  regular: fontFile('noto-sans-regular.ttf'),
  bold: fontFile('noto-sans-bold.ttf'),
  fallbacks: ['noto-sans-arabic.ttf', 'noto-sans-hebrew.ttf', 'noto-sans-devanagari.ttf', 'noto-sans-thai.ttf', 'droid-sans-fallback-cjk.ttf', 'hangul-square.ttf'].map(fontFile),
};

/** Each page's text, line by line: pdf.js items on one baseline joined left to right (a space where there is a gap). */
async function pageTexts(bytes) {
  const pdf = await getDocument({ data: bytes.slice(), verbosity: 0, isEvalSupported: false }).promise;
  const pages = [];
  for (let number = 1; number <= pdf.numPages; number++) {
    const { items } = await (await pdf.getPage(number)).getTextContent();
    const lines = new Map();
    for (const item of items) {
      if (!item.str) continue;
      const y = Math.round(item.transform[5]);
      lines.set(y, [...(lines.get(y) ?? []), item]);
    }
    const text = [...lines.entries()]
      .sort(([a], [b]) => b - a)
      .map(([, line]) => {
        line.sort((a, b) => a.transform[4] - b.transform[4]);
        let joined = '';
        let end = Number.NEGATIVE_INFINITY;
        for (const item of line) {
          joined += (item.transform[4] - end > 1 ? ' ' : '') + item.str;
          end = item.transform[4] + item.width;
        }
        return joined.trim();
      })
      .join('\n');
    pages.push(text);
  }
  await pdf.destroy();
  return pages;
}

describe('PDF renderer: the text as read back', () => {
  const model = sampleModel(60);
  /** @type {string[]} */
  let pages;
  let all = '';

  beforeAll(async () => {
    pages = await pageTexts(await renderPdf(model, FONTS));
    all = pages.join('\n');
  });

  it('opens with a cover naming the report, project, subject, survey, date and id', () => {
    const cover = pages[0];
    for (const text of [model.title, model.project.name, model.subject, 'release-2026.11 =1+1 (INVENTORY_SURVEY)', '24 November 2026, 10:15 UTC', model.reportId]) {
      expect(cover).toContain(text);
    }
    expect(cover).not.toMatch(/Page \d+ of/);
  });

  it('shows the headline figures, the chart and the notes', () => {
    const summary = pages[1];
    for (const figure of model.figures) expect(summary).toContain(figure.label);
    expect(summary).toContain('2030-12-31');
    expect(summary).toContain(model.chart.title);
    for (const bar of model.chart.bars) expect(summary).toContain(bar.label);
    for (const note of model.notes) expect(summary).toContain(note);
  });

  it('has a table per section, under its title', () => {
    for (const section of model.sections) expect(all).toContain(section.title);
    for (const column of model.sections[0].columns) expect(all).toContain(column.header);
  });

  it('shows hostile strings literally, as text', () => {
    for (const text of ['<script>alert("x")</script>', '=HYPERLINK("http://evil.', '+SUM(1,2)', '-2+3', '@cmd', 'Quote " and, comma', '&amp; already escaped']) {
      expect(all).toContain(text);
    }
    expect(HOSTILE).toContain('Line\nbreak');
    expect(all).toMatch(/^Line\b.*\n.*\bbreak\b/m);
  });

  it('renders names in other scripts as the same characters', () => {
    // Arabic and Hebrew too: their words are drawn right to left, and pdf.js reads them back in logical order.
    for (const name of SCRIPTS) expect(all).toContain(name);
    // The bundled fonts cover every character of the sample: nothing fell back to the replacement.
    expect(all).not.toContain('\uFFFD');
  });

  it('numbers every page but the cover and names the report in the footer', () => {
    pages.slice(1).forEach((text, index) => {
      expect(text).toContain(`Page ${index + 2} of ${pages.length}`);
      expect(text).toContain(`Report ${model.reportId}`);
    });
  });
});

describe('PDF renderer: large reports', () => {
  it('shows the first rows of a section, then says how many more the XLSX and CSV documents have', async () => {
    const model = sampleModel(20_000);
    const pages = await pageTexts(await renderPdf(model, FONTS));
    const all = pages.join('\n');
    for (const section of model.sections.filter((s) => s.total > PDF_MAX_SECTION_ROWS)) {
      expect(all).toContain(`${(section.total - PDF_MAX_SECTION_ROWS).toLocaleString('en-US')} more entries in the XLSX and CSV documents.`);
    }
    // Red holds the even entries: its 500th is entry 998, entry 1000 is not shown.
    expect(all).toContain('library-998@1.8.0');
    expect(all).not.toContain('library-1000@1.0.0');
    expect(all).toContain(`Page ${pages.length} of ${pages.length}`);
  });
});

describe('PDF renderer: fonts', () => {
  it('embeds subsets whose glyphs all have outlines (fontkit writes short loca offsets: glyphs must be even-sized)', async () => {
    const doc = await PDFDocument.load(await renderPdf(sampleModel(60), FONTS));
    let fonts = 0;
    for (const [, object] of doc.context.enumerateIndirectObjects()) {
      if (!(object instanceof PDFDict) || object.get(PDFName.of('Type')) !== PDFName.of('FontDescriptor')) continue;
      const file = doc.context.lookup(object.get(PDFName.of('FontFile2')), PDFRawStream);
      const font = fontkit.create(decodePDFRawStream(file).decode());
      const blank = [];
      for (let id = 1; id < font.numGlyphs; id++) {
        const glyph = font.getGlyph(id);
        if (glyph.path.commands.length === 0) blank.push(id);
      }
      // Only the space has no outline.
      expect(blank.length, object.get(PDFName.of('FontName')).toString()).toBeLessThanOrEqual(1);
      fonts++;
    }
    expect(fonts).toBe(8);
  });

  it('shows characters no font has as a visible replacement, without breaking the line', async () => {
    const model = sampleModel(4);
    model.sections[0].rows[0].name = 'lock 🔐 ok \u0000 \u{10FFFD} \uD800 end';
    const text = (await pageTexts(await renderPdf(model, FONTS))).join('\n');
    expect(text).toContain('lock \uFFFD ok \uFFFD \uFFFD \uFFFD end');
  });
});

describe('PDF of real CBOMs (issue 20): where, grouped, short', () => {
  const cbom = (name) => readFileSync(new URL(`../test/fixtures/cbom/${name}`, import.meta.url), 'utf8');

  it('"Where" shows where: kafka\'s entries show their file and line, never their bom-ref; unclassified ones are "not judged"', async () => {
    const { model, entries } = await fixtureReport('pqc-inventory', cbom('ibm-cbomkit__kafka-cbom.json'), { subject: 'kafka' });
    const all = (await pageTexts(await renderPdf(model, FONTS))).join('\n');
    expect(all).toContain('DefaultSslEngineFactory.java:429');
    expect(all).toContain('DelegationTokenControlManager.java:136');
    // (Some unclassified keys carry their bom-ref in their name, which the classifier gives them.)
    const named = [...entries.values()].flat().filter((entry) => !entry.name.includes(entry.bom_ref));
    expect(named.length).toBeGreaterThan(5);
    for (const entry of named) expect(all).not.toContain(entry.bom_ref);
    expect(all).toContain('not judged');
  });

  it('readable at any size: temurin (319 assets) fits in under 15 pages, each explanation once, the most urgent group first', async () => {
    const { model } = await fixtureReport('pqc-inventory', cbom('ibm-cbomkit-theia__temurin-jdk-image.cbom.json'), { subject: 'temurin' });
    const pages = await pageTexts(await renderPdf(model, FONTS));
    expect(pages.length).toBeLessThan(15);
    const all = pages.join('\n');
    // The first section page opens with red's most urgent group: the SHA-1 signature, disallowed since 2013
    // (the roots' own SHA-1 signatures are not checked, so they are not here: the roots are judged by their keys).
    const red = pages[2];
    const order = ['Red: broken or quantum-vulnerable', '314 entries', 'RSA-SHA1', '1 entry', 'Deadline 2013-12-31', 'RSA-2048', '74 entries'];
    expect(order.map((text) => red.indexOf(text))).toEqual(order.map((text) => red.indexOf(text)).sort((a, b) => a - b));
    expect(order.every((text) => red.includes(text))).toBe(true);
    // One explanation per group, not one per entry: 148 roots in three groups (RSA-2048, RSA-4096, ECDSA keys).
    const anchorGroups = model.sections.flatMap((section) => section.groups?.list ?? []).filter((group) => group.detail === 'trust anchor key');
    expect(anchorGroups.map((group) => group.title).sort()).toEqual(['ECDSA', 'RSA-2048', 'RSA-4096']);
    expect(all.split('A trust anchor: a self-signed root').length - 1).toBe(anchorGroups.length);
    expect(all).toContain(`and ${74 - PDF_GROUP_ROWS} more entries of RSA-2048 in the XLSX and CSV documents`);
    // A root's key is named by its certificate.
    expect(all).toMatch(/RSA-2048 public-key of \S/);
    expect(all).toContain('/etc/ssl/cert.pem');
  });
});
