// The PDF document of a report: a cover, a summary page (headline figures, the chart of the sections,
// the notes), then each section as a table. The layout is computed first, as drawing operations per
// page, so "Page X of Y", the cover's contents and the fonts to embed are known before anything is
// painted. Text is set in subsetted TrueType fonts with per-character fallback between them (pdf-lib's
// standard fonts are WinAnsi only); fonts/SOURCES.md says where they come from.
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, rgb } from 'pdf-lib';
import type { RGB } from 'pdf-lib';
import { fitWidths } from './cells';
import type { Cell, Column, Figure, GroupModel, RenderModel, SectionModel } from './model';
import { PAGE_HEIGHT, PAGE_WIDTH, paint, type Op } from './pdf-paint';
import { clean, clip, Typesetter, type PdfFonts, type Weight } from './pdf-type';
import { PDF_TEMPLATE } from './templates';

// Defined with the other formats' templates, which the request path reads without loading pdf-lib.
export { PDF_TEMPLATE };

/** Rows of a section the PDF shows; the XLSX and CSV documents carry every entry. */
export const PDF_MAX_SECTION_ROWS = 500;
/** In a grouped section: the groups the PDF shows, most important first, and the entries of each. */
export const PDF_MAX_SECTION_GROUPS = 60;
export const PDF_GROUP_ROWS = 10;

export type { PdfFonts };

/**
 * Renders the report as a PDF. `fonts` defaults to the fonts bundled into the Worker; Node (tests, tools)
 * passes the same files read from disk, since it cannot import `.ttf` modules.
 */
export async function renderPdf(model: RenderModel, fonts?: PdfFonts): Promise<Uint8Array> {
  const typesetter = new Typesetter(fonts ?? (await import('./fonts')).BUNDLED_FONTS);
  const layout = new Layout(typesetter, model);
  layout.summary();
  for (const section of model.sections) layout.section(section);
  layout.cover();
  layout.footers();

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
  await paint(doc, layout.pages, model.reportId);
  // Yielding between objects buys nothing in a request that only renders.
  return doc.save({ objectsPerTick: Number.POSITIVE_INFINITY });
}

// ---------------------------------------------------------------------------------------------------
// Page geometry (points) and colours.

const MARGIN = 40;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const RIGHT = PAGE_WIDTH - MARGIN;
/** Where content starts below the running header, and ends above the footer. */
const BODY_TOP = 64;
const BODY_BOTTOM = PAGE_HEIGHT - 48;

const INK = rgb(0.12, 0.15, 0.19);
const MUTED = rgb(0.4, 0.44, 0.5);
const RULE = rgb(0.82, 0.85, 0.88);
const ZEBRA = rgb(0.955, 0.963, 0.973);
const CARD = rgb(0.965, 0.972, 0.98);
const NAVY = rgb(0.09, 0.2, 0.31);
const PALE = rgb(0.78, 0.84, 0.9);
const WHITE = rgb(1, 1, 1);

/** Table text: size, line height and cell padding. */
const CELL_SIZE = 8;
const CELL_LINE = 10;
const CELL_PAD_X = 4;
const CELL_PAD_Y = 3.5;
/** A cell shows at most this many lines: hostile or huge values cannot make a row taller than a page. */
const MAX_CELL_LINES = 24;
/** An entry under a group shows at most this many lines (its first locations). */
const GROUP_CELL_LINES = 4;
/** A group's heading and its text start this far right of the margin (a tinted bar is left of them). */
const GROUP_INDENT = 12;
/** Between two facts on one line of a group's heading. */
const FACT_GAP = 18;
/** The chart keeps to one page. */
const MAX_CHART_BARS = 40;

const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

// ---------------------------------------------------------------------------------------------------
// Layout: drawing operations per page, in top-down coordinates (y grows downwards from the page top).

interface TextStyle {
  size: number;
  weight?: Weight;
  color?: RGB;
  align?: 'left' | 'right';
}

