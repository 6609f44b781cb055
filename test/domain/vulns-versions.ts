// Version ordering per ecosystem (issue 8): every comparison of OSV-SCALIBR's vectors
// (test/fixtures/versions, copied from shared/fixtures/versions; sources and licence in its SOURCES.md),
// both ways round, as upstream checks them. All 71,818 comparisons pass; no line is excluded.
import { describe, expect, it } from 'vitest';
import { compareVersions, isOrderedEcosystem } from '../../src/analysis/vulns/versions/index';
import { comparePep440Exact, comparePyPI } from '../../src/analysis/vulns/versions/pypi';
import { compareSemver, compareSemverLoose } from '../../src/analysis/vulns/versions/semver';
import semverParse from 'semver/functions/parse.js';
import alpine from '../fixtures/versions/alpine-versions.txt?raw';
import alpineGenerated from '../fixtures/versions/alpine-versions-generated.txt?raw';
import cran from '../fixtures/versions/cran-versions.txt?raw';
import cranGenerated from '../fixtures/versions/cran-versions-generated.txt?raw';
import debian from '../fixtures/versions/debian-versions.txt?raw';
import debianGenerated from '../fixtures/versions/debian-versions-generated.txt?raw';
import hackage from '../fixtures/versions/hackage-versions.txt?raw';
import maven from '../fixtures/versions/maven-versions.txt?raw';
import mavenGenerated from '../fixtures/versions/maven-versions-generated.txt?raw';
import nuget from '../fixtures/versions/nuget-versions.txt?raw';
import packagist from '../fixtures/versions/packagist-versions.txt?raw';
import packagistGenerated from '../fixtures/versions/packagist-versions-generated.txt?raw';
import pub from '../fixtures/versions/pub-versions.txt?raw';
import pypi from '../fixtures/versions/pypi-versions.txt?raw';
import pypiGenerated from '../fixtures/versions/pypi-versions-generated.txt?raw';
import redhat from '../fixtures/versions/redhat-versions.txt?raw';
import rubygems from '../fixtures/versions/rubygems-versions.txt?raw';
import rubygemsGenerated from '../fixtures/versions/rubygems-versions-generated.txt?raw';
import semver from '../fixtures/versions/semver-versions.txt?raw';

interface Comparison { line: string; a: string; op: string; b: string }

/** The comparisons of a vector file: blank lines and `#`/`//` comments skipped, `LEFT OP RIGHT` split on single spaces. */
function comparisons(text: string): Comparison[] {
  return text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#') && !l.startsWith('//')).map((line) => {
    const [a, op, b, extra] = line.split(' ');
    if (!a || !b || !['<', '=', '>'].includes(op!) || extra !== undefined) throw new Error(`Not a comparison: ${line}`);
    return { line, a, op: op!, b };
  });
}

const want = (op: string) => (op === '<' ? -1 : op === '>' ? 1 : 0);

/** The lines the ecosystem's order gets wrong in either direction (compare(a, b) must give OP, compare(b, a) its opposite). */
function failures(ecosystem: string, list: Comparison[]): string[] {
  return list.filter(({ a, op, b }) => compareVersions(ecosystem, a, b) !== want(op) || compareVersions(ecosystem, b, a) !== -want(op)).map((c) => c.line);
}

/** Each file, the ecosystems upstream tests it with (SOURCES.md), and its comparison count there. */
const FILES: { file: string; text: string; ecosystems: string[]; count: number }[] = [
  { file: 'semver-versions.txt', text: semver, ecosystems: ['npm', 'Go', 'crates.io', 'Hex'], count: 86 },
  { file: 'pub-versions.txt', text: pub, ecosystems: ['Pub'], count: 100 },
  { file: 'maven-versions.txt', text: maven, ecosystems: ['Maven'], count: 102 },
  { file: 'maven-versions-generated.txt', text: mavenGenerated, ecosystems: ['Maven'], count: 14_752 },
  { file: 'pypi-versions.txt', text: pypi, ecosystems: ['PyPI'], count: 37 },
  { file: 'pypi-versions-generated.txt', text: pypiGenerated, ecosystems: ['PyPI'], count: 12_375 },
  { file: 'nuget-versions.txt', text: nuget, ecosystems: ['NuGet'], count: 35 },
  { file: 'rubygems-versions.txt', text: rubygems, ecosystems: ['RubyGems'], count: 25 },
  { file: 'rubygems-versions-generated.txt', text: rubygemsGenerated, ecosystems: ['RubyGems'], count: 4_098 },
  { file: 'packagist-versions.txt', text: packagist, ecosystems: ['Packagist'], count: 95 },
  { file: 'packagist-versions-generated.txt', text: packagistGenerated, ecosystems: ['Packagist'], count: 10_630 },
  { file: 'debian-versions.txt', text: debian, ecosystems: ['Debian'], count: 30 },
  { file: 'debian-versions-generated.txt', text: debianGenerated, ecosystems: ['Debian'], count: 14_442 },
  { file: 'alpine-versions.txt', text: alpine, ecosystems: ['Alpine'], count: 778 },
  { file: 'alpine-versions-generated.txt', text: alpineGenerated, ecosystems: ['Alpine'], count: 13_979 },
  { file: 'redhat-versions.txt', text: redhat, ecosystems: ['Red Hat'], count: 165 },
  { file: 'cran-versions.txt', text: cran, ecosystems: ['CRAN'], count: 21 },
  { file: 'cran-versions-generated.txt', text: cranGenerated, ecosystems: ['CRAN'], count: 57 },
  { file: 'hackage-versions.txt', text: hackage, ecosystems: ['Hackage'], count: 11 },
];

