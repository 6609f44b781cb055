// The HTML document of a report: one self-contained file (inline CSS, no script, nothing fetched) that
// reads well on screen and prints cleanly. A grouped section shows each group's heading (what its
// entries share, once) with all its entries under it. Every model value is escaped where it is
// written, and the only model values that reach CSS are colours checked to be `#rrggbb`.
import { fitWidths, formatDate, parseIsoDate } from './cells';
import type { Cell, Column, GroupModel, RenderModel, SectionModel } from './model';

export { HTML_TEMPLATE } from './templates';

/** Rows per yielded chunk (about 150 KB of markup), so a large report is never one string in memory. */
const ROWS_PER_CHUNK = 200;

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
const FALLBACK_COLOR = '#757575';

// `'` and `"` too, so the same function is safe in double- or single-quoted attributes. A raw CR would
// come back as LF (HTML parsers normalise line ends), so it is written as a character reference.
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '\r': '&#13;' };
const NEEDS_ESCAPE = /[&<>"'\r]/g;

function escapeHtml(value: string): string {
  return value.replace(NEEDS_ESCAPE, (char) => HTML_ESCAPES[char]!);
}

/** A model colour, or grey when it is anything but `#rrggbb` (so it can never carry CSS or markup). */
function safeColor(color: string): string {
  return HEX_COLOR.test(color) ? color : FALLBACK_COLOR;
}

// As the other formats show numbers (`toLocaleString('en-US')`), made once rather than per cell.
const numberFormat = new Intl.NumberFormat('en-US');

function formatValue(value: number | string): string {
  return escapeHtml(typeof value === 'number' ? numberFormat.format(value) : value);
}

function entriesLabel(count: number): string {
  return `${numberFormat.format(count)} ${count === 1 ? 'entry' : 'entries'}`;
}

function moreLabel(count: number): string {
  return `${numberFormat.format(count)} more ${count === 1 ? 'entry' : 'entries'}`;
}

/** `2026-11-24 10:15 UTC` for an ISO timestamp; anything else as written. */
function formatProducedAt(producedAt: string): string {
  const time = parseIsoDate(producedAt);
  return time ? formatDate(time) : producedAt;
}

// Ids come from the section's position, never from its name, so no model value lands in an id or a link.
const sectionId = (index: number) => `section-${index + 1}`;

const STYLE = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #5b6470; --rule: #d8dde3; --panel: #f5f7f9; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--ink); background: #fff; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 32px 28px 64px; }
h1, h2 { line-height: 1.25; margin: 0; }
h1 { font-size: 28px; }
h2 { font-size: 20px; }
a { color: #0b57d0; }
.report-header { border-bottom: 3px solid var(--ink); padding-bottom: 16px; margin-bottom: 24px; }
.eyebrow { margin: 0 0 4px; color: var(--muted); font-size: 13px; letter-spacing: .06em; text-transform: uppercase; }
.meta { display: flex; flex-wrap: wrap; gap: 10px 40px; margin: 16px 0 0; }
.meta div { min-width: 0; max-width: 100%; }
.meta dt { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; margin: 0 0 20px; }
.figure { background: var(--panel); border: 1px solid var(--rule); border-radius: 8px; padding: 14px 16px; min-width: 0; }
.figure-label { color: var(--muted); font-size: 13px; }
.figure-value { font-size: 28px; font-weight: 650; line-height: 1.2; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.figure-detail { color: var(--muted); font-size: 13px; }
.notes { margin: 0 0 28px; padding-left: 20px; color: var(--muted); font-size: 14px; }
.block { margin: 0 0 28px; min-width: 0; }
.block > h2 { margin-bottom: 12px; }
/* The chart and the contents side by side when there is room, so the summary fits one printed page. */
.overview { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 0 40px; }
.bars { list-style: none; margin: 0; padding: 0; }
.bars li { display: grid; grid-template-columns: minmax(90px, 180px) 1fr 70px; gap: 12px; align-items: center; padding: 4px 0; }
.bar-label { overflow-wrap: anywhere; }
.bar-track { height: 18px; background: var(--panel); border-radius: 3px; overflow: hidden; }
/* The bars are data, not decoration: they print even when the browser drops backgrounds. */
.bar-fill { display: block; height: 100%; min-width: 2px; border-radius: 3px; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.bar-fill.zero { min-width: 0; }
.bar-value { text-align: right; font-variant-numeric: tabular-nums; }
.toc ol { margin: 0; padding-left: 24px; }
.toc li { padding: 2px 0; }
.toc .count { color: var(--muted); margin-left: 8px; font-variant-numeric: tabular-nums; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 8px; border: 5px solid; border-radius: 2px; vertical-align: baseline; }
.entries { margin: 40px 0 0; border-left: 6px solid var(--accent); padding-left: 16px; }
.section-header { margin-bottom: 12px; }
.section-header p { margin: 4px 0 0; }
.section-total { color: var(--muted); font-variant-numeric: tabular-nums; }
.back { margin-left: 12px; font-size: 13px; }
.empty { color: var(--muted); font-style: italic; }
table { width: 100%; border-collapse: collapse; table-layout: fixed; font-size: 13px; line-height: 1.4; }
th, td { padding: 6px 8px; text-align: left; vertical-align: top; border-bottom: 1px solid var(--rule); }
td { white-space: pre-line; overflow-wrap: anywhere; }
/* Headers break between words only: each column is at least as wide as its header's longest word. */
thead th { overflow-wrap: normal; word-break: normal; hyphens: manual; position: sticky; top: 0; background: #fff; border-bottom: 2px solid var(--ink); font-size: .92em; font-weight: 600; }
tbody tr:nth-child(even) { background: #fafbfc; }
.group-head th { padding: 14px 8px 8px; font-weight: 400; background: #fff; border-bottom: 1px solid var(--accent); }
.group-title { font-weight: 650; font-size: 1.08em; }
.group-detail { color: var(--muted); margin-left: 8px; }
.group-count { float: right; font-weight: 600; font-variant-numeric: tabular-nums; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0 12px; margin: 4px 0 0; }
.facts dt { color: var(--muted); font-weight: 600; }
.facts dd { margin: 0; }
.group-explanation { margin: 4px 0 0; color: var(--muted); }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.date { white-space: nowrap; font-variant-numeric: tabular-nums; }
/* On a phone the tables scroll sideways rather than squeeze seven columns into a few words each. */
@media screen and (max-width: 800px) {
  main { padding: 20px 16px 48px; }
  .overview { display: block; }
  .figure-value { font-size: 22px; }
  .bars li { grid-template-columns: 6rem 1fr 4rem; }
  .table-scroll { overflow-x: auto; }
  table { min-width: 760px; }
}
/* Landscape: seven columns of wrapped text read better wide than tall. */
@page { size: A4 landscape; margin: 12mm 12mm 14mm; @bottom-right { content: "Page " counter(page) " of " counter(pages); font: 8pt system-ui, "Noto Sans", sans-serif; color: #555; } }
@media print {
  body { font-size: 10pt; background: none; }
  main { max-width: none; padding: 0; }
  a { color: inherit; text-decoration: none; }
  .figure { background: none; }
  .figures { grid-template-columns: repeat(4, 1fr); }
  .bar-track { background: none; border: 1px solid var(--rule); height: 12px; }
  .bars li { padding: 1px 0; }
  .report-header { margin-bottom: 16px; }
  .figures, .notes, .block { margin-bottom: 16px; }
  .back { display: none; }
  .entries { break-before: page; margin-top: 0; }
  .section-header { break-after: avoid; }
  table { font-size: 8pt; }
  th, td { padding: 4px 6px; }
  .figure-value { font-size: 20pt; }
  thead th { position: static; }
  .group-head { break-after: avoid; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; }
  tbody tr:nth-child(even) { background: none; }
}
`;

function renderHeader(model: RenderModel): string {
  // The survey by its tag, else its id.
  const survey = [model.survey.tag ?? model.survey.id, model.survey.type].filter((part): part is string => part !== null);
  const meta: [label: string, html: string][] = [
    ['Project', escapeHtml(model.project.name)],
    ['Subject', escapeHtml(model.subject)],
  ];
  if (survey.length > 0) meta.push(['Survey', survey.map(escapeHtml).join(' · ')]);
  meta.push(
    ['Produced', `<time datetime="${escapeHtml(model.producedAt)}">${escapeHtml(formatProducedAt(model.producedAt))}</time>`],
    ['Report', `<span class="mono">${escapeHtml(model.reportId)}</span>`],
  );
  return (
    `<header class="report-header"><p class="eyebrow">${escapeHtml(model.reportType)} report</p><h1>${escapeHtml(model.title)}</h1>` +
    `<dl class="meta">${meta.map(([label, html]) => `<div><dt>${label}</dt><dd>${html}</dd></div>`).join('')}</dl></header>`
  );
}

function renderFigures(model: RenderModel): string {
  if (model.figures.length === 0) return '';
  const cards = model.figures.map(
    (figure) =>
      `<div class="figure"><div class="figure-label">${escapeHtml(figure.label)}</div><div class="figure-value">${formatValue(figure.value)}</div>` +
      (figure.detail === undefined ? '' : `<div class="figure-detail">${escapeHtml(figure.detail)}</div>`) +
      '</div>',
  );
  return `<section class="figures" aria-label="Headline figures">${cards.join('')}</section>`;
}

function renderNotes(model: RenderModel): string {
  if (model.notes.length === 0) return '';
  return `<ul class="notes">${model.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`;
}

function renderChart(model: RenderModel): string {
  const largest = Math.max(0, ...model.chart.bars.map((bar) => bar.value));
  const bars = model.chart.bars.map((bar) => {
    const percent = largest > 0 ? Math.max(0, (bar.value / largest) * 100) : 0;
    return (
      `<li><span class="bar-label">${escapeHtml(bar.label)}</span>` +
      `<span class="bar-track"><span class="bar-fill${percent === 0 ? ' zero' : ''}" style="width:${percent.toFixed(2)}%;background:${safeColor(bar.color)}"></span></span>` +
      `<span class="bar-value">${formatValue(bar.value)}</span></li>`
    );
  });
  return `<section class="block chart" aria-labelledby="chart-title"><h2 id="chart-title">${escapeHtml(model.chart.title)}</h2><ol class="bars">${bars.join('')}</ol></section>`;
}

function renderContents(model: RenderModel): string {
  const items = model.sections.map(
    (section, index) =>
      `<li><a href="#${sectionId(index)}"><span class="swatch" style="border-color:${safeColor(section.color)}"></span>${escapeHtml(section.title)}</a>` +
      `<span class="count">${entriesLabel(section.total)}</span></li>`,
  );
  return `<nav class="block toc" id="contents" aria-labelledby="contents-title"><h2 id="contents-title">Contents</h2><ol>${items.join('')}</ol></nav>`;
}

function renderSectionStart(section: SectionModel, index: number): string {
  const header =
    `<section class="entries" id="${sectionId(index)}" style="--accent:${safeColor(section.color)}">` +
    `<header class="section-header"><h2>${escapeHtml(section.title)}</h2>` +
    `<p class="section-total">${entriesLabel(section.total)}<a class="back" href="#contents">Back to contents</a></p>` +
    `<p class="section-description">${escapeHtml(section.description)}</p>${digestNote(section)}</header>`;
  if (section.rows.length === 0) return `${header}<p class="empty">No entries.</p>`;
  const columns = section.groups?.columns ?? section.columns;
  const cols = columnPercents(columns).map((percent) => `<col style="width:${percent.toFixed(2)}%">`).join('');
  const headers = columns.map((column) => `<th scope="col"${kindClass(column)}>${escapeHtml(column.header)}</th>`).join('');
  return `${header}<div class="table-scroll"><table><colgroup>${cols}</colgroup><thead><tr>${headers}</tr></thead>${section.groups ? '' : '<tbody>'}`;
}

/**
 * A section too large to list here (src/queues/render.ts gives a digest: each group's first entries, or
 * the first entries) says so under its description, and where every entry is.
 */
function digestNote(section: SectionModel): string {
  if (section.rows.length >= section.total) return '';
  const shown = section.groups ? `the first ${numberFormat.format(Math.max(...section.groups.list.map((group) => group.rows.length)))} entries of each group` : `the first ${entriesLabel(section.rows.length)}`;
  return `<p class="empty">Too many entries to list on one page: this shows ${shown}. The CSV and XLSX documents list all ${entriesLabel(section.total)}.</p>`;
}

/** Under a group of a digest, how many of its entries are not shown and where they are. */
function renderGroupMore(group: GroupModel, span: number): string {
  const more = group.total - group.rows.length;
  if (more <= 0) return '';
  return `<tr><td class="empty" colspan="${span}">and ${moreLabel(more)} of ${escapeHtml(group.title)} in the CSV and XLSX documents</td></tr>`;
}

/** The narrowest a section's table gets before it scrolls sideways (a window just over the phone layout's 800 px). */
const MIN_TABLE_PX = 720;
/** About how wide a header character is in pixels (12 px semibold), and a header cell's padding and slack. */
const HEADER_CHAR_PX = 8;
const HEADER_PAD_PX = 18;

/**
 * Column widths in percent: from the columns' hints, each at least as wide as its header's longest word
 * at the narrowest table (so headers never break inside a word), as in the PDF.
 */
export function columnPercents(columns: Column[]): number[] {
  const hints = columns.map((column) => (Number.isFinite(column.width) && column.width > 0 ? column.width : 10));
  const minimums = columns.map((column) => ((Math.max(0, ...column.header.split(/\s+/).map((word) => [...word].length)) * HEADER_CHAR_PX + HEADER_PAD_PX) / MIN_TABLE_PX) * 100);
  return fitWidths(hints, minimums, 100);
}

/** A group's heading row: its title and count, the facts it shares, its explanation. */
function renderGroupHead(group: GroupModel, span: number): string {
  const facts = group.facts.map((fact) => `<dt>${escapeHtml(fact.label)}</dt><dd>${escapeHtml(fact.value)}</dd>`).join('');
  return (
    `<tbody class="group"><tr class="group-head"><th scope="rowgroup" colspan="${span}">` +
    `<span class="group-count">${entriesLabel(group.total)}</span><span class="group-title">${escapeHtml(group.title)}</span>` +
    (group.detail === null ? '' : `<span class="group-detail">${escapeHtml(group.detail)}</span>`) +
    (facts ? `<dl class="facts">${facts}</dl>` : '') +
    (group.explanation === null ? '' : `<p class="group-explanation">${escapeHtml(group.explanation)}</p>`) +
    '</th></tr>'
  );
}

function renderSectionEnd(section: SectionModel): string {
  if (section.rows.length === 0) return '</section>';
  return `${section.groups ? '' : '</tbody>'}</table></div></section>`;
}

function kindClass(column: Column): string {
  return column.kind === 'number' ? ' class="num"' : column.kind === 'date' ? ' class="date"' : '';
}

function renderRow(row: Record<string, Cell>, cellOpenings: string[], columns: Column[]): string {
  let html = '<tr>';
  for (let i = 0; i < columns.length; i++) {
    const value = row[columns[i]!.key] ?? null;
    html += `${cellOpenings[i]}${value === null ? '' : formatValue(value)}</td>`;
  }
  return `${html}</tr>`;
}

/** The document as chunks of text, in order; a section's rows come `ROWS_PER_CHUNK` at a time. */
export function* renderHtml(model: RenderModel): Generator<string> {
  yield (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">` +
    // Defence in depth: even a value that escaped escaping could load or run nothing.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(model.title)} · ${escapeHtml(model.project.name)}</title><style>${STYLE}</style></head><body><main>` +
    renderHeader(model) +
    renderFigures(model) +
    renderNotes(model) +
    `<div class="overview">${renderChart(model)}${renderContents(model)}</div>`
  );
  for (const [index, section] of model.sections.entries()) {
    const columns = section.groups?.columns ?? section.columns;
    const cellOpenings = columns.map((column) => `<td${kindClass(column)}>`);
    let chunk = renderSectionStart(section, index);
    let rows = 0;
    // A grouped section: each group a <tbody> under its heading row; a plain one: one <tbody>.
    for (const group of section.groups?.list ?? [null]) {
      if (group) chunk += renderGroupHead(group, columns.length);
      for (const row of group?.rows ?? section.rows) {
        chunk += renderRow(row, cellOpenings, columns);
        if (++rows % ROWS_PER_CHUNK === 0) {
          yield chunk;
          chunk = '';
        }
      }
      if (group) chunk += `${renderGroupMore(group, columns.length)}</tbody>`;
    }
    const more = section.groups ? 0 : section.total - section.rows.length;
    if (more > 0) chunk += `<tr><td class="empty" colspan="${columns.length}">and ${moreLabel(more)} in the CSV and XLSX documents</td></tr>`;
    yield chunk + renderSectionEnd(section);
  }
  yield '</main></body></html>\n';
}
