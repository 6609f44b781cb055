// The composition report's documents (issue 20, "The reports"): real SBOMs (elastic/harp, a Go binary
// whose modules are listed twice; OWASP Juice Shop) matched against the fixture OSV records as the
// pipeline does (test/fixture-reports.ts), rendered in every format and read back. Each test names the
// rule it shows.
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { strFromU8, unzipSync } from 'fflate';
import { parse as parseHtml } from 'parse5';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OsvRecord } from '../../src/analysis/vulns/osv-types';
import { renderCsv } from '../../src/render/csv';
import { renderHtml } from '../../src/render/html';
import type { RenderModel } from '../../src/render/model';
import { ENTRIES_PER_SLIDE, renderPptx } from '../../src/render/pptx';
import { knownDate } from '../../src/render/report-model';
import { sampleModel } from '../../src/render/sample';
import { renderXlsx } from '../../src/render/xlsx';
import { fixtureReport, type FixtureReport } from '../fixture-reports';
import { elements, textOf } from '../html';
import harpSbom from '../fixtures/sbom/golang__elastic-harp-v0.2.10.cdx-1.4.json?raw';
import juiceSbom from '../fixtures/sbom/npm__juice-shop-14.1.1.cdx-1.4.json?raw';

const osvFiles = import.meta.glob('../fixtures/osv/*.json', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const RECORDS = Object.values(osvFiles).map((text) => JSON.parse(text) as OsvRecord);

let harp: FixtureReport;
let juice: FixtureReport;
beforeAll(async () => {
  harp = await fixtureReport('composition', harpSbom, { subject: 'harp', records: RECORDS });
  juice = await fixtureReport('composition', juiceSbom, { subject: 'juice-shop', records: RECORDS });
});

const figure = (model: RenderModel, label: string) => model.figures.find((f) => f.label === label)!;
const xlsxFiles = async (model: RenderModel) => unzipSync(await renderXlsx(model));

describe('Composition figures count one thing each: advisories and findings, both labelled', () => {
  it('harp: 92 distinct advisories make 106 findings (advisory and component pairs); each figure adds up to its parts', () => {
    const { model, headline, entries } = harp;
    const pairs = [...entries.values()].flat();
    const ids = new Set(pairs.map((e) => e.advisory_id));
    expect(headline).toMatchObject({ findings: pairs.length, advisories: ids.size });
    expect(pairs.length).toBeGreaterThan(ids.size);
    // Findings: the figure, the chart and the sections count the pairs.
    expect(figure(model, 'Findings').value).toBe(pairs.length);
    expect(model.chart.title).toBe('Findings (advisory and component pairs) per severity');
    expect(model.chart.bars.reduce((n, b) => n + b.value, 0)).toBe(pairs.length);
    expect(model.sections.reduce((n, s) => n + s.total, 0)).toBe(pairs.length);
    expect((headline.severities as Record<string, number>)).toEqual(Object.fromEntries(model.sections.map((s) => [s.name, s.total])));
    // Advisories: the figure and its parts, the distinct ids per severity.
    const advisories = figure(model, 'Advisories');
    expect(advisories.value).toBe(ids.size);
    const parts = [...advisories.detail!.matchAll(/(\d+) (critical|high|medium|low|unknown)/g)].map((m) => Number(m[1]));
    expect(parts.length).toBe(5);
    expect(parts.reduce((a, b) => a + b, 0)).toBe(ids.size);
    for (const section of model.sections) {
      const distinct = new Set(entries.get(section.name)!.map((e) => e.advisory_id)).size;
      expect(advisories.detail).toContain(`${distinct} ${section.name}`);
    }
    expect(figure(model, 'Critical findings').value).toBe(model.sections.find((s) => s.name === 'critical')!.total);
  });

  it('every total in every format adds up to its parts (juice shop): XLSX, CSV, HTML and PPTX', async () => {
    const { model } = juice;
    const findings = Number(figure(model, 'Findings').value);
    expect(findings).toBe(23);
    // XLSX: the Sheets table's entries, the chart rows and each sheet's rows.
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await renderXlsx(model)).slice().buffer);
    const sheets = book.worksheets.slice(1);
    expect(sheets.reduce((n, s) => n + s.actualRowCount - 1, 0)).toBe(findings);
    const summaryValues: unknown[] = [];
    book.getWorksheet('Summary')!.eachRow((row) => void summaryValues.push(row.getCell(1).value, row.getCell(2).value));
    expect(summaryValues).toContain('Findings');
    expect(summaryValues[summaryValues.indexOf('Findings') + 1]).toBe(findings);
    // CSV: one row per finding.
    expect(parseCsv([...renderCsv(model)].join(''), { bom: true }).length - 1).toBe(findings);
    // HTML: the sections' entry rows, and each group's count is its rows.
    const all = elements(parseHtml([...renderHtml(model)].join('')));
    expect(all.filter((e) => e.tagName === 'tr' && e.childNodes.some((c) => 'tagName' in c && c.tagName === 'td')).length).toBe(findings);
    // PPTX: the chart's values add up to the findings figure shown beside it.
    const parts = unzipSync(await renderPptx(model));
    const chart = strFromU8(parts[Object.keys(parts).find((p) => /^ppt\/charts\/chart\d+\.xml$/.test(p))!]!);
    const values = [...chart.matchAll(/<c:val>[\s\S]*?<\/c:val>/g)].flatMap(([v]) => [...v.matchAll(/<c:v>([\d.]+)<\/c:v>/g)].map((m) => Number(m[1])));
    expect(values.reduce((a, b) => a + b, 0)).toBe(findings);
  });

  it('PPTX: composition slides show the top groups with their advisory ids and fix version', async () => {
    const { model } = juice;
    const parts = unzipSync(await renderPptx(model));
    const high = model.sections.find((s) => s.name === 'high')!;
    const index = model.sections.filter((s) => s.total > 0).indexOf(high) + 3;
    const slide = [...strFromU8(parts[`ppt/slides/slide${index}.xml`]!).matchAll(/<a:t>([^<]*)<\/a:t>/g)].map(([, t]) => t!);
    for (const header of ['Component', 'Entries', 'Fix version', 'Advisories']) expect(slide).toContain(header);
    for (const group of high.groups!.list.slice(0, ENTRIES_PER_SLIDE)) {
      expect(slide).toContain(group.title);
      expect(slide).toContain(group.facts.find((f) => f.label === 'Fix version')!.value);
      expect(slide.join('\n')).toContain(String(group.rows[0]!.advisory));
    }
    // A component with two advisories is one row naming both.
    const twice = high.groups!.list.find((g) => g.rows.length > 1)!;
    expect(slide).toContain(twice.rows.map((r) => r.advisory).join(', '));
  });

  it('PPTX: two components of one name and version are told apart by their package URL (harp: grpc as a module and a package)', async () => {
    const parts = unzipSync(await renderPptx(harp.model));
    const medium = harp.model.sections.find((s) => s.name === 'medium')!;
    const index = harp.model.sections.filter((s) => s.total > 0).indexOf(medium) + 3;
    const slide = [...strFromU8(parts[`ppt/slides/slide${index}.xml`]!).matchAll(/<a:t>([^<]*)<\/a:t>/g)].map(([, t]) => t!);
    const grpc = slide.filter((t) => t.startsWith('google.golang.org/grpc 1.45.0'));
    expect(grpc).toEqual(expect.arrayContaining([expect.stringContaining('?type=module)'), expect.stringContaining('?type=package)')]));
    expect(new Set(grpc).size).toBe(2);
  });

  it('the findings of one component are grouped under it, with its fix version once (harp: golang.org/x/net)', () => {
    const unknown = harp.model.sections.find((s) => s.name === 'unknown')!;
    const net = unknown.groups!.list[0]!;
    expect(net.title).toMatch(/^golang\.org\/x\/net /);
    expect(net.rows.length).toBeGreaterThan(10);
    expect(new Set(net.rows.map((r) => r.component))).toEqual(new Set(['golang.org/x/net']));
    expect(new Set(net.rows.map((r) => r.fix_version)).size).toBe(1);
    expect(net.facts[0]).toEqual({ label: 'Fix version', value: String(net.rows[0]!.fix_version) });
    expect(unknown.groups!.columns.map((c) => c.header)).toEqual(['Advisory', 'Also known as', 'Score', 'Summary', 'Published']);
  });
});

