// The XLSX renderer (src/render/xlsx.ts), read back with exceljs and, for what exceljs would hide
// (formulas), through the raw sheet XML.
import ExcelJS from 'exceljs';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { RenderModel } from '../../src/render/model';
import { renderXlsx, XLSX_TEMPLATE } from '../../src/render/xlsx';
import { HOSTILE, SCRIPTS, sampleModel } from '../render-sample';

async function load(bytes: Uint8Array): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes.slice().buffer);
  return workbook;
}

function sheet(workbook: ExcelJS.Workbook, name: string): ExcelJS.Worksheet {
  const found = workbook.getWorksheet(name);
  if (!found) throw new Error(`no sheet ${name}`);
  return found;
}

/** Every non-empty cell of the workbook. */
function cells(workbook: ExcelJS.Workbook): ExcelJS.Cell[] {
  const all: ExcelJS.Cell[] = [];
  workbook.eachSheet((ws) => ws.eachRow((row) => row.eachCell((cell) => void all.push(cell))));
  return all;
}

const SECTION_SHEETS = ['Red', 'Yellow', 'Transition', 'Green', 'Unclassified'];
const small = sampleModel(60);
const smallBytes = await renderXlsx(small);
const smallBook = await load(smallBytes);

describe('the workbook', () => {
  it('is an XLSX file with a Summary sheet and one sheet per section, named after the sections', () => {
    expect(XLSX_TEMPLATE).toEqual({
      format: 'xlsx',
      version: '2',
      library: 'exceljs 4.4.0',
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    expect(strFromU8(smallBytes.subarray(0, 2))).toBe('PK');
    expect(smallBook.worksheets.map((ws) => ws.name)).toEqual(['Summary', ...SECTION_SHEETS]);
  });

  it('gives sections valid, unique sheet names: 31 characters at most, none of []:*?/\\, not History', async () => {
    const model = sampleModel(10);
    const base = model.sections[0]!;
    model.sections = [
      { ...base, title: 'A very long section title without any colon in it at all' },
      { ...base, title: 'Bad [chars] * ? / \\ here' },
      { ...base, title: 'Dup: first' },
      { ...base, title: 'dup: second' },
      { ...base, title: 'History' },
      { ...base, title: 'Summary' },
      { ...base, title: ': no head', name: 'fallback' },
    ];
    const names = (await load(await renderXlsx(model))).worksheets.map((ws) => ws.name);
    expect(names).toEqual(['Summary', 'A very long section title', 'Bad chars here', 'Dup', 'dup (2)', 'History (2)', 'Summary (2)', 'fallback']);
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(31);
      expect(name).not.toMatch(/[[\]:*?/\\]/);
    }
  });
});

describe('the Summary sheet', () => {
  const summary = sheet(smallBook, 'Summary');
  /** The first row whose first cell is `label`, after the row whose first cell is `after`. */
  const rowOf = (label: string, after?: string) => {
    let found: ExcelJS.Row | undefined;
    let started = after === undefined;
    summary.eachRow((row) => {
      const first = row.getCell(1).value;
      if (!found && started && first === label) found = row;
      if (first === after) started = true;
    });
    if (!found) throw new Error(`no row ${label}`);
    return found;
  };

  it('names the report: title, project, subject, survey (its id, target and tag), report id', () => {
    expect(summary.getCell('A1').value).toBe(small.title);
    expect(summary.getCell('A1').font.bold).toBe(true);
    expect(rowOf('Project').getCell(2).value).toBe(small.project.name);
    expect(rowOf('Subject').getCell(2).value).toBe(small.subject);
    // Issue 20: the survey row names the survey by its id (it was empty for a survey without a tag).
    expect(rowOf('Survey').getCell(2).value).toBe(small.survey.id);
    expect(rowOf('Target').getCell(2).value).toBe(small.survey.target);
    expect(rowOf('Tag').getCell(2).value).toBe(small.survey.tag);
    expect(rowOf('Survey type').getCell(2).value).toBe(small.survey.type);
    expect(rowOf('Report').getCell(2).value).toBe(small.reportId);
  });

  it('writes the produced date as a real date', () => {
    expect(rowOf('Produced').getCell(2).value).toEqual(new Date(small.producedAt));
  });

  it('lists the headline figures with numbers as numbers, then the chart data, sheets and notes', () => {
    const assets = rowOf('Cryptographic assets');
    expect(assets.getCell(2).value).toBe(60);
    expect(rowOf('Red').getCell(3).value).toBe('move first');
    expect(rowOf('Nearest deadline').getCell(2).value).toEqual(new Date('2030-12-31'));
    for (const bar of small.chart.bars) expect(rowOf(bar.label).getCell(2).value).toBe(bar.value);
    for (const [index, name] of SECTION_SHEETS.entries()) {
      expect(rowOf(name, 'Sheets').getCell(2).value).toBe(small.sections[index]!.title);
      expect(rowOf(name, 'Sheets').getCell(3).value).toBe(small.sections[index]!.total);
    }
    for (const note of small.notes) expect(rowOf(note)).toBeDefined();
  });
});

describe('a section sheet', () => {
  const red = sheet(smallBook, 'Red');
  const section = small.sections[0]!;

  it('has a frozen, bold header row in the section colour with an auto filter over it', () => {
    expect(red.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(red.getRow(1).values).toEqual([undefined, ...section.columns.map((column) => column.header)]);
    expect(red.getCell('A1').font.bold).toBe(true);
    expect(red.getCell('A1').fill).toMatchObject({ type: 'pattern', fgColor: { argb: 'FFC62828' } });
    expect(red.autoFilter).toBe(`A1:G${section.total + 1}`);
  });

  it('sizes columns from the width hint, wraps the long ones and makes rows tall enough for them', () => {
    expect(red.getColumn(4).width).toBe(60);
    expect(red.getColumn(2).width).toBe(14);
    expect(red.getCell('D2').alignment.wrapText).toBe(true);
    expect(red.getCell('B2').alignment.wrapText).toBeFalsy();
    // The explanation in a 60-character column: a 15-point line per 60 characters.
    const explanation = String(section.rows[0]!.explanation);
    expect(explanation.length).toBeGreaterThan(240);
    expect(red.getRow(2).height).toBe(Math.ceil(explanation.length / 60) * 15);
  });

  it('holds every entry in order, dates as dates and numbers as numbers', () => {
    expect(red.rowCount).toBe(section.total + 1);
    section.rows.forEach((row, index) => {
      const cells = red.getRow(index + 2);
      expect(cells.getCell(7).value).toBe(row.occurrences);
      expect(cells.getCell(6).value).toEqual(row.deadline === null ? null : new Date(row.deadline as string));
    });
    expect(red.getCell('F3').type).toBe(ExcelJS.ValueType.Date);
    expect(red.getCell('F3').numFmt).toBe('yyyy-mm-dd');
    expect(red.getCell('G3').type).toBe(ExcelJS.ValueType.Number);
  });

  it('keeps the time of day of timestamps, and text that is no date (or no number) as text', async () => {
    const model = sampleModel(1);
    const entry = model.sections[0]!.rows[0]!;
    model.sections[0]!.rows = [
      { ...entry, deadline: '2031-03-04T05:06:00Z', occurrences: '12' },
      { ...entry, deadline: '2026-02-30', occurrences: 'many' },
      { ...entry, deadline: 'soon', occurrences: null },
    ];
    const red = sheet(await load(await renderXlsx(model)), 'Red');
    expect(red.getCell('F2').value).toEqual(new Date('2031-03-04T05:06:00Z'));
    expect(red.getCell('F2').numFmt).toBe('yyyy-mm-dd hh:mm "UTC"');
    expect(red.getCell('G2').value).toBe(12);
    expect([red.getCell('F3').value, red.getCell('G3').value]).toEqual(['2026-02-30', 'many']);
    expect([red.getCell('F4').value, red.getCell('G4').value]).toEqual(['soon', null]);
  });
});

describe('text that looks like a formula or markup', () => {
  const texts = cells(smallBook).map((cell) => cell.value);

  it('reads back as the same text, every hostile string', () => {
    for (const hostile of HOSTILE) expect(texts).toContain(hostile);
    expect(texts).toContain(small.survey.tag);
  });

  it('is never a formula: no cell has one, and no sheet XML has an <f> element', () => {
    expect(cells(smallBook).filter((cell) => cell.type === ExcelJS.ValueType.Formula || cell.formula)).toEqual([]);
    const sheets = Object.entries(unzipSync(smallBytes)).filter(([path]) => path.startsWith('xl/worksheets/sheet'));
    expect(sheets).toHaveLength(6);
    for (const [, xml] of sheets) expect(strFromU8(xml)).not.toMatch(/<f[\s>/]/);
  });

  it('keeps names in every script, control characters and literal _xHHHH_ sequences as they were', async () => {
    for (const name of SCRIPTS) expect(texts).toContain(name);
    const model: RenderModel = sampleModel(1);
    const odd = ['bell\u0007 and \u0001', '_x0041_ stays', 'CR\r\nLF', 'emoji 🔐 pair'];
    model.sections[0]!.rows = odd.map((name) => ({ ...model.sections[0]!.rows[0]!, name }));
    const red = sheet(await load(await renderXlsx(model)), 'Red');
    expect(odd.map((_, index) => red.getCell(index + 2, 1).value)).toEqual(odd);
  });
});

describe('20,000 entries', () => {
  it('render with every entry on the section sheets, compressed', async () => {
    const big = sampleModel(20_000);
    const started = performance.now();
    const bytes = await renderXlsx(big);
    const elapsed = performance.now() - started;
    console.log(`xlsx, 20,000 entries: ${Math.round(elapsed)} ms, ${Math.round(bytes.byteLength / 1024)} KiB`);
    const workbook = await load(bytes);
    const rows = SECTION_SHEETS.map((name) => sheet(workbook, name).actualRowCount - 1);
    expect(rows).toEqual(big.sections.map((section) => section.total));
    expect(rows.reduce((sum, count) => sum + count, 0)).toBe(20_000);
    expect(sheet(workbook, 'Red').getCell(10_001, 1).value).toBe(big.sections[0]!.rows[9_999]!.name);
    expect(bytes.byteLength).toBeLessThan(5 * 1024 * 1024);
  });
});
