// The vulnerability database in D1 (issue 8, the `vuln` axis): incremental import, bulk lookup with
// the ecosystem suffix rules, withdrawn records, the data's identity, and the daily refresh's staged
// path (an all.zip put into local R2, or served by a stubbed fetch: never the network).
import { env } from 'cloudflare:workers';
import { strToU8, zipSync } from 'fflate';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { packageNameKey } from '../src/analysis/vulns/osv';
import type { OsvRecord, PackageKey } from '../src/analysis/vulns/osv-types';
import { runScheduled } from '../src/scheduled';
import { importRecords, modifiedKey } from '../src/vulndb/import';
import { lookupRecords, RecordCache, vulnDataSnapshot } from '../src/vulndb/lookup';
import { importStaged, refreshVulnerabilityData, stageSource, stagingKey } from '../src/vulndb/refresh';

const starter = Object.values(import.meta.glob('../vulndb/starter/*.json', { import: 'default', eager: true })) as OsvRecord[];

const npm = (name: string): PackageKey => ({ ecosystem: 'npm', name });
const record = (id: string, packages: PackageKey[], extra: Partial<OsvRecord> = {}): OsvRecord => ({
  id, modified: '2026-01-01T00:00:00Z',
  affected: packages.map((p) => ({ package: p, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.0' }] }] })),
  ...extra,
});
const ids = async (p: PackageKey) => ((await lookupRecords(env.DB, [p])).get(`${p.ecosystem}\u0000${p.name}`) ?? []).map((r) => r.id).sort();
const importRow = (source: string) => env.DB.prepare('SELECT * FROM vuln_imports WHERE source = ? ORDER BY started_at DESC LIMIT 1').bind(source)
  .first<{ records: number; inserted: number; updated: number; unchanged: number; skipped: number; finished_at: string | null; error: string | null }>();

describe('import: a record is replaced only when its modified is newer', () => {
  it('inserts new records and records the import', async () => {
    expect(await importRecords(env.DB, [record('INS-1', [npm('ins-a')]), record('INS-2', [npm('ins-b')])], 'insert-test')).toEqual({ inserted: 2, updated: 0, unchanged: 0 });
    expect(await ids(npm('ins-a'))).toEqual(['INS-1']);
    expect(await importRow('insert-test')).toMatchObject({ records: 2, inserted: 2, updated: 0, unchanged: 0, skipped: 0, error: null, finished_at: expect.any(String) });
  });

  it('equal and older versions change nothing; a newer one replaces the record and its package rows', async () => {
    const v1 = record('INC-1', [npm('inc-old')], { modified: '2026-01-01T00:00:00Z', summary: 'first' });
    await importRecords(env.DB, [v1], 'test');
    expect(await importRecords(env.DB, [v1], 'test')).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    // The same instant written another way is not newer.
    expect(await importRecords(env.DB, [{ ...v1, modified: '2026-01-01T00:00:00.000000Z', summary: 'same instant' }], 'test')).toMatchObject({ unchanged: 1 });
    const older = record('INC-1', [npm('inc-new')], { modified: '2025-06-01T00:00:00Z', summary: 'older' });
    expect(await importRecords(env.DB, [older], 'test')).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    expect((await lookupRecords(env.DB, [npm('inc-old')])).get('npm\u0000inc-old')?.[0]?.summary).toBe('first');
    expect(await ids(npm('inc-new'))).toEqual([]);

    const newer = { ...older, modified: '2026-01-01T00:00:00.5Z', summary: 'newer' };
    expect(await importRecords(env.DB, [newer], 'test')).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    expect(await ids(npm('inc-old'))).toEqual([]);
    expect((await lookupRecords(env.DB, [npm('inc-new')])).get('npm\u0000inc-new')?.[0]?.summary).toBe('newer');
    const rows = await env.DB.prepare('SELECT ecosystem, name, affected FROM vuln_packages WHERE record_id = ?').bind('INC-1').all<{ ecosystem: string; name: string; affected: string }>();
    expect(rows.results.map((r) => ({ ...r, affected: JSON.parse(r.affected) }))).toEqual([
      { ecosystem: 'npm', name: 'inc-new', affected: [{ ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.0' }] }] }] },
    ]);
  });

  it('within one import the newest version of a record wins, whatever the order', async () => {
    const a = record('DUP-1', [npm('dup-a')], { modified: '2026-03-01T00:00:00Z' });
    const b = record('DUP-1', [npm('dup-b')], { modified: '2026-02-01T00:00:00Z' });
    expect(await importRecords(env.DB, [a, b], 'test')).toEqual({ inserted: 1, updated: 0, unchanged: 1 });
    expect(await ids(npm('dup-a'))).toEqual(['DUP-1']);
    expect(await ids(npm('dup-b'))).toEqual([]);
  });

  it('modified keys order as time: fractions, offsets and missing zones', () => {
    expect(modifiedKey('2024-01-01T00:00:00Z')).toBe('2024-01-01T00:00:00.000000000Z');
    expect(modifiedKey('2024-01-01T00:00:00.123456Z')).toBe('2024-01-01T00:00:00.123456000Z');
    expect(modifiedKey('2024-01-01T02:00:00.5+02:00')).toBe('2024-01-01T00:00:00.500000000Z');
    expect(modifiedKey('2024-01-01T00:00:00Z') < modifiedKey('2024-01-01T00:00:00.1Z')).toBe(true);
  });

  it('skips what is not an OSV record and records too large for a row, and counts them', async () => {
    const huge = record('HUGE-1', [npm('huge')], { details: 'x'.repeat(2_000_000) });
    const notOsv = { id: 'NO-MODIFIED' } as unknown as OsvRecord;
    expect(await importRecords(env.DB, [huge, notOsv, record('SMALL-1', [npm('small')])], 'skip-test')).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    expect(await importRow('skip-test')).toMatchObject({ records: 1, inserted: 1, skipped: 2 });
    expect(await ids(npm('huge'))).toEqual([]);
  });
});

describe('lookup', () => {
  it('never returns withdrawn records, also when a newer version withdraws one', async () => {
    await importRecords(env.DB, [record('WD-1', [npm('wd')], { withdrawn: '2026-01-02T00:00:00Z' }), record('WD-2', [npm('wd')])], 'test');
    expect(await ids(npm('wd'))).toEqual(['WD-2']);
    await importRecords(env.DB, [record('WD-2', [npm('wd')], { modified: '2026-02-01T00:00:00Z', withdrawn: '2026-02-01T00:00:00Z' })], 'test');
    expect(await ids(npm('wd'))).toEqual([]);
  });

  it('answers 1,200 packages in a few queries (the list is one JSON parameter), each record once', async () => {
    const many = Array.from({ length: 1200 }, (_, i) => record(`BULK-${i}`, [npm(`bulk-${i}`), npm(`bulk-shared`)]));
    expect(await importRecords(env.DB, many, 'bulk')).toEqual({ inserted: 1200, updated: 0, unchanged: 0 });
    const asked = [...many.map((_, i) => npm(`bulk-${i}`)), npm('bulk-shared'), npm('bulk-unknown'), { ecosystem: 'PyPI', name: 'bulk-1' }];
    const prepare = vi.spyOn(env.DB, 'prepare');
    const found = await lookupRecords(env.DB, asked);
    expect(prepare.mock.calls.length).toBeLessThanOrEqual(3);
    prepare.mockRestore();
    expect(found.size).toBe(1201);
    expect(found.get('npm\u0000bulk-777')!.map((r) => r.id)).toEqual(['BULK-777']);
    expect(found.get('npm\u0000bulk-shared')).toHaveLength(1200);
    // One parsed object per record, shared between the packages that name it.
    expect(found.get('npm\u0000bulk-5')![0]).toBe(found.get('npm\u0000bulk-shared')!.find((r) => r.id === 'BULK-5'));
    expect(found.has('npm\u0000bulk-unknown')).toBe(false);
  });

  it('a cache shared by lookups: held records are not read again, new ones are, and a full cache starts afresh', async () => {
    await importRecords(env.DB, ['A', 'B', 'C', 'D'].map((x) => record(`CACHE-${x}`, [npm(`cache-${x}`)])), 'test');
    const known = new RecordCache(3);
    const idsOf = (found: Map<string, OsvRecord[]>, name: string) => found.get(`npm\u0000${name}`)?.map((r) => r.id) ?? [];
    const first = await lookupRecords(env.DB, [npm('cache-A'), npm('cache-B')], known);
    // Asked again with a package not yet read: the held record is the same object (its JSON was not read again).
    const second = await lookupRecords(env.DB, [npm('cache-A'), npm('cache-C'), npm('cache-A')], known);
    expect(second.get('npm\u0000cache-A')![0]).toBe(first.get('npm\u0000cache-A')![0]);
    expect(idsOf(second, 'cache-C')).toEqual(['CACHE-C']);
    expect([...known.records.keys()].sort()).toEqual(['CACHE-A', 'CACHE-B', 'CACHE-C']);
    // Full: the next lookup starts afresh and still answers every package, read again.
    const third = await lookupRecords(env.DB, [npm('cache-A'), npm('cache-D')], known);
    expect([idsOf(third, 'cache-A'), idsOf(third, 'cache-D')]).toEqual([['CACHE-A'], ['CACHE-D']]);
    expect(third.get('npm\u0000cache-A')![0]).not.toBe(first.get('npm\u0000cache-A')![0]);
    expect([...known.records.keys()].sort()).toEqual(['CACHE-A', 'CACHE-D']);
    const fourth = await lookupRecords(env.DB, [npm('cache-B'), npm('cache-D')], known);
    expect([idsOf(fourth, 'cache-B'), idsOf(fourth, 'cache-D')]).toEqual([['CACHE-B'], ['CACHE-D']]);
  });

  it('an asked release finds its own records and the bare ecosystem\'s; a bare ask finds every release', async () => {
    await importRecords(env.DB, [
      record('DEB-11', [{ ecosystem: 'Debian:11', name: 'sfx' }]),
      record('DEB-12', [{ ecosystem: 'Debian:12', name: 'sfx' }]),
      record('DEB-ANY', [{ ecosystem: 'Debian', name: 'sfx' }]),
      record('ALP-316', [{ ecosystem: 'Alpine:v3.16', name: 'sfx' }]),
      record('ALP-317', [{ ecosystem: 'Alpine:v3.17', name: 'sfx' }]),
      record('UBU-LTS', [{ ecosystem: 'Ubuntu:20.04:LTS', name: 'sfx' }]),
      record('NPM-SFX', [npm('sfx')]),
    ], 'test');
    expect(await ids({ ecosystem: 'Debian:11', name: 'sfx' })).toEqual(['DEB-11', 'DEB-ANY']);
    expect(await ids({ ecosystem: 'Debian', name: 'sfx' })).toEqual(['DEB-11', 'DEB-12', 'DEB-ANY']);
    expect(await ids({ ecosystem: 'Debian:13', name: 'sfx' })).toEqual(['DEB-ANY']);
    expect(await ids({ ecosystem: 'Alpine:v3.16', name: 'sfx' })).toEqual(['ALP-316']);
    expect(await ids({ ecosystem: 'Alpine', name: 'sfx' })).toEqual(['ALP-316', 'ALP-317']);
    expect(await ids({ ecosystem: 'Ubuntu:20.04', name: 'sfx' })).toEqual(['UBU-LTS']);
    expect(await ids(npm('sfx'))).toEqual(['NPM-SFX']);
    // Both forms asked at once keep their own answers.
    const both = await lookupRecords(env.DB, [{ ecosystem: 'Debian:12', name: 'sfx' }, { ecosystem: 'Debian:11', name: 'sfx' }]);
    expect(both.get('Debian:12\u0000sfx')!.map((r) => r.id).sort()).toEqual(['DEB-12', 'DEB-ANY']);
    expect(both.get('Debian:11\u0000sfx')!.map((r) => r.id).sort()).toEqual(['DEB-11', 'DEB-ANY']);
  });

  it('names compare as matching compares them: PyPI PEP 503 normalised, NuGet and Packagist case-folded', async () => {
    const named = [
      { ecosystem: 'PyPI', name: 'Typing_Extensions' }, { ecosystem: 'PyPI', name: 'zope..__Interface' }, { ecosystem: 'NuGet', name: 'Newtonsoft.Json' },
      { ecosystem: 'Packagist', name: 'Laravel/Framework' }, { ecosystem: 'npm', name: 'CaseKept' }, { ecosystem: 'Maven', name: 'Org.Example:Lib' },
    ];
    await importRecords(env.DB, named.map((p, i) => record(`NAME-${i}`, [p])), 'test');
    const { results } = await env.DB.prepare("SELECT record_id, ecosystem, name, name_key FROM vuln_packages WHERE record_id LIKE 'NAME-%' ORDER BY record_id").all<{ ecosystem: string; name: string; name_key: string }>();
    expect(results.map((r) => r.name_key)).toEqual(results.map((r) => packageNameKey(r.ecosystem, r.name)));
    expect(await ids({ ecosystem: 'PyPI', name: 'typing-extensions' })).toEqual(['NAME-0']);
    expect(await ids({ ecosystem: 'PyPI', name: 'Zope.Interface' })).toEqual(['NAME-1']);
    expect(await ids({ ecosystem: 'NuGet', name: 'newtonsoft.json' })).toEqual(['NAME-2']);
    expect(await ids({ ecosystem: 'Packagist', name: 'laravel/framework' })).toEqual(['NAME-3']);
    expect(await ids(npm('casekept'))).toEqual([]);
    expect(await ids({ ecosystem: 'Maven', name: 'org.example:lib' })).toEqual([]);
  });

  it('finds the starter set\'s records (Log4Shell for log4j-core)', async () => {
    const counts = await importRecords(env.DB, starter, 'starter');
    expect(counts.inserted + counts.updated + counts.unchanged).toBe(starter.length);
    expect(await ids({ ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core' })).toContain('GHSA-jfh8-c2jp-5v3q');
    expect(await importRecords(env.DB, starter, 'starter')).toEqual({ inserted: 0, updated: 0, unchanged: starter.length });
  });
});

describe('the data snapshot (report provenance)', () => {
  it('moves when an import changes the data and stays when it does not', async () => {
    const before = await vulnDataSnapshot(env.DB);
    expect(before.version).toMatch(/^osv-[0-9a-f]{16}$/);
    await importRecords(env.DB, [record('SNAP-1', [npm('snap')], { modified: '2020-01-01T00:00:00Z' })], 'test');
    const after = await vulnDataSnapshot(env.DB);
    expect(after.version).not.toBe(before.version);
    expect(after.records).toBe(before.records + 1);
    expect(after.importedAt).not.toBeNull();
    await importRecords(env.DB, [record('SNAP-1', [npm('snap')], { modified: '2020-01-01T00:00:00Z' })], 'test');
    expect(await vulnDataSnapshot(env.DB)).toEqual(after);
    // An update that leaves count and newest modified as they were still moves the version.
    await importRecords(env.DB, [record('SNAP-1', [npm('snap')], { modified: '2020-02-01T00:00:00Z' })], 'test');
    expect((await vulnDataSnapshot(env.DB)).version).not.toBe(after.version);
  });
});

/** An OSV all.zip as the source publishes it: `<id>.json` entries. */
function allZip(records: OsvRecord[], extra: Record<string, Uint8Array> = {}): Uint8Array {
  return zipSync({ ...Object.fromEntries(records.map((r) => [`${r.id}.json`, strToU8(JSON.stringify(r))])), ...extra });
}

describe('the daily refresh: an all.zip staged in R2 is imported as a stream', () => {
  const zipped = Array.from({ length: 4500 }, (_, i) => record(`ZIP-${i}`, [npm(`zip-${i}`)]));

  it('imports every record in several batches, skips entries that are not OSV, and is incremental', async () => {
    await env.BUNDLES.put(stagingKey('npm'), allZip(zipped, { 'README.json': strToU8('{"not": "osv"}'), 'LICENSE': strToU8('text') }));
    expect(await importStaged(env, stagingKey('npm'))).toMatchObject({ records: 4500, inserted: 4500, updated: 0, unchanged: 0, skipped: 1, complete: true });
    expect(await ids(npm('zip-4499'))).toEqual(['ZIP-4499']);
    expect(await importRow(stagingKey('npm'))).toMatchObject({ records: 4500, inserted: 4500, skipped: 1, error: null });

    const changed = zipped.map((r, i) => (i === 10 ? { ...r, modified: '2026-05-01T00:00:00Z', affected: [{ package: npm('zip-moved') }] } : r));
    await env.BUNDLES.put(stagingKey('npm'), allZip(changed));
    expect(await importStaged(env, stagingKey('npm'))).toMatchObject({ records: 4500, inserted: 0, updated: 1, unchanged: 4499, complete: true });
    expect(await ids(npm('zip-10'))).toEqual([]);
    expect(await ids(npm('zip-moved'))).toEqual(['ZIP-10']);
  });

  it('stops when its budget is spent, says so, and the next run finishes the rest', async () => {
    const records = Array.from({ length: 5000 }, (_, i) => record(`BGT-${i}`, [npm(`bgt-${i}`)]));
    await env.BUNDLES.put(stagingKey('PyPI'), allZip(records));
    const partial = await importStaged(env, stagingKey('PyPI'), { budget: { calls: 3, deadline: Date.now() + 60_000 } });
    expect(partial.complete).toBe(false);
    expect(partial.inserted).toBeGreaterThan(0);
    expect(partial.inserted).toBeLessThan(5000);
    expect(await importRow(stagingKey('PyPI'))).toMatchObject({ error: 'budget' });
    const rest = await importStaged(env, stagingKey('PyPI'));
    expect(rest).toMatchObject({ complete: true, inserted: 5000 - partial.inserted, unchanged: partial.inserted });
  });

  it('a missing or corrupt staged object is an error of that import, not of the process', async () => {
    await expect(importStaged(env, 'vulndb/staging/none/all.zip')).rejects.toThrow(/not in storage/);
    await env.BUNDLES.put(stagingKey('Go'), new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]));
    await expect(importStaged(env, stagingKey('Go'))).rejects.toThrow(/not a zip archive/);
    const whole = allZip(Array.from({ length: 50 }, (_, i) => record(`CUT-${i}`, [npm(`cut-${i}`)])));
    await env.BUNDLES.put(stagingKey('Go'), whole.slice(0, Math.floor(whole.byteLength / 2)));
    await expect(importStaged(env, stagingKey('Go'))).rejects.toThrow(/truncated|invalid zip data/);
    expect((await importRow(stagingKey('Go')))!.error).toMatch(/truncated|invalid zip data/);
  });
});

describe('the daily refresh from a source (fetch stubbed)', () => {
  afterEach(() => vi.restoreAllMocks());
  const source = { ...env, VULNDB_SOURCE_URL: 'https://osv.example/base/', VULNDB_ECOSYSTEMS: 'crates.io' } as typeof env;

  it('stages the archive in R2, imports it, and skips an unchanged source (304) that was imported to its end', async () => {
    const zip = allZip([record('RUST-1', [{ ecosystem: 'crates.io', name: 'refresh-crate' }])]);
    const seen: { url: string; ifNoneMatch: string | null }[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const ifNoneMatch = new Headers(init?.headers).get('if-none-match');
      seen.push({ url: String(input), ifNoneMatch });
      if (ifNoneMatch === '"v1"') return new Response(null, { status: 304 });
      return new Response(zip, { headers: { etag: '"v1"', 'content-length': String(zip.byteLength) } });
    });
    await refreshVulnerabilityData(source);
    expect(seen[0]).toEqual({ url: 'https://osv.example/base/crates.io/all.zip', ifNoneMatch: null });
    expect((await env.BUNDLES.head(stagingKey('crates.io')))?.customMetadata?.sourceVersion).toBe('"v1"');
    expect(await ids({ ecosystem: 'crates.io', name: 'refresh-crate' })).toEqual(['RUST-1']);
    expect(await importRow('https://osv.example/base/crates.io/all.zip')).toMatchObject({ inserted: 1, error: null });

    const imports = async () => (await env.DB.prepare('SELECT count(*) AS n FROM vuln_imports').first<{ n: number }>())!.n;
    const before = await imports();
    await refreshVulnerabilityData(source);
    expect(seen[1]).toMatchObject({ ifNoneMatch: '"v1"' });
    expect(await imports()).toBe(before);
  });

  it('stages a body of unknown length by multipart upload', async () => {
    const zip = allZip([record('RUST-2', [{ ecosystem: 'crates.io', name: 'chunked-crate' }])]);
    vi.spyOn(globalThis, 'fetch').mockImplementation(async () => new Response(new ReadableStream({
      start(controller) {
        controller.enqueue(zip.slice(0, 10));
        controller.enqueue(zip.slice(10));
        controller.close();
      },
    })));
    const staged = await stageSource({ ...source, VULNDB_SOURCE_URL: 'https://osv.example/other' } as typeof env, 'crates.io');
    expect(staged).toMatchObject({ fresh: true, version: null });
    expect(new Uint8Array(await (await env.BUNDLES.get(staged.key))!.arrayBuffer())).toEqual(zip);
  });

  it('an unreachable source is logged, not thrown, and the cron goes on', async () => {
    vi.spyOn(globalThis, 'fetch').mockRejectedValue(new TypeError('connection refused'));
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(runScheduled({ scheduledTime: Date.now(), cron: '17 3 * * *', noRetry() {} } as ScheduledController,
      { ...env, VULNDB_SOURCE_URL: 'https://osv.example', VULNDB_ECOSYSTEMS: 'npm,Go' } as typeof env)).resolves.toBeUndefined();
    expect(errors.mock.calls.map((c) => JSON.parse(String(c[0])).ecosystem).sort()).toEqual(['Go', 'npm']);
  });
});
