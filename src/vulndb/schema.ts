// The vulnerability database in D1 (ARCHITECTURE section 1): OSV records, and which packages each
// names, for bulk lookups by (ecosystem, package). Documented in docs/storage.md.
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** One OSV record, whole. Replaced only by a newer `modified` (the import is incremental). */
export const vulnRecords = sqliteTable('vuln_records', {
  id: text('id').primaryKey(),
  modified: text('modified').notNull(),
  published: text('published'),
  withdrawn: text('withdrawn'),
  record: text('record').notNull(),
  source: text('source').notNull(),
  /** The import that last wrote the row: which rows an import changed, and their package rows follow it. */
  importId: text('import_id').notNull(),
});

/** A package an OSV record's `affected` names: `ecosystem` as OSV spells it (`Debian:12`), `base` without its suffix (`Debian`). */
export const vulnPackages = sqliteTable('vuln_packages', {
  base: text('base').notNull(),
  ecosystem: text('ecosystem').notNull(),
  name: text('name').notNull(),
  recordId: text('record_id').notNull(),
}, (t) => [primaryKey({ columns: [t.base, t.name, t.ecosystem, t.recordId] }), index('vuln_packages_record').on(t.recordId)]);

/** One import run (the command or the daily refresh): when, from where, and what changed. */
export const vulnImports = sqliteTable('vuln_imports', {
  id: text('id').primaryKey(),
  source: text('source').notNull(),
  startedAt: text('started_at').notNull(),
  finishedAt: text('finished_at'),
  records: integer('records').notNull().default(0),
  changed: integer('changed').notNull().default(0),
});
