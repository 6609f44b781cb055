// Maps raw CycloneDX component objects (as parsed, untrusted) onto the reader's plain types.
import { createHash } from 'node:crypto';
import { PackageURL } from 'packageurl-js';
import {
  CRYPTO_ASSET_TYPES,
  type AlgorithmProperties,
  type CertificateProperties,
  type CipherSuite,
  type Component,
  type CryptoAsset,
  type CryptoAssetType,
  type Dependency,
  type Hash,
  type MetadataComponent,
  type Occurrence,
  type Property,
  type ProtocolProperties,
  type RelatedCryptoMaterialProperties,
} from './types';

type Raw = Record<string, unknown>;

function record(value: unknown): Raw | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Raw) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function texts(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const list = value.filter((v): v is string => typeof v === 'string' && v !== '');
  return list.length ? list : undefined;
}

/** Drops undefined fields, and answers undefined for an object left empty. */
function compact<T extends object>(value: T): T | undefined {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return entries.length ? (Object.fromEntries(entries) as T) : undefined;
}

// Syft before 0.60 wrote Alpine packages as pkg:alpine/<name>; the purl spec's type is apk with
// the distribution as namespace, which is what vulnerability data is keyed by.
function modernize(purl: PackageURL): PackageURL {
  if (purl.type === 'alpine' && !purl.namespace) {
    return new PackageURL('apk', 'alpine', purl.name, purl.version, purl.qualifiers, purl.subpath);
  }
  return purl;
}

/** The canonical form of a package URL (type rules of packageurl-js applied), or null if invalid. */
export function normalizePurl(value: string): string | null {
  try {
    return modernize(PackageURL.fromString(value.trim())).toString();
  } catch {
    return null;
  }
}

function licenses(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const names: string[] = [];
  for (const item of value) {
    const entry = record(item);
    const license = record(entry?.license);
    const name = text(license?.id) ?? text(license?.name) ?? text(entry?.expression);
    if (name) names.push(name);
  }
  return names.length ? names : undefined;
}

function hashes(value: unknown): Hash[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const list: Hash[] = [];
  for (const item of value) {
    const hash = record(item);
    const alg = text(hash?.alg);
    const content = text(hash?.content);
    if (alg && content) list.push({ alg, content });
  }
  return list.length ? list : undefined;
}

export interface MappingStats {
  invalidPurls: number;
  skippedComponents: number;
}

/** A non-crypto component, or null when it has no name (CycloneDX requires one). */
export function toComponent(raw: Raw, stats: MappingStats): Component | null {
  const name = text(raw.name);
  if (!name) {
    stats.skippedComponents++;
    return null;
  }
  let purl: string | null | undefined;
  const rawPurl = text(raw.purl);
  if (rawPurl) {
    purl = normalizePurl(rawPurl);
    if (purl === null) stats.invalidPurls++;
  }
  return compact<Component>({
    bomRef: text(raw['bom-ref']),
    type: text(raw.type) ?? 'library',
    name,
    group: text(raw.group),
    version: text(raw.version),
    purl,
    licenses: licenses(raw.licenses),
    hashes: hashes(raw.hashes),
  })!;
}

/** The bom-ref of the first 1.7 `relatedCryptographicAssets` entry of the given type. */
function related(properties: Raw, type: string): string | undefined {
  const list = properties.relatedCryptographicAssets;
  if (!Array.isArray(list)) return undefined;
  for (const item of list) {
    const entry = record(item);
    if (entry?.type === type && text(entry.ref)) return text(entry.ref);
  }
  return undefined;
}

/** Text cut to `max` characters: a document may say anything, a stored row stays small. */
const clip = (value: unknown, max: number): string | undefined => text(value)?.slice(0, max);
const boolean = (value: unknown) => (typeof value === 'boolean' ? value : undefined);
const whole = (value: unknown) => { const n = number(value); return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined; };

/** A `{alg, content}` hash as the document gave it. */
function statedHash(value: unknown): Hash | undefined {
  const h = record(value);
  const alg = text(h?.alg);
  const content = text(h?.content);
  return alg && content ? { alg, content: content.slice(0, 256) } : undefined;
}

