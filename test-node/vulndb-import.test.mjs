// `npm run vulndb:import` as a user runs it, against a local D1 in a temporary directory: both ways in
// (the Worker's import code through getPlatformProxy, and the SQL files `--remote` sends, run locally
// with --sql) store the same records, the same package rows, and follow the incremental rule.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { modifiedKey as workerKey } from '../src/vulndb/import.ts';
import { modifiedKey as scriptKey } from '../scripts/vulndb-import.mjs';

const root = path.resolve(import.meta.dirname, '..');
const temp = mkdtempSync(path.join(tmpdir(), 'vulndb-import-test-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function node(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
const wrangler = (args) => node([path.join(root, 'node_modules/wrangler/bin/wrangler.js'), ...args]);
const importer = (args) => node([path.join(root, 'scripts/vulndb-import.mjs'), ...args]);

// Each wrangler command starts Node, wrangler and a local workerd: several seconds of CPU. The
// migrations are applied once (each database a copy of that one), and a test's queries go together.
let migrated;

/** A fresh local database (migrations applied) in its own directory. */
async function database(name) {
  migrated ??= wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', path.join(temp, 'migrated')]);
  const { code, stderr } = await migrated;
  expect(code, stderr).toBe(0);
  const dir = path.join(temp, name);
  cpSync(path.join(temp, 'migrated'), dir, { recursive: true });
  return dir;
}

/** Runs the statements in one wrangler command; answers each one's rows. */
async function queries(dir, ...statements) {
  const { code, stdout, stderr } = await wrangler(['d1', 'execute', 'DB', '--local', '--persist-to', dir, '--json', '--command', statements.join(';\n')]);
  expect(code, stderr).toBe(0);
  const answers = JSON.parse(stdout.slice(stdout.indexOf('[')));
  expect(answers.length).toBe(statements.length);
  return answers.map((answer) => answer.results);
}

const summary = (stderr) => /(\d+) new, (\d+) updated, (\d+) unchanged, (\d+) skipped/.exec(stderr)?.slice(1).map(Number);

const record = (id, name, extra = {}) => ({
  id, modified: '2026-01-01T00:00:00Z',
  affected: [{ package: { ecosystem: 'npm', name }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }] }],
  ...extra,
});
// Larger than one D1 statement (100 KB), with quotes, accents and a character outside the BMP.
const big = record('BIG-1', "it's-big", { details: `l'été ${'🔐 quoted \'text\' '.repeat(12_000)}`, aliases: ['CVE-2026-0001'] });

function recordsDir() {
  const dir = path.join(temp, `records-${Math.random().toString(36).slice(2)}`);
  mkdirSync(path.join(dir, 'nested', 'deeper'), { recursive: true });
  writeFileSync(path.join(dir, 'BIG-1.json'), JSON.stringify(big));
  writeFileSync(path.join(dir, 'SMALL-1.json'), JSON.stringify(record('SMALL-1', 'small')));
  writeFileSync(path.join(dir, 'nested', 'array.json'), JSON.stringify([record('ARR-1', 'arr-a'), record('ARR-2', 'arr-b'), { not: 'osv' }]));
  writeFileSync(path.join(dir, 'nested', 'deeper', 'api.json'), JSON.stringify({ vulns: [record('API-1', 'api')] }));
  writeFileSync(path.join(dir, 'nested', 'broken.json'), '{ not json');
  writeFileSync(path.join(dir, 'notes.txt'), 'ignored');
  return dir;
}

describe('modified keys', () => {
  it('the command and the Worker compute the same key', () => {
    for (const value of ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.123456789Z', '2024-01-01T00:00:00.5+02:00', '2024-01-01 00:00:00', '2024-01-01T00:00:00-0130', 'garbage']) {
      expect(scriptKey(value)).toBe(workerKey(value));
    }
  });
});

describe.each([
  ['the Worker\'s import code (local default)', []],
  ['SQL files (as --remote sends them)', ['--sql']],
])('npm run vulndb:import through %s', (_, flags) => {
  let dir;

  it('imports a directory recursively: records, arrays, API answers; skips what is not OSV', async () => {
    dir = await database(`db-${flags.length}`);
    const { code, stderr } = await importer([recordsDir(), '--persist-to', dir, ...flags]);
    expect(code, stderr).toBe(0);
    expect(summary(stderr)).toEqual([5, 0, 0, 2]);
    const [[stored], packages, parts] = await queries(dir, "SELECT record, modified FROM vuln_records WHERE id = 'BIG-1'",
      'SELECT ecosystem, name, record_id FROM vuln_packages ORDER BY record_id', 'SELECT count(*) AS n FROM vuln_import_parts');
    expect(JSON.parse(stored.record)).toEqual(big);
    expect(stored.modified).toBe('2026-01-01T00:00:00.000000000Z');
    expect(packages).toEqual([
      { ecosystem: 'npm', name: 'api', record_id: 'API-1' }, { ecosystem: 'npm', name: 'arr-a', record_id: 'ARR-1' },
      { ecosystem: 'npm', name: 'arr-b', record_id: 'ARR-2' }, { ecosystem: 'npm', name: "it's-big", record_id: 'BIG-1' },
      { ecosystem: 'npm', name: 'small', record_id: 'SMALL-1' },
    ]);
    expect(parts).toEqual([{ n: 0 }]);
  }, 120_000);

  it('imports an all.zip incrementally: only newer records are written, their package rows follow', async () => {
    const zip = path.join(temp, `all-${flags.length}.zip`);
    const records = Array.from({ length: 30 }, (_, i) => record(`ZIP-${i}`, `zip-${i}`));
    const write = (list) => writeFileSync(zip, zipSync(Object.fromEntries(list.map((r) => [`${r.id}.json`, strToU8(JSON.stringify(r))]))));
    write([...records, { ...big, modified: '2025-01-01T00:00:00Z', details: 'older' }]);
    let run = await importer([zip, '--persist-to', dir, ...flags]);
    expect(run.code, run.stderr).toBe(0);
    expect(summary(run.stderr)).toEqual([30, 0, 1, 0]);
    write(records.map((r, i) => (i === 3 ? { ...r, modified: '2026-02-01T00:00:00.1Z', affected: [{ package: { ecosystem: 'PyPI', name: 'Moved_Here' } }] } : r)));
    run = await importer([zip, '--persist-to', dir, ...flags]);
    expect(summary(run.stderr)).toEqual([0, 1, 29, 0]);
    const [moved, [kept], imports] = await queries(dir, "SELECT base, name_key, name FROM vuln_packages WHERE record_id = 'ZIP-3'",
      "SELECT record FROM vuln_records WHERE id = 'BIG-1'",
      'SELECT source, records, inserted, updated, unchanged, finished_at IS NOT NULL AS finished, error FROM vuln_imports ORDER BY started_at');
    expect(moved).toEqual([{ base: 'PyPI', name_key: 'moved-here', name: 'Moved_Here' }]);
    expect(JSON.parse(kept.record)).toEqual(big);
    expect(imports.at(-1)).toEqual({ source: `${path.basename(temp)}/all-${flags.length}.zip`, records: 30, inserted: 0, updated: 1, unchanged: 29, finished: 1, error: null });
  }, 120_000);
});

describe('npm run vulndb:import usage', () => {
  it('refuses without a path, and says how to apply migrations to an empty database', async () => {
    expect((await importer([])).code).toBe(2);
    const empty = path.join(temp, 'empty');
    const run = await importer([recordsDir(), '--persist-to', empty]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/migrations apply/);
  }, 60_000);
});
