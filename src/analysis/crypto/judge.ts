// Judging one algorithm against the table, and combining the judgements of an asset's parts (a
// certificate's signature and key, a protocol's suites): the worst part decides, the earliest date
// applies. Shared by the asset classifiers (classify.ts, certificate.ts, material.ts).
import type { CryptoAsset } from '../types';
import { normalizeAlgorithm, type AlgorithmInput } from './normalize';
import { pbeParts, suiteParts } from './suites';
import { notCnsa, rowFor, type CryptoSection } from './table';

export type { CryptoSection } from './table';

export interface CryptoEntry {
  /** Stable identity of the finding within a subject: the bom-ref, else asset type and normalised name. */
  key: string;
  section: CryptoSection;
  /** Normalised, e.g. `RSA-2048`, `ECDSA-P256-SHA256`, `AES-256-GCM`, `TLS 1.2`; a certificate's own name. */
  name: string;
  /** algorithm | certificate | protocol | related-crypto-material | observation */
  assetType: string;
  primitive: string | null;
  /** CycloneDX registry family (or one the classifier adds), e.g. `RSA`, `AES`, `ML-KEM`. */
  family: string | null;
  /**
   * The normalised algorithm that decided the verdict (`RSA-2048`, `SHA-1`, `X25519`): what a
   * document groups entries by. A key's or certificate's is its deciding part's; null when unknown.
   */
  algorithm: string | null;
  /** Classical security strength in bits, when known (the weakest part for certificates and protocols). */
  securityBits: number | null;
  deadline: string | null;
  replacement: string | null;
  explanation: string;
  cnsa2: { approved: boolean; deadline: string | null; note: string };
  quantumVulnerable: boolean;
  /** What the BOM said (names, OIDs, parameters), for unclassified entries and reviewers. */
  seen: string;
  /** For certificates, protocols, keys and observations: each part and its section, e.g. `signature: RSA-2048-SHA256 (red)`. */
  reasons: string[];
  /** The table row that decided (null when unclassified). */
  rule: string | null;
  /** That row's citation. */
  source: string | null;
  /** Certificates: a self-signed root, judged by its public key (its own signature is never checked). */
  trustAnchor?: boolean;
  /** Composites: the part that decided (`signature`, `key`, `cipher suite X (mac)`, `trust anchor key`). */
  decidedBy?: string;
  /**
   * Composites: the explanation without the entry's own name, which every entry decided the same way
   * shares (documents say it once per group). A single algorithm's explanation is already that.
   */
  verdict?: string;
}

export type Judgement = Omit<CryptoEntry, 'key' | 'assetType'>;
export interface Part { label: string; judged: Judgement }

export const SECTION_ORDER: readonly CryptoSection[] = ['red', 'unclassified', 'yellow', 'transition', 'green'];
/** The worse of two sections: red, then unclassified (an unknown part may be bad), yellow, transition, green. */
export const worse = (a: CryptoSection, b: CryptoSection): CryptoSection => (SECTION_ORDER.indexOf(a) <= SECTION_ORDER.indexOf(b) ? a : b);

const UNKNOWN_CNSA = { approved: false, deadline: null, note: 'Not judged: the algorithm is not known.' };

/** A part the asset names by a reference the BOM lacks. */
export const missing = (what: string, ref: string): Part => ({ label: what, judged: unknown(ref, ref, `The ${what} ${ref} is not in the BOM.`) });

export function unknown(name: string, seen: string, explanation: string, family: string | null = null, primitive: string | null = null): Judgement {
  return {
    section: 'unclassified', name, primitive, family, algorithm: null, securityBits: null, deadline: null, replacement: null, explanation, cnsa2: UNKNOWN_CNSA,
    quantumVulnerable: false, seen, reasons: [], rule: null, source: null,
  };
}

const seenOf = (i: AlgorithmInput) => [i.name, i.oid && `oid ${i.oid}`, i.family && `family ${i.family}`, i.parameterSetIdentifier && `parameters ${i.parameterSetIdentifier}`,
  i.curve && `curve ${i.curve}`, i.mode && `mode ${i.mode}`, i.padding && `padding ${i.padding}`, i.keyBits && `${i.keyBits} bits`].filter(Boolean).join(', ');

/** An OpenSSL cipher suite name given as an algorithm ("ECDHE-RSA-AES128-GCM-SHA256"). */
const OPENSSL_SUITE = /^(ECDHE|DHE|EDH|ECDH|DH|AECDH|ADH|PSK|SRP|RSA)-[A-Z0-9-]+-(SHA\d*|MD5|POLY1305)$/i;
/** Families built on a hash that the name may leave out ("HMAC", "ConcatenationKDF", "MGF1"). */
export const HASHED_FAMILIES = ['HMAC', 'HKDF', 'PBKDF2', 'SP800-108', 'SP800-56C', 'ANSI-KDF', 'TLS-PRF', 'SSH-KDF', 'IKE-PRF', 'MGF1'];

