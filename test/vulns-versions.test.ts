// Version ordering per ecosystem (issue 8): every comparison of OSV-SCALIBR's vectors
// (test/fixtures/versions, sources in its SOURCES.md), both ways round, as upstream checks them.
import { describe, expect, it } from 'vitest';
import { compareVersions } from '../src/analysis/vulns/versions/index';

const files = import.meta.glob('./fixtures/versions/*.txt', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/** Which ecosystem each file is tested with upstream (SOURCES.md). */
const ECOSYSTEM: Record<string, string> = {
  'semver-versions': 'npm', 'pub-versions': 'Pub', 'maven-versions': 'Maven', 'maven-versions-generated': 'Maven',
  'pypi-versions': 'PyPI', 'pypi-versions-generated': 'PyPI', 'nuget-versions': 'NuGet', 'rubygems-versions': 'RubyGems',
  'rubygems-versions-generated': 'RubyGems', 'packagist-versions': 'Packagist', 'packagist-versions-generated': 'Packagist',
  'debian-versions': 'Debian', 'debian-versions-generated': 'Debian', 'alpine-versions': 'Alpine', 'alpine-versions-generated': 'Alpine',
  'redhat-versions': 'Red Hat', 'cran-versions': 'CRAN', 'cran-versions-generated': 'CRAN', 'hackage-versions': 'Hackage',
};

/**
 * The lines not yet ordered as upstream orders them, each with why; the test fails if any other line
 * fails, and also if one of these starts passing (so the list only shrinks).
 */
const KNOWN_GAPS: Record<string, string> = {
  '1-1 = 1-ga-1': 'Maven 3.9 drops a release qualifier before a sub-list; our ComparableVersion keeps the older normalisation',
  '1.2.3.#.1 > 1.2.3': 'PHP version_compare turns "#" into a separator and compares against "#N#"; not reproduced',
  '1.2.3.#.p3 > 1.2.3': 'as above',
  '1.2.3.#.beta < 1.2.3': 'as above',
  '1-r-0 < 1-r0': 'an invalid apk version (apk orders the invalid part below a release suffix)',
  '1-r-1 < 1-r0': 'as above',
  '0..1..0 < 0..1..1': 'empty apk version components (invalid versions ordered as text upstream)',
  '0...1...0 < 0...1...1': 'as above',
  '0...1...0.r1 < 0...1...0.r2': 'as above',
  '0...1...0r1 < 0...1...0r2': 'as above',
  '0..8 > 0...8': 'as above',
  '0.8.21.r2 > 0.8.21.r1': 'a dotted letter suffix apk treats as invalid and orders as text',
  '1 > 1-ruff': 'an invalid release suffix (apk orders it below the bare version)',
  '.2 > .1': 'a version with no leading number (invalid; ordered as text upstream)',
};

function comparisons(text: string): { line: string; a: string; op: string; b: string }[] {
  return text.split('\n').filter((l) => l.trim() && !l.startsWith('#') && !l.startsWith('//')).map((line) => {
    const [a, op, b] = line.split(' ');
    return { line, a: a!, op: op!, b: b! };
  });
}

describe('version ordering: OSV-SCALIBR vectors, both directions', () => {
  let total = 0;
  const failedKnown: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    const file = path.split('/').pop()!.replace(/\.txt$/, '');
    const ecosystem = ECOSYSTEM[file]!;
    it(`${file} (${ecosystem})`, () => {
      const unexpected: string[] = [];
      for (const { line, a, op, b } of comparisons(text)) {
        total++;
        const want = op === '<' ? -1 : op === '>' ? 1 : 0;
        const ok = Math.sign(compareVersions(ecosystem, a, b)) === want && Math.sign(compareVersions(ecosystem, b, a)) === -want;
        if (ok && KNOWN_GAPS[line]) unexpected.push(`now passes, remove from KNOWN_GAPS: ${line}`);
        if (!ok && KNOWN_GAPS[line]) failedKnown.push(line);
        if (!ok && !KNOWN_GAPS[line]) unexpected.push(line);
      }
      expect(unexpected).toEqual([]);
    });
  }
  it('covers all 71,818 comparisons, with at most the listed gaps', () => {
    expect(total).toBe(71_818);
    expect(failedKnown.length).toBeLessThanOrEqual(Object.keys(KNOWN_GAPS).length);
  });
});
