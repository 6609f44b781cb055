// Classifying one cryptographic asset (CBOM) or runtime observation into a section of the
// pqc-inventory report. Algorithms and keys go through the table; certificates take the worst of
// their signature and key algorithms; protocols the worst of their version, cipher suites and groups.
// Anything the table does not know is `unclassified`, with what was seen: never dropped.
import type { CryptoAsset, Observation } from '../types';
import { normalizeAlgorithm, type Algorithm, type AlgorithmInput } from './normalize';
import { rowFor, type CryptoSection, type Verdict } from './table';

export type { CryptoSection } from './table';

export interface CryptoEntry {
  section: CryptoSection;
  /** Normalised, e.g. `RSA-2048`, `ECDSA-P-256`, `AES-256-GCM`, `TLS 1.2`. */
  name: string;
  assetType: string;
  primitive: string | null;
  family: string | null;
  securityBits: number | null;
  deadline: string | null;
  replacement: string | null;
  explanation: string;
  cnsa2: { approved: boolean; deadline: string | null };
  quantumVulnerable: boolean;
  /** What the BOM said, for reviewers and for unclassified entries. */
  seen: string;
  /** For certificates, protocols and keys: the parts that decided the section. */
  reasons: string[];
  /** The table row that decided it. */
  rule: string | null;
}

const ORDER: CryptoSection[] = ['red', 'unclassified', 'yellow', 'transition', 'green'];
/** The worse of two sections: red, then unclassified (unknown may be bad), yellow, transition, green. */
export const worse = (a: CryptoSection, b: CryptoSection) => (ORDER.indexOf(a) <= ORDER.indexOf(b) ? a : b);

/** The normalised display name of an algorithm: `RSA-2048`, `ECDSA-P-256`, `AES-128-GCM`, `HMAC-SHA-256`. */
export function displayName(a: Algorithm): string {
  if (a.family === 'HMAC' || a.family === 'HKDF' || a.family === 'PBKDF2') return `${a.family}${a.hash ? `-${a.hash.name}` : ''}`;
  if (a.name === 'RSA' || a.name === 'DSA' || a.name === 'DH' || a.name === 'ElGamal') return `${a.hash ? `${a.hash.name}with` : ''}${a.name}${a.keyBits ? `-${a.keyBits}` : ''}`;
  if (a.name === 'ECDSA' || a.name === 'ECDH') return `${a.name}${a.curve ? `-${a.curve.name}` : ''}${a.hash ? `-${a.hash.name}` : ''}`;
  if (a.family === 'AES' || a.family === 'CAMELLIA' || a.family === 'ARIA') return [a.name, a.keyBits || undefined, a.mode].filter(Boolean).join('-');
  return a.name;
}

const PRIMITIVES: Record<string, string> = {
  'ML-KEM': 'kem', 'ML-DSA': 'signature', 'SLH-DSA': 'signature', LMS: 'signature', XMSS: 'signature', Kyber: 'kem', Dilithium: 'signature', 'SPHINCS+': 'signature', 'FN-DSA': 'signature',
  RSA: 'pke', 'RSAES-OAEP': 'pke', 'RSAES-PKCS1': 'pke', 'RSASSA-PKCS1': 'signature', 'RSASSA-PSS': 'signature', DSA: 'signature', ECDSA: 'signature', EdDSA: 'signature',
  ECDH: 'key-agree', FFDH: 'key-agree', MQV: 'key-agree', ECIES: 'pke', ElGamal: 'pke', SM2: 'signature',
  'SHA-1': 'hash', 'SHA-2': 'hash', 'SHA-3': 'hash', MD2: 'hash', MD4: 'hash', MD5: 'hash', RIPEMD: 'hash', Whirlpool: 'hash', SM3: 'hash', BLAKE2: 'hash', BLAKE3: 'hash',
  HMAC: 'mac', CMAC: 'mac', Poly1305: 'mac', HKDF: 'kdf', PBKDF2: 'kdf', PBKDF1: 'kdf', 'SP800-108': 'kdf', scrypt: 'kdf', Argon2: 'kdf', bcrypt: 'kdf',
  AES: 'block-cipher', '3DES': 'block-cipher', DES: 'block-cipher', CAMELLIA: 'block-cipher', ARIA: 'block-cipher', SEED: 'block-cipher', SM4: 'block-cipher', GOST: 'block-cipher',
  ChaCha20: 'ae', RC4: 'stream-cipher', Salsa20: 'stream-cipher',
};

