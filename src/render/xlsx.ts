// The XLSX rendering of a report: a Summary sheet, then one sheet per list section holding every
// entry with real numbers and dates under a frozen, filterable header. exceljs writes the workbook
// with the sections' header rows; their entries are streamed in after it (xlsx-rows.ts), and the render
// queue writes the package to R2 as it is compressed (streamXlsx). Every string is a string cell, so
// `=HYPERLINK(...)` and friends stay text: no formula is ever written.
import ExcelJS from 'exceljs';
import { hexColor, isWholeDay, numericValue, parseIsoDate, textColorOn } from './cells';
import type { Cell, Column, RenderModel, SectionModel } from './model';
import { excelText, inExcelRange, LINE_HEIGHT, leftOutNote, listedEntries, packageChunks, SHEET_ROWS, withSectionRows, wrappedLines, type SectionSheet } from './xlsx-rows';

export { XLSX_TEMPLATE } from './templates';

const MAX_COLUMN_WIDTH = 60;
/** Columns at least this wide (in characters) wrap their text instead of running on. */
const WRAP_FROM_WIDTH = 20;
/** Excel's default font; fonts without a name fall back to a serif in LibreOffice. */
const FONT = { name: 'Calibri', size: 11 };
/** Printed (and converted to PDF) across the page width, as many pages down as it takes. */
const PAGE_SETUP: Partial<ExcelJS.PageSetup> = { orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 };
const DAY_FORMAT = 'yyyy-mm-dd';
const TIME_FORMAT = 'yyyy-mm-dd hh:mm "UTC"';
const HEADING_FILL: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8EAED' } };

export interface XlsxOptions {
  /** The rows a sheet may have, its header included (Excel's limit; lowered by tests). */
  sheetRows?: number;
}

/** Renders the report as an XLSX workbook, whole. */
export async function renderXlsx(model: RenderModel, options: XlsxOptions = {}): Promise<Uint8Array> {
  const { skeleton, sheets } = await workbookSkeleton(model, options.sheetRows ?? SHEET_ROWS);
  return withSectionRows(skeleton, sheets);
}

/**
 * renderXlsx for the render queue: the package as chunks of bytes as they are compressed, the rows of
 * a section not held in the model (`everyRow`) read page by page as they are written.
 */
export async function* streamXlsx(model: RenderModel, options: XlsxOptions = {}): AsyncGenerator<Uint8Array> {
  const { skeleton, sheets } = await workbookSkeleton(model, options.sheetRows ?? SHEET_ROWS);
  yield* packageChunks(skeleton, sheets);
}

/** The workbook exceljs writes (Summary, styles, each section's sheet with its header), and the sheets whose rows go in after. */
async function workbookSkeleton(model: RenderModel, sheetRows: number): Promise<{ skeleton: Uint8Array; sheets: SectionSheet[] }> {
  const workbook = new ExcelJS.Workbook();
  const parsed = parseIsoDate(model.producedAt);
  const produced = parsed && inExcelRange(parsed) ? parsed : null;
  workbook.creator = 'posture-service';
  workbook.title = excelText(model.title);
  if (produced) workbook.created = workbook.modified = produced;

  const sheetNames = uniqueSheetNames(model.sections);
  writeSummary(workbook.addWorksheet('Summary'), model, produced, sheetNames, sheetNotes(model, sheetNames, sheetRows));
  const sheets = model.sections.map((section, index) => addSectionSheet(workbook, sheetNames[index]!, section, sheetRows));

  const skeleton = await workbook.xlsx.writeBuffer();
  return { skeleton: new Uint8Array(skeleton as ArrayBuffer), sheets };
}

/** What the Summary says of sheets that are not the whole section as it reads grouped: too large to group, or to fit a sheet. */
function sheetNotes(model: RenderModel, sheetNames: string[], sheetRows: number): string[] {
  return model.sections.flatMap((section, index) => {
    const notes: string[] = [];
    if (section.everyRow) notes.push(`${sheetNames[index]}: ${section.total.toLocaleString('en-US')} entries, too many to group: listed in the order the report stores them.`);
    const entries = entriesOf(section);
    const listed = listedEntries(entries, sheetRows);
    if (listed < entries) notes.push(`${sheetNames[index]}: ${leftOutNote(entries, listed, sheetRows)}`);
    return notes;
  });
}

