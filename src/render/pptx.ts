// The PPTX rendering of a report, a deck to talk over in a meeting: a title slide, a summary slide
// with the headline figures beside a native bar chart of the sections, then one slide per non-empty
// section with its most important groups (an algorithm with its deadline and what to move to, a
// component with its advisories and fix version), or its first entries when it is not grouped. Every
// entry lives in the XLSX and CSV; the deck says how many more there are.
import PptxGenJS from 'pptxgenjs';
import { cellText, formatDate, hexColor, parseIsoDate, textColorOn } from './cells';
import type { Column, RenderModel, SectionModel } from './model';

export { PPTX_TEMPLATE } from './templates';

/** Entries (or, in a grouped section, groups) shown per section slide. */
export const ENTRIES_PER_SLIDE = 8;
const MAX_TABLE_COLUMNS = 4;
/** What the chosen columns' width hints (characters) may add up to; the widest text column counts as at most WIDEST_BUDGET. */
const TABLE_WIDTH_BUDGET = 110;
const WIDEST_BUDGET = 40;
/** About how many characters of the table's 11 pt text fit in an inch (with room to spare for word wrapping), and how many lines a cell may take. */
const TABLE_FONT_SIZE = 11;
const CHARS_PER_INCH = 12.5;
const LINES_PER_CELL = 2;

// LAYOUT_WIDE: 13.333 x 7.5 inches.
const SLIDE_WIDTH = 13.333;
const MARGIN = 0.5;
const CONTENT_WIDTH = SLIDE_WIDTH - 2 * MARGIN;
const INK = '1F2933';
const MUTED = '5F6B7A';
const BRAND = '1F3A5F';
const CARD = 'F1F3F6';
const STRIPE = 'F6F7F9';
const FONT = 'Arial';

/** Renders the report as a PPTX deck. */
export async function renderPptx(model: RenderModel): Promise<Uint8Array> {
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_WIDE';
  pptx.author = 'posture-service';
  pptx.title = slideText(model.title);
  pptx.subject = slideText(model.subject);
  pptx.theme = { headFontFace: FONT, bodyFontFace: FONT };

  addTitleSlide(pptx, model);
  addSummarySlide(pptx, model);
  for (const section of model.sections) if (section.total > 0) addSectionSlide(pptx, model, section);

  // Only the STREAM output honours `compression` (a Buffer under nodejs_compat); without it the deck is ~25x larger.
  const deck = (await pptx.write({ outputType: 'STREAM', compression: true })) as Uint8Array;
  return new Uint8Array(deck.buffer, deck.byteOffset, deck.byteLength);
}

function addTitleSlide(pptx: PptxGenJS, model: RenderModel): void {
  const slide = pptx.addSlide();
  slide.addShape('rect', { x: 0, y: 0, w: 0.35, h: 7.5, fill: { color: BRAND }, line: { color: BRAND } });
  slide.addText(slideText(model.title), { x: 1, y: 1.7, w: 11.3, h: 1.3, fontSize: 36, bold: true, color: INK, valign: 'bottom', fontFace: FONT });
  slide.addText(slideText(model.project.name), { x: 1, y: 3.15, w: 11.3, h: 0.7, fontSize: 24, color: BRAND, fontFace: FONT });
  slide.addText(slideText(model.subject), { x: 1, y: 3.85, w: 11.3, h: 0.55, fontSize: 18, color: MUTED, fontFace: FONT });
  // The survey by its tag, else its id.
  const survey = [model.survey.tag ?? model.survey.id, model.survey.type].filter((part): part is string => Boolean(part)).map(slideText);
  const produced = parseIsoDate(model.producedAt);
  const lines = [survey.length > 0 ? `Survey ${survey.join(' · ')}` : null, `Produced ${produced ? formatDate(produced) : slideText(model.producedAt)}`];
  slide.addText(lines.filter((line): line is string => line !== null).join('\n'), { x: 1, y: 4.6, w: 11.3, h: 0.9, fontSize: 14, color: INK, valign: 'top', fontFace: FONT });
  slide.addText(`Report ${slideText(model.reportId)}`, { x: 1, y: 6.7, w: 11.3, h: 0.35, fontSize: 10, color: MUTED, fontFace: FONT });
}