interface Judged {
  section: CryptoSection;
  name: string;
  family: string | null;
  primitive: string | null;
  verdict: Verdict | null;
  rule: string | null;
  seen: string;
}

/** Judges one algorithm description; unknown ones are unclassified. */
export function judge(input: AlgorithmInput, primitive?: string): Judged {
  const seen = [input.name, input.oid && `oid ${input.oid}`, input.parameterSetIdentifier && `parameters ${input.parameterSetIdentifier}`, input.curve && `curve ${input.curve}`, input.mode && `mode ${input.mode}`].filter(Boolean).join(', ');
  const algorithm = normalizeAlgorithm(input);
  const row = algorithm && rowFor(algorithm);
  if (!algorithm || !row) return { section: 'unclassified', name: algorithm ? displayName(algorithm) : input.name, family: algorithm?.family ?? null, primitive: primitive ?? null, verdict: null, rule: null, seen };
  const verdict = row.verdict(algorithm);
  return { section: verdict.section, name: displayName(algorithm), family: algorithm.family, primitive: PRIMITIVES[algorithm.family] ?? primitive ?? null, verdict, rule: row.id, seen };
}

const UNKNOWN_EXPLANATION = (seen: string) => `Not in the classification table (seen: ${seen}); review it by hand and tell us what it is.`;

function entryOf(assetType: string, judged: Judged, reasons: string[] = [], name = judged.name): CryptoEntry {
  const v = judged.verdict;
  return {
    section: judged.section, name, assetType, primitive: judged.primitive, family: judged.family,
    securityBits: v?.securityBits ?? null, deadline: v?.deadline ?? null, replacement: v?.replacement ?? null,
    explanation: v?.explanation ?? UNKNOWN_EXPLANATION(judged.seen), cnsa2: v?.cnsa2 ?? { approved: false, deadline: null },
    quantumVulnerable: v?.quantumVulnerable ?? false, seen: judged.seen, reasons, rule: judged.rule,
  };
}

/** The worst of several judged parts decides; the entry names each part in `reasons`. */
function combine(assetType: string, name: string, seen: string, parts: { label: string; judged: Judged }[]): CryptoEntry {
  if (!parts.length) return entryOf(assetType, { section: 'unclassified', name, family: null, primitive: null, verdict: null, rule: null, seen });
  const worst = parts.reduce((w, p) => (worse(w.judged.section, p.judged.section) === p.judged.section && p.judged.section !== w.judged.section ? p : w));
  const entry = entryOf(assetType, worst.judged, parts.map((p) => `${p.label}: ${p.judged.name} (${p.judged.section})`), name);
  entry.seen = seen;
  if (worst.judged.verdict) entry.explanation = `${name}: ${worst.label} ${worst.judged.name} decides. ${worst.judged.verdict.explanation}`;
  // A deadline that applies to any part applies to the whole: the earliest.
  const deadlines = parts.map((p) => p.judged.verdict?.deadline).filter((d): d is string => Boolean(d)).sort();
  if (entry.section !== 'green' && deadlines[0]) entry.deadline = deadlines[0];
  entry.cnsa2 = { approved: parts.every((p) => p.judged.verdict?.cnsa2.approved), deadline: parts.some((p) => !p.judged.verdict?.cnsa2.approved) ? parts.map((p) => p.judged.verdict?.cnsa2.deadline).find(Boolean) ?? null : null };
  entry.quantumVulnerable = parts.some((p) => p.judged.verdict?.quantumVulnerable);
  return entry;
}