/** The Summary sheet's column widths (characters): labels, values, counts, explanations. */
const SUMMARY_WIDTHS = [28, 44, 14, 64];

function writeSummary(sheet: ExcelJS.Worksheet, model: RenderModel, produced: Date | null, sheetNames: string[], extraNotes: string[]): void {
  sheet.views = [{ showGridLines: false }];
  sheet.pageSetup = { ...PAGE_SETUP };
  sheet.columns = SUMMARY_WIDTHS.map((width) => ({ width, style: { font: FONT } }));
  const add = (values: ExcelJS.CellValue[]) => sheet.addRow(values);
  const heading = (text: string) => {
    add([]);
    add([excelText(text)]).font = { ...FONT, bold: true, size: 13 };
  };
  const tableHeader = (values: string[]) => {
    const row = add(values);
    row.font = { ...FONT, bold: true };
    values.forEach((_, index) => (row.getCell(index + 1).fill = HEADING_FILL));
  };
  /**
   * Wraps the row's cell `column` (1-based) over `span` columns and makes the row tall enough for it:
   * neither Excel nor LibreOffice grows a row to fit wrapped text on opening.
   */
  const wrap = (row: ExcelJS.Row, column: number, span = 1) => {
    if (span > 1) sheet.mergeCells(row.number, column, row.number, column + span - 1);
    // A tall row reads from the top in every cell.
    row.eachCell((other) => (other.alignment = { ...other.alignment, vertical: 'top' }));
    const cell = row.getCell(column);
    cell.alignment = { ...cell.alignment, wrapText: true, vertical: 'top' };
    const width = SUMMARY_WIDTHS.slice(column - 1, column - 1 + span).reduce((sum, w) => sum + w, 0);
    const lines = wrappedLines(typeof cell.value === 'string' ? cell.value : null, width);
    if (lines > 1) row.height = Math.max(row.height ?? 0, lines * LINE_HEIGHT);
  };

  add([excelText(model.title)]).font = { ...FONT, bold: true, size: 16 };
  add([]);
  const text = (value: string | null) => (value === null ? null : excelText(value));
  const details: [string, ExcelJS.CellValue][] = [
    ['Project', excelText(model.project.name)],
    ['Subject', excelText(model.subject)],
    // The survey by its id and target; its tag, when it has one, on a row of its own.
    ['Survey', text(model.survey.id) ?? 'none'],
    ['Target', text(model.survey.target) ?? 'none'],
    ['Tag', text(model.survey.tag) ?? 'none'],
    ['Survey type', text(model.survey.type)],
    ['Produced', produced ?? excelText(model.producedAt)],
    ['Report', excelText(model.reportId)],
    ['Report type', excelText(model.reportType)],
  ];
  for (const [label, value] of details) {
    const row = add([label, value]);
    row.getCell(1).font = { ...FONT, bold: true };
    row.getCell(2).alignment = { horizontal: 'left' };
    if (value instanceof Date) row.getCell(2).numFmt = TIME_FORMAT;
    wrap(row, 2, 3);
  }

  heading('Headline figures');
  tableHeader(['Figure', 'Value', 'Detail']);
  for (const figure of model.figures) {
    const value = figureValue(figure.value);
    const row = add([excelText(figure.label), value, excelText(figure.detail ?? '')]);
    if (value instanceof Date) row.getCell(2).numFmt = DAY_FORMAT;
    row.getCell(2).alignment = { horizontal: 'left' };
    wrap(row, 3, 2);
  }

  heading(model.chart.title);
  tableHeader(['Label', 'Value']);
  for (const bar of model.chart.bars) add([excelText(bar.label), bar.value]).getCell(2).alignment = { horizontal: 'left' };

  heading('Sheets');
  tableHeader(['Sheet', 'Section', 'Entries', 'What it means']);
  model.sections.forEach((section, index) => {
    const row = add([sheetNames[index]!, excelText(section.title), section.total, excelText(section.description)]);
    row.getCell(3).alignment = { horizontal: 'left', vertical: 'top' };
    wrap(row, 2);
    wrap(row, 4);
  });

  const notes = [...model.notes, ...extraNotes];
  if (notes.length > 0) {
    heading('Notes');
    for (const note of notes) wrap(add([excelText(note)]), 1, SUMMARY_WIDTHS.length);
  }
}

