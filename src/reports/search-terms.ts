// What a report entry can be found by (spec 4.10 rule 6, part 8): every name a person would type for
// it. The normalised name (`SHA-1`) and the name its source gave (`SHA1`, `EC-secp521r1`,
// `AES128-GCM`, `desede-168-cbc-pkcs5`, kept in `seen`), the common aliases of what it names
// (`secp384r1` = `P-384`, `3DES` = `DESede` = `TDEA`, `SHA2-256` = `SHA-256`), its bom-ref and key,
// and for components the package URL and the advisory ids and aliases. Stored beside the entry as
// one case-folded text (`report_entries.terms`), searched with `instr`, so search never loads entries.
import { curveNames, curveOf } from '../analysis/crypto/registry';
import type { JsonObject } from '../lib/json';

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Case folding for every script: compatibility forms unified (NFKC), then upper- and lower-cased,
 * which folds what lower-casing alone does not (`ß` and `SS`, `ς` and `Σ`).
 */
export const foldCase = (text: string): string =>
  // ASCII folds by lower-casing alone (and NFKC leaves it as it is): most names are ASCII.
  ASCII.test(text) ? text.toLowerCase() : text.normalize('NFKC').toUpperCase().toLowerCase();

/** A folded name without its separators: `sha-256` and `sha256`, `aes128-gcm` and `aes-128-gcm` meet. */
export const compactName = (folded: string): string => folded.replace(/[\s\-_./:,;()[\]"']+/g, '');

/** Fields of an entry's data that hold a name of it (as written, and without separators). */
const NAME_FIELDS = ['name', 'key', 'purl', 'bom_ref', 'bom-ref', 'bomRef', 'seen', 'advisory_id', 'component_key', 'item_key', 'oid', 'algorithm', 'curve', 'parameterSetIdentifier'];
/** Fields holding lists of names. */
const NAME_LISTS = ['aliases'];
/** Objects nested in entries whose names count too (a crypto finding's library, a CBOM component's crypto properties). */
const NESTED = ['provided_by', 'cryptoProperties', 'algorithmProperties', 'relatedCryptoMaterialProperties'];

/**
 * Names that mean the same algorithm: SP 800-67's TDEA and its spellings, and the FIPS 203/204/205
 * schemes by their round-3 names. Curves come from the registry's own aliases.
 */
const SYNONYMS: readonly (readonly string[])[] = [
  ['3DES', 'DESede', 'TDEA', 'TDES', 'Triple-DES', 'TripleDES', 'DES-EDE3', 'DES-EDE'],
  ['ML-KEM', 'Kyber', 'CRYSTALS-Kyber'],
  ['ML-DSA', 'Dilithium', 'CRYSTALS-Dilithium'],
  ['SLH-DSA', 'SPHINCS+'],
];
const SYNONYM_COMPACT = SYNONYMS.map((group) => group.map((name) => compactName(foldCase(name))));

/** Fields naming an algorithm or curve, whose aliases count too (bom-refs, keys and package URLs have none). */
const ALIASED_FIELDS = new Set(['name', 'seen', 'algorithm', 'curve', 'parameterSetIdentifier']);

/** Every registry curve name holds digits (P-256, secp256r1, x25519, sm2p256v1, FRP256v1): a word without one is none. */
const DIGIT = /\d/;

/** Names of what a text mentions that it does not spell out: another curve name, a SHA-2 spelling, a synonym. */
function aliasesOf(text: string): string[] {
  const found: string[] = [];
  const folded = foldCase(text);
  const compact = compactName(folded);
  SYNONYM_COMPACT.forEach((group, i) => {
    if (group.some((name) => compact.includes(name))) found.push(...SYNONYMS[i]!);
  });
  // SHA-256 is also written SHA2-256, SHA-2-256 and SHA256; SHA3 names are spelled out already.
  if (folded.includes('sha')) for (const m of folded.matchAll(/sha(?:2)?[-_ ]?(224|256|384|512(?:\/2(?:24|56))?)/g)) found.push(`SHA-${m[1]}`, `SHA2-${m[1]}`);
  if (!DIGIT.test(text)) return found;
  for (const token of text.split(/[\s,;()/"]+/)) {
    if (!DIGIT.test(token)) continue;
    const parts = token.split(/[-_]/);
    const candidates = [token, ...parts, ...parts.slice(1).map((part, i) => `${parts[i]}-${part}`)];
    for (const candidate of candidates) {
      const curve = candidate.length >= 4 && DIGIT.test(candidate) ? curveOf(candidate) : undefined;
      if (curve?.inRegistry) found.push(...curveNames(curve.registry));
    }
  }
  return found;
}

// Reports repeat a few hundred algorithm names over thousands of entries: each is expanded once.
const aliasMemo = new Map<string, string[]>();
const ALIAS_MEMO_SIZE = 5_000;

function memoAliases(text: string): string[] {
  let found = aliasMemo.get(text);
  if (!found) {
    if (aliasMemo.size >= ALIAS_MEMO_SIZE) aliasMemo.clear();
    found = aliasesOf(text);
    aliasMemo.set(text, found);
  }
  return found;
}

/** Collects the entry's names: `names` every one, `aliased` those naming an algorithm or curve. */
function collect(data: JsonObject, names: string[], aliased: string[], depth = 0): void {
  for (const field of NAME_FIELDS) {
    const value = data[field];
    if (typeof value !== 'string' || !value) continue;
    names.push(value);
    if (ALIASED_FIELDS.has(field)) aliased.push(value);
  }
  for (const field of NAME_LISTS) {
    const value = data[field];
    if (Array.isArray(value)) for (const item of value) if (typeof item === 'string' && item) names.push(item);
  }
  if (depth >= 2) return;
  for (const field of NESTED) {
    const value = data[field];
    if (value && typeof value === 'object' && !Array.isArray(value)) collect(value as JsonObject, names, aliased, depth + 1);
  }
}

/** The entry as the fields a report row has: its columns and its data. */
export interface SearchableEntry {
  key: string;
  name: string;
  purl: string | null;
  explanation: string | null;
  data: JsonObject;
}

/**
 * The entry's search text: one line per name (folded), the same without separators, each alias, and
 * the explanation (folded). Lines are separated by a newline, which no query holds.
 */
export function searchTerms(entry: SearchableEntry): string {
  const names = [entry.name, entry.key, ...(entry.purl ? [entry.purl] : [])];
  const aliased = [entry.name];
  collect(entry.data, names, aliased);
  const lines = new Set<string>();
  const fold = (text: string) => foldCase(text.replace(/\n/g, ' '));
  for (const name of new Set(names)) lines.add(fold(name));
  // Algorithm and curve names are also kept without separators, with their aliases: `SHA1` finds `SHA-1`.
  const named = [...new Set(aliased)];
  for (const name of new Set([...named, ...named.flatMap(memoAliases)])) {
    const folded = fold(name);
    lines.add(folded);
    lines.add(compactName(folded));
  }
  if (entry.explanation) lines.add(fold(entry.explanation));
  lines.delete('');
  return [...lines].join('\n');
}

/**
 * The two forms a query is looked for in: folded, and for a name written with separators (`SHA-256`,
 * `AES128-GCM`) also without them. A query with no letter (`2.0`) is looked for as written: without
 * its dots it would match any number holding its digits.
 */
export function searchForms(query: string): { folded: string; compact: string } {
  const folded = foldCase(query.replace(/\n/g, ' '));
  const compact = compactName(folded);
  return { folded, compact: compact !== folded && /\p{L}/u.test(folded) ? compact : '' };
}
