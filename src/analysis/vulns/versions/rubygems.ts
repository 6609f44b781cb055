// RubyGems: Gem::Version#<=> (rubygems/version.rb), written out here. @renovatebot/ruby-semver is not
// among the installed dependencies, and this comparison is short; numbers stay exact past 2^53.
import { compareDigits, compareStrings, isDigits } from './digits';

/** Gem::Version's canonical_segments: `-` read as `.pre.`, numbers and letter runs, trailing zeros dropped from the release and from the pre-release part. */
function canonicalSegments(version: string): string[] {
  const segments = version.trim().replace(/-/g, '.pre.').match(/[0-9]+|[a-z]+/gi) ?? [];
  const firstText = segments.findIndex((s) => !isDigits(s));
  const parts = firstText < 0 ? [segments] : [segments.slice(0, firstText), segments.slice(firstText)];
  return parts.flatMap((part) => {
    const kept = [...part];
    while (kept.length && /^0+$/.test(kept.at(-1)!)) kept.pop();
    return kept;
  });
}

/** RubyGems version ordering: segment by segment, a missing one read as 0, a letter segment (pre-release) before any number. */
export function compareRubyGems(a: string, b: string): number {
  const sa = canonicalSegments(a);
  const sb = canonicalSegments(b);
  for (let i = 0; i < Math.max(sa.length, sb.length); i++) {
    const x = sa[i] ?? '0';
    const y = sb[i] ?? '0';
    const nx = isDigits(x);
    const ny = isDigits(y);
    if (nx !== ny) return nx ? 1 : -1;
    const d = nx ? compareDigits(x, y) : compareStrings(x, y);
    if (d !== 0) return d;
  }
  return 0;
}
