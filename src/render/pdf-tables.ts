// A report's sections in the PDF (src/render/pdf.ts): each one's heading, then its entries as a table
// whose header repeats after each page break, or, for a grouped section, each group's heading (what
// its entries share, once) above its first entries. What is left out is said, with where it is.
import type { RGB } from 'pdf-lib';
import { fitWidths } from './cells';
import type { Cell, Column, GroupModel, SectionModel } from './model';
import type { PdfPages } from './pdf-pages';
import { BODY_BOTTOM, baselineOffset, cellText, CONTENT_WIDTH, entriesLabel, formatNumber, INK, MARGIN, MUTED, parseColor, readable, RIGHT, RULE, tint, ZEBRA } from './pdf-style';
import { clean, clip, type Typesetter, type Weight } from './pdf-type';

/** Rows of a section the PDF shows; the XLSX and CSV documents carry every entry. */
export const PDF_MAX_SECTION_ROWS = 500;
/** In a grouped section: the groups the PDF shows, most important first, and the entries of each. */
export const PDF_MAX_SECTION_GROUPS = 60;
export const PDF_GROUP_ROWS = 10;

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

/** A section: its heading (title, count, description), then its entries; on a new page unless there is room for its start. */
export function sectionPages(p: PdfPages, section: SectionModel): void {
  const color = parseColor(section.color);
  const grouped = section.groups;
  const table = grouped ? new Table(p.type, grouped.columns, color, GROUP_CELL_LINES) : new Table(p.type, section.columns, color);
  const count = entriesLabel(section.total);
  const countWidth = p.type.width(count, 9, 'bold');
  const title = p.type.wrap(section.title, CONTENT_WIDTH - countWidth - 30, 13, 'bold', 3);
  const description = p.type.wrap(section.description, CONTENT_WIDTH - 12, 9, 'regular', 6);
  const headingHeight = title.length * 17 + description.length * 12 + 10;
  const firstGroup = grouped?.list[0];
  const firstRow = section.rows[0] ? table.rowHeight(table.cells(section.rows[0])) : 14;
  const start = headingHeight + (firstGroup ? groupHeading(p, firstGroup, color).height : 0) + (section.rows.length ? table.headerHeight : 0) + firstRow;

  // Each section starts on a fresh page after the summary, later ones where there is room for a start.
  const gap = 18;
  if (p.pages.length === 1 || p.y + gap + start > BODY_BOTTOM) p.newPage();
  else p.y += gap;
  p.contents.push({ title: section.title, detail: count, color, page: p.pageNumber });

  p.rect(MARGIN, p.y, 4, headingHeight - 8, color);
  p.text(count, RIGHT, p.y + 13, { size: 9, weight: 'bold', color: readable(color), align: 'right' });
  p.y += p.paragraph(title, MARGIN + 12, p.y, 17, { size: 13, weight: 'bold' });
  p.y += p.paragraph(description, MARGIN + 12, p.y, 12, { size: 9, color: MUTED });
  p.y += 10;

  if (!section.rows.length) {
    p.text('No entries.', MARGIN, p.y + 10, { size: 9, color: MUTED });
    p.y += 16;
    return;
  }
  if (grouped) {
    groupedEntries(p, section, grouped.list, table, color);
    return;
  }
  const shown = section.rows.slice(0, PDF_MAX_SECTION_ROWS);
  tableRows(p, shown, table, `${section.title} (continued)`);
  const more = section.total - shown.length;
  if (more > 0) moreNote(p, `${formatNumber(more)} more ${more === 1 ? 'entry' : 'entries'} in the XLSX and CSV documents.`);
}

/** A table of rows under its header, the header again after each page break (under `continued`). */
function tableRows(p: PdfPages, rows: Record<string, Cell>[], table: Table, continued: string): void {
  tableHeader(p, table);
  rows.forEach((row, index) => {
    const cells = table.cells(row);
    const height = table.rowHeight(cells);
    if (p.y + height > BODY_BOTTOM) {
      p.newPage();
      p.text(p.type.fit(continued, CONTENT_WIDTH, 9, 'bold'), MARGIN, p.y + 9, { size: 9, weight: 'bold', color: MUTED });
      p.y += 16;
      tableHeader(p, table);
    }
    if (index % 2 === 1) p.rect(MARGIN, p.y, CONTENT_WIDTH, height, ZEBRA);
    drawCells(p, table, cells, CELL_SIZE, 'regular', INK);
    p.y += height;
  });
  p.line(MARGIN, p.y, RIGHT, p.y, 0.5, RULE);
  p.y += 4;
}

/** Says what was left out of the section, and where it is. */
function moreNote(p: PdfPages, note: string): void {
  p.ensure(18);
  p.text(p.type.fit(note, CONTENT_WIDTH, 9, 'bold'), MARGIN, p.y + 12, { size: 9, weight: 'bold', color: MUTED });
  p.y += 18;
}