class Layout {
  /** Every page's operations; the cover is put in front once the other pages are known. */
  readonly pages: Op[][] = [];
  private ops: Op[] = [];
  /** The top of the free space on the current page. */
  private y = BODY_TOP;
  private readonly producedLabel: string;
  /** The page (1-based, counting the cover) each contents entry starts on. */
  private readonly contents: { title: string; detail: string; color: RGB; page: number }[] = [];

  constructor(
    private readonly type: Typesetter,
    private readonly model: RenderModel,
  ) {
    this.producedLabel = formatTimestamp(model.producedAt);
  }

  // Primitives -----------------------------------------------------------------------------------

  /** Draws one line of text; returns its width. */
  private text(line: string, x: number, baseline: number, style: TextStyle): number {
    const { size, weight = 'regular', color = INK, align = 'left' } = style;
    const runs = this.type.runs(line, weight);
    const width = runs.reduce((sum, run) => sum + run.width, 0) * size;
    if (runs.length) this.ops.push({ kind: 'text', x: align === 'right' ? x - width : x, y: baseline, size, runs, color });
    return width;
  }

  /** Draws wrapped lines from `top`; returns the height used. */
  private paragraph(lines: string[], x: number, top: number, lineHeight: number, style: TextStyle): number {
    lines.forEach((line, index) => this.text(line, x, top + baselineOffset(style.size, lineHeight) + index * lineHeight, style));
    return lines.length * lineHeight;
  }

  private rect(x: number, y: number, width: number, height: number, color: RGB): void {
    this.ops.push({ kind: 'rect', x, y, width, height, color });
  }

  private line(x1: number, y1: number, x2: number, y2: number, thickness: number, color: RGB): void {
    this.ops.push({ kind: 'line', x1, y1, x2, y2, thickness, color });
  }

  private newPage(): void {
    this.ops = [];
    this.pages.push(this.ops);
    this.y = BODY_TOP;
    // Running header: what the document is, and when it was produced.
    const produced = this.type.fit(`Produced ${this.producedLabel}`, CONTENT_WIDTH / 2, 7.5, 'regular');
    const producedWidth = this.text(produced, RIGHT, 30, { size: 7.5, color: MUTED, align: 'right' });
    this.text(this.type.fit(this.model.title, CONTENT_WIDTH - producedWidth - 24, 7.5, 'bold'), MARGIN, 30, { size: 7.5, weight: 'bold', color: MUTED });
    this.line(MARGIN, 38, RIGHT, 38, 0.5, RULE);
  }

  /** Starts a new page when fewer than `height` points are left. */
  private ensure(height: number): void {
    if (this.y + height > BODY_BOTTOM) this.newPage();
  }

  /** The page number (1-based, the cover being page 1) of the current page. */
  private get pageNumber(): number {
    return this.pages.length + 1;
  }

  // The summary page ------------------------------------------------------------------------------

  summary(): void {
    this.newPage();
    this.contents.push({ title: 'Summary', detail: 'headline figures, chart, notes', color: NAVY, page: this.pageNumber });
    this.text('Summary', MARGIN, this.y + 18, { size: 18, weight: 'bold' });
    this.y += 34;
    this.figures(this.model.figures);
    this.chart(this.model.chart);
    this.notes(this.model.notes);
  }

