// The CycloneDX 1.6 documents of the `cbom` and `composition` reports: a cryptographic-asset
// component from what the analysis stored, keeping what the source said (evidence with its
// locations, description, certification levels, every 1.6 property; 1.7-only fields as properties),
// never a key's value, which the reader does not keep (its fingerprint stands in as the component's
// hash). Values outside the 1.6 enumerations become `other` and malformed dates are left out, so the
// document validates against the official schema.
import type { JsonObject } from '../lib/json';
import type { AnalysisRow, ContentKind } from '../analysis/types';

const PRIMITIVES = new Set(['drbg', 'mac', 'block-cipher', 'stream-cipher', 'signature', 'hash', 'pke', 'xof', 'kdf', 'key-agree', 'kem', 'ae', 'combiner', 'other', 'unknown']);
const MODES = new Set(['cbc', 'ecb', 'ccm', 'gcm', 'cfb', 'ofb', 'ctr', 'other', 'unknown']);
const PADDINGS = new Set(['pkcs5', 'pkcs7', 'pkcs1v15', 'oaep', 'raw', 'other', 'unknown']);
const ENVIRONMENTS = new Set(['software-plain-ram', 'software-encrypted-ram', 'software-tee', 'hardware', 'other', 'unknown']);
const PLATFORMS = new Set(['generic', 'x86_32', 'x86_64', 'armv7-a', 'armv7-m', 'armv8-a', 'armv8-m', 'armv9-a', 'armv9-m', 's390x', 'ppc64', 'ppc64le', 'other', 'unknown']);
const FUNCTIONS = new Set(['generate', 'keygen', 'encrypt', 'decrypt', 'digest', 'tag', 'keyderive', 'sign', 'verify', 'encapsulate', 'decapsulate', 'other', 'unknown']);
const CERTIFICATIONS = new Set(['none', ...['1', '2', '3'].flatMap((v) => [1, 2, 3, 4].map((l) => `fips140-${v}-l${l}`)), ...[1, 2, 3, 4, 5, 6, 7].flatMap((l) => [`cc-eal${l}`, `cc-eal${l}+`]), 'other', 'unknown']);
const MATERIAL_TYPES = new Set(['private-key', 'public-key', 'secret-key', 'key', 'ciphertext', 'signature', 'digest', 'initialization-vector', 'nonce', 'seed', 'salt', 'shared-secret', 'tag', 'additional-data', 'password', 'credential', 'token', 'other', 'unknown']);
const MATERIAL_STATES = new Set(['pre-activation', 'active', 'suspended', 'deactivated', 'compromised', 'destroyed']);
const PROTOCOL_TYPES = new Set(['tls', 'ssh', 'ipsec', 'ike', 'sstp', 'wpa', 'other', 'unknown']);
const HASH_ALGORITHMS: Record<string, string> = { MD5: 'MD5', SHA1: 'SHA-1', SHA256: 'SHA-256', SHA384: 'SHA-384', SHA512: 'SHA-512', SHA3256: 'SHA3-256', SHA3384: 'SHA3-384', SHA3512: 'SHA3-512' };
const HEX_DIGEST = /^([a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{64}|[a-fA-F0-9]{96}|[a-fA-F0-9]{128})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** The value when the 1.6 enumeration has it (compared in lower case), else `other`; undefined stays undefined. */
const member = (set: Set<string>, value: unknown) => (typeof value === 'string' ? (set.has(value.toLowerCase()) ? value.toLowerCase() : 'other') : undefined);
const integer = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
const texts = (v: unknown) => (Array.isArray(v) ? [...new Set(v.filter((x): x is string => typeof x === 'string' && x !== ''))] : undefined);
const members = (set: Set<string>, v: unknown) => (Array.isArray(v) ? [...new Set(v.map((x: unknown) => member(set, x)).filter(Boolean))] : undefined);
/** An ISO 8601 date-time as the schema's `date-time` format takes it; anything else is left out. */
const dateTime = (v: unknown) => (typeof v === 'string' && DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)) ? v : undefined);

