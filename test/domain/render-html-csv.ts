// The HTML and CSV documents of a report, read back with real parsers (parse5, csv-parse): every entry is
// there, hostile strings come back as text (escaped in HTML, formula-neutralised in CSV), non-Latin
// names survive, and nothing in the HTML can run or fetch.
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { elements, textOf } from '../html';
import { CSV_CHUNK_CHARS, CSV_TEMPLATE, renderCsv } from '../../src/render/csv';
import { HTML_TEMPLATE, renderHtml } from '../../src/render/html';
import type { RenderModel } from '../../src/render/model';
import { HOSTILE, SCRIPTS, sampleModel } from '../render-sample';

type Element = DefaultTreeAdapterTypes.Element;
type Node = DefaultTreeAdapterTypes.Node;

/** Renders through the generator, as the caller does, timing it and measuring the UTF-8 bytes. */
function render(renderer: (model: RenderModel) => Generator<string>, model: RenderModel) {
  const started = performance.now();
  const chunks = [...renderer(model)];
  const milliseconds = performance.now() - started;
  const text = chunks.join('');
  return { chunks, text, milliseconds, bytes: new TextEncoder().encode(text).byteLength };
}


const attr = (element: Element, name: string) => element.attrs.find((a) => a.name === name)?.value;
const hasClass = (element: Element, name: string) => (attr(element, 'class') ?? '').split(' ').includes(name);
const children = (element: Element, tagName: string) => element.childNodes.filter((c): c is Element => 'tagName' in c && c.tagName === tagName);

/** The body rows of each section's table, in section order. */
function sectionRows(all: Element[]): Element[][] {
  return all.filter((e) => e.tagName === 'section' && hasClass(e, 'entries')).map((section) => {
    const table = elements(section).find((e) => e.tagName === 'table');
    return table ? children(table, 'tbody').flatMap((tbody) => children(tbody, 'tr')) : [];
  });
}

/** What the CSV must hold for a text cell: the text, with a `'` in front when a spreadsheet would run it. */
const neutralised = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

