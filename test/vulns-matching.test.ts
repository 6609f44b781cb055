// Vulnerability matching (issue 8, the `vuln` axis): package URLs to OSV packages, the OSV schema's
// range evaluation, severity, fix versions, the vulnerability database in D1, and every fixture SBOM
// against the starter records, checked against a reviewed list of (component, advisory, fix) triples.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { normalizePurl } from '../src/analysis/components';
import { packageOf } from '../src/analysis/vulns/ecosystem';
import { matchPackage } from '../src/analysis/vulns/match';
import { inRange, isAffected } from '../src/analysis/vulns/osv';
import type { OsvRecord } from '../src/analysis/vulns/osv-types';
import { severityOf } from '../src/analysis/vulns/severity';
import { compareSemver } from '../src/analysis/vulns/versions/semver';
import { importRecords } from '../src/vulndb/import';
import { lookupRecords, vulnDataSnapshot } from '../src/vulndb/lookup';
import { importStaged, refreshVulnerabilityData, stagingKey } from '../src/vulndb/refresh';
import { strToU8, zipSync } from 'fflate';
import expectedTriples from './fixtures/expected/sbom-advisories.txt?raw';

const starter = Object.values(import.meta.glob('../vulndb/starter/*.json', { import: 'default', eager: true })) as OsvRecord[];
const sboms = import.meta.glob('./fixtures/sbom/*.json', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

const record = (affected: OsvRecord['affected'], extra: Partial<OsvRecord> = {}): OsvRecord => ({ id: 'TEST-1', modified: '2026-01-01T00:00:00Z', affected, ...extra });
const npm = (name: string) => ({ ecosystem: 'npm', name });

describe('package URLs to OSV packages', () => {
  it.each([
    ['pkg:npm/%40babel/core@7.19.0', 'npm', '@babel/core', '7.19.0'],
    ['pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar', 'Maven', 'org.apache.logging.log4j:log4j-core', '2.14.1'],
    ['pkg:golang/github.com/docker/docker@v20.10.11%2Bincompatible?type=module', 'Go', 'github.com/docker/docker', '20.10.11+incompatible'],
    ['pkg:pypi/Typing_Extensions@4.12.2', 'PyPI', 'typing-extensions', '4.12.2'],
    ['pkg:gem/rails@7.0.0', 'RubyGems', 'rails', '7.0.0'],
    ['pkg:cargo/serde@1.0.0', 'crates.io', 'serde', '1.0.0'],
    ['pkg:composer/laravel/framework@7.12.0', 'Packagist', 'laravel/framework', '7.12.0'],
    ['pkg:nuget/Newtonsoft.Json@12.0.1', 'NuGet', 'Newtonsoft.Json', '12.0.1'],
    ['pkg:deb/debian/openssl@1.1.1n-0%2Bdeb11u3?distro=debian-11', 'Debian:11', 'openssl', '1.1.1n-0+deb11u3'],
    ['pkg:deb/debian/libssl1.1@1.1.1n-0%2Bdeb11u3?upstream=openssl&distro=bookworm', 'Debian:12', 'openssl', '1.1.1n-0+deb11u3'],
    ['pkg:deb/ubuntu/zlib1g@1:1.2.11.dfsg-2ubuntu1?upstream=zlib&distro=ubuntu-20.04', 'Ubuntu:20.04', 'zlib', '1:1.2.11.dfsg-2ubuntu1'],
    ['pkg:deb/libc6@2.35-0ubuntu3#subpath', 'Debian', 'libc6', '2.35-0ubuntu3'],
    ['pkg:apk/alpine/zlib@1.2.12-r1?arch=x86_64&distro=3.22.0&origin=zlib', 'Alpine:v3.22', 'zlib', '1.2.12-r1'],
    ['pkg:rpm/redhat/openssl@1.1.1k-7.el8?distro=rhel-8.6', 'Red Hat', 'openssl', '1.1.1k-7.el8'],
    ['pkg:rpm/almalinux/openssl@3.0.7-1?distro=almalinux-9.2', 'AlmaLinux:9', 'openssl', '3.0.7-1'],
  ])('%s', (purl, ecosystem, name, version) => {
    expect(packageOf(purl)).toEqual({ ecosystem, name, version });
  });

  it('the legacy pkg:alpine type of old syft becomes pkg:apk/alpine on reading, with its distribution', () => {
    const purl = normalizePurl('pkg:alpine/busybox@1.35.0-r17?arch=x86_64&upstream=busybox&distro=alpine-3.16.2')!;
    expect(packageOf(purl)).toEqual({ ecosystem: 'Alpine:v3.16', name: 'busybox', version: '1.35.0-r17' });
  });

  it('a type OSV has no ecosystem for is no package', () => {
    expect(packageOf('pkg:swid/Acme/product@1.0')).toBeNull();
    expect(packageOf('not a purl')).toBeNull();
  });
});

describe('OSV range evaluation (the schema\'s includedInRange)', () => {
  const range = (events: object[]) => ({ type: 'SEMVER', events }) as any;
  it.each([
    ['introduced 0: from the beginning', [{ introduced: '0' }, { fixed: '1.2.0' }], '0.0.1', true],
    ['fixed is not affected', [{ introduced: '1.0.0' }, { fixed: '1.2.0' }], '1.2.0', false],
    ['before introduced is not affected', [{ introduced: '1.0.0' }, { fixed: '1.2.0' }], '0.9.9', false],
    ['last_affected is affected', [{ introduced: '1.0.0' }, { last_affected: '1.1.0' }], '1.1.0', true],
    ['after last_affected is not', [{ introduced: '1.0.0' }, { last_affected: '1.1.0' }], '1.1.1', false],
    ['unsorted events are sorted first', [{ fixed: '2.1.0' }, { introduced: '2.0.0' }, { fixed: '1.2.0' }, { introduced: '1.0.0' }], '2.0.5', true],
    ['between two ranges', [{ introduced: '1.0.0' }, { fixed: '1.2.0' }, { introduced: '2.0.0' }, { fixed: '2.1.0' }], '1.5.0', false],
    ['introduced without a fix: every later version', [{ introduced: '3.0.0' }], '9.9.9', true],
    ['at or above a limit is outside', [{ introduced: '0' }, { limit: '2.0.0' }], '2.0.0', false],
  ])('%s', (_title, events, version, affected) => {
    expect(inRange(range(events), version, compareSemver)).toBe(affected);
  });

  it('explicit versions match; withdrawn records never do; other ecosystems and names never do', () => {
    const r = record([{ package: npm('left-pad'), versions: ['0.0.3'], ranges: [] }]);
    expect(isAffected(r, npm('left-pad'), '0.0.3')).toBe(true);
    expect(isAffected(r, npm('left-pad'), '0.0.4')).toBe(false);
    expect(isAffected({ ...r, withdrawn: '2026-01-02T00:00:00Z' }, npm('left-pad'), '0.0.3')).toBe(false);
    expect(isAffected(r, { ecosystem: 'PyPI', name: 'left-pad' }, '0.0.3')).toBe(false);
    expect(isAffected(r, npm('left-pad2'), '0.0.3')).toBe(false);
  });

  it('an ecosystem suffix matches its own release only; a bare one every release', () => {
    const r = record([{ package: { ecosystem: 'Debian:11', name: 'openssl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.1.1n-0+deb11u4' }] }] }]);
    expect(isAffected(r, { ecosystem: 'Debian:11', name: 'openssl' }, '1.1.1n-0+deb11u3')).toBe(true);
    expect(isAffected(r, { ecosystem: 'Debian:12', name: 'openssl' }, '1.1.1n-0+deb11u3')).toBe(false);
    expect(isAffected(r, { ecosystem: 'Debian', name: 'openssl' }, '1.1.1n-0+deb11u3')).toBe(true);
    expect(isAffected(r, { ecosystem: 'Debian:11', name: 'openssl' }, '1.1.1n-0+deb11u4')).toBe(false);
  });
});