describe('version ordering: OSV-SCALIBR vectors, every line in both directions', () => {
  for (const { file, text, ecosystems, count } of FILES) {
    for (const ecosystem of ecosystems) {
      it(`${file} as ${ecosystem}: ${count} comparisons`, () => {
        const list = comparisons(text);
        expect(list.length).toBe(count);
        expect(failures(ecosystem, list)).toEqual([]);
      });
    }
  }

  it('the files hold 71,818 comparisons in all, as SOURCES.md counts them', () => {
    expect(FILES.reduce((n, f) => n + comparisons(f.text).length, 0)).toBe(71_818);
  });
});

describe('the same orders under every spelling OSV gives the ecosystem', () => {
  it.each([
    ['Debian:12', debian], ['Debian:sid', debian], ['Ubuntu:22.04:LTS', debian], ['Ubuntu:Pro:18.04:LTS', debian], ['Ubuntu:23.10', debian],
    ['Alpine:v3.16', alpine], ['Wolfi', alpine], ['Chainguard', alpine], ['MinimOS', alpine],
    ['Red Hat:rhel_aus:8.4::appstream', redhat], ['AlmaLinux:9', redhat], ['Rocky Linux', redhat], ['Rocky Linux:8', redhat],
    ['openSUSE', redhat], ['SUSE:SUSE Linux Enterprise Server 15 SP5', redhat], ['Mageia:9', redhat], ['openEuler:22.03-LTS', redhat],
  ])('%s', (ecosystem, text) => {
    expect(failures(ecosystem, comparisons(text))).toEqual([]);
  });

  it('knows which ecosystems it can order', () => {
    for (const e of ['npm', 'Go', 'crates.io', 'Hex', 'Pub', 'NuGet', 'Maven', 'PyPI', 'RubyGems', 'Packagist', 'CRAN', 'Hackage', 'SwiftURL', 'Debian:11', 'Alpine:v3.22', 'Red Hat']) {
      expect(isOrderedEcosystem(e)).toBe(true);
    }
    for (const e of ['GIT', 'Linux', 'Android', 'OSS-Fuzz', '', 'debian']) expect(isOrderedEcosystem(e)).toBe(false);
    expect(() => compareVersions('Linux', '1', '2')).toThrow(/No version ordering/);
  });
});

describe('where the lenient readings meet the strict libraries', () => {
  it('SemVer: the `semver` package and the lenient (OSV) reading agree on every strict line; three lines only the lenient one reads', () => {
    let strict = 0;
    const lenientOnly: string[] = [];
    for (const { line, a, b } of comparisons(semver)) {
      // Numbers past 2^53 are not read exactly by `semver`, so such lines count as not strict.
      if (semverParse(a) && semverParse(b) && !/\d{16}/.test(line)) {
        strict++;
        expect(Math.sign(compareSemverLoose(a, b)), line).toBe(compareSemver(a, b));
      } else lenientOnly.push(line);
    }
    expect(strict).toBe(83);
    // SOURCES.md: a 30-digit component, three 30-digit components, and five numeric components.
    expect(lenientOnly).toEqual([
      '999999999999999999999999999991 < 999999999999999999999999999999',
      '999999999999999999999999999991.999999999999999999999999999991.999999999999999999999999999991 < 999999999999999999999999999999.999999999999999999999999999991.999999999999999999999999999991',
      '1.1.3.4.5 = 1.1.3.4.5',
    ]);
  });

  it('PyPI: 80 lines use legacy (pre-PEP 440) versions, which sort before every valid one; on the other 12,332 the exact key agrees with @renovatebot/pep440', () => {
    const pep440 = /^\s*v?(?:(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*([-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?(-[0-9]+|[-_.]?(post|rev|r)[-_.]?[0-9]*)?([-_.]?dev[-_.]?[0-9]*)?)(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?\s*$/i;
    let legacy = 0;
    let valid = 0;
    for (const { line, a, op, b } of [...comparisons(pypi), ...comparisons(pypiGenerated)]) {
      if (!pep440.test(a) || !pep440.test(b)) {
        legacy++;
        continue;
      }
      valid++;
      expect(comparePep440Exact(a, b), line).toBe(want(op));
    }
    expect([legacy, valid]).toEqual([80, 12_332]);
    expect(comparePyPI('0.1-bulbasaur', '0.0.1')).toBe(-1);
    expect(comparePyPI('2013-01-21T20:33:09+0100', '0.0.0.dev0')).toBe(-1);
    // Numbers past 2^53 stay exact (the library reads them as doubles, which would call these equal).
    expect(comparePyPI('1.9007199254740993', '1.9007199254740992')).toBe(1);
  });

  it('numbers far past 2^53 stay exact in every ecosystem', () => {
    const [small, big] = ['90071992547409920', '90071992547409921'];
    for (const e of ['npm', 'Pub', 'NuGet', 'Maven', 'PyPI', 'RubyGems', 'Packagist', 'Debian', 'Alpine', 'Red Hat', 'CRAN', 'Hackage']) {
      expect(compareVersions(e, `1.${small}`, `1.${big}`), e).toBe(-1);
    }
  });
});