  private figures(figures: Figure[]): void {
    if (!figures.length) return;
    const perRow = Math.min(figures.length, 5);
    const gap = 12;
    const cardWidth = (CONTENT_WIDTH - gap * (perRow - 1)) / perRow;
    const inner = cardWidth - 24;
    for (let start = 0; start < figures.length; start += perRow) {
      const cards = figures.slice(start, start + perRow).map((figure) => {
        const value = typeof figure.value === 'number' ? formatNumber(figure.value) : figure.value;
        // Long values shrink (down to 12 pt) before they are shortened.
        const valueSize = Math.max(12, Math.min(22, (22 * inner) / Math.max(1, this.type.width(clean(clip(value)), 22, 'bold'))));
        return {
          label: this.type.wrap(figure.label, inner, 8.5, 'regular', 2),
          value: this.type.fit(value, inner, valueSize, 'bold'),
          valueSize,
          detail: figure.detail ? this.type.wrap(figure.detail, inner, 8.5, 'regular', 2) : [],
        };
      });
      const height = 14 + Math.max(...cards.map((card) => (card.label.length + card.detail.length) * 11 + 30)) + 10;
      this.ensure(height);
      cards.forEach((card, index) => {
        const x = MARGIN + index * (cardWidth + gap);
        this.rect(x, this.y, cardWidth, height, CARD);
        this.rect(x, this.y, 3, height, NAVY);
        let top = this.y + 12;
        top += this.paragraph(card.label, x + 14, top, 11, { size: 8.5, color: MUTED });
        this.text(card.value, x + 14, top + 24, { size: card.valueSize, weight: 'bold' });
        top += 30;
        this.paragraph(card.detail, x + 14, top, 11, { size: 8.5, color: MUTED });
      });
      this.y += height + gap;
    }
    this.y += 10;
  }

  /** A horizontal bar chart: labels on the left, bars on a value axis, each bar's value at its end. */
  private chart(chart: RenderModel['chart']): void {
    const bars = chart.bars.slice(0, MAX_CHART_BARS);
    const rowHeight = Math.min(24, Math.max(9, (BODY_BOTTOM - BODY_TOP - 80) / Math.max(1, bars.length)));
    this.ensure(28 + bars.length * rowHeight + 30);
    this.text(this.type.fit(chart.title, CONTENT_WIDTH, 12, 'bold'), MARGIN, this.y + 12, { size: 12, weight: 'bold' });
    this.y += 24;
    if (!bars.length) {
      this.text('No data.', MARGIN, this.y + 10, { size: 9, color: MUTED });
      this.y += 24;
      return;
    }
    const values = bars.map((bar) => (Number.isFinite(bar.value) ? Math.max(0, bar.value) : 0));
    const step = niceStep(values.reduce((max, value) => Math.max(max, value), 0));
    const axisMax = Math.max(step, step * Math.ceil(values.reduce((max, value) => Math.max(max, value), 0) / step));
    const labelSize = Math.min(9, rowHeight * 0.6);
    const labels = bars.map((bar) => clean(bar.label).replace(/\n/g, ' '));
    const labelWidth = Math.min(CONTENT_WIDTH * 0.28, Math.max(...labels.map((label) => this.type.width(label, labelSize, 'regular')))) + 12;
    const valueWidth = Math.max(...values.map((value) => this.type.width(formatNumber(value), labelSize, 'bold'))) + 10;
    const plotX = MARGIN + labelWidth;
    const plotWidth = CONTENT_WIDTH - labelWidth - valueWidth;
    const plotTop = this.y;
    const plotBottom = plotTop + bars.length * rowHeight;

    for (let tick = 0; tick <= axisMax + step / 2; tick += step) {
      const x = plotX + (tick / axisMax) * plotWidth;
      this.line(x, plotTop, x, plotBottom, 0.5, tick === 0 ? INK : RULE);
      this.text(formatNumber(tick), x - this.type.width(formatNumber(tick), 7.5, 'regular') / 2, plotBottom + 12, { size: 7.5, color: MUTED });
    }
    this.line(plotX, plotBottom, plotX + plotWidth, plotBottom, 0.75, INK);
    bars.forEach((bar, index) => {
      const top = plotTop + index * rowHeight;
      const barHeight = rowHeight * 0.62;
      const barTop = top + (rowHeight - barHeight) / 2;
      const baseline = barTop + barHeight / 2 + labelSize * 0.35;
      const width = (values[index]! / axisMax) * plotWidth;
      this.text(this.type.fit(labels[index]!, labelWidth - 12, labelSize, 'regular'), plotX - 8, baseline, { size: labelSize, align: 'right' });
      if (width > 0) this.rect(plotX, barTop, width, barHeight, parseColor(bar.color));
      this.text(formatNumber(values[index]!), plotX + width + 5, baseline, { size: labelSize, weight: 'bold' });
    });
    this.y = plotBottom + 20;
    if (chart.bars.length > bars.length) {
      this.text(`${formatNumber(chart.bars.length - bars.length)} more bars not shown.`, MARGIN, this.y + 10, { size: 8.5, color: MUTED });
      this.y += 14;
    }
    this.y += 14;
  }