/** Drops undefined fields (and objects left empty), so the document carries only what is known. */
function compact(o: Record<string, unknown>): JsonObject | undefined {
  const out = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && !(Array.isArray(v) && !v.length)));
  return Object.keys(out).length ? out : undefined;
}

function algorithmProperties(a: JsonObject = {}): JsonObject | undefined {
  return compact({
    primitive: member(PRIMITIVES, a.primitive), parameterSetIdentifier: text(a.parameterSetIdentifier), curve: text(a.curve),
    executionEnvironment: member(ENVIRONMENTS, a.executionEnvironment), implementationPlatform: member(PLATFORMS, a.implementationPlatform),
    certificationLevel: members(CERTIFICATIONS, a.certificationLevel), mode: member(MODES, a.mode), padding: member(PADDINGS, a.padding),
    cryptoFunctions: members(FUNCTIONS, a.cryptoFunctions), classicalSecurityLevel: integer(a.classicalSecurityLevel), nistQuantumSecurityLevel: integer(a.nistQuantumSecurityLevel),
  });
}

function certificateProperties(c: JsonObject = {}): JsonObject | undefined {
  return compact({
    subjectName: text(c.subjectName), issuerName: text(c.issuerName), notValidBefore: dateTime(c.notValidBefore), notValidAfter: dateTime(c.notValidAfter),
    signatureAlgorithmRef: text(c.signatureAlgorithmRef), subjectPublicKeyRef: text(c.subjectPublicKeyRef),
    certificateFormat: text(c.certificateFormat), certificateExtension: text(c.certificateFileExtension),
  });
}

function protocolProperties(p: JsonObject = {}): JsonObject | undefined {
  const suites = Array.isArray(p.cipherSuites) ? p.cipherSuites.map((s: JsonObject) => compact({ name: text(s.name), algorithms: texts(s.algorithms), identifiers: texts(s.identifiers) })).filter(Boolean) : undefined;
  const ike = p.ikev2 ?? {};
  return compact({
    type: member(PROTOCOL_TYPES, p.type), version: text(p.version), cipherSuites: suites,
    ikev2TransformTypes: compact({ encr: texts(ike.encr), prf: texts(ike.prf), integ: texts(ike.integ), ke: texts(ike.ke), esn: typeof ike.esn === 'boolean' ? ike.esn : undefined, auth: texts(ike.auth) }),
    cryptoRefArray: texts(p.cryptoRefs),
  });
}

/** A key's properties: everything 1.6 defines but `value`, which is never copied (the component's hash is its fingerprint). */
function materialProperties(m: JsonObject = {}): JsonObject | undefined {
  return compact({
    type: member(MATERIAL_TYPES, m.type), id: text(m.id), state: typeof m.state === 'string' && MATERIAL_STATES.has(m.state.toLowerCase()) ? m.state.toLowerCase() : undefined,
    algorithmRef: text(m.algorithmRef), creationDate: dateTime(m.creationDate), activationDate: dateTime(m.activationDate), updateDate: dateTime(m.updateDate),
    expirationDate: dateTime(m.expirationDate), size: integer(m.size), format: text(m.format),
    securedBy: compact({ mechanism: text(m.securedBy?.mechanism), algorithmRef: text(m.securedBy?.algorithmRef) }),
  });
}

/** A fingerprint as a CycloneDX hash when 1.6 can say it, else as a property. */
function fingerprint(f: JsonObject | undefined): { hashes?: JsonObject[]; property?: JsonObject } {
  if (!f || !text(f.alg) || !text(f.content)) return {};
  const alg = HASH_ALGORITHMS[String(f.alg).toUpperCase().replace(/[^A-Z0-9]/g, '')];
  return alg && HEX_DIGEST.test(f.content) ? { hashes: [{ alg, content: String(f.content).toLowerCase() }] } : { property: { name: 'posture:fingerprint', value: `${f.alg}:${f.content}` } };
}

