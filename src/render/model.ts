// What every document renderer draws (PDF, XLSX, PPTX, HTML, CSV): one report laid out as plain data,
// the same for every report type (the survey reports now, the portfolio's posture report later).
// src/render/report-model.ts builds it from a stored report; each renderer only decides how it looks.

/** A cell: text, a number, a date (an ISO `YYYY-MM-DD` or full timestamp string in a `date` column), or empty. */
export type Cell = string | number | null;

export interface Column {
  key: string;
  header: string;
  /** `number` cells are numbers and `date` cells ISO date strings (XLSX writes them as real dates). */
  kind: 'text' | 'number' | 'date';
  /** A width hint in characters; long text wraps. */
  width: number;
}

export interface SectionModel {
  /** The section's name in the API (`red`, `critical`, `algorithm`, ...). */
  name: string;
  /** How people read it (`Red: quantum-vulnerable or broken`). */
  title: string;
  /** A sentence saying what the section means and what to do about it. */
  description: string;
  /** A CSS hex colour (`#c62828`) for the section's bar and badge. */
  color: string;
  /** How many entries the section has. */
  total: number;
  columns: Column[];
  /**
   * Its entries as table rows, the most important first: all of them (rows.length === total), or, for a
   * section too large to hold (src/queues/render.ts), only the first (of each group): a digest, which the
   * documents that show a sample (PDF, PPTX, HTML) say is one, pointing to the CSV and XLSX.
   */
  rows: Record<string, Cell>[];
  /**
   * Every entry as a row, read page by page as the document is written (CSV, XLSX), when `rows` does not
   * hold them all: in the order the report stores them, not grouped.
   */
  everyRow?: () => AsyncIterable<Record<string, Cell>>;
  /**
   * When the entries are grouped (src/render/groups.ts): the groups, most important first, whose rows
   * in order are `rows`; the columns an entry shows under its group (what the group does not say); what
   * a group's title names (`Algorithm`, `Component`); and, when a group is told by its entries (a
   * component by its advisories), the column that names them.
   */
  groups?: { title: string; columns: Column[]; list: GroupModel[]; members?: { key: string; header: string } };
}

/** Entries that share what a reader acts on, said once: an algorithm and its verdict, a component and its fix. */
export interface GroupModel {
  /** What the entries share, as people read it (`RSA-2048-SHA1`, `log4j-core 2.14.1`). */
  title: string;
  /** What the title is to its entries (`signature`, a package URL), or null. */
  detail: string | null;
  /** Shared facts in reading order (`Deadline`, `Move to`, `Fix version`). */
  facts: { label: string; value: string }[];
  /** The explanation every entry of the group shares. */
  explanation: string | null;
  /** The group's entries, most important first (the same objects as the section's rows): all, or in a digest the first. */
  rows: Record<string, Cell>[];
  /** How many entries the group has. */
  total: number;
}

export interface Figure {
  label: string;
  value: number | string;
  /** A short line under the value (`2 overdue`, `since the previous survey`). */
  detail?: string;
}

export interface ChartBar {
  label: string;
  value: number;
  color: string;
}

export interface RenderModel {
  reportId: string;
  /** `pqc-inventory`, `cbom`, `composition` (later `posture`). */
  reportType: string;
  /** The document's title (`Post-quantum cryptography inventory`). */
  title: string;
  project: { id: string; name: string };
  subject: string;
  /** The survey the report came from (null for a posture report): its id, tag, type and target. */
  survey: { id: string | null; tag: string | null; type: string | null; target: string | null };
  /** When the report was produced (ISO timestamp). */
  producedAt: string;
  /** The headline figures, in reading order. */
  figures: Figure[];
  /** The chart of the sections (one bar per list section). */
  chart: { title: string; bars: ChartBar[] };
  /** The list sections in order, each with all its entries. */
  sections: SectionModel[];
  /** Sentences shown under the figures (sources of the classification, what "fix version" means, ...). */
  notes: string[];
}

/** The five rendered formats, in the order they are produced. */
export const DOCUMENT_FORMATS = ['pdf', 'xlsx', 'pptx', 'html', 'csv'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** A renderer's identity, recorded in each document's provenance and compared by stale projections. */
export interface TemplateInfo {
  format: DocumentFormat;
  /** Raised whenever the layout or content of the format's documents changes. */
  version: string;
  /** The library that writes the format and its pinned version (`pdf-lib 1.17.1`), or `built-in`. */
  library: string;
  contentType: string;
}