  private notes(notes: string[]): void {
    if (!notes.length) return;
    this.ensure(40);
    this.text('Notes', MARGIN, this.y + 11, { size: 11, weight: 'bold' });
    this.y += 20;
    for (const note of notes) {
      const lines = this.type.wrap(note, CONTENT_WIDTH - 14, 9.5, 'regular');
      this.ensure(Math.min(lines.length, 3) * 13);
      lines.forEach((line, index) => {
        this.ensure(13);
        if (index === 0) this.text('•', MARGIN + 2, this.y + baselineOffset(9.5, 13), { size: 9.5, color: MUTED });
        this.y += this.paragraph([line], MARGIN + 14, this.y, 13, { size: 9.5 });
      });
      this.y += 4;
    }
  }

  // Sections --------------------------------------------------------------------------------------

  section(section: SectionModel): void {
    const color = parseColor(section.color);
    const grouped = section.groups;
    const table = grouped ? new Table(this.type, grouped.columns, color, GROUP_CELL_LINES) : new Table(this.type, section.columns, color);
    const count = entriesLabel(section.total);
    const countWidth = this.type.width(count, 9, 'bold');
    const title = this.type.wrap(section.title, CONTENT_WIDTH - countWidth - 30, 13, 'bold', 3);
    const description = this.type.wrap(section.description, CONTENT_WIDTH - 12, 9, 'regular', 6);
    const headingHeight = title.length * 17 + description.length * 12 + 10;
    const firstGroup = grouped?.list[0];
    const firstRow = section.rows[0] ? table.rowHeight(table.cells(section.rows[0])) : 14;
    const start = headingHeight + (firstGroup ? this.groupHeading(firstGroup, color).height : 0) + (section.rows.length ? table.headerHeight : 0) + firstRow;

    // Each section starts on a fresh page after the summary, later ones where there is room for a start.
    const gap = 18;
    if (this.pages.length === 1 || this.y + gap + start > BODY_BOTTOM) this.newPage();
    else this.y += gap;
    this.contents.push({ title: section.title, detail: count, color, page: this.pageNumber });

    this.rect(MARGIN, this.y, 4, headingHeight - 8, color);
    this.text(count, RIGHT, this.y + 13, { size: 9, weight: 'bold', color: readable(color), align: 'right' });
    this.y += this.paragraph(title, MARGIN + 12, this.y, 17, { size: 13, weight: 'bold' });
    this.y += this.paragraph(description, MARGIN + 12, this.y, 12, { size: 9, color: MUTED });
    this.y += 10;

    if (!section.rows.length) {
      this.text('No entries.', MARGIN, this.y + 10, { size: 9, color: MUTED });
      this.y += 16;
      return;
    }
    if (grouped) {
      this.groups(section, grouped.list, table, color);
      return;
    }
    const shown = section.rows.slice(0, PDF_MAX_SECTION_ROWS);
    this.rows(shown, table, `${section.title} (continued)`);
    const more = section.total - shown.length;
    if (more > 0) this.moreNote(`${formatNumber(more)} more ${more === 1 ? 'entry' : 'entries'} in the XLSX and CSV documents.`);
  }