/** The evidence occurrences as stored; rows stored before they were kept have `path:line` locations only. */
function occurrences(d: JsonObject): JsonObject[] | undefined {
  if (Array.isArray(d.evidence)) return d.evidence.map((o: JsonObject) => compact({ location: String(o.location), line: integer(o.line), offset: integer(o.offset), symbol: text(o.symbol), additionalContext: text(o.additionalContext) })!);
  if (!Array.isArray(d.locations)) return undefined;
  return d.locations.map((l: string) => {
    const m = /^(.*):(\d+)$/.exec(l);
    return m ? { location: m[1]!, line: Number(m[2]) } : { location: l };
  });
}

/** A `cryptographic-asset` component of the report's CBOM, from a stored crypto asset or runtime observation. */
export function cycloneDxComponentOf(row: AnalysisRow, kind: ContentKind): JsonObject {
  const d = row.data;
  if (kind === 'observation') {
    return {
      type: 'cryptographic-asset', 'bom-ref': `observed:${row.key}`, name: String(d.algorithm ?? row.name),
      cryptoProperties: { assetType: 'algorithm', ...(d.keySizes?.length ? { algorithmProperties: { parameterSetIdentifier: String(d.keySizes[0]) } } : {}) },
      properties: [
        { name: 'posture:observed-count', value: String(d.count ?? 0) },
        ...(d.protocol ? [{ name: 'posture:protocol', value: String(d.protocol) }] : []),
        ...(d.library ? [{ name: 'posture:library', value: String(d.library) }] : []),
      ],
    };
  }
  const assetType = String(d.assetType);
  const properties = {
    algorithm: ['algorithmProperties', algorithmProperties(d.algorithm)],
    certificate: ['certificateProperties', certificateProperties(d.certificate)],
    protocol: ['protocolProperties', protocolProperties(d.protocol)],
    'related-crypto-material': ['relatedCryptoMaterialProperties', materialProperties(d.relatedCryptoMaterial)],
  }[assetType] as [string, JsonObject | undefined] | undefined;
  const print = fingerprint(d.certificate?.fingerprint ?? d.relatedCryptoMaterial?.fingerprint);
  const evidence = occurrences(d);
  const extra = [
    ...(Array.isArray(d.properties) ? d.properties.filter((p: JsonObject) => text(p.name)).map((p: JsonObject) => compact({ name: p.name, value: text(p.value) })!) : []),
    ...(integer(d.occurrences) ? [{ name: 'posture:occurrences', value: String(d.occurrences) }] : []),
    ...(text(d.algorithm?.algorithmFamily) ? [{ name: 'posture:algorithm-family', value: d.algorithm.algorithmFamily }] : []),
    ...(text(d.certificate?.serialNumber) ? [{ name: 'posture:certificate-serial-number', value: d.certificate.serialNumber }] : []),
    ...(print.property ? [print.property] : []),
  ];
  return compact({
    type: 'cryptographic-asset', 'bom-ref': text(d.bomRef) ?? `asset:${row.key}`, name: row.name, version: text(d.version), description: text(d.description),
    hashes: print.hashes, evidence: evidence?.length ? { occurrences: evidence } : undefined,
    cryptoProperties: { assetType, ...(properties?.[1] ? { [properties[0]]: properties[1] } : {}), ...(text(d.oid) ? { oid: d.oid } : {}) },
    properties: extra,
  })!;
}

const COMPONENT_TYPES = new Set(['application', 'framework', 'library', 'container', 'platform', 'operating-system', 'device', 'device-driver', 'firmware', 'file', 'machine-learning-model', 'data']);

