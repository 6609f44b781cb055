// Classifying one cryptographic asset (CBOM) or runtime observation into a section of the
// pqc-inventory report. Algorithms and keys go through the table (table.ts); certificates take the
// worst of their signature and key; protocols the worst of their version, cipher suites, groups,
// algorithms and certificates. Anything the table does not know is `unclassified`, with what was
// seen: never dropped.
import type { CryptoAsset, Observation } from '../types';
import { normalizeAlgorithm, type AlgorithmInput } from './normalize';
import { pbeParts, protocolOf, suiteParts } from './suites';
import { EC_FAMILIES, notCnsa, PROTOCOL_TABLE, RSA_FAMILIES, rowFor, type CryptoSection, type ProtocolRow } from './table';

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
}

export type Judgement = Omit<CryptoEntry, 'key' | 'assetType'>;
interface Part { label: string; judged: Judgement }

export const SECTION_ORDER: readonly CryptoSection[] = ['red', 'unclassified', 'yellow', 'transition', 'green'];
/** The worse of two sections: red, then unclassified (an unknown part may be bad), yellow, transition, green. */
export const worse = (a: CryptoSection, b: CryptoSection): CryptoSection => (SECTION_ORDER.indexOf(a) <= SECTION_ORDER.indexOf(b) ? a : b);

const UNKNOWN_CNSA = { approved: false, deadline: null, note: 'Not judged: the algorithm is not known.' };

function unknown(name: string, seen: string, explanation: string, family: string | null = null, primitive: string | null = null): Judgement {
  return {
    section: 'unclassified', name, primitive, family, securityBits: null, deadline: null, replacement: null, explanation, cnsa2: UNKNOWN_CNSA,
    quantumVulnerable: false, seen, reasons: [], rule: null, source: null,
  };
}

const seenOf = (i: AlgorithmInput) => [i.name, i.oid && `oid ${i.oid}`, i.family && `family ${i.family}`, i.parameterSetIdentifier && `parameters ${i.parameterSetIdentifier}`,
  i.curve && `curve ${i.curve}`, i.mode && `mode ${i.mode}`, i.padding && `padding ${i.padding}`, i.keyBits && `${i.keyBits} bits`].filter(Boolean).join(', ');

/** An OpenSSL cipher suite name given as an algorithm ("ECDHE-RSA-AES128-GCM-SHA256"). */
const OPENSSL_SUITE = /^(ECDHE|DHE|EDH|ECDH|DH|AECDH|ADH|PSK|SRP|RSA)-[A-Z0-9-]+-(SHA\d*|MD5|POLY1305)$/i;

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
    const why = a.hash === undefined && ['HMAC', 'HKDF', 'PBKDF2', 'SP800-108', 'SP800-56C', 'TLS-PRF', 'SSH-KDF', 'IKE-PRF', 'CMAC'].includes(a.family) ? ': the hash or cipher it is built on is not stated' : '';
    return unknown(a.name, seen, `${a.name} is recognised (${a.family}) but no row of the classification table covers it${why} (seen: ${seen}); review it by hand.`, a.family, a.primitive);
  }
  return {
    section: row.section, name: a.name, primitive: a.primitive, family: a.family, securityBits: a.securityBits, deadline: row.deadline,
    replacement: typeof row.replacement === 'function' ? row.replacement(a) : row.replacement, explanation: row.explain(a),
    cnsa2: row.cnsa2?.(a) ?? notCnsa('Not a CNSA 2.0 algorithm.'), quantumVulnerable: row.quantumVulnerable, seen, reasons: [], rule: row.id, source: row.source,
  };
}

/**
 * The worst part decides (the most urgent of them); the earliest date of any part applies; CNSA 2.0
 * approves only when every part is approved.
 */
function combine(name: string, seen: string, parts: Part[], ifEmpty?: string): Judgement {
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
  const explanation = section === 'unclassified'
    ? `${name}: ${d.name} (${decider.label}) is not known to the classification table (seen: ${d.seen}); review it by hand.`
    : `${name}: ${d.name} (${decider.label}) decides. ${d.explanation}`;
  return {
    section, name, primitive: d.primitive, family: d.family, securityBits: bits.length ? Math.min(...bits) : null, deadline,
    replacement: d.replacement, explanation, cnsa2, quantumVulnerable: parts.some((p) => p.judged.quantumVulnerable), seen,
    reasons: parts.map((p) => `${p.label}: ${p.judged.name} (${p.judged.section})`), rule: d.rule, source: d.source,
  };
}

