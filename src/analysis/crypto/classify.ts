// Classifying one cryptographic asset (CBOM) or runtime observation into a section of the
// pqc-inventory report. Algorithms go through the table (table.ts, judge.ts); keys and other material
// take the algorithm they belong to (material.ts); certificates the worst of their signature and key,
// trust anchors their key (certificate.ts); protocols the worst of their version, cipher suites,
// groups, algorithms and certificates. Every link CycloneDX gives is used: bom-refs, cipher suites,
// IKEv2 transforms and the documents' dependency graph. Anything the table does not know is
// `unclassified`, with what was seen: never dropped.
import type { CryptoAsset, Observation } from '../types';
import { certificateJudgement } from './certificate';
import {
  algorithmInput, combine, HASHED_FAMILIES, isBareHash, judge, linked, missing, unknown, type ClassifyContext, type CryptoEntry, type Judgement, type Part,
} from './judge';
import { judgeMaterial, materialJudgement } from './material';
import { protocolOf, suiteParts, type SuitePart } from './suites';
import { notCnsa, PROTOCOL_TABLE, type ProtocolRow } from './table';

export type { CryptoSection } from './table';
export { combine, judge, SECTION_ORDER, worse, type ClassifyContext, type CryptoEntry, type Judgement } from './judge';

function protocolJudgement(row: ProtocolRow, name: string): Judgement {
  return {
    section: row.section, name, primitive: null, family: null, algorithm: name, securityBits: null, deadline: row.deadline, replacement: row.replacement, explanation: row.explain(name),
    cnsa2: notCnsa(`${name} is not allowed in National Security Systems.`), quantumVulnerable: row.quantumVulnerable, seen: name, reasons: [], rule: row.id, source: row.source,
  };
}

/**
 * An algorithm; one built on a hash its name leaves out (HMAC, a KDF, MGF1) takes the hash the
 * dependency graph ties to it ("ConcatenationKDF" depending on SHA-256 is SP 800-56C over SHA-256).
 */
function algorithmJudgement(asset: CryptoAsset, context: ClassifyContext): Judgement {
  const judged = judge(algorithmInput(asset));
  if (judged.section !== 'unclassified' || !HASHED_FAMILIES.includes(judged.family ?? '')) return judged;
  const hash = linked(asset, context).filter((a) => a.assetType === 'algorithm').map((a) => judge(algorithmInput(a))).find(isBareHash);
  if (!hash) return judged;
  const withHash = judge({ ...algorithmInput(asset), name: `${asset.name}-${hash.name}` });
  return withHash.section === 'unclassified' ? judged : { ...withHash, reasons: [`hash: ${hash.name} (${hash.section}), tied by dependencies`] };
}

/** Judges an asset another one refers to: a certificate's key or signature, a protocol's algorithm, key or certificate. */
function judgeRef(asset: CryptoAsset, context: ClassifyContext, depth: number): Judgement {
  if (asset.assetType === 'algorithm') return algorithmJudgement(asset, context);
  if (asset.assetType === 'related-crypto-material') return judgeMaterial(asset, context).judged;
  if (depth > 1) return unknown(asset.name, asset.name, `${asset.name} is nested too deeply to judge.`);
  return asset.assetType === 'certificate' ? certificateJudgement(asset, context) : protocol(asset, context, depth + 1);
}

const PQ_KEY_EXCHANGE = ['ML-KEM', 'X-Wing', 'Kyber', 'PQC-candidate'];
const VERSION_ROWS = PROTOCOL_TABLE.filter((r) => r.id !== 'tls-1.2-classical-key-exchange');
const TLS12_ROW = PROTOCOL_TABLE.find((r) => r.id === 'tls-1.2-classical-key-exchange')!;

/** The version's own verdict (SSL, TLS before 1.2, SSH-1) as a part, if any. */
function versionPart(type: string, version: string | undefined, name: string): Part | undefined {
  const row = VERSION_ROWS.find((r) => r.when(type, Number.parseFloat(version ?? '')));
  return row ? { label: 'version', judged: protocolJudgement(row, name) } : undefined;
}

/**
 * A hash a cipher suite (or an IKEv2 PRF or integrity transform) references plays the role the suite
 * gives it: in TLS 1.2 `..._CBC_SHA` the SHA-1 is the record MAC (HMAC-SHA1), in an AEAD suite the
 * PRF's hash (HMAC in TLS 1.2, HKDF in TLS 1.3), never a SHA-1 signature.
 */
function inRole(judged: Judgement, parsed: SuitePart[] | undefined, tls13: boolean): { judged: Judgement; role?: string } {
  if (!isBareHash(judged)) return { judged };
  const part = parsed?.find((p) => p.role === 'mac' || p.role === 'prf');
  const role = part?.role ?? (tls13 ? 'prf' : 'mac');
  const construction = part ? part.name.split('-')[0]! : tls13 ? 'HKDF' : 'HMAC';
  const asUsed = judge({ name: `${construction}-${judged.name}` });
  return asUsed.section === 'unclassified' ? { judged } : { judged: asUsed, role };
}

