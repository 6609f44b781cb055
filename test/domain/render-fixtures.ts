// The documents of real CBOMs (issue 20, "The documents"): the fixture CBOMs of CBOMkit, cbomkit-theia
// and Trivy read, classified and laid out as the pipeline does (test/fixture-reports.ts), then rendered
// in every format and read back with real parsers. Each test names the rule it shows.
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { strFromU8, unzipSync } from 'fflate';
import { parse as parseHtml } from 'parse5';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderCsv } from '../../src/render/csv';
import { pqcGroups, pqcVerdict } from '../../src/render/groups';
import { columnPercents, renderHtml } from '../../src/render/html';
import type { RenderModel, SectionModel } from '../../src/render/model';
import { PDF_GROUP_ROWS, renderPdf } from '../../src/render/pdf';
import { ENTRIES_PER_SLIDE, renderPptx } from '../../src/render/pptx';
import { samplePqcModel, sampleModel } from '../../src/render/sample';
import { renderXlsx } from '../../src/render/xlsx';
import { fixtureReport, type FixtureReport } from '../fixture-reports';
import { elements, textOf } from '../html';
import temurinCbom from '../fixtures/cbom/ibm-cbomkit-theia__temurin-jdk-image.cbom.json?raw';
import kafkaCbom from '../fixtures/cbom/ibm-cbomkit__kafka-cbom.json?raw';
import trivyCbom from '../fixtures/cbom/aquasecurity-trivy__crypto-image.cbom.json?raw';
import mastercardCbom from '../fixtures/cbom/mastercard-client-encryption-java__cbom.json?raw';
import certificatesCbom from '../fixtures/cbom/ibm-cbomkit-theia__certificates.cbom.json?raw';

const FIXTURES = { temurin: temurinCbom, kafka: kafkaCbom, trivy: trivyCbom, mastercard: mastercardCbom, certificates: certificatesCbom };
type Name = keyof typeof FIXTURES;
const reports = {} as Record<Name, FixtureReport>;

beforeAll(async () => {
  for (const [name, text] of Object.entries(FIXTURES)) reports[name as Name] = await fixtureReport('pqc-inventory', text, { subject: name });
});

const allEntries = (report: FixtureReport) => [...report.entries.values()].flat();
const nonEmpty = (model: RenderModel) => model.sections.filter((section) => section.total > 0);

