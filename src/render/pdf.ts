// The PDF document of a report: a cover, a summary page (headline figures, the chart of the sections,
// the notes), then each section as a table. The layout is computed first, as drawing operations per
// page (./pdf-pages.ts), so "Page X of Y", the cover's contents and the fonts to embed are known before
// anything is painted (./pdf-paint.ts). Text is set in subsetted TrueType fonts with per-character
// fallback between them (./pdf-type.ts; pdf-lib's standard fonts are WinAnsi only); fonts/SOURCES.md
// says where they come from. The parts: ./pdf-summary.ts, ./pdf-tables.ts (the sections),
// ./pdf-cover.ts (cover and footers), ./pdf-style.ts (geometry, colours, number formats).
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument } from 'pdf-lib';
import type { RenderModel } from './model';
import { coverPage, pageFooters } from './pdf-cover';
import { PdfPages } from './pdf-pages';
import { paint } from './pdf-paint';
import { summaryPage } from './pdf-summary';
import { sectionPages } from './pdf-tables';
import { Typesetter, type PdfFonts } from './pdf-type';
import { PDF_TEMPLATE } from './templates';

// Defined with the other formats' templates, which the request path reads without loading pdf-lib.
export { PDF_TEMPLATE };
export { PDF_GROUP_ROWS, PDF_MAX_SECTION_GROUPS, PDF_MAX_SECTION_ROWS } from './pdf-tables';
export type { PdfFonts };

/**
 * Renders the report as a PDF. `fonts` defaults to the fonts bundled into the Worker; Node (tests, tools)
 * passes the same files read from disk, since it cannot import `.ttf` modules.
 */
export async function renderPdf(model: RenderModel, fonts?: PdfFonts): Promise<Uint8Array> {
  const typesetter = new Typesetter(fonts ?? (await import('./fonts')).BUNDLED_FONTS);
  const pages = new PdfPages(typesetter, model);
  summaryPage(pages);
  for (const section of model.sections) sectionPages(pages, section);
  coverPage(pages);
  pageFooters(pages);

  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(fontkit);
  doc.setTitle(model.title, { showInWindowTitleBar: true });
  doc.setSubject(`${model.project.name} · ${model.subject}`);
  doc.setKeywords([model.reportType, model.reportId]);
  doc.setProducer(PDF_TEMPLATE.library);
  doc.setCreator('posture-service');
  doc.setLanguage('en');
  const produced = new Date(model.producedAt);
  if (!Number.isNaN(produced.getTime())) {
    doc.setCreationDate(produced);
    doc.setModificationDate(produced);
  }
  await paint(doc, pages.pages, model.reportId);
  // Yielding between objects buys nothing in a request that only renders.
  return doc.save({ objectsPerTick: Number.POSITIVE_INFINITY });
}