/** A grouped section: each group's heading (what its entries share, once), then its first entries. */
function groupedEntries(p: PdfPages, section: SectionModel, groups: GroupModel[], table: Table, color: RGB): void {
  const shownGroups = groups.slice(0, PDF_MAX_SECTION_GROUPS);
  for (const group of shownGroups) {
    const heading = groupHeading(p, group, color);
    const shown = group.rows.slice(0, PDF_GROUP_ROWS);
    p.ensure(heading.height + table.headerHeight + table.rowHeight(table.cells(shown[0]!)));
    heading.draw();
    tableRows(p, shown, table, `${section.title} · ${group.title} (continued)`);
    const more = group.total - shown.length;
    if (more > 0) {
      p.text(p.type.fit(`and ${formatNumber(more)} more ${more === 1 ? 'entry' : 'entries'} of ${group.title} in the XLSX and CSV documents`, CONTENT_WIDTH - 12, 8.5, 'regular'), MARGIN + 12, p.y + 9, { size: 8.5, color: MUTED });
      p.y += 14;
    }
  }
  const hidden = groups.slice(shownGroups.length);
  const hiddenEntries = hidden.reduce((sum, group) => sum + group.total, 0);
  if (hidden.length) moreNote(p, `${formatNumber(hidden.length)} more ${hidden.length === 1 ? 'group' : 'groups'} (${entriesLabel(hiddenEntries)}) in the XLSX and CSV documents.`);
}

/** A group's heading, measured: its title and count, shared facts (label and value), its explanation. */
function groupHeading(p: PdfPages, group: GroupModel, color: RGB): { height: number; draw: () => void } {
  const count = entriesLabel(group.total);
  const countWidth = p.type.width(count, 9, 'bold');
  const detailWidth = group.detail ? Math.min(CONTENT_WIDTH / 3, p.type.width(group.detail, 8.5, 'regular') + 8) : 0;
  const titleWidth = CONTENT_WIDTH - GROUP_INDENT - countWidth - detailWidth - 16;
  const title = p.type.wrap(group.title, titleWidth, 10.5, 'bold', 2);
  const facts = factLines(p, group.facts, CONTENT_WIDTH - GROUP_INDENT);
  const explanation = group.explanation ? p.type.wrap(group.explanation, CONTENT_WIDTH - GROUP_INDENT, 8.5, 'regular', 5) : [];
  const height = 8 + title.length * 14 + facts.length * 11 + explanation.length * 11 + 6;
  const draw = () => {
    const top = p.y + 8;
    p.rect(MARGIN, top, 3, height - 10, tint(color, 0.7));
    let y = top;
    const x = MARGIN + GROUP_INDENT;
    const firstWidth = p.type.width(title[0] ?? '', 10.5, 'bold');
    y += p.paragraph(title, x, y, 14, { size: 10.5, weight: 'bold' });
    if (group.detail) p.text(p.type.fit(group.detail, detailWidth - 8, 8.5, 'regular'), x + firstWidth + 8, top + baselineOffset(10.5, 14), { size: 8.5, color: MUTED });
    p.text(count, RIGHT, top + baselineOffset(10.5, 14), { size: 9, weight: 'bold', color: readable(color), align: 'right' });
    for (const line of facts) {
      const baseline = y + baselineOffset(8.5, 11);
      for (const piece of line) p.text(piece.text, x + piece.x, baseline, { size: 8.5, weight: piece.label ? 'bold' : 'regular', color: piece.label ? MUTED : INK });
      y += 11;
    }
    y += p.paragraph(explanation, x, y, 11, { size: 8.5, color: MUTED });
    p.y = y + 6;
  };
  return { height, draw };
}

/**
 * Facts as lines of label and value pieces (x from the line's start): short facts side by side, a
 * long value wrapped under itself after its label (at most three lines).
 */
function factLines(p: PdfPages, facts: GroupModel['facts'], width: number): { text: string; x: number; label: boolean }[][] {
  const lines: { text: string; x: number; label: boolean }[][] = [];
  let line: { text: string; x: number; label: boolean }[] = [];
  let used = 0;
  for (const fact of facts) {
    const labelWidth = p.type.width(fact.label, 8.5, 'bold') + 5;
    const valueWidth = p.type.width(clean(clip(fact.value)), 8.5, 'regular');
    const start = line.length ? used + FACT_GAP : 0;
    if (start + labelWidth + valueWidth <= width) {
      line.push({ text: fact.label, x: start, label: true }, { text: fact.value, x: start + labelWidth, label: false });
      used = start + labelWidth + valueWidth;
      continue;
    }
    if (line.length) lines.push(line);
    const values = p.type.wrap(fact.value, width - labelWidth, 8.5, 'regular', 3);
    values.forEach((value, index) => lines.push([...(index ? [] : [{ text: fact.label, x: 0, label: true }]), { text: value, x: labelWidth, label: false }]));
    line = [];
    used = 0;
  }
  if (line.length) lines.push(line);
  return lines;
}

function tableHeader(p: PdfPages, table: Table): void {
  p.rect(MARGIN, p.y, CONTENT_WIDTH, table.headerHeight, table.headerFill);
  drawCells(p, table, table.header, CELL_SIZE, 'bold', INK);
  p.y += table.headerHeight;
  p.line(MARGIN, p.y, RIGHT, p.y, 1, table.color);
}

function drawCells(p: PdfPages, table: Table, cells: string[][], size: number, weight: Weight, color: RGB): void {
  let x = MARGIN;
  table.columns.forEach((column, index) => {
    const width = table.widths[index]!;
    const right = column.kind === 'number';
    const lines = cells[index]!;
    p.paragraph(lines, right ? x + width - CELL_PAD_X : x + CELL_PAD_X, p.y + CELL_PAD_Y, CELL_LINE, { size, weight, color, align: right ? 'right' : 'left' });
    x += width;
  });
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