async function workbook(model: RenderModel): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load((await renderXlsx(model)).slice().buffer);
  return book;
}
const csvRecords = (model: RenderModel): string[][] => parseCsv([...renderCsv(model)].join(''), { bom: true });
const htmlElements = (model: RenderModel) => elements(parseHtml([...renderHtml(model)].join('')));
/** The text runs of each slide of the deck, in slide order. */
async function slides(model: RenderModel): Promise<string[][]> {
  const parts = unzipSync(await renderPptx(model));
  return Object.keys(parts).filter((p) => /^ppt\/slides\/slide\d+\.xml$/.test(p))
    .sort((a, b) => Number(/(\d+)\.xml$/.exec(a)![1]) - Number(/(\d+)\.xml$/.exec(b)![1]))
    .map((p) => [...strFromU8(parts[p]!).matchAll(/<a:t>([^<]*)<\/a:t>/g)].map(([, t]) => t!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>')));
}

describe('"Where" shows where: the file and line from the occurrences, the bom-ref only when none exists', () => {
  it('kafka (CBOMkit): every entry\'s Where is its path:line, never its bom-ref, in the model, XLSX, CSV and HTML', async () => {
    const { model, entries } = reports.kafka;
    const located = [...entries.values()].flat().filter((e) => e.locations?.length);
    expect(located.length).toBe(11);
    const rows = model.sections.flatMap((s) => s.rows);
    for (const entry of located) {
      const row = rows.find((r) => r.name === entry.name && String(r.where).startsWith(entry.locations[0]))!;
      expect(row.where).toBe(entry.locations.join('\n'));
      expect(String(row.where)).not.toContain(entry.bom_ref);
    }
    expect(rows.map((r) => r.where)).toContain('clients/src/main/java/org/apache/kafka/common/security/ssl/DefaultSslEngineFactory.java:429');

    const book = await workbook(model);
    const sheetWheres = book.worksheets.slice(1).flatMap((sheet) => {
      const column = (sheet.getRow(1).values as unknown[]).indexOf('Where');
      return sheet.getRows(2, sheet.rowCount - 1)?.map((row) => row.getCell(column).value) ?? [];
    });
    expect(sheetWheres.sort()).toEqual(rows.map((r) => r.where).sort());

    const csv = csvRecords(model);
    const where = csv[0]!.indexOf('Where');
    expect(csv.slice(1).map((r) => r[where]).sort()).toEqual(rows.map((r) => r.where).sort());

    const cells = htmlElements(model).filter((e) => e.tagName === 'td').map(textOf);
    expect(cells).toContain('clients/src/main/java/org/apache/kafka/common/security/ssl/DefaultSslEngineFactory.java:429');
    for (const entry of located) expect(cells).not.toContain(entry.bom_ref);
  });

  it('an entry with several occurrences lists its locations one a line (trivy: RSA-2048 in six files)', () => {
    const rsa = reports.trivy.model.sections.flatMap((s) => s.rows).find((r) => r.name === 'RSA-2048')!;
    expect(String(rsa.where).split('\n')).toEqual(['etc/ssl/certs/bundle.pem', 'etc/ssl/certs/rsa.pem', 'etc/ssl/private/pkcs1.key', 'etc/ssl/private/rsa.key', 'etc/ssl/public/rsa.pem', 'opt/app/rsa.pem']);
  });

  it('temurin (cbomkit-theia): a certificate without occurrences shows its bom-ref', () => {
    const entry = allEntries(reports.temurin).find((e) => e.name === 'google.com')!;
    expect(entry.locations).toEqual([]);
    const row = reports.temurin.model.sections.flatMap((s) => s.rows).find((r) => r.name === 'google.com')!;
    expect(row.where).toBe(entry.bom_ref);
  });
});

describe('Readable at any size: a long section is grouped by algorithm and verdict', () => {
  it('temurin: 319 entries in a few dozen groups; every entry in exactly one group, in group order', () => {
    const { model } = reports.temurin;
    const groups = model.sections.flatMap((s) => s.groups?.list ?? []);
    expect(model.sections.reduce((n, s) => n + s.total, 0)).toBe(319);
    expect(groups.length).toBeGreaterThan(5);
    expect(groups.length).toBeLessThan(40);
    for (const section of model.sections) {
      expect(section.groups).toBeDefined();
      // The section's rows are its groups' rows, in order: the XLSX and CSV list entries group by group.
      expect(section.groups!.list.flatMap((g) => g.rows)).toEqual(section.rows);
      expect(section.groups!.list.reduce((n, g) => n + g.rows.length, 0)).toBe(section.total);
    }
  });

  it('a group says its explanation, replacement and deadline once: every entry of it shares them (all five CBOMs)', () => {
    for (const name of Object.keys(FIXTURES) as Name[]) {
      for (const [section, stored] of reports[name].entries) {
        // Rows that point back at their stored entry.
        const groups = pqcGroups(section, stored, (entry) => ({ name: entry.name, occurrences: entry.occurrences, index: stored.indexOf(entry) }));
        expect(groups.flatMap((g) => g.rows.map((r) => r.index)).sort((a, b) => Number(a) - Number(b))).toEqual(stored.map((_, i) => i));
        for (const group of groups) {
          for (const entry of group.rows.map((row) => stored[Number(row.index)]!)) {
            expect(pqcVerdict(entry).explanation, `${name} ${group.title}`).toBe(group.explanation);
            expect(pqcVerdict(entry).algorithm).toBe(group.title);
            expect(group.facts.find((f) => f.label === 'Deadline')?.value ?? null).toBe(entry.deadline?.slice(0, 10) ?? null);
            expect(group.facts.find((f) => f.label === 'Move to')?.value ?? null).toBe(entry.replacement ?? null);
          }
        }
      }
    }
  });

  it('a certificate joins the group of the algorithm that decides it, without its own name in the explanation', () => {
    const decided = allEntries(reports.temurin).find((e) => e.trustAnchor === false && /^[^:]+: RSA-2048 \(key\) decides\. /.test(e.explanation))!;
    const verdict = pqcVerdict(decided);
    expect(verdict).toMatchObject({ algorithm: 'RSA-2048', role: 'key' });
    expect(verdict.explanation).not.toContain(decided.name);
  });

  it('a trust anchor joins the other roots on its key, said once as a trust anchor (temurin: Sonera Class2 CA, an RSA-2048 root)', () => {
    const sonera = allEntries(reports.temurin).find((e) => e.name === 'Sonera Class2 CA')!;
    expect(sonera.trustAnchor).toBe(true);
    const verdict = pqcVerdict(sonera);
    expect(verdict).toMatchObject({ algorithm: 'RSA-2048', role: 'trust anchor key' });
    expect(verdict.explanation).toMatch(/^A trust anchor: a self-signed root whose own signature is never checked/);
    expect(verdict.explanation).not.toContain('Sonera');
    const group = reports.temurin.model.sections[0]!.groups!.list.find((g) => g.rows.some((r) => r.name === 'Sonera Class2 CA'))!;
    expect(group.title).toBe('RSA-2048');
    expect(group.detail).toBe('trust anchor key');
    expect(group.rows.length).toBeGreaterThan(10);
  });

  it('a part judged in a role groups under its algorithm with the role said once (a TLS 1.3 suite whose PRF hash is SHA-1)', async () => {
    const cbom = JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      components: [
        { type: 'cryptographic-asset', 'bom-ref': 'aes', name: 'AES-128-GCM', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'ae' } } },
        { type: 'cryptographic-asset', 'bom-ref': 'sha1', name: 'SHA-1', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'hash' } } },
        ...['edge-a', 'edge-b'].map((name) => ({
          type: 'cryptographic-asset', 'bom-ref': name, name,
          cryptoProperties: { assetType: 'protocol', protocolProperties: { type: 'tls', version: '1.3', cipherSuites: [{ name: 'TLS_AES_128_GCM_SHA256', algorithms: ['aes', 'sha1'] }] } },
        })),
      ],
    });
    const { entries } = await fixtureReport('pqc-inventory', cbom, { subject: 'roles' });
    const protocols = [...entries.values()].flat().filter((e) => e.assetType === 'protocol');
    expect(protocols).toHaveLength(2);
    for (const entry of protocols) {
      expect(pqcVerdict(entry)).toMatchObject({ algorithm: 'HKDF-SHA1', role: 'cipher suite TLS_AES_128_GCM_SHA256 (prf)' });
      expect(pqcVerdict(entry).explanation).not.toContain(entry.name);
    }
    const section = String(protocols[0]!.section);
    const groups = pqcGroups(section, protocols, (entry) => ({ name: entry.name }));
    expect(groups.map((g) => [g.title, g.detail, g.rows.length])).toEqual([['HKDF-SHA1', 'cipher suite TLS_AES_128_GCM_SHA256 (prf)', 2]]);
  });

  it('the most important groups come first: past deadlines, then the nearest, then the largest', () => {
    for (const name of Object.keys(FIXTURES) as Name[]) {
      for (const section of reports[name].model.sections) {
        const deadlines = section.groups!.list.map((g) => g.facts.find((f) => f.label === 'Deadline')?.value ?? '9999');
        expect(deadlines, `${name} ${section.name}`).toEqual([...deadlines].sort());
      }
    }
    const red = reports.temurin.model.sections.find((s) => s.name === 'red')!.groups!.list;
    // SHA-1 signatures were disallowed in 2013: the first thing to fix (trust anchors' self-signatures are not checked, so only the algorithm itself is here).
    expect(red[0]!.facts[0]).toEqual({ label: 'Deadline', value: '2013-12-31' });
    expect(red[0]!.title).toBe('RSA-SHA1');
  });

  it('the PDF of temurin (319 assets) stays under 15 pages, shows groups with their first entries, and is deterministic', async () => {
    const bytes = await renderPdf(reports.temurin.model);
    const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(pdf.getPageCount()).toBeLessThan(15);
    expect(PDF_GROUP_ROWS).toBeLessThanOrEqual(10);
    expect(await renderPdf(reports.temurin.model)).toEqual(bytes);
  });

  it('every single entry stays in the XLSX and CSV (temurin: 319 rows, each once)', async () => {
    const { model } = reports.temurin;
    const book = await workbook(model);
    const sheets = book.worksheets.slice(1);
    expect(sheets.map((s) => s.actualRowCount - 1)).toEqual(model.sections.map((s) => s.total));
    expect(sheets.reduce((n, s) => n + s.actualRowCount - 1, 0)).toBe(319);
    // The Algorithm column says which group each entry belongs to, for filtering.
    const red = sheets[0]!;
    expect(red.getCell('A1').value).toBe('Algorithm');
    expect(red.getCell('A2').value).toBe('RSA-SHA1');
    expect(csvRecords(model).length - 1).toBe(319);
  });

  it('the HTML holds every entry under its group heading, which says the explanation once', () => {
    const { model } = reports.temurin;
    const all = htmlElements(model);
    const heads = all.filter((e) => e.tagName === 'tr' && e.attrs.some((a) => a.name === 'class' && a.value === 'group-head'));
    expect(heads.length).toBe(model.sections.reduce((n, s) => n + s.groups!.list.length, 0));
    const entryRows = all.filter((e) => e.tagName === 'tr' && e.childNodes.some((c) => 'tagName' in c && c.tagName === 'td'));
    expect(entryRows.length).toBe(319);
    const text = textOf(all.find((e) => e.tagName === 'main')!);
    const explanation = model.sections[0]!.groups!.list[0]!.explanation!;
    expect(text.split(explanation).length - 1).toBe(1);
  });

  it('20,000 stored-like entries: grouped quickly, and the PDF stays short (a few groups of at most ten entries)', async () => {
    let started = performance.now();
    const model = samplePqcModel(20_000);
    const layoutMs = performance.now() - started;
    started = performance.now();
    const bytes = await renderPdf(model);
    const pdfMs = performance.now() - started;
    const pages = (await PDFDocument.load(bytes, { updateMetadata: false })).getPageCount();
    console.log(`grouped pqc, 20,000 entries: layout ${layoutMs.toFixed(0)} ms, PDF ${pdfMs.toFixed(0)} ms, ${pages} pages, ${(bytes.length / 1024).toFixed(0)} KiB`);
    expect(model.sections.reduce((n, s) => n + s.total, 0)).toBe(20_000);
    expect(pages).toBeLessThan(30);
  });
});

