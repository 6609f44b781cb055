#!/usr/bin/env node
// npm run vulndb:import -- PATH [--remote] [--database NAME] [--persist-to DIR] [--source NAME] [--sql] [--quiet]
//
// Imports OSV records into the vulnerability database in D1, incrementally (a record is written only
// when its `modified` is newer than the stored one). PATH is a directory of OSV JSON files (searched
// recursively; a file may hold one record, an array of them, or {"vulns": [...]}) or an OSV `all.zip`,
// read as a stream. Into the local database by default (the one `wrangler dev` and `npm run dev` use),
// the production one with --remote (after `wrangler login`). Memory stays bounded by one batch.
//
// Two ways in, the same statements (src/vulndb/statements.json) and the same incremental rule:
// - local: the Worker's own import code (src/vulndb/import.ts, bundled here by esbuild) runs against
//   the local D1 through wrangler's getPlatformProxy, with bound parameters, as in production;
// - --remote (or --sql locally): batches of SQL with the parameters written in as literals, run by
//   `wrangler d1 execute --file` (remotely D1's import API), one file per batch of up to FILE_RECORDS
//   records. Statements stay under D1's 100 KB: small records are grouped, a large one is sent in
//   pieces (vuln_import_parts) and assembled in SQL.
import { spawn } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { closeSync, createReadStream, fstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import cliProgress from 'cli-progress';
import { Unzip, UnzipInflate } from 'fflate';
import { root } from './local.mjs';

const statements = JSON.parse(readFileSync(join(root, 'src/vulndb/statements.json'), 'utf8'));
/** Records per wrangler run (one SQL file, one transaction), and the file's size. */
const FILE_RECORDS = Number(process.env.VULNDB_FILE_RECORDS || 5000);
const FILE_BYTES = 32_000_000;
/** D1 refuses statements over 100 KB; this leaves room for the statement around a literal. */
const STATEMENT_BYTES = 90_000;
/** As src/vulndb/import.ts: larger records do not fit a D1 row (2 MB) and are skipped. */
const MAX_RECORD_BYTES = 1_900_000;
/** Characters per piece of a large record (at most 3 bytes each in UTF-8, 2 for a doubled quote). */
const PART_CHARS = 28_000;

// ---------------------------------------------------------------------------------------------------
// SQL

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9})\d*)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** `modified` as a fixed-width UTC key: the same function as modifiedKey in src/vulndb/import.ts (test-node checks they agree). */
export function modifiedKey(modified) {
  const m = TIMESTAMP.exec(modified.trim());
  if (!m) {
    const t = Date.parse(modified);
    return Number.isNaN(t) ? modified : new Date(t).toISOString().replace('Z', '000000Z');
  }
  const fraction = (m[3] ?? '').padEnd(9, '0');
  const zone = m[4] ?? 'Z';
  if (zone === 'Z' || zone === 'z' || /^[+-]00:?00$/.test(zone)) return `${m[1]}T${m[2]}.${fraction}Z`;
  const utc = new Date(Date.parse(`${m[1]}T${m[2]}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`)).toISOString();
  return `${utc.slice(0, 19)}.${fraction}Z`;
}

export const isOsvRecord = (r) => Boolean(r && typeof r === 'object' && !Array.isArray(r) && typeof r.id === 'string' && r.id
  && typeof r.modified === 'string' && r.modified && (r.affected === undefined || Array.isArray(r.affected)));

const literal = (value) => {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && 'sql' in value) return value.sql;
  return `'${String(value).replaceAll("'", "''")}'`;
};
/** A statement of statements.json with its ?N parameters written in (`{ sql }` values go in as SQL). */
export const inline = (statement, values) => statement.replace(/\?(\d+)/g, (_, n) => literal(values[Number(n) - 1]));
const newWriteId = () => randomInt(1, 2 ** 47);
const now = () => new Date().toISOString();

