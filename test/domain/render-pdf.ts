// The PDF renderer in workerd, with the fonts bundled as the Worker bundles them (wrangler.toml's
// "Data" rule for *.ttf). The text itself is read back in Node: test-node/render-pdf.test.mjs.
import { PDFArray, PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { PDF_TEMPLATE, renderPdf } from '../../src/render/pdf';
import { sampleModel } from '../render-sample';

/** The Type0 fonts of a PDF: their names and whether their descendant's descriptor embeds a font file. */
function fonts(doc: PDFDocument): { name: string; embedded: boolean }[] {
  const found: { name: string; embedded: boolean }[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || object.get(PDFName.of('Subtype')) !== PDFName.of('Type0')) continue;
    const descendant = doc.context.lookup(object.lookup(PDFName.of('DescendantFonts'), PDFArray).get(0), PDFDict);
    const descriptor = descendant.lookup(PDFName.of('FontDescriptor'), PDFDict);
    found.push({ name: object.lookup(PDFName.of('BaseFont'), PDFName).decodeText(), embedded: descriptor.has(PDFName.of('FontFile2')) });
  }
  return found;
}

describe('PDF renderer (workerd)', () => {
  it('renders the sample report: cover, summary, tables; fonts embedded as subsets; title metadata', async () => {
    const bytes = await renderPdf(sampleModel(60));
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });

    expect(doc.getPageCount()).toBeGreaterThan(2);
    expect(doc.getTitle()).toBe('Post-quantum cryptography inventory');
    expect(doc.getProducer()).toBe(PDF_TEMPLATE.library);
    expect(doc.getCreationDate()?.toISOString()).toBe('2026-11-24T10:15:00.000Z');

    const embedded = fonts(doc);
    expect(embedded.map((font) => font.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^[A-Z]{6}\+NotoSans-Regular$/), expect.stringMatching(/^[A-Z]{6}\+NotoSans-Bold$/)]));
    // Every font is a subset (tag + name) with its font file inside the PDF; the sample's names need the fallbacks too.
    for (const font of embedded) {
      expect(font.name).toMatch(/^[A-Z]{6}\+[A-Za-z0-9-]+$/);
      expect(font.embedded).toBe(true);
    }
    expect(embedded.map((font) => font.name.slice(7))).toEqual(expect.arrayContaining(['DroidSansFallback', 'PostureHangulSquare-Regular', 'NotoSansArabic-Regular']));
    // Subsets: far smaller than the bundled fonts (over 2 MB together).
    expect(bytes.length).toBeLessThan(200_000);
  });

  it('renders a 20,000-entry report (500 rows per section) quickly', async () => {
    const model = sampleModel(20_000);
    const started = performance.now();
    const bytes = await renderPdf(model);
    const elapsed = performance.now() - started;
    console.log(`20,000-entry PDF: ${bytes.length.toLocaleString('en-US')} bytes in ${elapsed.toFixed(0)} ms`);

    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(doc.getPageCount()).toBeGreaterThan(100);
    expect(doc.getTitle()).toBe(model.title);
    for (const font of fonts(doc)) expect(font.name).toMatch(/^[A-Z]{6}\+/);
  });

  it('is deterministic: the same report renders to the same bytes', async () => {
    const model = sampleModel(60);
    expect(await renderPdf(model)).toEqual(await renderPdf(model));
  });
});
