// The CSV document of a report: every entry of every section in one RFC 4180 table (CRLF line ends,
// a header row, fields quoted only when they must be), safe to open in a spreadsheet.
import type { Cell, Column, RenderModel, SectionModel } from './model';

export { CSV_TEMPLATE } from './templates';

/**
 * Characters per yielded chunk (rows are not split), so a large report is never one string in memory
 * nor a chunk per cell; and no chunk is so large that V8 allocates it in its large-object space
 * (strings over about 128 KB), where it waits for a full collection.
 */
export const CSV_CHUNK_CHARS = 32 * 1024;

// A byte order mark first: Excel opens a double-clicked .csv in the machine's legacy code page unless the
// file starts with a UTF-8 BOM, which garbles every non-Latin name. RFC 4180 tools that care skip it
// (csv-parse `bom`, Python `utf-8-sig`, pandas); the cost is one stray character in naive readers.
const BOM = '\uFEFF';
const CRLF = '\r\n';

// OWASP CSV injection: a spreadsheet runs a text cell starting with one of these as a formula; a leading
// `'` makes it plain text. Numbers are written as they are: a negative number is a number, not a formula,
// and must stay summable.
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

function csvField(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The sections' columns, one per key, in first-seen order (the first header of a key names it). */
function unionColumns(model: RenderModel): Column[] {
  const byKey = new Map<string, Column>();
  for (const section of model.sections) for (const column of section.columns) if (!byKey.has(column.key)) byKey.set(column.key, column);
  return [...byKey.values()];
}

/** The header line: the BOM, `section`, then every section's columns. */
function headerLine(columns: Column[]): string {
  return BOM + ['section', ...columns.map((column) => column.header)].map(csvField).join(',') + CRLF;
}

/** A row of the section as its line: a row fills only its own section's columns, other sections' stay empty. */
function lineWriter(columns: Column[], section: SectionModel): (row: Record<string, Cell>) => string {
  const own = new Set(section.columns.map((column) => column.key));
  const keys = columns.map((column) => (own.has(column.key) ? column.key : null));
  const sectionField = csvField(section.name);
  return (row) => {
    let line = sectionField;
    for (const key of keys) line += `,${key === null ? '' : csvField(row[key] ?? null)}`;
    return line + CRLF;
  };
}

/** Lines gathered into chunks of about `CSV_CHUNK_CHARS` characters. */
class LineChunks {
  private text = '';

  /** Adds a line; answers the chunk when it is full, else null. */
  add(line: string): string | null {
    this.text += line;
    if (this.text.length < CSV_CHUNK_CHARS) return null;
    const full = this.text;
    this.text = '';
    return full;
  }

  /** What is left once every line was added, or null. */
  rest(): string | null {
    return this.text === '' ? null : this.text;
  }
}

/** The document as chunks of text, in order: the BOM and header, then about `CSV_CHUNK_CHARS` characters of rows at a time. */
export function* renderCsv(model: RenderModel): Generator<string> {
  const columns = unionColumns(model);
  yield headerLine(columns);
  const chunks = new LineChunks();
  for (const section of model.sections) {
    const lineOf = lineWriter(columns, section);
    for (const row of section.rows) {
      const full = chunks.add(lineOf(row));
      if (full !== null) yield full;
    }
  }
  const rest = chunks.rest();
  if (rest !== null) yield rest;
}

/**
 * renderCsv for the render queue: a section whose rows are not all held (`everyRow`) is read page by
 * page as it is written, so the document is never whole in memory.
 */
export async function* streamCsv(model: RenderModel): AsyncGenerator<string> {
  const columns = unionColumns(model);
  yield headerLine(columns);
  const chunks = new LineChunks();
  for (const section of model.sections) {
    const lineOf = lineWriter(columns, section);
    for await (const row of section.everyRow?.() ?? section.rows) {
      const full = chunks.add(lineOf(row));
      if (full !== null) yield full;
    }
  }
  const rest = chunks.rest();
  if (rest !== null) yield rest;
}