describe('PPTX: each section slide shows its top groups', () => {
  it('temurin: the red slide carries each group\'s deadline and what to move to, most urgent first, and what is left out', async () => {
    const { model } = reports.temurin;
    const deck = await slides(model);
    const red = model.sections.find((s) => s.name === 'red')!;
    const slide = deck[2]!;
    expect(slide).toContain(red.title);
    for (const header of ['Algorithm', 'Entries', 'Deadline', 'Move to']) expect(slide).toContain(header);
    const shown = red.groups!.list.slice(0, ENTRIES_PER_SLIDE);
    for (const group of shown) {
      expect(slide).toContain(group.detail ? `${group.title} (${group.detail})` : group.title);
      expect(slide).toContain(group.facts.find((f) => f.label === 'Deadline')!.value);
    }
    expect(slide).toContain('ML-DSA-65 or ML-DSA-87 (FIPS 204); SLH-DSA (FIPS 205) or LMS/XMSS (SP 800-208) for firmware signing');
    // Not the first eight rows of one kind: eight different groups.
    expect(new Set(shown.map((g) => g.title + g.facts.map((f) => f.value).join())).size).toBe(ENTRIES_PER_SLIDE);
    const hidden = red.groups!.list.slice(ENTRIES_PER_SLIDE);
    expect(slide).toContain(`${hidden.length} more groups (${hidden.reduce((n, g) => n + g.rows.length, 0)} entries) in the XLSX/CSV export`);
    expect(deck.length).toBe(2 + nonEmpty(model).length);
  });
});