function algorithm(p: Raw): AlgorithmProperties | undefined {
  return compact<AlgorithmProperties>({
    primitive: text(p.primitive),
    algorithmFamily: text(p.algorithmFamily),
    parameterSetIdentifier: text(p.parameterSetIdentifier),
    curve: text(p.curve) ?? text(p.ellipticCurve),
    mode: text(p.mode),
    padding: text(p.padding),
    cryptoFunctions: texts(p.cryptoFunctions),
    classicalSecurityLevel: number(p.classicalSecurityLevel),
    nistQuantumSecurityLevel: number(p.nistQuantumSecurityLevel),
    executionEnvironment: text(p.executionEnvironment),
    implementationPlatform: text(p.implementationPlatform),
    certificationLevel: texts(p.certificationLevel),
  });
}

function certificate(p: Raw): CertificateProperties | undefined {
  return compact<CertificateProperties>({
    subjectName: clip(p.subjectName, MAX_TEXT),
    issuerName: clip(p.issuerName, MAX_TEXT),
    notValidBefore: text(p.notValidBefore),
    notValidAfter: text(p.notValidAfter),
    signatureAlgorithmRef: text(p.signatureAlgorithmRef) ?? related(p, 'algorithm'),
    subjectPublicKeyRef: text(p.subjectPublicKeyRef) ?? related(p, 'publicKey'),
    certificateFormat: text(p.certificateFormat),
    certificateFileExtension: text(p.certificateFileExtension) ?? text(p.certificateExtension),
    serialNumber: clip(p.serialNumber, MAX_CONTEXT),
    fingerprint: statedHash(p.fingerprint),
  });
}

function protocol(p: Raw): ProtocolProperties | undefined {
  const suites = Array.isArray(p.cipherSuites)
    ? p.cipherSuites
        .map((s) => record(s))
        .filter((s): s is Raw => s !== undefined)
        .map((s) => compact<CipherSuite>({ name: text(s.name), algorithms: texts(s.algorithms), identifiers: texts(s.identifiers) }))
        .filter((s): s is CipherSuite => s !== undefined)
    : [];
  const ike = record(p.ikev2TransformTypes) ?? {};
  return compact<ProtocolProperties>({
    type: text(p.type),
    version: text(p.version),
    cipherSuites: suites.length ? suites : undefined,
    cryptoRefs: texts(p.cryptoRefArray),
    ikev2: compact({ encr: texts(ike.encr), prf: texts(ike.prf), integ: texts(ike.integ), ke: texts(ike.ke), auth: texts(ike.auth), esn: boolean(ike.esn) }),
  });
}

/**
 * SHA-256 of a public key's value as the document wrote it: it stands in for the value, which is never
 * kept. Secret material (private and secret keys, passwords, tokens, seeds) gets none: a low-entropy
 * secret could be guessed from its hash, and the same secret would match across projects.
 */
const valueFingerprint = (type: unknown, value: unknown): Hash | undefined =>
  (type === 'public-key' && text(value) ? { alg: 'SHA-256', content: createHash('sha256').update(String(value)).digest('hex') } : undefined);

function relatedCryptoMaterial(p: Raw): RelatedCryptoMaterialProperties | undefined {
  const securedBy = record(p.securedBy) ?? {};
  return compact<RelatedCryptoMaterialProperties>({
    type: text(p.type),
    size: number(p.size),
    algorithmRef: text(p.algorithmRef) ?? related(p, 'algorithm'),
    format: text(p.format),
    state: text(p.state),
    id: clip(p.id, 256),
    creationDate: text(p.creationDate),
    activationDate: text(p.activationDate),
    updateDate: text(p.updateDate),
    expirationDate: text(p.expirationDate),
    securedBy: compact({ mechanism: clip(securedBy.mechanism, 256), algorithmRef: text(securedBy.algorithmRef) }),
    fingerprint: statedHash(p.fingerprint) ?? valueFingerprint(p.type, p.value),
  });
}

function occurrences(raw: Raw): number | undefined {
  const list = record(raw.evidence)?.occurrences;
  return Array.isArray(list) ? list.length : undefined;
}