  /** A table of rows under its header, the header again after each page break (under `continued`). */
  private rows(rows: Record<string, Cell>[], table: Table, continued: string): void {
    this.tableHeader(table);
    rows.forEach((row, index) => {
      const cells = table.cells(row);
      const height = table.rowHeight(cells);
      if (this.y + height > BODY_BOTTOM) {
        this.newPage();
        this.text(this.type.fit(continued, CONTENT_WIDTH, 9, 'bold'), MARGIN, this.y + 9, { size: 9, weight: 'bold', color: MUTED });
        this.y += 16;
        this.tableHeader(table);
      }
      if (index % 2 === 1) this.rect(MARGIN, this.y, CONTENT_WIDTH, height, ZEBRA);
      this.cells(table, cells, CELL_SIZE, 'regular', INK);
      this.y += height;
    });
    this.line(MARGIN, this.y, RIGHT, this.y, 0.5, RULE);
    this.y += 4;
  }

  /** Says what was left out of the section, and where it is. */
  private moreNote(note: string): void {
    this.ensure(18);
    this.text(this.type.fit(note, CONTENT_WIDTH, 9, 'bold'), MARGIN, this.y + 12, { size: 9, weight: 'bold', color: MUTED });
    this.y += 18;
  }

  /** A grouped section: each group's heading (what its entries share, once), then its first entries. */
  private groups(section: SectionModel, groups: GroupModel[], table: Table, color: RGB): void {
    const shownGroups = groups.slice(0, PDF_MAX_SECTION_GROUPS);
    for (const group of shownGroups) {
      const heading = this.groupHeading(group, color);
      const shown = group.rows.slice(0, PDF_GROUP_ROWS);
      this.ensure(heading.height + table.headerHeight + table.rowHeight(table.cells(shown[0]!)));
      heading.draw();
      this.rows(shown, table, `${section.title} · ${group.title} (continued)`);
      const more = group.rows.length - shown.length;
      if (more > 0) {
        this.text(this.type.fit(`and ${formatNumber(more)} more ${more === 1 ? 'entry' : 'entries'} of ${group.title} in the XLSX and CSV documents`, CONTENT_WIDTH - 12, 8.5, 'regular'), MARGIN + 12, this.y + 9, { size: 8.5, color: MUTED });
        this.y += 14;
      }
    }
    const hidden = groups.slice(shownGroups.length);
    const hiddenEntries = hidden.reduce((sum, group) => sum + group.rows.length, 0);
    if (hidden.length) this.moreNote(`${formatNumber(hidden.length)} more ${hidden.length === 1 ? 'group' : 'groups'} (${entriesLabel(hiddenEntries)}) in the XLSX and CSV documents.`);
  }

  /** A group's heading, measured: its title and count, shared facts (label and value), its explanation. */
  private groupHeading(group: GroupModel, color: RGB): { height: number; draw: () => void } {
    const count = entriesLabel(group.rows.length);
    const countWidth = this.type.width(count, 9, 'bold');
    const detailWidth = group.detail ? Math.min(CONTENT_WIDTH / 3, this.type.width(group.detail, 8.5, 'regular') + 8) : 0;
    const titleWidth = CONTENT_WIDTH - GROUP_INDENT - countWidth - detailWidth - 16;
    const title = this.type.wrap(group.title, titleWidth, 10.5, 'bold', 2);
    const facts = this.factLines(group.facts, CONTENT_WIDTH - GROUP_INDENT);
    const explanation = group.explanation ? this.type.wrap(group.explanation, CONTENT_WIDTH - GROUP_INDENT, 8.5, 'regular', 5) : [];
    const height = 8 + title.length * 14 + facts.length * 11 + explanation.length * 11 + 6;
    const draw = () => {
      const top = this.y + 8;
      this.rect(MARGIN, top, 3, height - 10, tint(color, 0.7));
      let y = top;
      const x = MARGIN + GROUP_INDENT;
      const firstWidth = this.type.width(title[0] ?? '', 10.5, 'bold');
      y += this.paragraph(title, x, y, 14, { size: 10.5, weight: 'bold' });
      if (group.detail) this.text(this.type.fit(group.detail, detailWidth - 8, 8.5, 'regular'), x + firstWidth + 8, top + baselineOffset(10.5, 14), { size: 8.5, color: MUTED });
      this.text(count, RIGHT, top + baselineOffset(10.5, 14), { size: 9, weight: 'bold', color: readable(color), align: 'right' });
      for (const line of facts) {
        const baseline = y + baselineOffset(8.5, 11);
        for (const piece of line) this.text(piece.text, x + piece.x, baseline, { size: 8.5, weight: piece.label ? 'bold' : 'regular', color: piece.label ? MUTED : INK });
        y += 11;
      }
      y += this.paragraph(explanation, x, y, 11, { size: 8.5, color: MUTED });
      this.y = y + 6;
    };
    return { height, draw };
  }

