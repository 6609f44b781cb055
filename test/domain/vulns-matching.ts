// Vulnerability matching (issue 8, the `vuln` axis), as pure functions: package URLs to OSV packages,
// the OSV schema's range evaluation, severity, fix versions, and every fixture SBOM (and a hand-built
// component list) against the fixture OSV records (test/fixtures/osv), checked against a reviewed list
// of (purl, advisory, fix version) triples. The database that serves records is test/vulndb.test.ts's.
import { describe, expect, it } from 'vitest';
import { normalizePurl } from '../../src/analysis/components';
import { MatchMemo, vulnFindings } from '../../src/analysis/findings';
import { packageOf } from '../../src/analysis/vulns/ecosystem';
import { aliasesOf, matchPackage } from '../../src/analysis/vulns/match';
import { ecosystemCovers, inRange, isAffected, namesPackage, packageKey, packageNameKey } from '../../src/analysis/vulns/osv';
import type { OsvRange, OsvRecord, PackageKey } from '../../src/analysis/vulns/osv-types';
import { ratingOf, severityOf } from '../../src/analysis/vulns/severity';
import { compareVersions } from '../../src/analysis/vulns/versions/index';
import { compareSemver } from '../../src/analysis/vulns/versions/semver';
import expectedTriples from '../fixtures/expected/sbom-advisories.txt?raw';