/** Splits text into pieces of at most PART_CHARS characters, never inside a surrogate pair. */
function pieces(text) {
  const out = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + PART_CHARS, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/**
 * The SQL of one batch: the import's counts (against what is stored before it), the records (a newer
 * `modified` wins, as in the Worker), their package rows (derived in SQL by the batch's write id).
 * `prepared`: [{ id, key, json }] with `json` = JSON of [modifiedKey, record].
 */
export function batchSql(prepared, { importId, source, before = [], after = [] }) {
  const byId = new Map();
  for (const p of prepared) if (!byId.get(p.id) || p.key > byId.get(p.id).key) byId.set(p.id, p);
  const duplicates = prepared.length - byId.size;
  const writeId = newWriteId();
  const lines = [...before];
  const at = now();
  // Counts first: they compare with what is stored before this batch writes.
  let pairs = [];
  let pairBytes = 0;
  const count = () => {
    if (pairs.length) lines.push(inline(statements.countChanges, [importId, `[${pairs.join(',')}]`, at]));
    pairs = [];
    pairBytes = 0;
  };
  for (const p of byId.values()) {
    const pair = JSON.stringify([p.id, p.key]);
    const bytes = Buffer.byteLength(pair) + (pair.match(/'/g)?.length ?? 0) + 1;
    if (pairBytes + bytes > STATEMENT_BYTES - 2000) count();
    pairs.push(pair);
    pairBytes += bytes;
  }
  count();
  if (duplicates) lines.push(inline(statements.addCounts, [importId, duplicates, 0, 0, duplicates, 0, at]));
  // Records: small ones grouped into one upsert up to STATEMENT_BYTES; a large one in pieces.
  let group = [];
  let groupBytes = 0;
  const upsert = () => {
    if (group.length) lines.push(inline(statements.upsertRecords, [`[${group.join(',')}]`, source, importId, writeId]));
    group = [];
    groupBytes = 0;
  };
  for (const p of byId.values()) {
    const bytes = Buffer.byteLength(p.json) + (p.json.match(/'/g)?.length ?? 0);
    if (bytes > STATEMENT_BYTES - 2000) {
      const partsId = newWriteId();
      const parts = pieces(`[${p.json}]`);
      parts.forEach((part, seq) => lines.push(inline(statements.insertPart, [partsId, seq, part])));
      lines.push(inline(statements.upsertRecords, [{ sql: inline(statements.partsExpression, [partsId, parts.length]) }, source, importId, writeId]));
      lines.push(inline(statements.clearParts, [partsId]));
      continue;
    }
    if (groupBytes + bytes > STATEMENT_BYTES - 2000) upsert();
    group.push(p.json);
    groupBytes += bytes + 1;
  }
  upsert();
  lines.push(inline(statements.clearPackages, [writeId]), inline(statements.insertPackages, [writeId]), ...after);
  return lines.map((l) => `${l};`).join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Reading records

/** Every `.json` file under a directory, in name order, depth first. */
function* jsonFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsonFiles(full);
    else if (entry.isFile() && entry.name.endsWith('.json')) yield full;
  }
}

/** The records of one JSON text: a record, an array of records, or an API answer `{"vulns": [...]}`. */
function recordsOf(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { records: [], skipped: 1 };
  }
  const list = Array.isArray(value) ? value : Array.isArray(value?.vulns) ? value.vulns : [value];
  const records = list.filter(isOsvRecord);
  return { records, skipped: list.length - records.length };
}

/** The number of entries a zip's end of central directory record lists (zip64 too), for the progress bar; null when unreadable. */
function zipEntryCount(file) {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 22 + 65_535 + 20);
    const tail = Buffer.alloc(length);
    readSync(fd, tail, 0, length, size - length);
    for (let at = length - 22; at >= 0; at--) {
      if (tail.readUInt32LE(at) !== 0x06054b50) continue;
      const total = tail.readUInt16LE(at + 10);
      if (total !== 0xffff || at < 20 || tail.readUInt32LE(at - 20) !== 0x07064b50) return total;
      const record = Buffer.alloc(56);
      readSync(fd, record, 0, 56, Number(tail.readBigUInt64LE(at - 20 + 8)));
      return record.readUInt32LE(0) === 0x06064b50 ? Number(record.readBigUInt64LE(32)) : null;
    }
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The `.json` entries of an all.zip, read as a stream: one entry's text at a time, in archive order. */
async function* zipTexts(file) {
  const done = [];
  let entries = 0;
  const unzip = new Unzip((entry) => {
    entries++;
    if (!entry.name.endsWith('.json')) return;
    const slot = { text: null };
    done.push(slot);
    const chunks = [];
    entry.ondata = (error, chunk, final) => {
      if (error) throw error;
      chunks.push(chunk);
      if (final) slot.text = Buffer.concat(chunks).toString('utf8');
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    unzip.push(chunk);
    while (done[0]?.text != null) yield done.shift().text;
  }
  unzip.push(new Uint8Array(0), true);
  while (done[0]?.text != null) yield done.shift().text;
  const listed = zipEntryCount(file);
  if (done.length || (listed !== null && listed !== entries)) throw new Error(`${file}: the archive is truncated (${entries} entries read, ${listed ?? '?'} listed)`);
}

// ---------------------------------------------------------------------------------------------------
// wrangler

const wranglerBin = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');

/** Runs `wrangler d1 execute` with the target's flags; answers stdout, rejects with the output's end. */
function d1(target, args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [wranglerBin, 'd1', 'execute', target.database, ...target.flags, ...args], {
      // CI mode keeps the local runs quiet; a remote run keeps the terminal's login (wrangler login).
      cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: 'false', ...(target.flags.includes('--remote') ? {} : { CI: 'true' }) }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) return resolvePromise(stdout);
      const output = `${stdout}\n${stderr}`.trim();
      const hint = /no such table: vuln_/.test(output) ? '\nThe database has no vulnerability tables yet: apply the migrations first (`npx wrangler d1 migrations apply DB --local`, or start `npm run dev`).' : '';
      reject(new Error(`wrangler d1 execute failed:\n${output.split('\n').slice(-15).join('\n')}${hint}`));
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// The command

function parseArgs(argv) {
  const args = [...argv];
  const value = (name) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : undefined; };
  const flag = (name) => { const i = args.indexOf(name); return i >= 0 ? (args.splice(i, 1), true) : false; };
  const options = { remote: flag('--remote'), sql: flag('--sql'), quiet: flag('--quiet'), persistTo: value('--persist-to'), database: value('--database') ?? 'DB', source: value('--source') };
  const unknown = args.filter((a) => a.startsWith('--'));
  if (args.length !== 1 || unknown.length) return null;
  return { ...options, path: resolve(args[0]) };
}

/** A progress bar on a terminal, plain lines otherwise (and nothing with --quiet). */
function progress(total, quiet) {
  const started = Date.now();
  const rate = (n) => Math.round(n / Math.max((Date.now() - started) / 1000, 0.001));
  if (quiet) return { read() {}, sent() {}, stop() {} };
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar({
      stream: process.stderr,
      format: total ? 'vulndb |{bar}| {value}/{total} records | {rate}/s | {sent} sent' : 'vulndb | {value} records | {rate}/s | {sent} sent',
      hideCursor: true,
    }, cliProgress.Presets.shades_classic);
    bar.start(total ?? 0, 0, { rate: 0, sent: 0 });
    let sent = 0;
    return {
      read: (n) => bar.update(n, { rate: rate(n), sent }),
      sent: (n) => { sent = n; bar.update({ sent }); },
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    read() {},
    sent: (n) => {
      if (Date.now() - last < 2000 && n !== total) return;
      last = Date.now();
      process.stderr.write(`vulndb: ${n}${total ? `/${total}` : ''} records sent (${rate(n)}/s)\n`);
    },
    stop() {},
  };
}

/**
 * The SQL-file way (--remote, or --sql): batches of statements with literal values, one
 * `wrangler d1 execute --file` each (one transaction each); counts are kept by the SQL (countChanges).
 */
async function sqlSink(options, source, started) {
  const target = { database: options.database, flags: [...(options.remote ? ['--remote'] : ['--local']), ...(options.persistTo ? ['--persist-to', options.persistTo] : [])] };
  const importId = randomUUID();
  const work = mkdtempSync(join(tmpdir(), 'vulndb-import-'));
  let batch = [];
  let bytes = 0;
  let files = 0;
  let skipped = 0;
  const run = async (sql) => {
    const file = join(work, `batch-${files++}.sql`);
    writeFileSync(file, sql);
    await d1(target, ['--file', file, '--yes']);
    rmSync(file, { force: true });
  };
  const flush = async (final) => {
    const before = files === 0 ? [inline(statements.startImport, [importId, source, new Date(started).toISOString(), null])] : [];
    const after = final ? [inline(statements.addCounts, [importId, 0, 0, 0, 0, skipped, now()]), inline(statements.finishImport, [importId, now(), null])] : [];
    if (!batch.length && !before.length && !after.length) return 0;
    await run(batch.length ? batchSql(batch, { importId, source, before, after }) : [...before, ...after].map((l) => `${l};`).join('\n'));
    const sent = batch.length;
    batch = [];
    bytes = 0;
    return sent;
  };
  return {
    where: `${options.remote ? 'remote' : 'local'} database ${options.database}, SQL files`,
    skip: (n) => { skipped += n; },
    /** Answers how many records went to the database with this one (0 while the batch fills). */
    async add(record) {
      const key = modifiedKey(record.modified);
      const json = JSON.stringify([key, record]);
      if (Buffer.byteLength(json) > MAX_RECORD_BYTES) {
        skipped++;
        process.stderr.write(`\nvulndb: ${record.id} is too large for a D1 row (${Buffer.byteLength(json)} bytes); skipped\n`);
        return 0;
      }
      batch.push({ id: record.id, key, json });
      bytes += json.length;
      return batch.length >= FILE_RECORDS || bytes >= FILE_BYTES ? flush(false) : 0;
    },
    finish: () => flush(true),
    async fail(error) {
      // The import's row says it stopped; what was sent stays (the import is incremental: run it again).
      if (files > 0) await run(`${inline(statements.finishImport, [importId, now(), String(error.message ?? error).slice(0, 500)])};`).catch(() => {});
    },
    async totals() {
      const out = await d1(target, ['--json', '--command', inline('SELECT records, inserted, updated, unchanged, skipped FROM vuln_imports WHERE id = ?1', [importId])]);
      return JSON.parse(out.slice(out.indexOf('[')))[0]?.results?.[0] ?? {};
    },
    close: () => rmSync(work, { recursive: true, force: true }),
  };
}

/** The Worker's import code (src/vulndb/import.ts), bundled for Node by esbuild (installed with wrangler and vite). */
async function workerImportCode() {
  const { build } = await import('esbuild');
  const out = await build({ entryPoints: [join(root, 'src/vulndb/import.ts')], bundle: true, format: 'esm', platform: 'neutral', write: false, logLevel: 'error' });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
}

/**
 * The local way: the local D1 (the same persisted state as `wrangler dev`) through wrangler's
 * getPlatformProxy, with a configuration holding only that database, and the Worker's ImportRun.
 */
async function localSink(options, source) {
  const { getPlatformProxy, unstable_readConfig: readConfig } = await import('wrangler');
  const config = readConfig({ config: join(root, 'wrangler.toml') });
  const database = (config.d1_databases ?? []).find((d) => d.binding === options.database || d.database_name === options.database);
  if (!database) throw new Error(`wrangler.toml has no D1 database named ${options.database}`);
  const work = mkdtempSync(join(tmpdir(), 'vulndb-import-'));
  const configPath = join(work, 'wrangler.json');
  writeFileSync(configPath, JSON.stringify({ name: 'vulndb-import', compatibility_date: config.compatibility_date, d1_databases: [{ ...database, binding: 'DB' }] }));
  const persist = { path: options.persistTo ? join(resolve(options.persistTo), 'v3') : join(root, '.wrangler', 'state', 'v3') };
  const [{ ImportRun, BATCH_RECORDS, BATCH_BYTES }, proxy] = await Promise.all([workerImportCode(), getPlatformProxy({ configPath, persist, remoteBindings: false })]);
  let run;
  try {
    run = await ImportRun.start(proxy.env.DB, source, null);
  } catch (error) {
    await proxy.dispose();
    rmSync(work, { recursive: true, force: true });
    if (/no such table: vuln_/.test(String(error))) throw new Error('the local database has no vulnerability tables yet: apply the migrations first (`npx wrangler d1 migrations apply DB --local`, or start `npm run dev`).');
    throw error;
  }
  let batch = [];
  let bytes = 0;
  const flush = async () => {
    const sent = batch.length;
    if (sent) await run.write(batch);
    batch = [];
    bytes = 0;
    return sent;
  };
  return {
    where: `local database ${options.database}`,
    skip: (n) => run.skip(n),
    async add(record) {
      batch.push(record);
      bytes += JSON.stringify(record).length;
      return batch.length >= BATCH_RECORDS || bytes >= BATCH_BYTES ? flush() : 0;
    },
    async finish() {
      const sent = await flush();
      await run.finish();
      return sent;
    },
    fail: (error) => run.finish(String(error.message ?? error).slice(0, 500)).catch(() => {}),
    totals: async () => run.totals,
    async close() {
      await proxy.dispose();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!options) {
    console.error('usage: npm run vulndb:import -- PATH [--remote] [--database NAME] [--persist-to DIR] [--source NAME] [--sql] [--quiet]\n'
      + '  PATH: a directory of OSV JSON files (recursive) or an OSV all.zip');
    process.exit(2);
  }
  const isDir = statSync(options.path).isDirectory();
  const source = options.source ?? (isDir ? basename(options.path) : `${basename(join(options.path, '..'))}/${basename(options.path)}`);
  const started = Date.now();
  let total = null;
  if (isDir) {
    total = 0;
    for (const _ of jsonFiles(options.path)) total++;
  } else total = zipEntryCount(options.path);
  const sink = options.remote || options.sql ? await sqlSink(options, source, started) : await localSink(options, source);
  const shown = progress(total, options.quiet);
  let read = 0;
  let sent = 0;
  let skipped = 0;
  const take = async (text) => {
    const found = recordsOf(text);
    if (found.skipped) {
      skipped += found.skipped;
      sink.skip(found.skipped);
    }
    for (const record of found.records) {
      const n = await sink.add(record);
      if (n) shown.sent((sent += n));
    }
    shown.read(++read);
  };
  let totals;
  try {
    if (isDir) for (const file of jsonFiles(options.path)) await take(readFileSync(file, 'utf8'));
    else for await (const text of zipTexts(options.path)) await take(text);
    shown.sent((sent += await sink.finish()));
    shown.stop();
    totals = await sink.totals();
  } catch (error) {
    shown.stop();
    await sink.fail(error);
    throw error;
  } finally {
    await sink.close();
  }
  const seconds = (Date.now() - started) / 1000;
  const records = totals.records ?? sent;
  console.error(`vulndb: ${source}: ${records} records in ${seconds.toFixed(1)} s (${Math.round(records / Math.max(seconds, 0.001))} records/s): `
    + `${totals.inserted ?? '?'} new, ${totals.updated ?? '?'} updated, ${totals.unchanged ?? '?'} unchanged, ${totals.skipped ?? skipped} skipped (${sink.where}).`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    console.error(`vulndb: ${error.message ?? error}`);
    process.exit(1);
  });
}