  /**
   * Facts as lines of label and value pieces (x from the line's start): short facts side by side, a
   * long value wrapped under itself after its label (at most three lines).
   */
  private factLines(facts: GroupModel['facts'], width: number): { text: string; x: number; label: boolean }[][] {
    const lines: { text: string; x: number; label: boolean }[][] = [];
    let line: { text: string; x: number; label: boolean }[] = [];
    let used = 0;
    for (const fact of facts) {
      const labelWidth = this.type.width(fact.label, 8.5, 'bold') + 5;
      const valueWidth = this.type.width(clean(clip(fact.value)), 8.5, 'regular');
      const start = line.length ? used + FACT_GAP : 0;
      if (start + labelWidth + valueWidth <= width) {
        line.push({ text: fact.label, x: start, label: true }, { text: fact.value, x: start + labelWidth, label: false });
        used = start + labelWidth + valueWidth;
        continue;
      }
      if (line.length) lines.push(line);
      const values = this.type.wrap(fact.value, width - labelWidth, 8.5, 'regular', 3);
      values.forEach((value, index) => lines.push([...(index ? [] : [{ text: fact.label, x: 0, label: true }]), { text: value, x: labelWidth, label: false }]));
      line = [];
      used = 0;
    }
    if (line.length) lines.push(line);
    return lines;
  }

  private tableHeader(table: Table): void {
    this.rect(MARGIN, this.y, CONTENT_WIDTH, table.headerHeight, table.headerFill);
    this.cells(table, table.header, CELL_SIZE, 'bold', INK);
    this.y += table.headerHeight;
    this.line(MARGIN, this.y, RIGHT, this.y, 1, table.color);
  }

  private cells(table: Table, cells: string[][], size: number, weight: Weight, color: RGB): void {
    let x = MARGIN;
    table.columns.forEach((column, index) => {
      const width = table.widths[index]!;
      const right = column.kind === 'number';
      const lines = cells[index]!;
      this.paragraph(lines, right ? x + width - CELL_PAD_X : x + CELL_PAD_X, this.y + CELL_PAD_Y, CELL_LINE, { size, weight, color, align: right ? 'right' : 'left' });
      x += width;
    });
  }

  // The cover, made last: its contents list needs the page numbers -------------------------------------