describe('Dates: an advisory published at the zero date shows "unknown"; no XLSX date cell is negative', () => {
  it('harp: GO-2024-3344 (published 0001-01-01 in its OSV record) is stored without the date and shown as unknown', async () => {
    const record = RECORDS.find((r) => r.id === 'GO-2024-3344')!;
    expect(record.published).toBe('0001-01-01T00:00:00Z');
    const stored = [...harp.entries.values()].flat().filter((e) => e.advisory_id === 'GO-2024-3344');
    expect(stored.length).toBe(2);
    for (const entry of stored) expect(entry.published).toBeNull();
    const rows = harp.model.sections.flatMap((s) => s.rows).filter((r) => r.advisory === 'GO-2024-3344');
    expect(rows.map((r) => r.published)).toEqual(['unknown', 'unknown']);

    const csv = [...renderCsv(harp.model)].join('');
    expect(csv).not.toContain('0001-01-01');
    const html = [...renderHtml(harp.model)].join('');
    expect(html).not.toContain('0001-01-01');
    const files = await xlsxFiles(harp.model);
    const shared = strFromU8(files['xl/sharedStrings.xml']!);
    expect(shared).toContain('<t>unknown</t>');
    for (const [path, xml] of Object.entries(files)) if (path.startsWith('xl/worksheets/')) expect(strFromU8(xml)).not.toMatch(/<v>-/);
  });

  it('a stored report that still holds the zero date (or none) shows unknown too', () => {
    expect(knownDate('0001-01-01T00:00:00Z')).toBeNull();
    expect(knownDate('1899-12-31')).toBeNull();
    expect(knownDate(null)).toBeNull();
    expect(knownDate('2021-04-14T20:04:52Z')).toBe('2021-04-14');
  });

  it('the XLSX writes a date Excel cannot show (before 1900-03-01) as its text, never a negative serial', async () => {
    const model = sampleModel(1);
    const base = model.sections[0]!.rows[0]!;
    model.sections[0]!.rows = ['0001-01-01', '1899-12-31T00:00:00Z', '1900-03-01'].map((deadline) => ({ ...base, deadline }));
    model.sections[0]!.total = 3;
    model.figures.push({ label: 'Oldest', value: '0001-01-01' });
    const files = await xlsxFiles(model);
    for (const [path, xml] of Object.entries(files)) if (path.startsWith('xl/worksheets/')) expect(strFromU8(xml)).not.toMatch(/<v>-/);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await renderXlsx(model)).slice().buffer);
    const red = book.getWorksheet('Red')!;
    const deadline = (red.getRow(1).values as unknown[]).indexOf('Deadline');
    expect([2, 3, 4].map((r) => red.getRow(r).getCell(deadline).value)).toEqual(['0001-01-01', '1899-12-31T00:00:00Z', new Date('1900-03-01')]);
  });
});