function protocolJudgement(row: ProtocolRow, name: string): Judgement {
  return {
    section: row.section, name, primitive: null, family: null, securityBits: null, deadline: row.deadline, replacement: row.replacement, explanation: row.explain(name),
    cnsa2: notCnsa(`${name} is not allowed in National Security Systems.`), quantumVulnerable: row.quantumVulnerable, seen: name, reasons: [], rule: row.id, source: row.source,
  };
}

const algorithmInput = (asset: CryptoAsset, extra: Partial<AlgorithmInput> = {}): AlgorithmInput => ({
  name: asset.name, oid: asset.oid, family: asset.algorithm?.algorithmFamily, primitive: asset.algorithm?.primitive,
  parameterSetIdentifier: asset.algorithm?.parameterSetIdentifier, curve: asset.algorithm?.curve, mode: asset.algorithm?.mode,
  padding: asset.algorithm?.padding, classicalSecurityLevel: asset.algorithm?.classicalSecurityLevel, ...extra,
});

/** What a key says about its algorithm: its algorithm asset (with the key's size), else its own name and OID. */
function keyInputs(asset: CryptoAsset, byRef: Map<string, CryptoAsset>): AlgorithmInput[] {
  if (asset.assetType === 'algorithm') return [algorithmInput(asset, { key: true })];
  const m = asset.relatedCryptoMaterial ?? {};
  const algorithm = m.algorithmRef ? byRef.get(m.algorithmRef) : undefined;
  const own: AlgorithmInput = { name: asset.name, oid: asset.oid, keyBits: m.size, key: true };
  return algorithm?.assetType === 'algorithm' ? [algorithmInput(algorithm, { key: true, keyBits: m.size }), own] : [own];
}

/** A key (related crypto material, or an algorithm named as a certificate's key): the first of its descriptions the table knows. */
function judgeKey(asset: CryptoAsset, byRef: Map<string, CryptoAsset>): Judgement {
  const judged = keyInputs(asset, byRef).map((input) => judge(input));
  return judged.find((j) => j.section !== 'unclassified') ?? judged[0]!;
}

/** Judges an asset another one refers to: a certificate's key or signature, a protocol's algorithm, key or certificate. */
function judgeRef(asset: CryptoAsset, byRef: Map<string, CryptoAsset>, depth: number): Judgement {
  if (asset.assetType === 'algorithm') return judge(algorithmInput(asset));
  if (asset.assetType === 'related-crypto-material') return judgeKey(asset, byRef);
  if (depth > 1) return unknown(asset.name, asset.name, `${asset.name} is nested too deeply to judge.`);
  return asset.assetType === 'certificate' ? certificate(asset, byRef) : protocol(asset, byRef, depth + 1);
}

const missing = (what: string, ref: string): Part => ({ label: what, judged: unknown(ref, ref, `The ${what} ${ref} is not in the BOM.`) });
const kindOf = (family: string) => (RSA_FAMILIES.includes(family) ? 'RSA' : EC_FAMILIES.includes(family) ? 'EC' : family);
const sameDn = (a?: string, b?: string) => Boolean(a && b && a.replace(/\s+/g, '').toLowerCase() === b.replace(/\s+/g, '').toLowerCase());