/** The section's sheet without its entries: columns and their styles, header, pane, filter. */
function addSectionSheet(workbook: ExcelJS.Workbook, name: string, section: SectionModel, sheetRows: number): SectionSheet {
  const color = hexColor(section.color);
  const sheet = workbook.addWorksheet(name, {
    properties: { tabColor: { argb: `FF${color}` } },
    views: [{ state: 'frozen', ySplit: 1 }],
    pageSetup: { ...PAGE_SETUP, printTitlesRow: '1:1' },
  });
  const widths = section.columns.map((column) => Math.min(Math.max(column.width, column.header.length + 4), MAX_COLUMN_WIDTH));
  const wraps = section.columns.map((column, index) => column.kind === 'text' && widths[index]! >= WRAP_FROM_WIDTH);
  sheet.columns = section.columns.map((column, index) => {
    const style: Partial<ExcelJS.Style> = { font: FONT, alignment: { vertical: 'top', wrapText: wraps[index] } };
    if (column.kind === 'date') style.numFmt = hasTimeOfDay(section.rows, column) ? TIME_FORMAT : DAY_FORMAT;
    return { header: excelText(column.header), key: column.key, width: widths[index], style };
  });

  const header = sheet.getRow(1);
  header.font = { ...FONT, bold: true, color: { argb: `FF${textColorOn(color)}` } };
  header.alignment = { vertical: 'middle' };
  section.columns.forEach((_, index) => {
    header.getCell(index + 1).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: `FF${color}` } };
  });
  const entries = entriesOf(section);
  const listed = listedEntries(entries, sheetRows);
  if (section.columns.length > 0) sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: listed + 1, column: section.columns.length } };
  return { path: `xl/worksheets/sheet${sheet.id}.xml`, section, wrapWidths: widths.map((width, index) => (wraps[index] ? width : null)), entries, listed, sheetRows };
}

/** The entries a section's sheet lists: the rows the model holds, or every one of a section read as it is written. */
function entriesOf(section: SectionModel): number {
  return section.everyRow ? section.total : section.rows.length;
}

/** A headline figure's value: a number or a date (one Excel can show) when it is one, else its text. */
function figureValue(value: number | string): ExcelJS.CellValue {
  const date = parseIsoDate(String(value));
  return numericValue(value) ?? (date && inExcelRange(date) ? date : null) ?? excelText(String(value));
}

/** Whether any of the column's dates has a time of day (then the column shows times too). */
function hasTimeOfDay(rows: Record<string, Cell>[], column: Column): boolean {
  return rows.some((row) => {
    const value = row[column.key];
    const date = typeof value === 'string' ? parseIsoDate(value) : null;
    return date !== null && !isWholeDay(date);
  });
}

/** Sheet names for the sections: Excel's rules (31 characters, no `[]:*?/\`, unique ignoring case). */
function uniqueSheetNames(sections: SectionModel[]): string[] {
  // `History` is reserved by Excel.
  const taken = new Set(['summary', 'history']);
  return sections.map((section) => {
    // `Red: quantum-vulnerable or broken` -> `Red`: the part before a colon is the section's name.
    const wanted = sheetName(section.title.split(':')[0] ?? '') || sheetName(section.name) || 'Section';
    let name = wanted;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${truncateWords(wanted, 31 - ` (${n})`.length)} (${n})`;
    taken.add(name.toLowerCase());
    return name;
  });
}

function sheetName(text: string): string {
  // A sheet name may not start or end with an apostrophe either.
  const cleaned = text.replace(/[\x00-\x1f[\]:*?/\\]/g, ' ').replace(/\s+/g, ' ').trim();
  return truncateWords(cleaned, 31).replace(/^'+|'+$/g, '');
}

function truncateWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max).replace(/[\ud800-\udbff]$/, ''); // never half a surrogate pair
  const space = cut.lastIndexOf(' ');
  return (space > max / 2 ? cut.slice(0, space) : cut).trim();
}