describe('severity and fix versions', () => {
  it('scores CVSS v3 and v4 vectors; falls back to the record\'s own label', () => {
    expect(severityOf(record([], { severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' }] }))).toMatchObject({ label: 'critical', score: 10 });
    expect(severityOf(record([], { severity: [{ type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' }] }))).toMatchObject({ label: 'critical', score: 9.3 });
    expect(severityOf(record([], { database_specific: { severity: 'MODERATE' } }))).toEqual({ label: 'medium', score: null, vector: null, type: null });
    expect(severityOf(record([]))).toMatchObject({ label: 'unknown' });
  });

  it('the component\'s fix is the smallest fixed version outside every matching advisory', () => {
    const a = record([{ package: npm('x'), ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.2.0' }] }] }], { id: 'A' });
    const b = record([{ package: npm('x'), ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { fixed: '1.3.0' }] }] }], { id: 'B' });
    const m = matchPackage(npm('x'), '1.1.0', [a, b]);
    expect(m.advisories.map((x) => [x.id, x.fixed_version])).toEqual([['A', '1.2.0'], ['B', '1.3.0']]);
    expect(m.fix_version).toBe('1.3.0');
    expect(matchPackage(npm('x'), '1.3.0', [a, b])).toEqual({ advisories: [], fix_version: null });
  });

  it('log4j-core: three ranges of one advisory, each version fixed on its own branch', () => {
    const log4shell = starter.find((r) => r.id === 'GHSA-jfh8-c2jp-5v3q')!;
    const pkg = { ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core' };
    expect(matchPackage(pkg, '2.14.1', [log4shell]).fix_version).toBe('2.15.0');
    expect(matchPackage(pkg, '2.0', [log4shell]).fix_version).toBe('2.3.1');
    expect(matchPackage(pkg, '2.12.1', [log4shell]).fix_version).toBe('2.12.2');
    expect(matchPackage(pkg, '2.17.1', [log4shell]).advisories).toEqual([]);
  });
});

describe('the vulnerability database in D1', () => {
  it('imports incrementally: a newer modified replaces a record, an older or equal one does not', async () => {
    const v1 = record([{ package: npm('inc-pkg'), ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.0' }] }] }], { id: 'INC-1', modified: '2026-01-01T00:00:00Z' });
    expect((await importRecords(env.DB, [v1], 'test')).changed).toBe(1);
    expect((await importRecords(env.DB, [v1], 'test')).changed).toBe(0);
    const older = { ...v1, modified: '2025-01-01T00:00:00Z', affected: [{ package: npm('other-pkg'), ranges: [] }] };
    expect((await importRecords(env.DB, [older], 'test')).changed).toBe(0);
    expect((await lookupRecords(env.DB, [npm('inc-pkg')])).get('npm\u0000inc-pkg')?.[0]?.modified).toBe(v1.modified);
    const newer = { ...older, modified: '2026-06-01T00:00:00Z' };
    expect((await importRecords(env.DB, [newer], 'test')).changed).toBe(1);
    // The package rows follow the record: it now names other-pkg only.
    expect((await lookupRecords(env.DB, [npm('inc-pkg')])).size).toBe(0);
    expect((await lookupRecords(env.DB, [npm('other-pkg')])).get('npm\u0000other-pkg')?.[0]?.id).toBe('INC-1');
  });

  it('looks up hundreds of packages in one query, leaving withdrawn records out', async () => {
    const many = Array.from({ length: 250 }, (_, i) => record([{ package: npm(`bulk-${i}`), ranges: [] }], { id: `BULK-${i}`, ...(i === 7 ? { withdrawn: '2026-02-01T00:00:00Z' } : {}) }));
    await importRecords(env.DB, many, 'test');
    const found = await lookupRecords(env.DB, many.map((_, i) => npm(`bulk-${i}`)));
    expect(found.size).toBe(249);
    expect(found.has('npm\u0000bulk-7')).toBe(false);
  });

  it('a suffixed ask finds records of its release and of the bare ecosystem; the snapshot moves with imports', async () => {
    const before = await vulnDataSnapshot(env.DB);
    await importRecords(env.DB, [
      record([{ package: { ecosystem: 'Debian:11', name: 'suffix-pkg' }, ranges: [] }], { id: 'DEB-11' }),
      record([{ package: { ecosystem: 'Debian:12', name: 'suffix-pkg' }, ranges: [] }], { id: 'DEB-12' }),
      record([{ package: { ecosystem: 'Debian', name: 'suffix-pkg' }, ranges: [] }], { id: 'DEB-ANY' }),
    ], 'test');
    const ids = async (ecosystem: string) => (await lookupRecords(env.DB, [{ ecosystem, name: 'suffix-pkg' }])).get(`${ecosystem}\u0000suffix-pkg`)!.map((r) => r.id).sort();
    expect(await ids('Debian:11')).toEqual(['DEB-11', 'DEB-ANY']);
    expect(await ids('Debian')).toEqual(['DEB-11', 'DEB-12', 'DEB-ANY']);
    expect((await vulnDataSnapshot(env.DB)).version).not.toBe(before.version);
  });
});

describe('the daily refresh: an all.zip staged in R2 is imported as a stream', () => {
  it('imports every record of the archive, skips entries that are not OSV, and is incremental', async () => {
    const records = Array.from({ length: 130 }, (_, i) => record([{ package: npm(`zip-${i}`), ranges: [] }], { id: `ZIP-${i}` }));
    const files = Object.fromEntries(records.map((r) => [`${r.id}.json`, strToU8(JSON.stringify(r))]));
    files['README.json'] = strToU8('{"not": "osv"}');
    await env.BUNDLES.put(stagingKey('npm'), zipSync(files));
    expect(await importStaged(env, stagingKey('npm'))).toEqual({ records: 130, changed: 130, skipped: 1 });
    expect((await lookupRecords(env.DB, [npm('zip-129')])).get('npm\u0000zip-129')?.[0]?.id).toBe('ZIP-129');
    expect(await importStaged(env, stagingKey('npm'))).toEqual({ records: 130, changed: 0, skipped: 1 });
  });

  it('an unreachable source is logged, not thrown: the cron goes on', async () => {
    await expect(refreshVulnerabilityData({ ...env, VULNDB_SOURCE_URL: 'http://127.0.0.1:9/osv', VULNDB_ECOSYSTEMS: 'npm' } as typeof env)).resolves.toBeUndefined();
  });
});

describe('every fixture SBOM against the starter records', () => {
  it('gives exactly the reviewed (component, advisory, fix version) triples', async () => {
    await importRecords(env.DB, starter, 'starter');
    const got: string[] = [];
    for (const [path, text] of Object.entries(sboms)) {
      const file = path.split('/').pop()!;
      const purls = [...new Set(((JSON.parse(text).components ?? []) as { purl?: string }[]).map((c) => c.purl && normalizePurl(c.purl)).filter((p): p is string => Boolean(p)))];
      const packages = purls.map((purl) => ({ purl, pkg: packageOf(purl) })).filter((p) => p.pkg?.version);
      const records = await lookupRecords(env.DB, packages.map((p) => p.pkg!));
      for (const { purl, pkg } of packages) {
        const candidates = records.get(`${pkg!.ecosystem}\u0000${pkg!.name}`) ?? [];
        const { advisories, fix_version } = matchPackage(pkg!, pkg!.version!, candidates);
        for (const a of advisories) got.push(`${file}\t${purl}\t${a.id}\t${fix_version ?? '-'}`);
      }
    }
    const want = expectedTriples.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(got.sort()).toEqual(want.sort());
    // Negative cases hidden in the list: the same names at versions outside every range are absent.
    expect(want.some((l) => l.includes('pkg:maven/org.apache.logging.log4j'))).toBe(false);
    // Juice Shop has lodash 2.4.2 and 4.17.21: only the old one is affected.
    expect(new Set(want.filter((l) => l.includes('pkg:npm/lodash@')).map((l) => l.split('\t')[1]))).toEqual(new Set(['pkg:npm/lodash@2.4.2']));
  });
});