const algorithmInput = (asset: CryptoAsset, keyBits?: number): AlgorithmInput => ({
  name: asset.algorithm?.algorithmFamily && /^(oid:)?\d+(\.\d+)+$/.test(asset.name) ? asset.algorithm.algorithmFamily : asset.name,
  oid: asset.oid, parameterSetIdentifier: asset.algorithm?.parameterSetIdentifier, curve: asset.algorithm?.curve, mode: asset.algorithm?.mode, keyBits,
});

/** Cipher suite and group names of TLS and SSH to the algorithms they use. */
function suiteParts(suite: string): string[] {
  const s = suite.toUpperCase();
  if (/^TLS_AES_|^TLS_CHACHA20_/.test(s)) return [s.replace(/^TLS_/, '').replace(/_SHA\d+$/, '').replace(/_/g, '-')];
  const m = /^(?:TLS|SSL)_(.+?)_WITH_(.+?)(?:_(SHA\d*|MD5|NULL))?$/.exec(s);
  if (!m) return [suite];
  const kex = m[1]!.split('_').filter((p) => !['EXPORT', 'ANON'].includes(p));
  const cipher = m[2]!.replace(/_/g, '-');
  const mac = m[3] ? [m[3] === 'SHA' ? 'SHA-1' : m[3]] : [];
  return [...kex.map((k) => (k === 'ECDHE' || k === 'ECDH' ? 'ECDH' : k === 'DHE' || k === 'DH' ? 'DH' : k)), cipher, ...mac];
}

function protocolEntry(asset: CryptoAsset, byRef: Map<string, CryptoAsset>): CryptoEntry {
  const p = asset.protocol ?? {};
  const type = (p.type ?? asset.name).toUpperCase();
  const name = `${type}${p.version ? ` ${p.version}` : ''}`;
  const parts: { label: string; judged: Judged }[] = [];
  const version = Number.parseFloat(p.version ?? '');
  if ((type === 'TLS' && version < 1.2) || type === 'SSL' || (type === 'SSH' && version < 2)) {
    parts.push({ label: 'version', judged: { section: 'red', name, family: null, primitive: null, rule: 'protocol-version', seen: name,
      verdict: { section: 'red', deadline: null, replacement: type === 'SSH' ? 'SSH 2.0' : 'TLS 1.3', explanation: `${name} is broken or disallowed (SP 800-52 Rev. 2 requires TLS 1.2 or later).`, quantumVulnerable: false, securityBits: null, cnsa2: { approved: false, deadline: null } } } });
  }
  for (const suite of p.cipherSuites ?? []) {
    const resolved = (suite.algorithms ?? []).map((ref) => byRef.get(ref)).filter((a): a is CryptoAsset => Boolean(a));
    for (const algorithm of resolved) parts.push({ label: `cipher suite ${suite.name ?? ''}`.trim(), judged: judgeAsset(algorithm) });
    // Without algorithms it can resolve, the suite's registered name says what it uses.
    if (!resolved.length && suite.name) for (const part of suiteParts(suite.name)) parts.push({ label: `cipher suite ${suite.name}`, judged: judge({ name: part }) });
  }
  for (const ref of p.cryptoRefs ?? []) {
    const target = byRef.get(ref);
    if (target) parts.push({ label: target.assetType === 'certificate' ? 'certificate' : 'uses', judged: judgeAsset(target, byRef) });
  }
  if (!parts.length && (type === 'TLS' || type === 'SSH' || type === 'IPSEC' || type === 'IKE')) {
    // A protocol named without its key exchange: classical (quantum-vulnerable) unless shown otherwise.
    parts.push({ label: 'key exchange', judged: judge({ name: 'ECDH' }) });
  }
  return combine('protocol', name, [asset.name, p.version].filter(Boolean).join(' '), parts);
}