describe('HTML document', () => {
  const model = sampleModel(60);
  const { text: html } = render(renderHtml, model);
  const document = parse(html);
  const all = elements(document);

  it('is one self-contained file that runs and fetches nothing', () => {
    expect(HTML_TEMPLATE).toEqual({ format: 'html', version: '2', library: 'built-in', contentType: 'text/html; charset=utf-8' });
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(attr(all.find((e) => e.tagName === 'html')!, 'lang')).toBe('en');
    expect(all.some((e) => e.tagName === 'meta' && attr(e, 'charset') === 'utf-8')).toBe(true);
    for (const tag of ['script', 'link', 'img', 'iframe', 'object', 'embed', 'form', 'base']) expect(all.filter((e) => e.tagName === tag)).toEqual([]);
    for (const element of all) {
      expect(element.attrs.filter((a) => a.name.startsWith('on')).map((a) => a.name)).toEqual([]);
      for (const a of element.attrs) {
        if (['src', 'srcset', 'action', 'formaction', 'xlink:href', 'poster', 'background'].includes(a.name)) throw new Error(`<${element.tagName} ${a.name}>`);
        if (a.name === 'href') expect(a.value).toMatch(/^#[\w-]+$/);
        if (a.name === 'style') expect(a.value).not.toMatch(/url\(|@import|expression/i);
      }
    }
    const css = all.filter((e) => e.tagName === 'style').map(textOf).join('');
    expect(css).toContain('@media print');
    expect(css).toMatch(/thead\s*\{\s*display:\s*table-header-group/);
    expect(css).not.toMatch(/url\(|@import|@font-face/i);
  });

  it('shows every hostile string and non-Latin name as text, exactly', () => {
    const texts = all.flatMap((e) => e.childNodes.filter((c) => c.nodeName === '#text').map(textOf));
    for (const hostile of HOSTILE) expect(texts.filter((t) => t === hostile).length, JSON.stringify(hostile)).toBeGreaterThan(0);
    for (const name of SCRIPTS) expect(texts).toContain(name);
    const title = all.find((e) => e.tagName === 'title')!;
    expect(textOf(title)).toBe(`${model.title} · ${model.project.name}`);
    const header = all.find((e) => e.tagName === 'header' && hasClass(e, 'report-header'))!;
    for (const value of [model.title, model.project.name, model.subject, model.survey.tag!, model.survey.type!, model.reportId]) expect(textOf(header)).toContain(value);
    for (const note of model.notes) expect(texts).toContain(note);
    expect(all.filter((e) => e.tagName === 'b')).toEqual([]);
    for (const figure of model.figures) expect(texts).toContain(figure.label);
  });

  it('draws each section: title, description, total, its column headers and all its rows', () => {
    const sections = all.filter((e) => e.tagName === 'section' && hasClass(e, 'entries'));
    expect(sections.map((s) => textOf(elements(s).find((e) => e.tagName === 'h2')!))).toEqual(model.sections.map((s) => s.title));
    const rows = sectionRows(all);
    expect(rows.map((r) => r.length)).toEqual(model.sections.map((s) => s.total));
    for (const [i, section] of model.sections.entries()) {
      expect(textOf(sections[i]!)).toContain(section.description);
      if (section.rows.length === 0) {
        expect(textOf(sections[i]!)).toContain('No entries.');
        continue;
      }
      expect(elements(sections[i]!).filter((e) => e.tagName === 'th').map(textOf)).toEqual(section.columns.map((c) => c.header));
      const firstRow = rows[i]![0]!;
      const cells = children(firstRow, 'td');
      expect(cells.map(textOf)).toEqual(section.columns.map((c) => String(section.rows[0]![c.key] ?? '')));
      expect(cells.map((c) => hasClass(c, 'num'))).toEqual(section.columns.map((c) => c.kind === 'number'));
    }
    // The contents link to every section, by fragments that exist.
    const ids = new Set(all.map((e) => attr(e, 'id')).filter(Boolean));
    const links = elements(all.find((e) => e.tagName === 'nav')!).filter((e) => e.tagName === 'a');
    expect(links.map(textOf)).toEqual(model.sections.map((s) => s.title));
    for (const link of links) expect(ids.has(attr(link, 'href')!.slice(1))).toBe(true);
  });

  it('charts each section with its colour and count', () => {
    const chart = all.find((e) => e.tagName === 'section' && hasClass(e, 'chart'))!;
    const bars = elements(chart).filter((e) => e.tagName === 'li');
    expect(bars.map((bar) => textOf(bar))).toEqual(model.chart.bars.map((bar) => `${bar.label}${bar.value}`));
    const fills = elements(chart).filter((e) => hasClass(e, 'bar-fill'));
    expect(fills.map((f) => attr(f, 'style')!.match(/background:(#[0-9a-f]{6})/)?.[1])).toEqual(model.chart.bars.map((bar) => bar.color));
    expect(attr(fills[0]!, 'style')).toContain('width:100.00%');
  });

  it('uses only #rrggbb colours: anything else falls back to grey', () => {
    const hostile = sampleModel(12);
    const evil = '#c62828;background:url(https://attacker.invalid/x)"><script>alert(1)</script>';
    hostile.sections[0]!.color = evil;
    hostile.chart.bars[0]!.color = 'red';
    const out = render(renderHtml, hostile).text;
    expect(out).not.toContain('attacker.invalid');
    expect(elements(parse(out)).filter((e) => e.tagName === 'script')).toEqual([]);
    const hostileAll = elements(parse(out));
    expect(attr(hostileAll.find((e) => attr(e, 'id') === 'section-1')!, 'style')).toBe('--accent:#757575');
    expect(attr(hostileAll.find((e) => hasClass(e, 'bar-fill'))!, 'style')).toContain('background:#757575');
  });

  it('holds all 20,000 entries, streamed in chunks', () => {
    const large = sampleModel(20_000);
    const { chunks, text, milliseconds, bytes } = render(renderHtml, large);
    console.log(`HTML, 20,000 entries: ${milliseconds.toFixed(0)} ms, ${(bytes / 1e6).toFixed(1)} MB in ${chunks.length} chunks`);
    expect(chunks.length).toBeGreaterThan(50);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(512 * 1024);
    const rows = sectionRows(elements(parse(text)));
    expect(rows.reduce((sum, r) => sum + r.length, 0)).toBe(20_000);
    expect(rows.map((r) => r.length)).toEqual(large.sections.map((s) => s.total));
  });
});

describe('CSV document', () => {
  const model = sampleModel(60);
  const columns = ['name', 'primitive', 'component', 'explanation', 'replacement', 'deadline', 'occurrences'];
  const { text: csv } = render(renderCsv, model);
  const records: string[][] = parseCsv(csv, { bom: true, relax_column_count: false });

  it('is RFC 4180 with a BOM: CRLF line ends, a header row, one row per entry', () => {
    expect(CSV_TEMPLATE).toEqual({ format: 'csv', version: '2', library: 'built-in', contentType: 'text/csv; charset=utf-8' });
    expect(csv.startsWith('\uFEFFsection,Name,Primitive,Component,Explanation,Move to,Deadline,Occurrences\r\n')).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    // Every line break outside quoted fields is CRLF: count the row ends.
    expect(csv.match(/\r\n(?=[a-z]+,|$)/g)!.length).toBe(61);
    expect(records.length).toBe(61);
    expect(new Set(records.map((r) => r.length))).toEqual(new Set([8]));
    expect(records.slice(1).map((r) => r[0])).toEqual(model.sections.flatMap((s) => s.rows.map(() => s.name)));
  });

  it('writes every cell back exactly: text neutralised, numbers as numbers, empty as empty', () => {
    const expected = model.sections.flatMap((s) =>
      s.rows.map((row) => [s.name, ...columns.map((key) => (row[key] === null ? '' : typeof row[key] === 'number' ? String(row[key]) : neutralised(row[key] as string)))]),
    );
    expect(records.slice(1)).toEqual(expected);
    const names = records.slice(1).map((r) => r[1]);
    for (const hostile of HOSTILE) expect(names).toContain(/^[=+\-@\t\r]/.test(hostile) ? `'${hostile}` : hostile);
    expect(names).toContain('Quote " and, comma');
    expect(names).toContain('Line\nbreak');
    expect(names).toContain("'\rCarriage");
    expect(names).toContain("'=HYPERLINK(\"http://evil.example\",\"click\")");
    for (const name of SCRIPTS) expect(names).toContain(name);
    expect(records.slice(1).every((r) => /^\d+$/.test(r[7]!))).toBe(true);
  });

  it('keeps negative numbers as numbers and neutralises the same text', () => {
    const signed = sampleModel(2);
    signed.sections[0]!.rows[0]!.occurrences = -5;
    signed.sections[0]!.rows[0]!.primitive = '-5';
    signed.sections[0]!.rows[0]!.component = 42;
    const [, first] = parseCsv(render(renderCsv, signed).text, { bom: true }) as string[][];
    expect(first![7]).toBe('-5');
    expect(first![2]).toBe("'-5");
    expect(first![3]).toBe('42');
  });

  it('unites the sections’ columns by key, in first-seen order', () => {
    const mixed = sampleModel(4);
    const [red, yellow] = mixed.sections;
    red!.columns = [
      { key: 'name', header: 'Name', kind: 'text', width: 20 },
      { key: 'score', header: '=Score', kind: 'number', width: 8 },
    ];
    red!.rows = [{ name: 'RSA', score: -1.5, deadline: '2030-01-01' }];
    yellow!.columns = [
      { key: 'deadline', header: 'Deadline', kind: 'date', width: 12 },
      { key: 'name', header: 'Other name', kind: 'text', width: 20 },
    ];
    yellow!.rows = [{ deadline: '2031-06-30', name: 'SHA-1' }];
    mixed.sections = [red!, yellow!];
    const rows = parseCsv(render(renderCsv, mixed).text, { bom: true, relax_column_count: false });
    expect(rows).toEqual([
      ['section', 'Name', "'=Score", 'Deadline'],
      ['red', 'RSA', '-1.5', ''],
      ['yellow', 'SHA-1', '', '2031-06-30'],
    ]);
  });

  it('holds all 20,000 entries, streamed in chunks of whole rows of bounded size', () => {
    const large = sampleModel(20_000);
    const { chunks, text, milliseconds, bytes } = render(renderCsv, large);
    console.log(`CSV, 20,000 entries: ${milliseconds.toFixed(0)} ms, ${(bytes / 1e6).toFixed(1)} MB in ${chunks.length} chunks`);
    // The header, then chunks of whole lines of at least CSV_CHUNK_CHARS characters (the last one shorter),
    // none much larger: no chunk is the document, none is a row.
    const longestLine = Math.max(...text.split('\r\n').map((line) => line.length + 2));
    expect(chunks.length).toBeGreaterThan(20);
    for (const [index, chunk] of chunks.slice(1).entries()) {
      expect(chunk.endsWith('\r\n')).toBe(true);
      if (index < chunks.length - 2) expect(chunk.length).toBeGreaterThanOrEqual(CSV_CHUNK_CHARS);
      expect(chunk.length).toBeLessThan(CSV_CHUNK_CHARS + longestLine);
    }
    const rows: string[][] = parseCsv(text, { bom: true, relax_column_count: false });
    expect(rows.length).toBe(20_001);
    expect(rows.slice(1).map((r) => r[0])).toEqual(large.sections.flatMap((s) => s.rows.map(() => s.name)));
  });
});