describe('XLSX summary: the survey row shows the survey id and target; rows are tall enough for their wrapped text', () => {
  it('a survey without a tag: its id, its target, and "none" for the tag', async () => {
    const summary = (await workbook(reports.kafka.model)).getWorksheet('Summary')!;
    const value = (label: string) => {
      let found: unknown;
      summary.eachRow((row) => {
        if (found === undefined && row.getCell(1).value === label) found = row.getCell(2).value;
      });
      return found;
    };
    expect(reports.kafka.model.survey.tag).toBeNull();
    expect(value('Survey')).toBe(reports.kafka.model.survey.id);
    expect(value('Target')).toBe('kafka');
    expect(value('Tag')).toBe('none');
  });

  it('wrapped cells (what a sheet means, the notes) get the height of their lines', async () => {
    const summary = (await workbook(reports.temurin.model)).getWorksheet('Summary')!;
    const rows: ExcelJS.Row[] = [];
    summary.eachRow((row) => void rows.push(row));
    for (const section of reports.temurin.model.sections) {
      const row = rows.find((r) => r.getCell(2).value === section.title)!;
      expect(row.getCell(4).alignment.wrapText).toBe(true);
      // 64 characters a line in column D, 15 points a line.
      expect(row.height, section.name).toBeGreaterThanOrEqual(Math.ceil(section.description.length / 64) * 15);
    }
    for (const note of reports.temurin.model.notes) {
      const row = rows.find((r) => r.getCell(1).value === note)!;
      expect(row.getCell(1).alignment.wrapText).toBe(true);
      expect(row.height ?? 15).toBeGreaterThanOrEqual(Math.ceil(note.length / 150) * 15);
    }
    expect(summary.model.merges.length).toBeGreaterThan(0);
  });
});

