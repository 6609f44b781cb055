#!/usr/bin/env node
// npm run vulndb:import -- PATH [--remote] [--persist-to DIR] [--database DB] [--quiet]
// Imports OSV records into the vulnerability database in D1, incrementally (a record is replaced only
// when its `modified` is newer): PATH is a directory of OSV JSON files (searched recursively) or an
// OSV `all.zip`, read as a stream. Records go in batches through `wrangler d1 execute`, local by
// default (the database `npm run dev` uses), remote with --remote. Statements: src/vulndb/statements.json.
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Unzip, UnzipInflate } from 'fflate';
import { root, wrangler } from './local.mjs';

const statements = JSON.parse(readFileSync(join(root, 'src/vulndb/statements.json'), 'utf8'));
const BATCH = Number(process.env.VULNDB_BATCH ?? 1000);

const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : undefined; };
const has = (name) => { const i = args.indexOf(name); return i >= 0 ? (args.splice(i, 1), true) : false; };
const remote = has('--remote');
const quiet = has('--quiet');
const persistTo = flag('--persist-to');
const database = flag('--database') ?? 'DB';
const path = args[0];
if (!path) {
  console.error('usage: npm run vulndb:import -- PATH [--remote] [--persist-to DIR] [--database DB] [--quiet]');
  process.exit(2);
}

const sqlText = (value) => (value === null || value === undefined ? 'NULL' : `'${String(value).replaceAll("'", "''")}'`);
/** A statement of statements.json with its ?N parameters written in as literals. */
const inline = (statement, values) => statement.replace(/\?(\d+)/g, (_, n) => sqlText(values[Number(n) - 1]));

function packagesOf(record) {
  const seen = new Map();
  for (const affected of record.affected ?? []) {
    const { ecosystem, name } = affected.package ?? {};
    if (ecosystem && name) seen.set(`${ecosystem}\0${name}`, [ecosystem.split(':')[0], ecosystem, name]);
  }
  return [...seen.values()];
}

const importId = randomUUID();
const source = path.split('/').filter(Boolean).pop();
const work = mkdtempSync(join(tmpdir(), 'vulndb-import-'));
const target = [...(remote ? ['--remote'] : ['--local']), ...(persistTo ? ['--persist-to', persistTo] : [])];
let pending = [];
let seen = 0;
let skipped = 0;

async function execute(sql) {
  const file = join(work, 'batch.sql');
  writeFileSync(file, sql);
  await wrangler(['d1', 'execute', database, ...target, '--file', file, '--yes']);
}

async function flush() {
  if (!pending.length) return;
  const sql = pending.flatMap((r) => [
    inline(statements.upsertRecord, [r.id, r.modified, r.published ?? null, r.withdrawn ?? null, JSON.stringify(r), source, importId]),
    inline(statements.clearPackages, [r.id, importId]),
    inline(statements.insertPackages, [r.id, importId, JSON.stringify(packagesOf(r))]),
  ].map((s) => `${s};`)).join('\n');
  pending = [];
  await execute(sql);
  if (!quiet) process.stderr.write(`vulndb: ${seen} records read${skipped ? ` (${skipped} skipped: not OSV)` : ''}\n`);
}

async function add(text, name) {
  let record;
  try {
    record = JSON.parse(text);
  } catch {
    record = null;
  }
  if (!record || typeof record.id !== 'string' || typeof record.modified !== 'string') {
    skipped++;
    if (!quiet) process.stderr.write(`vulndb: skipping ${name}: not an OSV record\n`);
    return;
  }
  seen++;
  pending.push(record);
  if (pending.length >= BATCH) await flush();
}

function* jsonFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsonFiles(full);
    else if (entry.name.endsWith('.json')) yield full;
  }
}

/** Reads an all.zip as a stream, one entry at a time (bounded memory whatever the archive's size). */
async function readZip(file) {
  // Entries in archive order; an entry's text is there once its last byte has been inflated.
  const entries = [];
  const unzip = new Unzip((entry) => {
    if (!entry.name.endsWith('.json')) return;
    const slot = { name: entry.name, text: null };
    entries.push(slot);
    const chunks = [];
    entry.ondata = (error, chunk, final) => {
      if (error) throw error;
      chunks.push(chunk);
      if (final) slot.text = Buffer.concat(chunks).toString('utf8');
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  const drain = async () => {
    while (entries[0]?.text != null) {
      const { name, text } = entries.shift();
      await add(text, name);
    }
  };
  for await (const chunk of createReadStream(file)) {
    unzip.push(chunk);
    await drain();
  }
  unzip.push(new Uint8Array(0), true);
  await drain();
}

try {
  const started = Date.now();
  await execute(`INSERT INTO vuln_imports (id, source, started_at) VALUES (${sqlText(importId)}, ${sqlText(source)}, ${sqlText(new Date().toISOString())});`);
  if (statSync(path).isDirectory()) for (const file of jsonFiles(path)) await add(readFileSync(file, 'utf8'), file);
  else await readZip(path);
  await flush();
  await execute(`UPDATE vuln_imports SET finished_at = ${sqlText(new Date().toISOString())}, records = ${seen}, changed = (SELECT count(*) FROM vuln_records WHERE import_id = ${sqlText(importId)}) WHERE id = ${sqlText(importId)};`);
  const seconds = (Date.now() - started) / 1000;
  if (!quiet) console.error(`vulndb: ${seen} records from ${source} in ${seconds.toFixed(1)} s (${Math.round(seen / Math.max(seconds, 0.001))} records/s); only new or newer records were written.`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