function addSummarySlide(pptx: PptxGenJS, model: RenderModel): void {
  const slide = pptx.addSlide();
  addHeading(slide, 'Summary', slideText(model.title));

  // The figures as cards down the left (two columns when there are many), the chart on the right.
  const columns = model.figures.length > 5 ? 2 : 1;
  const rows = Math.max(1, Math.ceil(model.figures.length / columns));
  const area = { x: MARGIN, y: 1.35, w: 4.3, h: 4.7 };
  const gap = 0.15;
  const cardW = (area.w - gap * (columns - 1)) / columns;
  const cardH = Math.min(1.2, (area.h - gap * (rows - 1)) / rows);
  const valueSize = cardH >= 1 && columns === 1 ? 28 : 20;
  model.figures.forEach((figure, index) => {
    const x = area.x + (index % columns) * (cardW + gap);
    const y = area.y + Math.floor(index / columns) * (cardH + gap);
    const value = typeof figure.value === 'number' ? figure.value.toLocaleString('en-US') : slideText(figure.value);
    const runs: PptxGenJS.TextProps[] = [
      { text: value, options: { fontSize: valueSize, bold: true, color: INK, breakLine: true } },
      { text: slideText(figure.label), options: { fontSize: 13, color: INK, breakLine: Boolean(figure.detail) } },
    ];
    if (figure.detail) runs.push({ text: slideText(figure.detail), options: { fontSize: 11, color: MUTED } });
    slide.addText(runs, { x, y, w: cardW, h: cardH, fill: { color: CARD }, margin: 12, valign: 'middle', fontFace: FONT });
  });

  const bars = model.chart.bars;
  if (bars.length > 0) {
    slide.addChart(
      'bar',
      [{ name: slideText(model.chart.title), labels: bars.map((bar) => slideText(bar.label)), values: bars.map((bar) => bar.value) }],
      {
        x: 5.2,
        y: 1.3,
        w: 7.6,
        h: 4.8,
        barDir: 'col',
        barGapWidthPct: 60,
        chartColors: bars.map((bar) => hexColor(bar.color)),
        showTitle: true,
        title: slideText(model.chart.title),
        titleFontSize: 14,
        titleColor: INK,
        showLegend: false,
        showValue: true,
        dataLabelPosition: 'outEnd',
        dataLabelFontSize: 12,
        dataLabelColor: INK,
        dataLabelFormatCode: '#,##0',
        catAxisLabelFontSize: 12,
        catAxisLabelColor: INK,
        valAxisHidden: true,
        valGridLine: { style: 'none' },
      },
    );
  }

  if (model.notes.length > 0) {
    slide.addText(model.notes.map((note) => ({ text: slideText(note), options: { bullet: true, breakLine: true } })), {
      x: MARGIN,
      y: 6.25,
      w: CONTENT_WIDTH,
      h: 0.95,
      fontSize: 11,
      color: MUTED,
      valign: 'top',
      fontFace: FONT,
    });
  }
}

function addSectionSlide(pptx: PptxGenJS, model: RenderModel, section: SectionModel): void {
  const slide = pptx.addSlide();
  const color = hexColor(section.color);
  slide.addShape('rect', { x: MARGIN, y: 0.42, w: 0.16, h: 0.62, fill: { color }, line: { color } });
  slide.addText(slideText(section.title), { x: MARGIN + 0.3, y: 0.35, w: 9.3, h: 0.75, fontSize: 26, bold: true, color: INK, fontFace: FONT });
  slide.addText(`${section.total.toLocaleString('en-US')} ${section.total === 1 ? 'entry' : 'entries'}`, {
    x: 10.1, y: 0.45, w: 2.73, h: 0.55, fontSize: 16, color: MUTED, align: 'right', fontFace: FONT,
  });
  slide.addText(slideText(section.description), { x: MARGIN + 0.3, y: 1.05, w: CONTENT_WIDTH - 0.3, h: 0.5, fontSize: 14, color: MUTED, fontFace: FONT });

  const table = section.groups ? groupTable(section.groups) : entryTable(section);
  const widths = table.weights.map((weight) => (weight / table.weights.reduce((sum, w) => sum + w, 0)) * CONTENT_WIDTH);
  const textColor = textColorOn(color);
  const header: PptxGenJS.TableRow = table.headers.map((cell) => ({
    text: slideText(cell.text),
    options: { bold: true, color: textColor, fill: { color }, align: cell.right ? 'right' : 'left' },
  }));
  const body: PptxGenJS.TableRow[] = table.rows.map((row, rowIndex) =>
    row.map((cell, columnIndex) => ({
      text: shorten(slideText(cell), Math.floor(widths[columnIndex]! * CHARS_PER_INCH * LINES_PER_CELL)),
      options: { align: table.headers[columnIndex]!.right ? 'right' : 'left', fill: { color: rowIndex % 2 === 1 ? STRIPE : 'FFFFFF' } },
    })),
  );
  slide.addTable([header, ...body], {
    x: MARGIN,
    y: 1.7,
    w: CONTENT_WIDTH,
    colW: widths,
    fontSize: TABLE_FONT_SIZE,
    fontFace: FONT,
    color: INK,
    valign: 'top',
    margin: [0.04, 0.07, 0.04, 0.07], // inches (table cells), unlike a text box's points
    border: { type: 'solid', pt: 0.5, color: 'D5D9DF' },
    autoPage: false,
  });

  if (table.more) {
    slide.addText(table.more, { x: MARGIN, y: 6.45, w: 10, h: 0.4, fontSize: 13, italic: true, color: MUTED, fontFace: FONT });
  }
  slide.addText(`${slideText(model.project.name)} · ${slideText(model.title)}`, { x: MARGIN, y: 6.95, w: 10, h: 0.3, fontSize: 9, color: MUTED, fontFace: FONT });
  slide.slideNumber = { x: 12.2, y: 6.95, w: 0.63, h: 0.3, fontSize: 9, color: MUTED, align: 'right' };
}

