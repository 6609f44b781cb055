// The vulnerability database in D1 (ARCHITECTURE section 1): OSV records, the packages each names
// (for bulk lookups by ecosystem and package), and one row per import. Documented in docs/storage.md.
// The SQL that writes these tables is in statements.json, shared by the Worker and the import command.
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** One OSV record, whole. Replaced only by a newer `modified` (the import is incremental). */
export const vulnRecords = sqliteTable('vuln_records', {
  id: text('id').primaryKey(),
  /** The record's `modified` as a fixed-width UTC key (`YYYY-MM-DDTHH:MM:SS.fffffffffZ`): text order is time order. */
  modified: text('modified').notNull(),
  published: text('published'),
  /** Set: the record is withdrawn and never looked up. */
  withdrawn: text('withdrawn'),
  /** The record's JSON, as imported. */
  record: text('record').notNull(),
  /** Where the record came from (`starter`, `npm/all.zip`, a directory name). */
  source: text('source').notNull(),
  /** The import (vuln_imports.id) that last wrote the record: with `id`, indexed, so the records an import changed are read in pages (src/vulndb/changes.ts). */
  importId: text('import_id').notNull(),
  /** The write (one batch of one import) that last wrote the record: its package rows are derived by it. */
  writeId: integer('write_id').notNull(),
}, (t) => [index('vuln_records_write').on(t.writeId), index('vuln_records_import').on(t.importId, t.id)]);

/**
 * A package a record's `affected` names, derived in SQL from the record on every write of it.
 * `ecosystem` as OSV spells it (`Debian:12`), `base` without its suffix (`Debian`), `name_key` the
 * name as lookups compare it (PyPI: PEP 503 normalised), `affected` the record's affected entries
 * for this package (JSON array, each without its `package`).
 */
export const vulnPackages = sqliteTable('vuln_packages', {
  base: text('base').notNull(),
  nameKey: text('name_key').notNull(),
  ecosystem: text('ecosystem').notNull(),
  name: text('name').notNull(),
  recordId: text('record_id').notNull(),
  affected: text('affected').notNull(),
}, (t) => [primaryKey({ columns: [t.base, t.nameKey, t.ecosystem, t.recordId] }), index('vuln_packages_record').on(t.recordId)]);

/** One import run (the command, the daily refresh, a direct importRecords call): when, from where, what it did. */
export const vulnImports = sqliteTable('vuln_imports', {
  id: text('id').primaryKey(),
  source: text('source').notNull(),
  /** The source's version when known (the staged archive's ETag): an unchanged source is not imported twice. */
  sourceVersion: text('source_version'),
  startedAt: text('started_at').notNull(),
  finishedAt: text('finished_at'),
  /** Set when the import stopped early: the error, or `budget` (the refresh's per-run limit). */
  error: text('error'),
  /** Records read, and what became of them. */
  records: integer('records').notNull().default(0),
  inserted: integer('inserted').notNull().default(0),
  updated: integer('updated').notNull().default(0),
  unchanged: integer('unchanged').notNull().default(0),
  /** Entries that were not OSV records, or too large for a row. */
  skipped: integer('skipped').notNull().default(0),
  /** The last time this import wrote a record: the data's identity (vulnDataSnapshot) moves with it. */
  changedAt: text('changed_at'),
}, (t) => [index('vuln_imports_changed').on(t.changedAt)]);

/** Pieces of records too large for one SQL statement (100 KB), used only by `npm run vulndb:import` and emptied by it. */
export const vulnImportParts = sqliteTable('vuln_import_parts', {
  writeId: integer('write_id').notNull(),
  seq: integer('seq').notNull(),
  part: text('part').notNull(),
}, (t) => [primaryKey({ columns: [t.writeId, t.seq] })]);