function certificate(asset: CryptoAsset, byRef: Map<string, CryptoAsset>): Judgement {
  const c = asset.certificate ?? {};
  const parts: Part[] = [];
  const keyAsset = c.subjectPublicKeyRef ? byRef.get(c.subjectPublicKeyRef) : undefined;
  const key = keyAsset ? judgeKey(keyAsset, byRef) : undefined;
  const signature = c.signatureAlgorithmRef ? byRef.get(c.signatureAlgorithmRef) : undefined;
  if (signature) {
    // A self-signed certificate is signed with its own key: the signature's key size or curve is the subject key's.
    let judged = judge(algorithmInput(signature));
    const keyAlgorithm = keyAsset && key?.section !== 'unclassified' ? keyInputs(keyAsset, byRef).map(normalizeAlgorithm).find(Boolean) : undefined;
    if (sameDn(c.subjectName, c.issuerName) && keyAlgorithm && judged.family && kindOf(judged.family) === kindOf(keyAlgorithm.family) && (keyAlgorithm.keyBits || keyAlgorithm.curve)) {
      judged = judge(algorithmInput(signature, { keyBits: keyAlgorithm.keyBits, curve: signature.algorithm?.curve ?? keyAlgorithm.curve?.registry }));
    }
    parts.push({ label: 'signature', judged });
  } else if (c.signatureAlgorithmRef) parts.push(missing('signature algorithm', c.signatureAlgorithmRef));
  if (key) parts.push({ label: 'key', judged: key });
  else if (c.subjectPublicKeyRef) parts.push(missing('public key', c.subjectPublicKeyRef));
  const seen = [`signature ${signature?.name ?? c.signatureAlgorithmRef ?? 'not stated'}`, `key ${keyAsset?.name ?? c.subjectPublicKeyRef ?? 'not stated'}`].join('; ');
  return combine(asset.name, seen, parts, `${asset.name}: the certificate names neither its signature algorithm nor its public key.`);
}

const PQ_KEY_EXCHANGE = ['ML-KEM', 'X-Wing', 'Kyber', 'PQC-candidate'];
const VERSION_ROWS = PROTOCOL_TABLE.filter((r) => r.id !== 'tls-1.2-classical-key-exchange');
const TLS12_ROW = PROTOCOL_TABLE.find((r) => r.id === 'tls-1.2-classical-key-exchange')!;

/** The version's own verdict (SSL, TLS before 1.2, SSH-1) as a part, if any. */
function versionPart(type: string, version: string | undefined, name: string): Part | undefined {
  const row = VERSION_ROWS.find((r) => r.when(type, Number.parseFloat(version ?? '')));
  return row ? { label: 'version', judged: protocolJudgement(row, name) } : undefined;
}

function protocol(asset: CryptoAsset, byRef: Map<string, CryptoAsset>, depth = 0): Judgement {
  const p = asset.protocol ?? {};
  const { type, version } = protocolOf(p.type, p.version, asset.name);
  const name = [type, version].filter(Boolean).join(' ');
  const parts: Part[] = [];
  const byVersion = versionPart(type, version, name);
  if (byVersion) parts.push(byVersion);
  const done = new Set<string>();
  let pskOnly = false;
  for (const suite of p.cipherSuites ?? []) {
    const label = `cipher suite ${suite.name ?? '(unnamed)'}`;
    const refs = (suite.algorithms ?? []).filter((ref) => byRef.has(ref));
    for (const ref of refs) if (!done.has(ref)) (done.add(ref), parts.push({ label, judged: judgeRef(byRef.get(ref)!, byRef, depth) }));
    if (refs.length || !suite.name) continue;
    // Without algorithms it can resolve, the suite's registered name says what it uses.
    const parsed = suiteParts(suite.name);
    if (!parsed) parts.push({ label, judged: unknown(suite.name, suite.name, `The cipher suite ${suite.name} is not one the classifier can read.`) });
    else (pskOnly ||= parsed.pskOnly, parsed.parts.forEach((x) => parts.push({ label, judged: judge({ name: x.name }) })));
  }
  for (const ref of p.cryptoRefs ?? []) {
    if (done.has(ref)) continue;
    done.add(ref);
    const target = byRef.get(ref);
    if (!target) parts.push(missing('referenced asset', ref));
    else parts.push({ label: target.assetType === 'certificate' ? 'certificate' : target.assetType === 'related-crypto-material' ? 'key' : 'uses', judged: judgeRef(target, byRef, depth) });
  }
  // TLS 1.2 offers no post-quantum key exchange: when the BOM does not say which one, it is a classical one.
  const keyExchange = parts.some((x) => x.judged.quantumVulnerable || PQ_KEY_EXCHANGE.includes(x.judged.family ?? ''));
  if (!byVersion && !keyExchange && !pskOnly && TLS12_ROW.when(type, Number.parseFloat(version ?? ''))) parts.push({ label: 'key exchange', judged: protocolJudgement(TLS12_ROW, name) });
  const seen = [asset.name, p.type && `type ${p.type}`, p.version && `version ${p.version}`].filter(Boolean).join(', ');
  return combine(name || asset.name, seen, parts, `${name || asset.name}: neither its cipher suites, key exchange, algorithms nor certificates are stated; the table cannot judge it.`);
}