  cover(): void {
    this.ops = [];
    this.pages.unshift(this.ops);
    const { model, type } = this;
    const left = 56;
    const width = PAGE_WIDTH - 2 * left;

    const title = type.wrap(model.title, width, 30, 'bold', 3);
    const bandHeight = 96 + title.length * 36 + 44;
    this.rect(0, 0, PAGE_WIDTH, bandHeight, NAVY);
    this.text(type.fit(`${model.reportType} report`.toUpperCase(), width, 9.5, 'bold'), left, 64, { size: 9.5, weight: 'bold', color: PALE });
    this.paragraph(title, left, 80, 36, { size: 30, weight: 'bold', color: WHITE });
    this.text(type.fit(model.project.name, width, 15, 'regular'), left, bandHeight - 30, { size: 15, color: PALE });

    // Left: what the report is about. Right: what is in it.
    const detailsWidth = width * 0.5;
    const labelWidth = 92;
    const survey = [model.survey.tag ?? model.survey.id, model.survey.type && `(${model.survey.type})`].filter(Boolean).join(' ');
    const details: [string, string, Weight][] = [
      ['Project', model.project.name, 'bold'],
      ['Subject', model.subject, 'bold'],
      ['Survey', survey || 'none', 'regular'],
      ['Produced', this.producedLabel, 'regular'],
      ['Report ID', model.reportId, 'regular'],
    ];
    let top = bandHeight + 40;
    for (const [label, value, weight] of details) {
      const lines = type.wrap(value, detailsWidth - labelWidth, 12, weight, 2);
      this.text(label.toUpperCase(), left, top + baselineOffset(12, 17), { size: 8, weight: 'bold', color: MUTED });
      top += this.paragraph(lines, left + labelWidth, top, 17, { size: 12, weight }) + 12;
    }

    const contentsLeft = left + detailsWidth + 40;
    const contentsWidth = PAGE_WIDTH - left - contentsLeft;
    top = bandHeight + 40;
    this.text('CONTENTS', contentsLeft, top + baselineOffset(12, 17), { size: 8, weight: 'bold', color: MUTED });
    top += 22;
    // As many entries as fit above the bottom margin; the last line says how many more there are.
    const fitting = Math.floor((PAGE_HEIGHT - 48 - top) / 24);
    const listed = this.contents.length <= fitting ? this.contents : this.contents.slice(0, Math.max(0, fitting - 1));
    for (const entry of listed) {
      const pageWidth = this.text(String(entry.page), PAGE_WIDTH - left, top + 12, { size: 10, weight: 'bold', align: 'right' });
      this.rect(contentsLeft, top + 4, 7, 7, entry.color);
      const room = contentsWidth - 14 - pageWidth - 12;
      const titleWidth = this.text(type.fit(entry.title, room * 0.72, 10, 'regular'), contentsLeft + 14, top + 12, { size: 10 });
      this.text(type.fit(entry.detail, room - titleWidth - 8, 8.5, 'regular'), contentsLeft + 14 + titleWidth + 8, top + 12, { size: 8.5, color: MUTED });
      this.line(contentsLeft, top + 19, PAGE_WIDTH - left, top + 19, 0.5, RULE);
      top += 24;
    }
    const unlisted = this.contents.length - listed.length;
    if (unlisted > 0) this.text(`and ${formatNumber(unlisted)} more sections`, contentsLeft + 14, top + 12, { size: 9, color: MUTED });
  }

  /** Page numbers and the report's identity on every page but the cover. */
  footers(): void {
    const total = this.pages.length;
    const widestPageLabel = this.type.width(`Page ${total} of ${total}`, 7.5, 'bold');
    const identity = this.type.fit(`Report ${this.model.reportId} · ${this.model.project.name} · ${this.model.subject}`, CONTENT_WIDTH - widestPageLabel - 24, 7.5, 'regular');
    const y = PAGE_HEIGHT - 24;
    this.pages.forEach((ops, index) => {
      if (index === 0) return;
      this.ops = ops;
      this.line(MARGIN, y - 12, RIGHT, y - 12, 0.5, RULE);
      this.text(`Page ${index + 1} of ${total}`, RIGHT, y, { size: 7.5, weight: 'bold', color: MUTED, align: 'right' });
      this.text(identity, MARGIN, y, { size: 7.5, color: MUTED });
    });
  }
}

/** A section's table: column widths (proportional to each column's width hint), header, cell lines. */
class Table {
  readonly widths: number[];
  readonly header: string[][];
  readonly headerHeight: number;
  readonly headerFill: RGB;