describe('HTML: headers never break inside a word; an unclassified entry is "not judged"', () => {
  /** About how wide a header word is in the HTML's 12 px semibold, and the narrowest a table gets. */
  const headerPx = (word: string) => [...word].length * 8 + 18;

  it('every column of every table is at least as wide as its header\'s longest word, and the CSS never breaks header words', () => {
    const models: RenderModel[] = [...Object.values(reports).map((r) => r.model), sampleModel(10), samplePqcModel(40)];
    const tables = models.flatMap((model) => model.sections.map((section: SectionModel) => section.groups?.columns ?? section.columns));
    for (const columns of tables) {
      const percents = columnPercents(columns);
      expect(percents.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 5);
      columns.forEach((column, index) => {
        const longest = Math.max(...column.header.split(/\s+/).map(headerPx));
        expect((percents[index]! / 100) * 720, column.header).toBeGreaterThanOrEqual(longest - 0.01);
      });
    }
    const css = htmlElements(sampleModel(4)).filter((e) => e.tagName === 'style').map(textOf).join('');
    const thRules = [...css.matchAll(/(^|\})\s*([^{}]*\bth\b[^{}]*)\{([^}]*)\}/g)].map((m) => m[3]!);
    for (const rule of thRules) expect(rule).not.toMatch(/overflow-wrap:\s*(break-word|anywhere)|word-break:\s*break-all/);
  });

  it('kafka: its unclassified entries say "not judged" for CNSA 2.0, as the JSON\'s note does, in every format', async () => {
    const { model, entries } = reports.kafka;
    const unclassified = entries.get('unclassified')!;
    expect(unclassified.length).toBeGreaterThan(0);
    for (const entry of unclassified) expect(entry.cnsa2.note).toMatch(/^Not judged/);
    const section = model.sections.find((s) => s.name === 'unclassified')!;
    expect(section.rows.map((r) => r.cnsa2)).toEqual(section.rows.map(() => 'not judged'));
    // The others are judged.
    expect(model.sections.filter((s) => s.name !== 'unclassified').flatMap((s) => s.rows).some((r) => r.cnsa2 === 'not judged')).toBe(false);

    const html = htmlElements(model);
    const unclassifiedSection = html.find((e) => e.tagName === 'section' && e.attrs.some((a) => a.name === 'id' && a.value === `section-${model.sections.indexOf(section) + 1}`))!;
    const cnsaCells = elements(unclassifiedSection).filter((e) => e.tagName === 'td').map(textOf).filter((t) => /judged|approved/.test(t));
    expect(cnsaCells).toEqual(section.rows.map(() => 'not judged'));
    const csv = csvRecords(model);
    const cnsa = csv[0]!.indexOf('CNSA 2.0');
    expect(csv.slice(1).filter((r) => r[0] === 'unclassified').map((r) => r[cnsa])).toEqual(section.rows.map(() => 'not judged'));
    const sheet = (await workbook(model)).getWorksheet('Unclassified')!;
    const column = (sheet.getRow(1).values as unknown[]).indexOf('CNSA 2.0');
    expect(sheet.getRows(2, section.total)!.map((r) => r.getCell(column).value)).toEqual(section.rows.map(() => 'not judged'));
    // The CNSA figure counts them apart, so its parts add up to the findings.
    const all = allEntries(reports.kafka);
    const approved = all.filter((e) => e.cnsa2.approved).length;
    const figure = model.figures.find((f) => f.label === 'CNSA 2.0 approved')!;
    expect(figure.value).toBe(approved);
    expect(figure.detail).toBe(`${all.length - approved - unclassified.length} not approved, ${unclassified.length} not judged`);
  });
});