const entry = (key: string, assetType: string, judged: Judgement): CryptoEntry => ({ key, assetType, ...judged });

/** Classifies one crypto asset; `byRef` resolves the bom-refs certificates, keys and protocols name. */
export function classifyAsset(asset: CryptoAsset, context: { byRef: Map<string, CryptoAsset> }): CryptoEntry {
  const { byRef } = context;
  const key = (name: string) => asset.bomRef ?? `${asset.assetType}:${name}`;
  switch (asset.assetType) {
    case 'algorithm': {
      const judged = judge(algorithmInput(asset));
      return entry(key(judged.name), 'algorithm', judged);
    }
    case 'certificate': return entry(key(asset.name), 'certificate', certificate(asset, byRef));
    case 'protocol': {
      const judged = protocol(asset, byRef);
      return entry(key(judged.name), 'protocol', judged);
    }
    default: {
      // Related crypto material: a key takes its algorithm and size; material naming no algorithm is unclassified.
      const m = asset.relatedCryptoMaterial ?? {};
      const judged = judgeKey(asset, byRef);
      const name = judged.section === 'unclassified' ? asset.name : `${judged.name} ${m.type ?? 'key'}`;
      const algorithm = m.algorithmRef ? byRef.get(m.algorithmRef)?.name ?? `${m.algorithmRef} (not in the BOM)` : undefined;
      const seen = [asset.name, m.type, m.size && `${m.size} bits`, algorithm && `algorithm ${algorithm}`, asset.oid && `oid ${asset.oid}`].filter(Boolean).join(', ');
      const label = m.type ?? 'material';
      const whole = judged.section === 'unclassified'
        ? unknown(asset.name, seen, `${asset.name} (${label}) names no algorithm the table knows${algorithm ? ` (algorithm: ${algorithm})` : ''}; review it by hand.`)
        : { ...judged, name, seen, reasons: [`${label}: ${judged.name} (${judged.section})`] };
      return entry(key(name), 'related-crypto-material', whole);
    }
  }
}

/** Classifies one runtime observation: its algorithm (with the observed key size), group, cipher suite and protocol version. */
export function classifyObservation(o: Observation): CryptoEntry {
  const algorithm = judge({ name: o.algorithm, keyBits: o.keySize });
  const group = o.group ? judge({ name: o.group }) : undefined;
  // A key-exchange label ("ECDHE", "DH") with a named group: the group is the key exchange.
  const label = ['ECDH', 'FFDH', 'EC'].includes(algorithm.family ?? '') && !/\d/.test(algorithm.name);
  const parts: Part[] = group && label ? [] : [{ label: 'algorithm', judged: algorithm }];
  if (group) parts.push({ label: 'group', judged: group });
  if (o.cipherSuite) {
    const parsed = suiteParts(o.cipherSuite);
    if (parsed) for (const p of parsed.parts) parts.push({ label: `cipher suite ${o.cipherSuite}`, judged: judge({ name: p.name }) });
    else parts.push({ label: 'cipher suite', judged: unknown(o.cipherSuite, o.cipherSuite, `The cipher suite ${o.cipherSuite} is not one the classifier can read.`) });
  }
  if (o.protocol) {
    const { type, version } = protocolOf(undefined, undefined, o.protocol);
    const byVersion = versionPart(type, version, [type, version].filter(Boolean).join(' '));
    if (byVersion) parts.push(byVersion);
  }
  const main = group && label ? group : algorithm;
  const name = `${main.name}${o.protocol ? ` (${o.protocol})` : ''}`;
  const seen = [o.algorithm, o.keySize && `${o.keySize} bits`, o.group && `group ${o.group}`, o.cipherSuite && `suite ${o.cipherSuite}`, o.protocol, o.library && `library ${o.library}`].filter(Boolean).join(', ');
  const judged = parts.length === 1 ? { ...parts[0]!.judged, name, seen } : combine(name, seen, parts);
  return entry(`observation:${[o.algorithm, o.keySize, o.group, o.cipherSuite, o.protocol, o.library].map((x) => x ?? '').join('|')}`, 'observation', judged);
}