/** How many evidence locations a crypto asset keeps (the count says how many there were). */
export const KEPT_LOCATIONS = 20;
/** How many of a crypto asset's `properties` are kept, and how long a kept text may be. */
export const KEPT_PROPERTIES = 50;
const MAX_TEXT = 1024;
const MAX_CONTEXT = 256;

/** The first evidence occurrences as the document gave them (long paths and contexts cut). */
function evidence(raw: Raw): Occurrence[] | undefined {
  const list = record(raw.evidence)?.occurrences;
  if (!Array.isArray(list)) return undefined;
  const kept = list.map(record).filter((o): o is Raw => Boolean(text(o?.location))).slice(0, KEPT_LOCATIONS)
    .map((o) => compact<Occurrence>({
      location: clip(o.location, MAX_TEXT)!, line: whole(o.line), offset: whole(o.offset), symbol: clip(o.symbol, MAX_CONTEXT), additionalContext: clip(o.additionalContext, MAX_CONTEXT),
    })!);
  return kept.length ? kept : undefined;
}

/** `path:line` (or the path alone) of each kept occurrence, for a developer to find the use. */
const locationsOf = (kept: Occurrence[] | undefined) => kept?.map((o) => (o.line !== undefined ? `${o.location}:${o.line}` : o.location));

function properties(raw: Raw): Property[] | undefined {
  if (!Array.isArray(raw.properties)) return undefined;
  const list = raw.properties.slice(0, KEPT_PROPERTIES).map(record).filter((p): p is Raw => Boolean(text(p?.name)))
    .map((p) => compact<Property>({ name: clip(p.name, MAX_CONTEXT)!, value: clip(p.value, MAX_TEXT) })!);
  return list.length ? list : undefined;
}

/** The common name of a distinguished name ("CN = www.google.com", "C=US, O=Org, CN=CA 1"), if it has one. */
export function commonName(dn: string | undefined): string | undefined {
  const cn = dn ? /(?:^|[,;/+])\s*CN\s*=\s*((?:\\.|[^,;/+])+)/i.exec(dn)?.[1]?.trim() : undefined;
  return cn || undefined;
}

/**
 * What a person calls a certificate: its own name, else the subject's common name (or the whole
 * subject), else where it was found with its validity; never an internal hash.
 */
function certificateName(raw: Raw, p: CertificateProperties | undefined, kept: Occurrence[] | undefined): string {
  const own = text(raw.name);
  if (own && own !== text(raw['bom-ref'])) return own;
  const subject = commonName(p?.subjectName) ?? p?.subjectName;
  if (subject) return subject;
  const valid = p?.notValidBefore && p.notValidAfter ? ` (valid ${p.notValidBefore.slice(0, 10)} to ${p.notValidAfter.slice(0, 10)})` : '';
  return kept?.length ? `certificate in ${kept[0]!.location}${valid}` : `unnamed certificate${valid}`;
}

/** A `cryptographic-asset` component, or null without a known `cryptoProperties.assetType`. */
export function toCryptoAsset(raw: Raw, stats: MappingStats): CryptoAsset | null {
  const cryptoProperties = record(raw.cryptoProperties);
  const assetType = cryptoProperties?.assetType;
  if (!cryptoProperties || !CRYPTO_ASSET_TYPES.includes(assetType as CryptoAssetType)) {
    stats.skippedComponents++;
    return null;
  }
  const section = (key: string) => record(cryptoProperties[key]) ?? {};
  const cert = assetType === 'certificate' ? certificate(section('certificateProperties')) : undefined;
  const kept = evidence(raw);
  const name = assetType === 'certificate' ? certificateName(raw, cert, kept) : text(raw.name) ?? text(raw['bom-ref']);
  if (!name) {
    stats.skippedComponents++;
    return null;
  }
  return compact<CryptoAsset>({
    bomRef: text(raw['bom-ref']),
    name,
    assetType: assetType as CryptoAssetType,
    oid: text(cryptoProperties.oid),
    algorithm: assetType === 'algorithm' ? algorithm(section('algorithmProperties')) : undefined,
    certificate: cert,
    protocol: assetType === 'protocol' ? protocol(section('protocolProperties')) : undefined,
    relatedCryptoMaterial:
      assetType === 'related-crypto-material' ? relatedCryptoMaterial(section('relatedCryptoMaterialProperties')) : undefined,
    occurrences: occurrences(raw),
    locations: locationsOf(kept),
    description: clip(raw.description, 4 * MAX_TEXT),
    version: clip(raw.version, MAX_CONTEXT),
    evidence: kept,
    properties: properties(raw),
  })!;
}