const osvFiles = import.meta.glob('../fixtures/osv/*.json', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const RECORDS = Object.values(osvFiles).map((text) => JSON.parse(text) as OsvRecord);
const byId = (id: string) => RECORDS.find((r) => r.id === id)!;
const sboms = import.meta.glob('../fixtures/sbom/*.json', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

const record = (affected: OsvRecord['affected'], extra: Partial<OsvRecord> = {}): OsvRecord => ({ id: 'TEST-1', modified: '2026-01-01T00:00:00Z', affected, ...extra });
const npm = (name: string): PackageKey => ({ ecosystem: 'npm', name });
const semverRange = (events: object[]) => ({ type: 'SEMVER', events }) as OsvRange;

describe('package URLs to OSV packages', () => {
  it.each([
    // Language ecosystems: names as OSV writes them.
    ['pkg:npm/%40babel/helper-string-parser@7.19.4#packages/babel-helper-string-parser', 'npm', '@babel/helper-string-parser', '7.19.4'],
    ['pkg:npm/lodash@4.17.21', 'npm', 'lodash', '4.17.21'],
    ['pkg:golang/github.com/docker/docker@v20.10.11%2Bincompatible?type=module', 'Go', 'github.com/docker/docker', '20.10.11+incompatible'],
    ['pkg:golang/golang.org/x/crypto@v0.0.0-20211215153901-e495a2d5b3d3?type=module', 'Go', 'golang.org/x/crypto', '0.0.0-20211215153901-e495a2d5b3d3'],
    ['pkg:golang/go.etcd.io/etcd/client/pkg/v3@v3.5.2#some/package', 'Go', 'go.etcd.io/etcd/client/pkg/v3', '3.5.2'],
    ['pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar', 'Maven', 'org.apache.logging.log4j:log4j-core', '2.14.1'],
    ['pkg:pypi/Typing_Extensions@4.12.2', 'PyPI', 'typing-extensions', '4.12.2'],
    ['pkg:pypi/zope.interface@5.4.0', 'PyPI', 'zope-interface', '5.4.0'],
    ['pkg:nuget/Newtonsoft.Json@12.0.1', 'NuGet', 'Newtonsoft.Json', '12.0.1'],
    ['pkg:gem/rails@7.0.0', 'RubyGems', 'rails', '7.0.0'],
    ['pkg:cargo/serde@1.0.0', 'crates.io', 'serde', '1.0.0'],
    ['pkg:composer/laravel/framework@7.12.0', 'Packagist', 'laravel/framework', '7.12.0'],
    ['pkg:hex/phoenix@1.6.0', 'Hex', 'phoenix', '1.6.0'],
    ['pkg:pub/http@0.13.0', 'Pub', 'http', '0.13.0'],
    ['pkg:cran/A3@1.0.0', 'CRAN', 'A3', '1.0.0'],
    ['pkg:hackage/aeson@2.0.3.0', 'Hackage', 'aeson', '2.0.3.0'],
    ['pkg:swift/github.com/apple/swift-nio-http2@1.27.0', 'SwiftURL', 'github.com/apple/swift-nio-http2', '1.27.0'],
    // Debian and Ubuntu: the release from `distro` (number, `debian-N`, codename) or the bare ecosystem.
    ['pkg:deb/debian/openssl@1.1.1n-0%2Bdeb11u3?distro=debian-11', 'Debian:11', 'openssl', '1.1.1n-0+deb11u3'],
    ['pkg:deb/debian/curl@7.74.0-1.3?distro=debian-11.6', 'Debian:11', 'curl', '7.74.0-1.3'],
    ['pkg:deb/debian/libssl3@3.0.11-1~deb12u2?upstream=openssl%403.0.11-1~deb12u2&distro=bookworm', 'Debian:12', 'openssl', '3.0.11-1~deb12u2'],
    ['pkg:deb/debian/bash@5.0-4?distro=10', 'Debian:10', 'bash', '5.0-4'],
    ['pkg:deb/debian/tzdata@2024a-0%2Bdeb12u1', 'Debian', 'tzdata', '2024a-0+deb12u1'],
    ['pkg:deb/ubuntu/zlib1g@1:1.2.11.dfsg-2ubuntu1?upstream=zlib&distro=ubuntu-20.04', 'Ubuntu:20.04:LTS', 'zlib', '1:1.2.11.dfsg-2ubuntu1'],
    ['pkg:deb/ubuntu/libc6@2.35-0ubuntu3.6?upstream=glibc&distro=jammy', 'Ubuntu:22.04:LTS', 'glibc', '2.35-0ubuntu3.6'],
    ['pkg:deb/ubuntu/curl@8.2.1-1ubuntu3?distro=ubuntu-23.10', 'Ubuntu:23.10', 'curl', '8.2.1-1ubuntu3'],
    ['pkg:deb/ubuntu/curl@7.81.0-1', 'Ubuntu', 'curl', '7.81.0-1'],
    // The Pop!_OS SBOM: no namespace, no distro, a subpath.
    ['pkg:deb/zsh-common@5.8.1-1#/var/lib/dpkg', 'Debian', 'zsh-common', '5.8.1-1'],
    // Alpine and its relatives: `Alpine:v<major>.<minor>`, the source package from `origin` / `upstream`.
    ['pkg:apk/alpine/zlib@1.2.12-r1?arch=x86_64&distro=3.22.0&origin=zlib', 'Alpine:v3.22', 'zlib', '1.2.12-r1'],
    ['pkg:apk/alpine/libcrypto3@3.1.4-r1?distro=alpine-3.18.4&origin=openssl', 'Alpine:v3.18', 'openssl', '3.1.4-r1'],
    ['pkg:apk/alpine/musl@1.2.3-r0', 'Alpine', 'musl', '1.2.3-r0'],
    ['pkg:alpine/ssl_client@1.35.0-r17?arch=x86_64&upstream=busybox&distro=alpine-3.16.2', 'Alpine:v3.16', 'busybox', '1.35.0-r17'],
    ['pkg:apk/wolfi/openssl@3.1.0-r0?arch=x86_64', 'Wolfi', 'openssl', '3.1.0-r0'],
    ['pkg:apk/chainguard/glibc@2.38-r1', 'Chainguard', 'glibc', '2.38-r1'],
    // RPM distributions: the source RPM's name from `upstream`, the epoch qualifier into the version.
    ['pkg:rpm/redhat/openssl-libs@1.1.1k-7.el8_6?arch=x86_64&upstream=openssl-1.1.1k-7.el8_6.src.rpm&distro=rhel-8.6&epoch=1', 'Red Hat', 'openssl', '1:1.1.1k-7.el8_6'],
    ['pkg:rpm/centos/bash@4.2.46-34.el7?distro=centos-7', 'Red Hat', 'bash', '4.2.46-34.el7'],
    ['pkg:rpm/almalinux/openssl@3.0.7-1.el9?distro=almalinux-9.2', 'AlmaLinux:9', 'openssl', '3.0.7-1.el9'],
    ['pkg:rpm/rocky/kernel@4.18.0-425.el8?distro=rocky-8.7', 'Rocky Linux:8', 'kernel', '4.18.0-425.el8'],
    ['pkg:rpm/rocky/kernel@4.18.0-425.el8', 'Rocky Linux', 'kernel', '4.18.0-425.el8'],
    ['pkg:rpm/opensuse/curl@8.0.1-150400.5.23.1?distro=opensuse-leap-15.4', 'openSUSE', 'curl', '8.0.1-150400.5.23.1'],
    ['pkg:rpm/suse/curl@8.0.1-150400.5.23.1?distro=sles-15.5', 'SUSE', 'curl', '8.0.1-150400.5.23.1'],
  ])('%s', (purl, ecosystem, name, version) => {
    expect(packageOf(purl)).toEqual({ ecosystem, name, version });
  });

  it('the legacy pkg:alpine type reads the same raw or as the SBOM reader rewrites it (pkg:apk/alpine)', () => {
    const raw = 'pkg:alpine/busybox@1.35.0-r17?arch=x86_64&upstream=busybox&distro=alpine-3.16.2';
    expect(packageOf(normalizePurl(raw)!)).toEqual(packageOf(raw));
  });

  it('no package where OSV has no ecosystem, or the vendor is not the distribution; no version when the purl has none', () => {
    for (const purl of [
      'pkg:swid/Acme/product@1.0', 'pkg:generic/openssl@1.1.1', 'pkg:rpm/fedora/curl@8.0.1-1.fc38?distro=fedora-38', 'pkg:apk/postmarketos/foo@1.0',
      'pkg:deb/ppa.launchpad.net/slimbook/slimbook/ubuntu jammy@22.04#/etc/apt/sources.list.d/slimbook-ubuntu-slimbook-hirsute.list',
      'not a purl', '',
    ]) expect(packageOf(purl), purl).toBeNull();
    expect(packageOf('pkg:npm/left-pad')).toEqual({ ecosystem: 'npm', name: 'left-pad', version: null });
  });

  it('every purl of the fixture SBOMs maps to the ecosystem its SBOM is about', () => {
    const counts: Record<string, Record<string, number>> = {};
    for (const [path, text] of Object.entries(sboms)) {
      const file = path.split('/').pop()!;
      counts[file] = {};
      for (const purl of sbomPurls(text)) {
        const key = packageOf(purl)?.ecosystem ?? 'none';
        counts[file][key] = (counts[file][key] ?? 0) + 1;
      }
    }
    expect(counts).toEqual({
      'apk__alpine-3.16-syft0.58.cdx-1.4.json': { 'Alpine:v3.16': 14 },
      'apk__osv-scanner-alpine-zlib.cdx-1.6.json': { 'Alpine:v3.22': 1 },
      // 56 swid browser extensions and one deb purl naming a PPA (not a Debian package) have none.
      'deb__pop-os-22.04-host.cdx-1.4.json': { Debian: 2612, none: 57 },
      // 156 modules and 549 packages nested in them.
      'golang__elastic-harp-v0.2.10.cdx-1.4.json': { Go: 705 },
      'maven__dependency-track-apiserver-4.5.0.cdx-1.4.json': { Maven: 132 },
      'npm__juice-shop-14.1.1.cdx-1.4.json': { npm: 978 },
      'pypi__poetry-regression-issue702.cdx-1.6.json': { PyPI: 63 },
    });
  });
});

describe('OSV range evaluation (the schema\'s Evaluation pseudo-code)', () => {
  it.each([
    ['introduced 0: from the beginning', [{ introduced: '0' }, { fixed: '1.2.0' }], '0.0.1', true],
    ['introduced 0 is below every pre-release too', [{ introduced: '0' }, { fixed: '1.2.0' }], '0.0.0-alpha', true],
    ['introduced is inclusive', [{ introduced: '1.0.0' }, { fixed: '1.2.0' }], '1.0.0', true],
    ['fixed is not affected', [{ introduced: '1.0.0' }, { fixed: '1.2.0' }], '1.2.0', false],
    ['a pre-release of the fix is still affected', [{ introduced: '1.0.0' }, { fixed: '1.2.0' }], '1.2.0-rc.1', true],
    ['before introduced is not affected', [{ introduced: '1.0.0' }, { fixed: '1.2.0' }], '0.9.9', false],
    ['last_affected is affected', [{ introduced: '1.0.0' }, { last_affected: '1.1.0' }], '1.1.0', true],
    ['after last_affected is not', [{ introduced: '1.0.0' }, { last_affected: '1.1.0' }], '1.1.1', false],
    ['unsorted events are sorted first', [{ fixed: '2.1.0' }, { introduced: '2.0.0' }, { fixed: '1.2.0' }, { introduced: '1.0.0' }], '2.0.5', true],
    ['unsorted events: between the intervals', [{ fixed: '2.1.0' }, { introduced: '2.0.0' }, { fixed: '1.2.0' }, { introduced: '1.0.0' }], '1.5.0', false],
    ['introduced 0 sorts first wherever it is written', [{ fixed: '1.2.0' }, { introduced: '0' }], '1.0.0', true],
    ['two intervals: in the second', [{ introduced: '1.0.0' }, { fixed: '1.2.0' }, { introduced: '2.0.0' }, { fixed: '2.1.0' }], '2.0.0', true],
    ['two intervals: after both', [{ introduced: '1.0.0' }, { fixed: '1.2.0' }, { introduced: '2.0.0' }, { fixed: '2.1.0' }], '2.1.0', false],
    ['introduced without a fix: every later version', [{ introduced: '3.0.0' }], '9.9.9', true],
    ['no introduced at all: nothing', [{ fixed: '3.0.0' }], '1.0.0', false],
    ['at or above a limit is outside', [{ introduced: '0' }, { limit: '2.0.0' }], '2.0.0', false],
    ['below a limit is inside', [{ introduced: '0' }, { limit: '2.0.0' }], '1.9.9', true],
    ['a limit of * is infinity', [{ introduced: '0' }, { limit: '*' }], '99.0.0', true],
    ['below any one of several limits is enough', [{ introduced: '0' }, { limit: '1.0.0' }, { limit: '3.0.0' }], '2.0.0', true],
    ['a limit does not end the range below it', [{ introduced: '1.0.0' }, { fixed: '1.5.0' }, { limit: '2.0.0' }], '1.6.0', false],
    ['Go versions with a leading v compare without it', [{ introduced: '0' }, { fixed: '1.2.0' }], 'v1.1.0', true],
  ])('%s', (_title, events, version, affected) => {
    expect(inRange(semverRange(events), version, compareSemver)).toBe(affected);
  });

  it('ECOSYSTEM ranges use the ecosystem\'s order (PyPI pre-releases, Maven qualifiers, Debian epochs)', () => {
    const eco = (events: object[]) => ({ type: 'ECOSYSTEM', events }) as OsvRange;
    const order = (e: string) => (a: string, b: string) => compareVersions(e, a, b);
    expect(inRange(eco([{ introduced: '2.0a1' }, { fixed: '2.1.9' }]), '2.0', order('PyPI'))).toBe(true);
    expect(inRange(eco([{ introduced: '2.0a1' }, { fixed: '2.1.9' }]), '2.0.dev1', order('PyPI'))).toBe(false);
    expect(inRange(eco([{ introduced: '2.0-beta9' }, { fixed: '2.3.1' }]), '2.0', order('Maven'))).toBe(true);
    expect(inRange(eco([{ introduced: '0' }, { fixed: '1:1.0-1' }]), '2.0-1', order('Debian'))).toBe(true);
  });

  it('explicit versions match (by text, or equal in the ecosystem\'s order); withdrawn records never do; other ecosystems and names never do', () => {
    const r = record([{ package: npm('left-pad'), versions: ['0.0.3'], ranges: [] }]);
    expect(isAffected(r, npm('left-pad'), '0.0.3')).toBe(true);
    expect(isAffected(r, npm('left-pad'), '0.0.4')).toBe(false);
    expect(isAffected({ ...r, withdrawn: '2026-01-02T00:00:00Z' }, npm('left-pad'), '0.0.3')).toBe(false);
    expect(isAffected(r, { ecosystem: 'PyPI', name: 'left-pad' }, '0.0.3')).toBe(false);
    expect(isAffected(r, npm('left-pad2'), '0.0.3')).toBe(false);
    const py = record([{ package: { ecosystem: 'PyPI', name: 'Foo_Bar' }, versions: ['1.0'] }]);
    expect(isAffected(py, { ecosystem: 'PyPI', name: 'foo-bar' }, '1.0.0')).toBe(true);
    // An ecosystem without an order (here: none OSV defines) still matches its listed versions by text.
    const unordered = record([{ package: { ecosystem: 'Linux', name: 'Kernel' }, versions: ['6.1'], ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }] }]);
    expect(isAffected(unordered, { ecosystem: 'Linux', name: 'Kernel' }, '6.1')).toBe(true);
    expect(isAffected(unordered, { ecosystem: 'Linux', name: 'Kernel' }, '6.2')).toBe(false);
  });

  it('GIT ranges are ignored; any one matching range or entry is enough', () => {
    const r = record([
      { package: npm('multi'), ranges: [{ type: 'GIT', repo: 'https://github.com/x/y', events: [{ introduced: '0' }] }] },
      { package: npm('multi'), ranges: [{ type: 'GIT', repo: 'https://github.com/x/y', events: [{ introduced: 'abc' }] }, semverRange([{ introduced: '2.0.0' }, { fixed: '2.1.0' }])] },
    ]);
    expect(isAffected(r, npm('multi'), '1.0.0')).toBe(false);
    expect(isAffected(r, npm('multi'), '2.0.1')).toBe(true);
  });

  it('an ecosystem suffix matches its own release only; a bare one on either side matches every release', () => {
    const deb = (eco: string) => record([{ package: { ecosystem: eco, name: 'openssl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.1.1n-0+deb11u4' }] }] }]);
    const pkg = (ecosystem: string) => ({ ecosystem, name: 'openssl' });
    expect(isAffected(deb('Debian:11'), pkg('Debian:11'), '1.1.1n-0+deb11u3')).toBe(true);
    expect(isAffected(deb('Debian:11'), pkg('Debian:12'), '1.1.1n-0+deb11u3')).toBe(false);
    expect(isAffected(deb('Debian:11'), pkg('Debian'), '1.1.1n-0+deb11u3')).toBe(true);
    expect(isAffected(deb('Debian'), pkg('Debian:12'), '1.1.1n-0+deb11u3')).toBe(true);
    expect(isAffected(deb('Debian:11'), pkg('Debian:11'), '1.1.1n-0+deb11u4')).toBe(false);
    expect(isAffected(deb('Debian:11'), pkg('Ubuntu:11'), '1.1.1n-0+deb11u3')).toBe(false);
    // Spellings: Ubuntu's `:LTS` marker is not part of the release; Ubuntu Pro is its own stream.
    expect(ecosystemCovers('Ubuntu:22.04:LTS', 'Ubuntu:22.04:LTS')).toBe(true);
    expect(ecosystemCovers('Ubuntu:22.04:LTS', 'Ubuntu:22.04')).toBe(true);
    expect(ecosystemCovers('Ubuntu:Pro:22.04:LTS', 'Ubuntu:22.04:LTS')).toBe(false);
    expect(ecosystemCovers('Ubuntu:20.04:LTS', 'Ubuntu:22.04:LTS')).toBe(false);
    expect(ecosystemCovers('Alpine:v3.16', 'Alpine:v3.16')).toBe(true);
    expect(ecosystemCovers('Alpine:v3.17', 'Alpine:v3.16')).toBe(false);
    expect(ecosystemCovers('AlmaLinux:8', 'AlmaLinux:9')).toBe(false);
    expect(ecosystemCovers('Red Hat:enterprise_linux:8::baseos', 'Red Hat')).toBe(true);
    expect(ecosystemCovers('Maven:https://maven.google.com', 'Maven')).toBe(true);
    expect(ecosystemCovers('Debian', 'Ubuntu')).toBe(false);
  });

  it('names compare as each registry does: PyPI PEP 503-normalised, NuGet and Packagist case-insensitively, others exactly', () => {
    expect(packageNameKey('PyPI', 'Zope.Interface')).toBe('zope-interface');
    expect(namesPackage({ package: { ecosystem: 'NuGet', name: 'jquery' } }, { ecosystem: 'NuGet', name: 'jQuery' })).toBe(true);
    expect(namesPackage({ package: { ecosystem: 'Packagist', name: 'Laravel/Framework' } }, { ecosystem: 'Packagist', name: 'laravel/framework' })).toBe(true);
    expect(namesPackage({ package: { ecosystem: 'npm', name: 'JSONStream' } }, npm('jsonstream'))).toBe(false);
    expect(namesPackage({ package: { ecosystem: 'Go', name: 'github.com/Masterminds/goutils' } }, { ecosystem: 'Go', name: 'github.com/masterminds/goutils' })).toBe(false);
  });
});