/** Judges an asset referred to by another (a certificate's key, a protocol's algorithm or certificate). */
function judgeAsset(asset: CryptoAsset, byRef: Map<string, CryptoAsset> = new Map()): Judged {
  if (asset.assetType === 'certificate' || asset.assetType === 'protocol') {
    // One level down only: a certificate a protocol names is judged by its own parts.
    const entry = classifyAsset(asset, { byRef: asset.assetType === 'protocol' ? new Map() : byRef });
    const verdict: Verdict | null = entry.rule ? {
      section: entry.section as Verdict['section'], deadline: entry.deadline, replacement: entry.replacement, explanation: entry.explanation,
      quantumVulnerable: entry.quantumVulnerable, securityBits: entry.securityBits, cnsa2: entry.cnsa2,
    } : null;
    return { section: entry.section, name: entry.name, family: entry.family, primitive: entry.primitive, verdict, rule: entry.rule, seen: entry.seen };
  }
  return judge(algorithmInput(asset, asset.relatedCryptoMaterial?.size), asset.algorithm?.primitive);
}

/** Classifies one crypto asset; `byRef` resolves the bom-refs certificates, keys and protocols name. */
export function classifyAsset(asset: CryptoAsset, context: { byRef: Map<string, CryptoAsset> }): CryptoEntry {
  const { byRef } = context;
  if (asset.assetType === 'algorithm') return entryOf('algorithm', judge(algorithmInput(asset), asset.algorithm?.primitive));
  if (asset.assetType === 'protocol') return protocolEntry(asset, byRef);
  if (asset.assetType === 'certificate') {
    const c = asset.certificate ?? {};
    const parts: { label: string; judged: Judged }[] = [];
    const signature = c.signatureAlgorithmRef ? byRef.get(c.signatureAlgorithmRef) : undefined;
    const key = c.subjectPublicKeyRef ? byRef.get(c.subjectPublicKeyRef) : undefined;
    if (signature) parts.push({ label: 'signature', judged: judgeAsset(signature) });
    if (key) {
      const keyAlgorithm = key.relatedCryptoMaterial?.algorithmRef ? byRef.get(key.relatedCryptoMaterial.algorithmRef) : undefined;
      parts.push({ label: 'key', judged: keyAlgorithm ? judge(algorithmInput(keyAlgorithm, key.relatedCryptoMaterial?.size)) : judgeAsset(key) });
    }
    return combine('certificate', c.subjectName ?? asset.name, [asset.name, c.subjectName].filter(Boolean).join(', '), parts);
  }
  // Related crypto material: a key takes its algorithm (and its size); other material with none is unclassified.
  const m = asset.relatedCryptoMaterial ?? {};
  const algorithm = m.algorithmRef ? byRef.get(m.algorithmRef) : undefined;
  const judged = algorithm ? judge(algorithmInput(algorithm, m.size ?? undefined)) : judge({ name: asset.name, oid: asset.oid, keyBits: m.size });
  const label = `${m.type ?? 'material'}${m.size ? ` (${m.size} bits)` : ''}`;
  const entry = combine('related-crypto-material', `${judged.section === 'unclassified' ? asset.name : judged.name} ${m.type ?? 'key'}`.trim(), [asset.name, m.type, m.size && `${m.size} bits`].filter(Boolean).join(', '), [{ label, judged }]);
  return entry;
}

/** Classifies one runtime observation: its algorithm (with the observed key size), group and cipher suite. */
export function classifyObservation(o: Observation): CryptoEntry {
  const parts: { label: string; judged: Judged }[] = [{ label: 'algorithm', judged: judge({ name: o.algorithm, keyBits: o.keySize }) }];
  if (o.group) parts.push({ label: 'group', judged: judge({ name: o.group }) });
  if (o.cipherSuite) for (const part of suiteParts(o.cipherSuite)) parts.push({ label: `cipher suite ${o.cipherSuite}`, judged: judge({ name: part }) });
  const name = [parts[0]!.judged.name, o.protocol && `(${o.protocol})`].filter(Boolean).join(' ');
  const entry = parts.length === 1 ? entryOf('observation', parts[0]!.judged, [], name) : combine('observation', name, o.algorithm, parts);
  entry.seen = [o.algorithm, o.keySize && `${o.keySize} bits`, o.protocol, o.group, o.cipherSuite, o.library].filter(Boolean).join(', ');
  return entry;
}
