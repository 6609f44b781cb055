// The section rows of the XLSX, written as sheet XML and streamed into the package (fflate's zip
// container, the runtime's deflate), not held as exceljs cells: exceljs keeps every cell as objects and builds each sheet's XML whole,
// which for 20,000 entries (140,000 cells) peaked at about 110 MB of JS heap (19 MB of it the model)
// and failed under a 96 MB heap cap; streamed, the peak is about 30 MB. exceljs still writes all the
// rest (Summary, styles, headers, panes, filters); the rows take each column's style from the `<col>`
// elements it wrote, and their texts join its shared strings (exceljs decodes `_xHHHH_` only there).
import { Zip, ZipPassThrough, strFromU8, unzipSync, type FlateError } from 'fflate';
import { concatBytes } from '../lib/bytes';
import { numericValue, parseIsoDate } from './cells';
import type { Cell, Column, SectionModel } from './model';

/** A section sheet of the package: its part name, the section whose rows it receives, the width of each wrapping column. */
export interface SectionSheet {
  path: string;
  section: SectionModel;
  wrapWidths: (number | null)[];
  /** The section's entries: its rows held in the model, or the total of those read as written. */
  entries: number;
  /** How many of them the sheet lists: all, or as many as fit (its last row then says how many were left out). */
  listed: number;
  /** The rows a sheet may have, its header included. */
  sheetRows: number;
}

/** Excel refuses longer cell texts. */
const MAX_CELL_TEXT = 32_767;
/**
 * XML text is converted to bytes and compressed in pieces of about this many characters: small
 * enough to stay an ordinary young-generation string (V8 puts a string over about 128 KB straight
 * into its large-object space, where each piece waited for a full collection).
 */
const CHUNK_CHARS = 32 * 1024;
const MS_PER_DAY = 86_400_000;
/** The height in points of a line of 11 pt Calibri, and the most lines a row grows to. */
export const LINE_HEIGHT = 15;
const MAX_LINES = 12;
/** 1970-01-01 as an Excel serial day (1900 date system). */
const UNIX_EPOCH_SERIAL = 25_569;

/** Rows an Excel sheet holds at most, its header included. */
export const SHEET_ROWS = 1_048_576;

/** How many of `total` entries a sheet of at most `sheetRows` rows lists: all, or as many as leave room for the header and a last row saying what was left out. */
export function listedEntries(total: number, sheetRows: number): number {
  return total <= sheetRows - 1 ? total : Math.max(0, sheetRows - 2);
}

/** The note a sheet's last row holds when the section has more entries than the sheet holds rows. */
export function leftOutNote(total: number, listed: number, sheetRows: number): string {
  const left = total - listed;
  return `${left.toLocaleString('en-US')} more ${left === 1 ? 'entry is' : 'entries are'} left out: a sheet holds at most ${sheetRows.toLocaleString('en-US')} rows. The CSV document lists all ${total.toLocaleString('en-US')}.`;
}

/**
 * The package as chunks of compressed bytes, in order, with every section sheet's rows added after its
 * header row: a section read as it is written (`everyRow`) is never whole in memory, nor is the package.
 */
export async function* packageChunks(skeleton: Uint8Array, sheets: SectionSheet[]): AsyncGenerator<Uint8Array> {
  const sheetByPath = new Map(sheets.map((sheet) => [sheet.path, sheet]));
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  let ended!: () => void;
  const zipEnded = new Promise<void>((resolve) => (ended = resolve));
  const zip = new Zip((error, chunk, final) => {
    if (error) failure = error;
    else out.push(chunk);
    if (error || final) ended();
  });
  const compressed = function* () {
    if (failure) throw failure;
    while (out.length) yield out.shift()!;
  };
  const sink = new TextSink();
  const add = (path: string) => {
    const entry = new NativeDeflate(path);
    zip.add(entry);
    return entry;
  };

  const parts = unzipSync(skeleton);
  const sharedStrings = parts[SHARED_STRINGS];
  if (!sharedStrings) throw new Error('workbook without shared strings');
  const strings = new SharedStrings(strFromU8(sharedStrings));
  for (const [path, data] of Object.entries(parts)) {
    // Folder entries: readers need none. The shared strings go last, once every row has added its own.
    if (path.endsWith('/') || path === SHARED_STRINGS) continue;
    delete parts[path];
    const sheet = sheetByPath.get(path);
    if (sheet) for await (const _ of writeSheet(sink.into(add(path)), strFromU8(data), sheet, strings)) yield* compressed();
    else await add(path).write(data, true);
    yield* compressed();
  }
  await strings.write(sink.into(add(SHARED_STRINGS)));
  zip.end();
  await zipEnded;
  yield* compressed();
}

