// The CycloneDX 1.6 documents of the `cbom` and `composition` reports: a cryptographic-asset
// component from what the analysis stored (values outside the 1.6 enumerations become `other`, so
// the document validates against the official schema), and the document's opening and closing.
import type { JsonObject } from '../lib/json';
import type { AnalysisRow, ContentKind } from '../project/analysis-store';

const PRIMITIVES = new Set(['drbg', 'mac', 'block-cipher', 'stream-cipher', 'signature', 'hash', 'pke', 'xof', 'kdf', 'key-agree', 'kem', 'ae', 'combiner', 'other', 'unknown']);
const MODES = new Set(['cbc', 'ecb', 'ccm', 'gcm', 'cfb', 'ofb', 'ctr', 'other', 'unknown']);
const PADDINGS = new Set(['pkcs5', 'pkcs7', 'pkcs1v15', 'oaep', 'raw', 'other', 'unknown']);
const ENVIRONMENTS = new Set(['software-plain-ram', 'software-encrypted-ram', 'software-tee', 'hardware', 'other', 'unknown']);
const PLATFORMS = new Set(['generic', 'x86_32', 'x86_64', 'armv7-a', 'armv7-m', 'armv8-a', 'armv8-m', 'armv9-a', 'armv9-m', 's390x', 'ppc64', 'ppc64le', 'other', 'unknown']);
const FUNCTIONS = new Set(['generate', 'keygen', 'encrypt', 'decrypt', 'digest', 'tag', 'keyderive', 'sign', 'verify', 'encapsulate', 'decapsulate', 'other', 'unknown']);
const MATERIAL_TYPES = new Set(['private-key', 'public-key', 'secret-key', 'key', 'ciphertext', 'signature', 'digest', 'initialization-vector', 'nonce', 'seed', 'salt', 'shared-secret', 'tag', 'additional-data', 'password', 'credential', 'token', 'other', 'unknown']);
const MATERIAL_STATES = new Set(['pre-activation', 'active', 'suspended', 'deactivated', 'compromised', 'destroyed']);
const PROTOCOL_TYPES = new Set(['tls', 'ssh', 'ipsec', 'ike', 'sstp', 'wpa', 'other', 'unknown']);

/** The value when the 1.6 enumeration has it (compared in lower case), else `other`; undefined stays undefined. */
const member = (set: Set<string>, value: unknown) => (typeof value === 'string' ? (set.has(value.toLowerCase()) ? value.toLowerCase() : 'other') : undefined);
const integer = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** Drops undefined fields (and objects left empty), so the document carries only what is known. */
function compact(o: Record<string, unknown>): JsonObject | undefined {
  const out = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && !(Array.isArray(v) && !v.length)));
  return Object.keys(out).length ? out : undefined;
}

function algorithmProperties(a: JsonObject = {}): JsonObject | undefined {
  return compact({
    primitive: member(PRIMITIVES, a.primitive), parameterSetIdentifier: text(a.parameterSetIdentifier), curve: text(a.curve),
    executionEnvironment: member(ENVIRONMENTS, a.executionEnvironment), implementationPlatform: member(PLATFORMS, a.implementationPlatform),
    mode: member(MODES, a.mode), padding: member(PADDINGS, a.padding),
    cryptoFunctions: Array.isArray(a.cryptoFunctions) ? [...new Set(a.cryptoFunctions.map((f: unknown) => member(FUNCTIONS, f)).filter(Boolean))] : undefined,
    classicalSecurityLevel: integer(a.classicalSecurityLevel), nistQuantumSecurityLevel: integer(a.nistQuantumSecurityLevel),
  });
}

function certificateProperties(c: JsonObject = {}): JsonObject | undefined {
  return compact({
    subjectName: text(c.subjectName), issuerName: text(c.issuerName), notValidBefore: text(c.notValidBefore), notValidAfter: text(c.notValidAfter),
    signatureAlgorithmRef: text(c.signatureAlgorithmRef), subjectPublicKeyRef: text(c.subjectPublicKeyRef),
    certificateFormat: text(c.certificateFormat), certificateExtension: text(c.certificateFileExtension),
  });
}

function protocolProperties(p: JsonObject = {}): JsonObject | undefined {
  const suites = Array.isArray(p.cipherSuites) ? p.cipherSuites.map((s: JsonObject) => compact({
    name: text(s.name), algorithms: Array.isArray(s.algorithms) ? s.algorithms.filter(text) : undefined,
    identifiers: Array.isArray(s.identifiers) ? s.identifiers.filter(text) : undefined,
  })).filter(Boolean) : undefined;
  return compact({
    type: member(PROTOCOL_TYPES, p.type), version: text(p.version), cipherSuites: suites,
    cryptoRefArray: Array.isArray(p.cryptoRefs) ? p.cryptoRefs.filter(text) : undefined,
  });
}

function materialProperties(m: JsonObject = {}): JsonObject | undefined {
  return compact({
    type: member(MATERIAL_TYPES, m.type), size: integer(m.size), algorithmRef: text(m.algorithmRef), format: text(m.format),
    state: typeof m.state === 'string' && MATERIAL_STATES.has(m.state.toLowerCase()) ? m.state.toLowerCase() : undefined,
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
  return {
    type: 'cryptographic-asset', 'bom-ref': text(d.bomRef) ?? `asset:${row.key}`, name: row.name,
    cryptoProperties: { assetType, ...(properties?.[1] ? { [properties[0]]: properties[1] } : {}), ...(text(d.oid) ? { oid: d.oid } : {}) },
    ...(integer(d.occurrences) ? { properties: [{ name: 'posture:occurrences', value: String(d.occurrences) }] } : {}),
  };
}

/** A library (or other) component of the composition report's SBOM. */
export function cycloneDxLibraryOf(row: AnalysisRow): JsonObject {
  const d = row.data;
  const type = ['application', 'framework', 'library', 'container', 'platform', 'operating-system', 'device', 'device-driver', 'firmware', 'file', 'machine-learning-model', 'data'].includes(d.type) ? d.type : 'library';
  return compact({
    type, 'bom-ref': `component:${row.key}`, group: text(d.group), name: row.name, version: text(row.version), purl: text(row.purl),
  })!;
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