function protocol(asset: CryptoAsset, context: ClassifyContext, depth = 0): Judgement {
  const { byRef } = context;
  const p = asset.protocol ?? {};
  const { type, version } = protocolOf(p.type, p.version, asset.name);
  const name = [type, version].filter(Boolean).join(' ');
  const tls13 = type === 'TLS' && Number.parseFloat(version ?? '') >= 1.3;
  const parts: Part[] = [];
  const byVersion = versionPart(type, version, name);
  if (byVersion) parts.push(byVersion);
  const done = new Set<string>();
  let pskOnly = false;
  for (const suite of p.cipherSuites ?? []) {
    const label = `cipher suite ${suite.name ?? '(unnamed)'}`;
    const parsed = suite.name ? suiteParts(suite.name) : undefined;
    const refs = (suite.algorithms ?? []).filter((ref) => byRef.has(ref));
    for (const ref of refs) {
      if (done.has(ref)) continue;
      done.add(ref);
      const { judged, role } = inRole(judgeRef(byRef.get(ref)!, context, depth), parsed?.parts, tls13);
      parts.push({ label: role ? `${label} (${role})` : label, judged });
    }
    if (refs.length || !suite.name) continue;
    // Without algorithms it can resolve, the suite's registered name says what it uses.
    if (!parsed) parts.push({ label, judged: unknown(suite.name, suite.name, `The cipher suite ${suite.name} is not one the classifier can read.`) });
    else (pskOnly ||= parsed.pskOnly, parsed.parts.forEach((x) => parts.push({ label, judged: judge({ name: x.name }) })));
  }
  const ike = p.ikev2 ?? {};
  const uses: [string, string][] = [
    ...(p.cryptoRefs ?? []).map((ref): [string, string] => [ref, '']),
    ...(['encr', 'prf', 'integ', 'ke', 'auth'] as const).flatMap((t) => (ike[t] ?? []).map((ref): [string, string] => [ref, `IKEv2 ${t}`])),
  ];
  for (const [ref, transform] of uses) {
    if (done.has(ref)) continue;
    done.add(ref);
    const target = byRef.get(ref);
    if (!target) {
      parts.push(missing(transform ? `${transform} transform` : 'referenced asset', ref));
      continue;
    }
    const judged = judgeRef(target, context, depth);
    const used = transform === 'IKEv2 prf' || transform === 'IKEv2 integ' ? inRole(judged, undefined, false).judged : judged;
    parts.push({ label: transform || (target.assetType === 'certificate' ? 'certificate' : target.assetType === 'related-crypto-material' ? 'key' : 'uses'), judged: used });
  }
  // What the dependency graph ties to the protocol and nothing above named.
  for (const target of linked(asset, context)) {
    if (!target.bomRef || done.has(target.bomRef) || target.assetType === 'protocol') continue;
    done.add(target.bomRef);
    // A hash tied to a protocol plays the part a suite would give it (its MAC or PRF), never a signature's.
    const { judged, role } = inRole(judgeRef(target, context, depth), undefined, tls13);
    parts.push({ label: role ? `tied by dependencies (${role})` : 'tied by dependencies', judged });
  }
  // TLS 1.2 offers no post-quantum key exchange: when the BOM does not say which one, it is a classical one.
  const keyExchange = parts.some((x) => x.judged.quantumVulnerable || PQ_KEY_EXCHANGE.includes(x.judged.family ?? ''));
  if (!byVersion && !keyExchange && !pskOnly && TLS12_ROW.when(type, Number.parseFloat(version ?? ''))) parts.push({ label: 'key exchange', judged: protocolJudgement(TLS12_ROW, name) });
  const seen = [asset.name, p.type && `type ${p.type}`, p.version && `version ${p.version}`].filter(Boolean).join(', ');
  return combine(name || asset.name, seen, parts, `${name || asset.name}: neither its cipher suites, key exchange, algorithms nor certificates are stated; the table cannot judge it.`);
}

const entry = (key: string, assetType: string, judged: Judgement): CryptoEntry => ({ key, assetType, ...judged });

/** Classifies one crypto asset; the context resolves the bom-refs it names and the assets the dependency graph ties to it. */
export function classifyAsset(asset: CryptoAsset, context: ClassifyContext): CryptoEntry {
  const key = (name: string) => asset.bomRef ?? `${asset.assetType}:${name}`;
  switch (asset.assetType) {
    case 'algorithm': {
      const judged = algorithmJudgement(asset, context);
      return entry(key(judged.name), 'algorithm', judged);
    }
    case 'certificate': return entry(key(asset.name), 'certificate', certificateJudgement(asset, context));
    case 'protocol': {
      const judged = protocol(asset, context);
      return entry(key(judged.name), 'protocol', judged);
    }
    default: {
      const judged = materialJudgement(asset, context);
      return entry(key(judged.name), 'related-crypto-material', judged);
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