/** A slide's table: header cells, body cells as text, a weight per column, and what it leaves out. */
interface SlideTable {
  headers: { text: string; right: boolean }[];
  rows: string[][];
  weights: number[];
  more: string | null;
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The section's first entries in the columns a slide has room for. */
function entryTable(section: SectionModel): SlideTable {
  const columns = tableColumns(section.columns);
  const shown = section.rows.slice(0, ENTRIES_PER_SLIDE);
  const more = section.total - shown.length;
  return {
    headers: columns.map((column) => ({ text: column.header, right: column.kind === 'number' })),
    rows: shown.map((row) => columns.map((column) => cellText(row[column.key], column))),
    weights: columns.map((column) => Math.min(Math.max(column.width, 8), 60)),
    more: more > 0 ? `${more.toLocaleString('en-US')} more in the XLSX/CSV export` : null,
  };
}

/**
 * The section's most important groups: what each names, how many entries it holds, the facts it shares
 * (a deadline and what to move to, a fix version and score) and, when its entries name it, the first of
 * them (a component's advisories). Column weights follow the longest text shown, within bounds.
 */
function groupTable(groups: NonNullable<SectionModel['groups']>): SlideTable {
  const shown = groups.list.slice(0, ENTRIES_PER_SLIDE);
  const labels = [...new Set(shown.flatMap((group) => group.facts.map((fact) => fact.label)))];
  const members = groups.members;
  const headers = [
    { text: groups.title, right: false },
    { text: 'Entries', right: true },
    ...labels.map((label) => ({ text: label, right: false })),
    ...(members ? [{ text: members.header, right: false }] : []),
  ];
  // Two groups of one title (a module and a package of one Go module) are told apart by their detail.
  const titles = shown.map((group) => group.title);
  const repeated = new Set(titles.filter((title, index) => titles.indexOf(title) !== index));
  const rows = shown.map((group) => [
    group.detail && (!members || repeated.has(group.title)) ? `${group.title} (${group.detail})` : group.title,
    group.total.toLocaleString('en-US'),
    ...labels.map((label) => group.facts.find((fact) => fact.label === label)?.value ?? ''),
    // A digest (src/render/report-model.ts) keeps a group's first entries: the others are counted on the row.
    ...(members ? [group.rows.map((row) => String(row[members.key] ?? '')).filter(Boolean).join(', ') + (group.total > group.rows.length ? ', …' : '')] : []),
  ]);
  const weights = headers.map((header, index) => Math.min(Math.max(header.text.length + 2, ...rows.map((row) => row[index]!.length)), 60));
  const hidden = groups.list.slice(shown.length);
  const hiddenEntries = hidden.reduce((sum, group) => sum + group.total, 0);
  return { headers, rows, weights, more: hidden.length ? `${count(hidden.length, 'more group', 'more groups')} (${count(hiddenEntries, 'entry', 'entries')}) in the XLSX/CSV export` : null };
}

function addHeading(slide: PptxGenJS.Slide, heading: string, overline: string): void {
  slide.addText(overline, { x: MARGIN, y: 0.3, w: CONTENT_WIDTH, h: 0.35, fontSize: 12, color: MUTED, fontFace: FONT });
  slide.addText(heading, { x: MARGIN, y: 0.6, w: CONTENT_WIDTH, h: 0.6, fontSize: 28, bold: true, color: INK, fontFace: FONT });
}

/**
 * The columns a slide has room for, in the model's order: the first (the entry's name), the widest
 * text column (its explanation, shortened), then the narrowest others while their width hints fit:
 * dates, numbers and short codes say the most per inch.
 */
function tableColumns(columns: Column[]): Column[] {
  if (columns.length <= MAX_TABLE_COLUMNS) return columns;
  const [first, ...rest] = columns;
  const widest = rest.filter((column) => column.kind === 'text').reduce<Column | undefined>((best, column) => (!best || column.width > best.width ? column : best), undefined);
  const chosen = new Set([first!, ...(widest ? [widest] : [])]);
  let used = first!.width + Math.min(widest?.width ?? 0, WIDEST_BUDGET);
  // Array.prototype.sort is stable: columns of the same width keep the model's order.
  for (const column of rest.filter((other) => other !== widest).sort((a, b) => a.width - b.width)) {
    if (chosen.size >= MAX_TABLE_COLUMNS) break;
    if (used + column.width > TABLE_WIDTH_BUDGET) continue;
    chosen.add(column);
    used += column.width;
  }
  return columns.filter((column) => chosen.has(column));
}

/** Text for a slide: one line, no control characters (raw, they would make the slide XML invalid). */
function slideText(text: string): string {
  return text
    .replace(/[\t\n\r]+/g, ' ')
    .replace(/[\x00-\x1f\x7f\ufffe\uffff]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** The text cut at a word boundary to at most `max` characters, an ellipsis marking the cut. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1).replace(/[\ud800-\udbff]$/, ''); // never half a surrogate pair
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}