/** The package with every section sheet's rows added after its header row, whole (the renderer tests, the local render route). */
export async function withSectionRows(skeleton: Uint8Array, sheets: SectionSheet[]): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of packageChunks(skeleton, sheets)) chunks.push(chunk);
  return concatBytes(chunks);
}

const SHARED_STRINGS = 'xl/sharedStrings.xml';

/** Appends text to a zip entry; `final` ends the entry. */
type WriteText = (text: string, final?: boolean) => Promise<void>;

/**
 * A zip entry deflated by the runtime's `CompressionStream('deflate-raw')`. fflate's own ZipDeflate
 * allocates an output array the size of its input on every push, so a sheet of 1.5 GB of XML left
 * gigabytes of ArrayBuffers for the collector; here only the compressed bytes become new arrays.
 * fflate keeps writing the container (headers, CRC, sizes in the data descriptor): a subclass of
 * ZipPassThrough that sets `compression` is its documented way to plug in another compressor.
 */
class NativeDeflate extends ZipPassThrough {
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private written: Promise<void> = Promise.resolve();

  constructor(filename: string) {
    super(filename);
    this.compression = 8;
    const stream = new CompressionStream('deflate-raw');
    this.writer = stream.writable.getWriter();
    void this.drain(stream.readable.getReader());
  }

  /** Pushes bytes (their CRC and size counted by ZipPassThrough) and answers once the compressor has taken them: the caller may then reuse the array. */
  async write(chunk: Uint8Array, final = false): Promise<void> {
    this.push(chunk, final);
    await this.written;
  }

  override process(chunk: Uint8Array, final: boolean): void {
    const previous = this.written;
    this.written = (async () => {
      await previous;
      if (chunk.byteLength) await this.writer.write(chunk);
      if (final) await this.writer.close();
    })();
    // A failed write reaches the zip through the reader, which fails with it.
    this.written.catch(() => {});
  }

  private async drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.ondata(null, value, false);
      }
      this.ondata(null, new Uint8Array(0), true);
    } catch (error) {
      this.ondata(Object.assign(error instanceof Error ? error : new Error(String(error)), { code: 0 }) as FlateError, null as never, true);
    }
  }
}

/**
 * Encodes text for zip entries through one reused buffer, each piece handed to the compressor before
 * the next is encoded: the tens of megabytes of sheet XML never exist as encoded arrays waiting for
 * the collector.
 */
class TextSink {
  private readonly buffer = new Uint8Array(64 * 1024);
  private readonly encoder = new TextEncoder();

  into(entry: NativeDeflate): WriteText {
    return async (text, final = false) => {
      let rest = text;
      do {
        const { read, written } = this.encoder.encodeInto(rest, this.buffer);
        rest = rest.slice(read);
        await entry.write(this.buffer.subarray(0, written), final && rest.length === 0);
      } while (rest.length > 0);
    };
  }
}

/** exceljs's shared string table, and the texts of the rows appended to it. */
class SharedStrings {
  private readonly added = new Map<string, number>();
  private references = 0;
  private readonly head: string;
  private readonly tail: string;
  private readonly count: number;
  private readonly uniqueCount: number;

  constructor(xml: string) {
    const open = /<sst\b[^>]*>/.exec(xml);
    const end = xml.lastIndexOf('</sst>');
    if (!open || end < 0) throw new Error('unexpected shared strings part');
    this.count = Number(/\bcount="(\d+)"/.exec(open[0])?.[1] ?? 0);
    this.uniqueCount = Number(/\buniqueCount="(\d+)"/.exec(open[0])?.[1] ?? 0);
    this.head = xml.slice(0, end);
    this.tail = xml.slice(end);
  }

