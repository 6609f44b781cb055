// Version ranges as VERS (package-url's version range specifier, the form CycloneDX VEX's
// `affects[].versions[].range` uses): `vers:<scheme>/<constraint>|<constraint>...`, each constraint a
// comparator and a version, or `*` for every version. No maintained JavaScript library parses it, and the
// grammar is a few lines; versions are ordered by the package's own ecosystem (src/analysis/vulns/versions).
import { comparatorOf } from '../analysis/vulns/versions';
import { compareSemver } from '../analysis/vulns/versions/semver';

type Comparator = '<' | '<=' | '>' | '>=' | '=' | '!=';
export interface VersConstraint { comparator: Comparator; version: string }
export interface Vers { scheme: string; all: boolean; constraints: VersConstraint[] }

const COMPARATORS: Comparator[] = ['<=', '>=', '!=', '<', '>', '='];

/** The range, or a sentence saying what is wrong with it (for a 400). */
export function parseVers(text: string): Vers | string {
  const match = /^vers:([a-z0-9.+-]+)\/(.+)$/i.exec(text.trim());
  if (!match) return 'a version range is written vers:<scheme>/<constraints>, for example vers:npm/>=1.0.0|<1.4.2';
  const [, scheme, body] = match as unknown as [string, string, string];
  if (body.trim() === '*') return { scheme: scheme.toLowerCase(), all: true, constraints: [] };
  const constraints: VersConstraint[] = [];
  for (const part of body.split('|')) {
    const piece = part.trim();
    const comparator = COMPARATORS.find((c) => piece.startsWith(c)) ?? '=';
    const version = decodeURIComponent(piece.slice(comparator === '=' && !piece.startsWith('=') ? 0 : comparator.length).trim());
    if (!version || version === '*') return `the version range ${text} has an empty or misplaced constraint`;
    constraints.push({ comparator, version });
  }
  return { scheme: scheme.toLowerCase(), all: false, constraints };
}

/**
 * Whether `version` lies in the range, as VERS reads it: equal to an `=` constraint, or between a
 * lower and the next upper bound (constraints sorted by version; `!=` excludes one version).
 */
export function versContains(range: Vers, version: string, ecosystem: string | null): boolean {
  if (range.all) return true;
  const compare = (ecosystem ? comparatorOf(ecosystem) : undefined) ?? compareSemver;
  const cmp = (a: string, b: string) => Math.sign(compare(a, b));
  if (range.constraints.some((c) => c.comparator === '!=' && cmp(version, c.version) === 0)) return false;
  const bounds = range.constraints.filter((c) => c.comparator !== '!=').sort((a, b) => cmp(a.version, b.version));
  if (bounds.some((c) => c.comparator === '=' && cmp(version, c.version) === 0)) return true;
  // Each lower bound opens an interval that the next upper bound (or nothing) closes.
  let open: VersConstraint | null = null;
  for (const c of bounds) {
    if (c.comparator === '>' || c.comparator === '>=') {
      open ??= c;
      continue;
    }
    if (c.comparator === '<' || c.comparator === '<=') {
      const above = open === null || cmp(version, open.version) > 0 || (open.comparator === '>=' && cmp(version, open.version) === 0);
      const below = cmp(version, c.version) < 0 || (c.comparator === '<=' && cmp(version, c.version) === 0);
      if (above && below) return true;
      open = null;
    }
  }
  return open !== null && (cmp(version, open.version) > 0 || (open.comparator === '>=' && cmp(version, open.version) === 0));
}