/** Judges one algorithm description (a name with whatever else the BOM said); compound names by their parts. */
export function judge(input: AlgorithmInput): Judgement {
  const seen = seenOf(input);
  const name = input.name.trim();
  const suite = /^(TLS|SSL)_/i.test(name) || OPENSSL_SUITE.test(name) ? suiteParts(name)?.parts : undefined;
  const compound = suite ?? pbeParts(name);
  if (compound) return combine(name, seen, compound.map((p) => ({ label: p.role, judged: judge({ name: p.name }) })));
  const a = normalizeAlgorithm(input);
  if (!a) return unknown(name, seen, `"${name}" is not an algorithm the classification table knows (seen: ${seen}); review it by hand.`);
  const row = rowFor(a);
  if (!row) {
    const why = a.hash === undefined && [...HASHED_FAMILIES, 'CMAC'].includes(a.family) ? ': the hash or cipher it is built on is not stated' : '';
    return unknown(a.name, seen, `${a.name} is recognised (${a.family}) but no row of the classification table covers it${why} (seen: ${seen}); review it by hand.`, a.family, a.primitive);
  }
  return {
    section: row.section, name: a.name, primitive: a.primitive, family: a.family, algorithm: a.name, securityBits: a.securityBits, deadline: row.deadline,
    replacement: typeof row.replacement === 'function' ? row.replacement(a) : row.replacement, explanation: row.explain(a),
    cnsa2: row.cnsa2?.(a) ?? notCnsa('Not a CNSA 2.0 algorithm.'), quantumVulnerable: row.quantumVulnerable, seen, reasons: [], rule: row.id, source: row.source,
  };
}

/** Reasons kept per entry: a protocol listing thousands of suites must not make an entry too large to store. */
const MAX_REASONS = 50;
const listed = (reasons: string[]) => (reasons.length <= MAX_REASONS ? reasons : [...reasons.slice(0, MAX_REASONS), `and ${reasons.length - MAX_REASONS} more parts`]);

/**
 * The worst part decides (the most urgent of them); the earliest date of any part applies; CNSA 2.0
 * approves only when every part is approved.
 */
export function combine(name: string, seen: string, parts: Part[], ifEmpty?: string): Judgement {
  if (!parts.length) return unknown(name, seen, ifEmpty ?? `${name}: nothing it uses is stated (seen: ${seen}).`);
  const section = parts.reduce<CryptoSection>((s, p) => worse(s, p.judged.section), 'green');
  // Among the worst parts, the most urgent decides: for red, a part without a date is disallowed already.
  const urgency = (p: Part) => p.judged.deadline ?? (section === 'red' ? '0000' : '9999');
  const better = (p: Part, best: Part) => urgency(p) < urgency(best) || (urgency(p) === urgency(best) && best.judged.securityBits === null && p.judged.securityBits !== null);
  const decider = parts.filter((p) => p.judged.section === section).reduce((best, p) => (better(p, best) ? p : best));
  const d = decider.judged;
  const dates = parts.map((p) => p.judged.deadline).filter((x): x is string => x !== null).sort();
  const deadline = section === 'red' && d.deadline === null ? null : (dates[0] ?? null);
  const bits = parts.map((p) => p.judged.securityBits).filter((x): x is number => x !== null);
  const refused = parts.filter((p) => !p.judged.cnsa2.approved);
  const never = refused.find((p) => p.judged.cnsa2.deadline === null);
  const cnsa2 = !refused.length ? { approved: true, deadline: null, note: 'Every part is a CNSA 2.0 algorithm.' }
    : { approved: false, deadline: never ? null : refused.map((p) => p.judged.cnsa2.deadline!).sort()[0]!, note: `${(never ?? refused[0]!).judged.name} (${(never ?? refused[0]!).label}): ${(never ?? refused[0]!).judged.cnsa2.note}` };
  const verdict = section === 'unclassified'
    ? `${d.name} (${decider.label}) is not known to the classification table (seen: ${d.seen}); review it by hand.`
    : d.verdict ?? d.explanation;
  const explanation = section === 'unclassified' ? `${name}: ${verdict}` : `${name}: ${d.name} (${decider.label}) decides. ${d.explanation}`;
  return {
    section, name, primitive: d.primitive, family: d.family, algorithm: d.algorithm, securityBits: bits.length ? bits.reduce((a, b) => Math.min(a, b)) : null, deadline,
    replacement: d.replacement, explanation, cnsa2, quantumVulnerable: parts.some((p) => p.judged.quantumVulnerable), seen,
    reasons: listed(parts.map((p) => `${p.label}: ${p.judged.name} (${p.judged.section})`)), rule: d.rule, source: d.source,
    decidedBy: decider.label, verdict,
  };
}

/** What a BOM's algorithm asset says, as the table's input. */
export const algorithmInput = (asset: CryptoAsset, extra: Partial<AlgorithmInput> = {}): AlgorithmInput => ({
  name: asset.name, oid: asset.oid, family: asset.algorithm?.algorithmFamily, primitive: asset.algorithm?.primitive,
  parameterSetIdentifier: asset.algorithm?.parameterSetIdentifier, curve: asset.algorithm?.curve, mode: asset.algorithm?.mode,
  padding: asset.algorithm?.padding, classicalSecurityLevel: asset.algorithm?.classicalSecurityLevel, ...extra,
});

/** An asset's bom-refs resolve through `byRef`; `links` names the crypto assets the documents' `dependencies` tie to each asset. */
export interface ClassifyContext {
  byRef: Map<string, CryptoAsset>;
  /**
   * By bom-ref, the crypto assets tied to an asset through `dependencies`: those its own `dependsOn`
   * and `provides` list first, then those whose lists name it.
   */
  links?: Map<string, string[]>;
}

/** The crypto assets the documents' dependency graph ties to an asset, in that order. */
export const linked = (asset: CryptoAsset, context: ClassifyContext): CryptoAsset[] =>
  (asset.bomRef ? context.links?.get(asset.bomRef) ?? [] : []).flatMap((ref) => context.byRef.get(ref) ?? []);

/** A bare hash function (`SHA-256`, `SHA-1`), not something built on one. */
export const isBareHash = (j: Judgement) => j.primitive === 'hash' || (['md', 'sha1', 'sha2', 'sha3'].includes(j.rule ?? '') && !['mac', 'xof'].includes(j.primitive ?? ''));