/** A document's `metadata.component`, when it names one. */
export function toMetadataComponent(raw: unknown): MetadataComponent | undefined {
  const component = record(raw);
  const name = text(component?.name);
  if (!component || !name) return undefined;
  const purl = text(component.purl);
  return compact<MetadataComponent>({
    name,
    version: text(component.version),
    purl: purl ? (normalizePurl(purl) ?? undefined) : undefined,
  });
}

export type MappedItem =
  | { kind: 'component'; item: Component }
  | { kind: 'cryptoAsset'; item: CryptoAsset }
  | { kind: 'dependency'; item: Dependency };

/** A component or crypto asset as mapped. */
type MappedComponent = Exclude<MappedItem, { kind: 'dependency' }>;

/** Nested items waiting to be mapped, with the nearest enclosing component that has a bom-ref. */
interface Pending {
  raw: unknown;
  parent?: MappedComponent;
}

/**
 * A top-level component and everything nested in its `components`, parents first. Each nested item
 * keeps the bom-ref of the nearest enclosing component that has one (`parentRef`), and that
 * component counts its nested components (`nestedComponents`). Iterative, so a deeply nested
 * document cannot overflow the call stack.
 */
export function flattenComponent(root: unknown, stats: MappingStats): MappedItem[] {
  const out: MappedComponent[] = [];
  const stack: Pending[] = [{ raw: root }];
  while (stack.length) {
    const { raw: value, parent } = stack.pop()!;
    const raw = record(value);
    if (!raw) continue;
    const parentRef = parent?.item.bomRef;
    let mapped: MappedComponent | undefined;
    if (raw.type === 'cryptographic-asset') {
      const asset = toCryptoAsset(raw, stats);
      if (asset) mapped = { kind: 'cryptoAsset', item: parentRef ? { ...asset, parentRef } : asset };
    } else {
      const component = toComponent(raw, stats);
      if (component) {
        mapped = { kind: 'component', item: parentRef ? { ...component, parentRef } : component };
        if (parent?.kind === 'component') parent.item.nestedComponents = (parent.item.nestedComponents ?? 0) + 1;
      }
    }
    if (mapped) out.push(mapped);
    if (Array.isArray(raw.components)) {
      // Children of an item without a bom-ref (or skipped) belong to the nearest ancestor that has one.
      const holder = mapped?.item.bomRef ? mapped : parent;
      for (let i = raw.components.length - 1; i >= 0; i--) stack.push({ raw: raw.components[i], parent: holder });
    }
  }
  return out;
}

/** Distinct refs kept per `dependsOn` or `provides` list of one dependency (a larger list is cut). */
export const MAX_DEPENDENCY_REFS = 1_000;
/** Characters of refs kept per list, so a dependency row stays far below the size one stored item may have. */
export const MAX_DEPENDENCY_REF_CHARS = 64 * 1024;

/**
 * The distinct bom-refs of one or more lists (strings, or `{ref}` objects as some writers put them),
 * in order, at most MAX_DEPENDENCY_REFS of them and MAX_DEPENDENCY_REF_CHARS characters.
 */
export function refList(...lists: unknown[]): string[] {
  const seen = new Set<string>();
  let chars = 0;
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const ref = text(entry) ?? text(record(entry)?.ref);
      if (!ref || seen.has(ref)) continue;
      if (seen.size >= MAX_DEPENDENCY_REFS || chars + ref.length > MAX_DEPENDENCY_REF_CHARS) return [...seen];
      seen.add(ref);
      chars += ref.length;
    }
  }
  return [...seen];
}

/** A `dependencies[]` entry, or null without a `ref`. */
export function toDependency(value: unknown): Dependency | null {
  const raw = record(value);
  const ref = text(raw?.ref);
  if (!raw || !ref) return null;
  return { ref, dependsOn: refList(raw.dependsOn), provides: refList(raw.provides) };
}