describe('severity', () => {
  const v31 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H';
  const v4 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';

  it('rates base scores on the CVSS scale', () => {
    expect([10, 9, 8.9, 7, 6.9, 4, 3.9, 0.1, 0].map(ratingOf)).toEqual(['critical', 'critical', 'high', 'high', 'medium', 'medium', 'low', 'low', 'unknown']);
  });

  it('scores CVSS v3.1, v3.0, v4.0 and v2 vectors', () => {
    expect(severityOf(record([], { severity: [{ type: 'CVSS_V3', score: v31 }] }))).toEqual({ label: 'critical', score: 10, vector: v31, type: 'CVSS_V3' });
    expect(severityOf(record([], { severity: [{ type: 'CVSS_V3', score: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N' }] }))).toMatchObject({ label: 'medium', score: 5.4 });
    expect(severityOf(record([], { severity: [{ type: 'CVSS_V4', score: v4 }] }))).toMatchObject({ label: 'critical', score: 9.3, type: 'CVSS_V4' });
    // v2 has no "critical" band: 10.0 is high.
    expect(severityOf(record([], { severity: [{ type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:C/I:C/A:C' }] }))).toMatchObject({ label: 'high', score: 10 });
  });

  it('prefers v4 over v3 when both are given (fixture GHSA-qppj-fm5r-hxr3: v3.1 5.3, v4 6.9)', () => {
    expect(severityOf(byId('GHSA-qppj-fm5r-hxr3'))).toMatchObject({ label: 'medium', score: 6.9, type: 'CVSS_V4' });
    expect(severityOf(record([], { severity: [{ type: 'CVSS_V3', score: v31 }, { type: 'CVSS_V4', score: v4 }] }))).toMatchObject({ score: 9.3, type: 'CVSS_V4' });
  });

  it('rates a v4 vector by its base metrics even when threat metrics lower the total (fixture GHSA-9wv6-86v2-598j, E:P)', () => {
    expect(severityOf(byId('GHSA-9wv6-86v2-598j'))).toMatchObject({ label: 'high', score: 8.7, type: 'CVSS_V4' });
  });

  it('reads a package\'s own vectors; falls back to the record\'s label when no vector scores', () => {
    const pkgLevel = { package: npm('x'), severity: [{ type: 'CVSS_V3', score: v31 }] };
    expect(severityOf(record([pkgLevel]), pkgLevel)).toMatchObject({ label: 'critical', score: 10 });
    expect(severityOf(record([], { database_specific: { severity: 'MODERATE' } }))).toEqual({ label: 'medium', score: null, vector: null, type: null });
    expect(severityOf(record([], { severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N' }], database_specific: { severity: 'HIGH' } }))).toMatchObject({ label: 'high', score: null });
    expect(severityOf(record([], { severity: [{ type: 'CVSS_V3', score: 'not a vector' }] }))).toMatchObject({ label: 'unknown' });
    const eco = { package: npm('x'), ecosystem_specific: { severity: 'LOW' } };
    expect(severityOf(record([eco]), eco)).toMatchObject({ label: 'low' });
    expect(severityOf(record([], { severity: [{ type: 'Ubuntu', score: 'negligible' }] }))).toMatchObject({ label: 'low' });
    expect(severityOf(record([]))).toEqual({ label: 'unknown', score: null, vector: null, type: null });
  });

  it('every fixture record with both a vector and GHSA\'s own label gets the same rating from the vector', () => {
    const words: Record<string, string> = { LOW: 'low', MODERATE: 'medium', HIGH: 'high', CRITICAL: 'critical' };
    const checked = RECORDS.filter((r) => typeof r.database_specific?.severity === 'string' && r.severity?.length);
    expect(checked.length).toBeGreaterThan(100);
    for (const r of checked) expect(severityOf(r).label, r.id).toBe(words[r.database_specific!.severity as string]);
  });
});

describe('fix versions and the advisory list', () => {
  const rangeRecord = (id: string, ...ranges: object[][]) => record([{ package: npm('x'), ranges: ranges.map(semverRange) }], { id });

  it('the component\'s fix is the smallest fixed version outside every matching advisory', () => {
    const a = rangeRecord('A', [{ introduced: '0' }, { fixed: '1.2.0' }]);
    const b = rangeRecord('B', [{ introduced: '1.0.0' }, { fixed: '1.3.0' }]);
    const m = matchPackage(npm('x'), '1.1.0', [a, b]);
    expect(m.advisories.map((x) => [x.id, x.fixed_version])).toEqual([['A', '1.2.0'], ['B', '1.3.0']]);
    expect(m.fix_version).toBe('1.3.0');
    expect(matchPackage(npm('x'), '1.3.0', [a, b])).toEqual({ advisories: [], fix_version: null });
  });

  it('a memo of one analysis matches each package version once and answers what matching answers', () => {
    const a = rangeRecord('A', [{ introduced: '0' }, { fixed: '1.2.0' }]);
    const b = rangeRecord('B', [{ introduced: '1.0.0' }, { fixed: '1.3.0' }]);
    const memo = new MatchMemo();
    const first = memo.match(npm('x'), '1.1.0', [a, b]);
    expect(first).toEqual(matchPackage(npm('x'), '1.1.0', [a, b]));
    expect(memo.match(npm('x'), '1.1.0', [a, b])).toBe(first);
    expect(memo.match(npm('x'), '1.2.5', [a, b])).toEqual(matchPackage(npm('x'), '1.2.5', [a, b]));
    // Another package of the same name elsewhere, or another version, is its own match.
    expect(memo.match({ ecosystem: 'PyPI', name: 'x' }, '1.1.0', [])).toEqual({ advisories: [], fix_version: null });
    // Components of one page naming the same version share the match (and so the advisory list).
    const rows = ['c1', 'c2'].map((key) => ({ row: { key, name: 'x', purl: 'pkg:npm/x@1.1.0', version: '1.1.0' }, pkg: { ...npm('x'), version: '1.1.0' } }));
    const findings = vulnFindings(rows as never, new Map([[packageKey(npm('x')), [a, b]]]), memo);
    expect(findings.map((f) => f.key)).toEqual(['A|c1', 'B|c1', 'A|c2', 'B|c2']);
    expect(findings.every((f) => f.data.fix_version === '1.3.0')).toBe(true);
    // A version that more than 100 advisories affect is matched each time, not held.
    const many = Array.from({ length: 101 }, (_, i) => rangeRecord(`M-${i}`, [{ introduced: '0' }, { fixed: '9.0.0' }]));
    const heavy = memo.match(npm('x'), '5.0.0', many);
    expect(heavy.advisories).toHaveLength(101);
    expect(memo.match(npm('x'), '5.0.0', many)).not.toBe(heavy);
    expect(memo.match(npm('x'), '5.0.0', many)).toEqual(heavy);
  });

  it('several ranges: a fix on the installed branch, or else a later branch\'s, never one the advisory still affects', () => {
    const branches = rangeRecord('BR', [{ introduced: '0' }, { fixed: '1.4.2' }], [{ introduced: '2.0.0' }, { fixed: '2.3.1' }]);
    expect(matchPackage(npm('x'), '1.4.0', [branches]).fix_version).toBe('1.4.2');
    expect(matchPackage(npm('x'), '2.1.0', [branches]).fix_version).toBe('2.3.1');
    // Overlapping ranges: 1.2.0 closes the first but not the second, so the fix is 1.5.0.
    const overlap = rangeRecord('OV', [{ introduced: '0' }, { fixed: '1.2.0' }], [{ introduced: '1.1.0' }, { fixed: '1.5.0' }]);
    expect(matchPackage(npm('x'), '1.1.5', [overlap]).advisories[0]!.fixed_version).toBe('1.5.0');
    expect(matchPackage(npm('x'), '1.1.5', [overlap]).fix_version).toBe('1.5.0');
    // The installed branch is never fixed; another advisory's fix on a later branch is the way out.
    const dead = rangeRecord('DEAD', [{ introduced: '0' }, { fixed: '1.0.5' }, { introduced: '1.1.0' }, { fixed: '2.0.1' }]);
    const later = rangeRecord('LATER', [{ introduced: '1.1.0' }, { fixed: '1.1.3' }]);
    expect(matchPackage(npm('x'), '1.1.0', [dead, later]).fix_version).toBe('2.0.1');
  });

  it('an advisory nothing fixes (open range, last_affected) leaves the component without a fix version', () => {
    const open = rangeRecord('OPEN', [{ introduced: '0' }]);
    const last = rangeRecord('LAST', [{ introduced: '0' }, { last_affected: '1.5.0' }]);
    const fixed = rangeRecord('FIXED', [{ introduced: '0' }, { fixed: '1.2.0' }]);
    expect(matchPackage(npm('x'), '1.0.0', [open, fixed])).toMatchObject({ fix_version: null });
    expect(matchPackage(npm('x'), '1.0.0', [last, fixed]).fix_version).toBeNull();
    expect(matchPackage(npm('x'), '1.0.0', [last]).advisories[0]!.fixed_version).toBeNull();
  });

  it('advisories come worst first, then by id; aliases CVE first; a record given twice counts once', () => {
    const low = record([{ package: npm('x'), ranges: [semverRange([{ introduced: '0' }])] }], { id: 'GHSA-aaaa', database_specific: { severity: 'LOW' }, aliases: ['PYSEC-1', 'CVE-2024-2', 'CVE-2024-1', 'GHSA-aaaa'] });
    const high = { ...low, id: 'GHSA-zzzz', database_specific: { severity: 'HIGH' } };
    const unknown = { ...low, id: 'GHSA-0000', database_specific: {} };
    const m = matchPackage(npm('x'), '1.0.0', [low, unknown, high, low]);
    expect(m.advisories.map((a) => [a.id, a.severity.label])).toEqual([['GHSA-zzzz', 'high'], ['GHSA-aaaa', 'low'], ['GHSA-0000', 'unknown']]);
    expect(aliasesOf(low)).toEqual(['CVE-2024-1', 'CVE-2024-2', 'PYSEC-1']);
    expect(m.advisories[1]).toMatchObject({ aliases: ['CVE-2024-1', 'CVE-2024-2', 'PYSEC-1'], summary: null, published: null, modified: low.modified });
  });

  it('log4j-core (GHSA-jfh8-c2jp-5v3q): three ranges, each version fixed on its own branch', () => {
    const log4shell = byId('GHSA-jfh8-c2jp-5v3q');
    const pkg = { ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core' };
    expect(matchPackage(pkg, '2.14.1', [log4shell])).toMatchObject({ fix_version: '2.15.0', advisories: [{ id: 'GHSA-jfh8-c2jp-5v3q', aliases: ['CVE-2021-44228'], severity: { label: 'critical', score: 10 } }] });
    expect(matchPackage(pkg, '2.0-beta9', [log4shell]).fix_version).toBe('2.3.1');
    expect(matchPackage(pkg, '2.12.1', [log4shell]).fix_version).toBe('2.12.2');
    expect(matchPackage(pkg, '2.17.1', [log4shell]).advisories).toEqual([]);
  });

  it('Django 3.0.5 (fixture PYSEC records): the 3.0 branch was never fixed for PYSEC-2021-98/99, so the fix is 3.1.12', () => {
    const m = matchPackage({ ecosystem: 'PyPI', name: 'django' }, '3.0.5', RECORDS);
    expect(m.advisories.map((a) => [a.id, a.fixed_version])).toEqual([
      ['PYSEC-2020-31', '3.0.7'], ['PYSEC-2020-32', '3.0.7'], ['PYSEC-2020-33', '3.0.10'], ['PYSEC-2020-34', '3.0.10'],
      ['PYSEC-2021-6', '3.0.14'], ['PYSEC-2021-9', '3.0.12'], ['PYSEC-2021-98', '3.1.12'], ['PYSEC-2021-99', '3.1.12'],
    ]);
    expect(m.fix_version).toBe('3.1.12');
  });
});

/** The purls of a CycloneDX SBOM's components (nested ones included), each once, as written. */
function sbomPurls(text: string): string[] {
  const found = new Set<string>();
  const walk = (components: unknown) => {
    for (const c of Array.isArray(components) ? components : []) {
      if (typeof c?.purl === 'string' && c.purl) found.add(c.purl);
      walk(c?.components);
    }
  };
  walk(JSON.parse(text).components);
  return [...found];
}

/**
 * Components no fixture SBOM has, chosen by hand to hit the fixture records of every ecosystem they
 * cover (PyPI, RubyGems, NuGet, Packagist, SwiftURL, more Maven), with near misses beside them.
 */
const HAND_BUILT = [
  'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1', 'pkg:maven/org.apache.logging.log4j/log4j-core@2.12.1',
  'pkg:maven/org.apache.logging.log4j/log4j-core@2.0-beta9', 'pkg:maven/org.apache.logging.log4j/log4j-core@2.17.1',
  'pkg:pypi/Django@3.0.5', 'pkg:pypi/django@3.2.12', 'pkg:pypi/urllib3@2.0.4', 'pkg:pypi/requests@2.30.0', 'pkg:pypi/certifi@2022.9.24',
  'pkg:pypi/aiohttp@3.8.0', 'pkg:pypi/protobuf@3.14.0', 'pkg:pypi/PyJWT@2.3.0',
  'pkg:gem/jquery-rails@4.3.3', 'pkg:gem/google-protobuf@3.19.4', 'pkg:gem/lodash-rails@4.17.20', 'pkg:npm/lodash-rails@4.17.20',
  'pkg:nuget/jQuery@3.4.1', 'pkg:nuget/BouncyCastle@1.8.9', 'pkg:nuget/BouncyCastle.Cryptography@2.2.1', 'pkg:nuget/Google.Protobuf@3.14.0',
  'pkg:composer/athlon1600/youtube-downloader@4.0.0', 'pkg:composer/athlon1600/youtube-downloader@4.0.1', 'pkg:composer/components/jquery@3.4.1',
  'pkg:composer/google/protobuf@v3.14.0', 'pkg:npm/jquery@3.4.1',
  'pkg:swift/github.com/apple/swift-nio-http2@1.27.0', 'pkg:golang/github.com/apple/swift-nio-http2@v1.27.0',
];

/** Records indexed by ecosystem base name and package name (as compared), so each purl meets only its candidates. */
function indexRecords(records: OsvRecord[]): (pkg: PackageKey) => OsvRecord[] {
  const index = new Map<string, OsvRecord[]>();
  const key = (ecosystem: string, name: string) => `${ecosystem.split(':')[0]}\u0000${packageNameKey(ecosystem, name)}`;
  for (const r of records) {
    for (const k of new Set((r.affected ?? []).filter((a) => a.package).map((a) => key(a.package!.ecosystem, a.package!.name)))) {
      index.set(k, [...(index.get(k) ?? []), r]);
    }
  }
  return (pkg) => index.get(key(pkg.ecosystem, pkg.name)) ?? [];
}

/** `purl<TAB>advisory<TAB>fix version or ->` for every advisory affecting one of the purls. */
function triples(purls: string[], candidatesOf: (pkg: PackageKey) => OsvRecord[]): string[] {
  const lines: string[] = [];
  for (const purl of purls) {
    const pkg = packageOf(purl);
    if (!pkg?.version) continue;
    const { advisories, fix_version } = matchPackage(pkg, pkg.version, candidatesOf(pkg));
    for (const a of advisories) lines.push(`${purl}\t${a.id}\t${fix_version ?? '-'}`);
  }
  return lines;
}

describe('every fixture SBOM and the hand-built components against every fixture OSV record', () => {
  const want = expectedTriples.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const candidatesOf = indexRecords(RECORDS);
  const sbomTriples = Object.values(sboms).flatMap((text) => triples(sbomPurls(text), candidatesOf));
  const handTriples = triples(HAND_BUILT, candidatesOf);
  const has = (line: string) => want.includes(line);

  it('loads all 343 records, six of them withdrawn', () => {
    expect(RECORDS.length).toBe(343);
    expect(RECORDS.filter((r) => r.withdrawn).map((r) => r.id).sort()).toEqual(['GO-2026-6166', 'GO-2026-6168', 'GO-2026-6170', 'GO-2026-6171', 'GO-2026-6172', 'PYSEC-2022-43059']);
  });

  it('gives exactly the reviewed (purl, advisory, fix version) triples, sorted, each once', () => {
    expect(want).toEqual([...new Set(want)].sort());
    expect([...new Set([...sbomTriples, ...handTriples])].sort()).toEqual(want);
    // The SBOMs alone: Go, Maven and npm components hit; the Alpine, Pop!_OS (Debian) and PyPI ones meet no record in range.
    expect(sbomTriples.length).toBe(151);
    expect(handTriples.length).toBe(42);
  });

  it('the index is only a speed-up: matching against all records at once gives the same triples', () => {
    expect(triples(HAND_BUILT, () => RECORDS).sort()).toEqual([...handTriples].sort());
  });

  it('spot checks, read off the records by hand', () => {
    // go-retryablehttp 0.6.6: GO-2024-2947 is [0, 0.7.7).
    expect(has('pkg:golang/github.com/hashicorp/go-retryablehttp@v0.6.6?type=module\tGO-2024-2947\t0.7.7')).toBe(true);
    // containerd 1.6.0: fixed branches for most advisories, but GO-2026-5064/-5338/-5622 are open ([0, ∞)) in this module: no fix.
    expect(has('pkg:golang/github.com/containerd/containerd@v1.6.0?type=module\tGO-2022-0344\t-')).toBe(true);
    // semver: GHSA-c2qf-rxjj-qqgw has one range per branch; each installed version gets its own branch's fix.
    expect(['5.7.1\tGHSA-c2qf-rxjj-qqgw\t5.7.2', '6.3.0\tGHSA-c2qf-rxjj-qqgw\t6.3.1', '7.3.8\tGHSA-c2qf-rxjj-qqgw\t7.5.2'].every((t) => has(`pkg:npm/semver@${t}`))).toBe(true);
    // lodash.set 4.3.2 is the last_affected version of GHSA-p6mc-m468-83gw, and nothing fixes it.
    expect(has('pkg:npm/lodash.set@4.3.2\tGHSA-p6mc-m468-83gw\t-')).toBe(true);
    // guava 31.1-jre: both advisories are fixed in 32.0.0-android, which Maven orders before 32.0.0-jre.
    expect(has('pkg:maven/com.google.guava/guava@31.1-jre?type=jar\tGHSA-5mg8-w23w-74h3\t32.0.0-android')).toBe(true);
    // snakeyaml 1.30: seven advisories, the last of them fixed in 2.0.
    expect(want.filter((l) => l.startsWith('pkg:maven/org.yaml/snakeyaml@1.30')).length).toBe(7);
    // urllib3 2.0.4: events written out of order ([2.0.0, 2.0.6) then [0, 1.26.17)); the 2.0 branch's fixes apply.
    expect(has('pkg:pypi/urllib3@2.0.4\tPYSEC-2023-192\t2.0.7') && has('pkg:pypi/urllib3@2.0.4\tPYSEC-2023-212\t2.0.7')).toBe(true);
    // NuGet names are case-insensitive: GHSA-gxr4-xjj5-5px2 names `jquery`, GHSA-jpcq-cgw6-v4j6 `jQuery`.
    expect(has('pkg:nuget/jQuery@3.4.1\tGHSA-gxr4-xjj5-5px2\t3.5.0') && has('pkg:nuget/jQuery@3.4.1\tGHSA-jpcq-cgw6-v4j6\t3.5.0')).toBe(true);
    // Packagist: last_affected 4.0.0 is affected, 4.0.1 is not; a leading `v` is ignored.
    expect(has('pkg:composer/athlon1600/youtube-downloader@4.0.0\tGHSA-gxr4-xjj5-5px2\t-')).toBe(true);
    expect(has('pkg:composer/google/protobuf@v3.14.0\tGHSA-77rm-9x9h-xj3g\t3.15.0')).toBe(true);
  });

  it('negative cases: the same package at a version outside every range, or the same name in another ecosystem, matches nothing', () => {
    const absent = (purl: string, id: string) => !want.some((l) => l.startsWith(`${purl}\t${id}\t`));
    // Each pair names a record that does name the package (so the miss is about the version or the ecosystem).
    const outside: [string, string][] = [
      ['pkg:npm/lodash@4.17.21', 'GHSA-35jh-r3h4-6jhm'], // fixed 4.17.21, the installed version
      ['pkg:npm/lodash@2.4.2', 'GHSA-29mw-wpgm-hmr9'], // [4.0.0, 4.17.21): introduced after 2.4.2
      ['pkg:npm/ws@7.4.6', 'GHSA-2mhh-w6q8-5hxw'], // [0, 1.0.1)
      ['pkg:npm/minimatch@3.1.2', 'GHSA-f8q6-p94x-37v3'],
      ['pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.13.2.2?type=jar', 'GHSA-57j2-w4cx-62h2'], // fixed in 2.13.2.1
      ['pkg:maven/org.yaml/snakeyaml@1.30?type=jar', 'GHSA-rvwf-54qp-4r6v'], // [0, 1.26)
      ['pkg:maven/ch.qos.logback/logback-core@1.2.11?type=jar', 'GHSA-668q-qrv7-99fm'], // [0, 1.2.9)
      ['pkg:pypi/certifi@2025.1.31', 'PYSEC-2023-135'],
      ['pkg:pypi/aiohttp@3.11.12', 'PYSEC-2022-43059'], // withdrawn, although its range is [0, ∞)
      ['pkg:pypi/aiohttp@3.8.0', 'PYSEC-2022-43059'],
      ['pkg:maven/org.apache.logging.log4j/log4j-core@2.17.1', 'GHSA-jfh8-c2jp-5v3q'],
      ['pkg:nuget/BouncyCastle@1.8.9', 'GHSA-6xx3-rg99-gc3p'], // [0, 1.8.7)
      ['pkg:composer/athlon1600/youtube-downloader@4.0.1', 'GHSA-gxr4-xjj5-5px2'], // after last_affected
    ];
    for (const [purl, id] of outside) {
      const pkg = packageOf(purl)!;
      expect(byId(id).affected!.some((a) => namesPackage(a, pkg)), `${id} names ${purl}`).toBe(true);
      expect(absent(purl, id), `${purl} ${id}`).toBe(true);
    }
    // Same name, other ecosystem: lodash-rails is a gem, swift-nio-http2 a Swift package, jquery on npm is not the NuGet one.
    expect(absent('pkg:npm/lodash-rails@4.17.20', 'GHSA-35jh-r3h4-6jhm')).toBe(true);
    expect(has('pkg:gem/lodash-rails@4.17.20\tGHSA-35jh-r3h4-6jhm\t4.17.21')).toBe(true);
    expect(absent('pkg:golang/github.com/apple/swift-nio-http2@v1.27.0', 'GHSA-qppj-fm5r-hxr3')).toBe(true);
    expect(has('pkg:swift/github.com/apple/swift-nio-http2@1.27.0\tGHSA-qppj-fm5r-hxr3\t1.28.0')).toBe(true);
    expect(isAffected(byId('GHSA-2pqj-h3vj-pqgw'), { ecosystem: 'PyPI', name: 'jquery' }, '1.8.0')).toBe(false);
    expect(isAffected(byId('GHSA-2pqj-h3vj-pqgw'), { ecosystem: 'NuGet', name: 'jquery' }, '1.8.0')).toBe(true);
  });
});