  constructor(
    private readonly type: Typesetter,
    readonly columns: Column[],
    readonly color: RGB,
    /** The most lines a cell takes. */
    private readonly maxLines = MAX_CELL_LINES,
  ) {
    const hints = columns.map((column) => (Number.isFinite(column.width) && column.width > 0 ? column.width : 10));
    // Wide enough for the header's longest word, so that headers break between words.
    const minimums = columns.map((column) => 2 * CELL_PAD_X + Math.max(0, ...clean(clip(column.header)).split(/\s+/).map((word) => type.width(word, CELL_SIZE, 'bold'))));
    this.widths = fitWidths(hints, minimums, CONTENT_WIDTH);
    this.header = columns.map((column, index) => type.wrap(column.header, this.widths[index]! - 2 * CELL_PAD_X, CELL_SIZE, 'bold', 3));
    this.headerHeight = this.rowHeight(this.header);
    this.headerFill = tint(color, 0.14);
  }

  cells(row: Record<string, Cell>): string[][] {
    return this.columns.map((column, index) => this.type.wrap(cellText(row[column.key] ?? null, column), this.widths[index]! - 2 * CELL_PAD_X, CELL_SIZE, 'regular', this.maxLines));
  }

  rowHeight(cells: string[][]): number {
    return Math.max(1, ...cells.map((lines) => lines.length)) * CELL_LINE + 2 * CELL_PAD_Y;
  }
}

// ---------------------------------------------------------------------------------------------------
// Small helpers.

/** From the top of a line box to the baseline of text of `size` centred in it. */
function baselineOffset(size: number, lineHeight: number): number {
  return (lineHeight - size) / 2 + size * 0.8;
}

function entriesLabel(count: number): string {
  return `${formatNumber(count)} ${count === 1 ? 'entry' : 'entries'}`;
}

function formatNumber(value: number): string {
  return Number.isFinite(value) ? GROUPED.format(value) : String(value);
}

/** `24 November 2026, 10:15 UTC`, or the string itself when it is not a timestamp. */
function formatTimestamp(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(date);
  return `${day}, ${date.toISOString().slice(11, 16)} UTC`;
}

function cellText(value: Cell, column: Column): string {
  if (value === null) return '';
  if (typeof value === 'number') return column.kind === 'number' ? formatNumber(value) : String(value);
  // Timestamps in date columns read as UTC minutes; plain dates stay as they are.
  if (column.kind === 'date' && value.includes('T')) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  }
  return value;
}

/** A CSS hex colour (`#c62828`, `#ccc`), grey when it is not one. */
function parseColor(hex: string): RGB {
  const match = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!match) return MUTED;
  const digits = match[1]!.length === 3 ? [...match[1]!].map((digit) => digit + digit).join('') : match[1]!;
  const channel = (offset: number) => Number.parseInt(digits.slice(offset, offset + 2), 16) / 255;
  return rgb(channel(0), channel(2), channel(4));
}

/** The colour darkened when it is too light for text on white (a yellow section's count). */
function readable(color: RGB): RGB {
  const luminance = 0.2126 * color.red + 0.7152 * color.green + 0.0722 * color.blue;
  return luminance > 0.5 ? rgb(color.red * 0.6, color.green * 0.6, color.blue * 0.6) : color;
}

/** The colour mixed with white: `amount` 0 is white, 1 the colour. */
function tint(color: RGB, amount: number): RGB {
  const mix = (channel: number) => 1 - (1 - channel) * amount;
  return rgb(mix(color.red), mix(color.green), mix(color.blue));
}

/** A step of 1, 2 or 5 times a power of ten giving about five ticks up to `max`. */
function niceStep(max: number): number {
  if (max <= 0) return 1;
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const normalized = raw / magnitude;
  const step = (normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10) * magnitude;
  // Counts have no fractional ticks unless the values are fractional themselves.
  return max >= 1 ? Math.max(1, step) : step;
}