  /** The index of the text in the table. */
  indexOf(text: string): number {
    this.references++;
    let index = this.added.get(text);
    if (index === undefined) {
      index = this.uniqueCount + this.added.size;
      this.added.set(text, index);
    }
    return index;
  }

  async write(write: WriteText): Promise<void> {
    const counts = `count="${this.count + this.references}" uniqueCount="${this.uniqueCount + this.added.size}"`;
    await write(this.head.replace(/\bcount="\d+" uniqueCount="\d+"/, counts));
    let part = '';
    for (const text of this.added.keys()) {
      const escaped = escapeXml(excelText(text));
      // Without xml:space="preserve" readers drop leading and trailing spaces and line breaks.
      part += /^\s|\s$|\n/.test(escaped) ? `<si><t xml:space="preserve">${escaped}</t></si>` : `<si><t>${escaped}</t></si>`;
      if (part.length > CHUNK_CHARS) {
        await write(part);
        part = '';
      }
    }
    await write(part + this.tail, true);
  }
}

/**
 * A section sheet: exceljs's XML with the rows inserted before `</sheetData>`, yielding after each piece
 * written. Rows held in the model take shared strings, as exceljs writes; rows read as written take
 * inline strings, so no table of every text grows in memory.
 */
async function* writeSheet(write: WriteText, xml: string, { section, wrapWidths, entries, listed, sheetRows }: SectionSheet, strings: SharedStrings): AsyncGenerator<void> {
  const end = xml.lastIndexOf('</sheetData>');
  if (end < 0) throw new Error('section sheet without sheetData');
  const letters = section.columns.map((_, index) => columnLetters(index));
  const styles = columnStyles(xml, section.columns.length);
  const cut = listed < entries;
  const lastRow = listed + 1 + (cut ? 1 : 0);
  const text: TextCell = section.everyRow ? inlineText : (value) => `t="s"><v>${strings.indexOf(value)}</v>`;
  await write(xml.slice(0, end).replace(/<dimension ref="[^"]*"\/>/, `<dimension ref="A1:${letters.at(-1) ?? 'A'}${lastRow}"/>`));
  let part = '';
  let index = 0;
  for await (const row of section.everyRow?.() ?? section.rows) {
    if (index === listed) break;
    const rowNumber = index + 2;
    const lines = Math.max(1, ...section.columns.map((column, c) => wrappedLines(row[column.key], wrapWidths[c] ?? null)));
    // Neither Excel nor LibreOffice grows a row to fit wrapped text on opening: give it the height.
    part += lines > 1 ? `<row r="${rowNumber}" ht="${lines * LINE_HEIGHT}" customHeight="1">` : `<row r="${rowNumber}">`;
    section.columns.forEach((column, c) => (part += cellXml(`${letters[c]}${rowNumber}`, styles[c]!, row[column.key], column, text)));
    part += '</row>';
    index++;
    if (part.length > CHUNK_CHARS) {
      await write(part);
      part = '';
      yield;
    }
  }
  if (cut) part += `<row r="${lastRow}"><c r="A${lastRow}" s="${styles[0] ?? '0'}" ${text(leftOutNote(entries, listed, sheetRows))}</c></row>`;
  await write(part + xml.slice(end), true);
}

/** A text cell's type and value (after `<c r=".." s=".." `): a shared string's index or an inline string. */
type TextCell = (value: string) => string;

function inlineText(value: string): string {
  const escaped = escapeXml(excelText(value));
  return /^\s|\s$|\n/.test(escaped) ? `t="inlineStr"><is><t xml:space="preserve">${escaped}</t></is>` : `t="inlineStr"><is><t>${escaped}</t></is>`;
}

/** The style id exceljs gave each column (`<col min="2" max="2" style="9" .../>`), '0' where none. */
function columnStyles(xml: string, count: number): string[] {
  const styles = new Array<string>(count).fill('0');
  for (const [col] of xml.matchAll(/<col\b[^>]*\/>/g)) {
    const min = Number(/\bmin="(\d+)"/.exec(col)?.[1]);
    const max = Number(/\bmax="(\d+)"/.exec(col)?.[1]);
    const style = /\bstyle="(\d+)"/.exec(col)?.[1];
    if (style === undefined) continue;
    for (let index = min; index <= max && index <= count; index++) styles[index - 1] = style;
  }
  return styles;
}

function cellXml(ref: string, style: string, value: Cell | undefined, column: Column, text: TextCell): string {
  if (value === null || value === undefined) return '';
  let number: number | null = typeof value === 'number' && Number.isFinite(value) ? value : null;
  if (column.kind === 'number') number = numericValue(value);
  if (column.kind === 'date' && typeof value === 'string') {
    const date = parseIsoDate(value);
    if (date && inExcelRange(date)) number = excelSerial(date);
  }
  if (number !== null) return `<c r="${ref}" s="${style}"><v>${number}</v></c>`;
  if (typeof value === 'number') return ''; // NaN or infinite: no value to show
  return `<c r="${ref}" s="${style}" ${text(value)}</c>`;
}

// East Asian wide characters take about two columns of width.
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/g;

/** About how many lines the cell's text takes wrapped in a column `width` characters wide (at most MAX_LINES). */
export function wrappedLines(value: Cell | undefined, width: number | null): number {
  if (width === null || typeof value !== 'string') return 1;
  // Prose fits a few more characters than the width (counted in digits), word wrapping wastes a few.
  const perLine = Math.max(1, width);
  const linesOf = (paragraph: string) => Math.max(1, Math.ceil((paragraph.length + (paragraph.match(WIDE)?.length ?? 0)) / perLine));
  // Most cells are one paragraph: counted without splitting (this runs for every cell of every row).
  if (!/[\r\n]/.test(value)) return Math.min(linesOf(value), MAX_LINES);
  let lines = 0;
  for (const paragraph of value.split(/\r\n|\r|\n/)) lines += linesOf(paragraph);
  return Math.min(lines, MAX_LINES);
}

/** The date as an Excel serial day number (1900 date system, UTC), as exceljs writes dates. */
function excelSerial(date: Date): number {
  return UNIX_EPOCH_SERIAL + date.getTime() / MS_PER_DAY;
}

/**
 * Whether Excel can show the date: its 1900 date system starts on 1900-01-01 and counts a 29 February
 * 1900 that never was, so only from 1900-03-01 do serials and dates agree. An earlier date (Go's zero
 * time, `0001-01-01`) would be a negative serial, shown as `#####`: it is written as its text instead.
 */
export function inExcelRange(date: Date): boolean {
  return date.getTime() >= EXCEL_FIRST_DAY;
}
const EXCEL_FIRST_DAY = Date.UTC(1900, 2, 1);

// Control characters are not allowed raw in XML (a lone CR would come back as LF, the others make
// the file invalid); OOXML spells them `_xHHHH_`, which Excel, LibreOffice and exceljs decode. A
// literal `_xHHHH_` in the text is escaped as `_x005F_xHHHH_`, or it would be decoded too.
const NEEDS_ESCAPE = /_x[0-9a-f]{4}_|[\x00-\x08\x0b-\x1f\ufffe\uffff]/gi;

/** A string as an XLSX cell text (before XML escaping): control characters escaped, cut to Excel's limit. */
export function excelText(text: string): string {
  let kept = text;
  if (kept.length > MAX_CELL_TEXT) {
    // Leave room for the ellipsis and never split a surrogate pair.
    const end = MAX_CELL_TEXT - 1 - (/[\ud800-\udbff]/.test(kept[MAX_CELL_TEXT - 2] ?? '') ? 1 : 0);
    kept = `${kept.slice(0, end)}…`;
  }
  return kept.replace(NEEDS_ESCAPE, (match) =>
    match.length > 1 ? `_x005F_${match.slice(1)}` : `_x${match.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`,
  );
}

function escapeXml(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}

/** 0 -> A, 25 -> Z, 26 -> AA. */
function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}