/**
 * A library (or other) component of the composition report's SBOM, as JSON text (written straight
 * into the document: a 1.5M-component report writes it 1.5 million times); the cbom report keeps the
 * source's bom-ref, which its dependencies name. Only known fields, in a fixed order.
 */
export function cycloneDxLibraryJson(row: Pick<AnalysisRow, 'name' | 'version' | 'purl'> & { data: { type?: unknown; group?: unknown } }, bomRef: string): string {
  const type = typeof row.data.type === 'string' && COMPONENT_TYPES.has(row.data.type) ? row.data.type : 'library';
  const field = (name: string, value: string | undefined) => (value === undefined ? '' : `,"${name}":${JSON.stringify(value)}`);
  return `{"type":"${type}","bom-ref":${JSON.stringify(bomRef)}${field('group', text(row.data.group))}${field('name', row.name)}${field('version', text(row.version))}${field('purl', text(row.purl))}}`;
}

/** One `dependencies[]` entry of the cbom report: the source's lists, cut to the refs the document holds. */
export function cycloneDxDependencyOf(dependency: JsonObject, inDocument: (ref: string) => boolean): JsonObject {
  const keep = (list: unknown) => (Array.isArray(list) ? [...new Set(list.filter((r): r is string => typeof r === 'string' && inDocument(r)))] : []);
  const provides = keep(dependency.provides);
  return { ref: String(dependency.ref), dependsOn: keep(dependency.dependsOn), ...(provides.length ? { provides } : {}) };
}

/** The opening of a CycloneDX 1.6 document up to the `components` array's first bracket. */
export function documentHead(input: { serial: string; subject: string; producedAt: string; version: string }): string {
  const metadata = {
    timestamp: input.producedAt,
    tools: { components: [{ type: 'application', name: 'posture-service', version: input.version }] },
    component: { type: 'application', 'bom-ref': 'subject', name: input.subject },
  };
  return `{"bomFormat":"CycloneDX","specVersion":"1.6","serialNumber":"urn:uuid:${input.serial}","version":1,"metadata":${JSON.stringify(metadata)},"components":[`;
}

const CVSS_METHOD: Record<string, string> = { CVSS_V2: 'CVSSv2', CVSS_V3: 'CVSSv31', CVSS_V4: 'CVSSv4' };

/** A CycloneDX vulnerability from the entries of one advisory (each names one affected component). */
export function cycloneDxVulnerabilityOf(entries: JsonObject[]): JsonObject {
  const first = entries[0]!;
  const severity = first.severity ?? {};
  const rating = compact({
    score: typeof severity.score === 'number' ? severity.score : undefined,
    severity: ['critical', 'high', 'medium', 'low'].includes(severity.label) ? severity.label : 'unknown',
    method: severity.vector ? (CVSS_METHOD[severity.type] ?? (String(severity.vector).startsWith('CVSS:4') ? 'CVSSv4' : 'CVSSv31')) : 'other',
    vector: text(severity.vector),
  });
  const fixes = [...new Set(entries.map((e) => e.fixed_version).filter(text))];
  return compact({
    'bom-ref': `advisory:${first.advisory_id}`, id: String(first.advisory_id),
    source: { name: String(first.advisory_id).startsWith('GHSA-') ? 'GitHub Advisory Database' : 'OSV', url: `https://osv.dev/vulnerability/${first.advisory_id}` },
    references: Array.isArray(first.aliases) ? first.aliases.map((id: string) => ({ id, source: { name: id.startsWith('CVE-') ? 'NVD' : 'OSV' } })) : undefined,
    ratings: rating ? [rating] : undefined,
    description: text(first.summary),
    recommendation: fixes.length ? `Upgrade to ${fixes.join(' or ')} or later.` : undefined,
    published: text(first.published), updated: text(first.modified),
    affects: entries.map((e) => ({ ref: `component:${e.component_key}`, versions: [{ version: String(e.version ?? ''), status: 'affected' }] })),
  })!;
}
