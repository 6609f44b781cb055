// What the bundle reader hands to the analysis consumer: plain data, no classes.
import type { Manifest } from './manifest';
import type { JsonObject } from '../lib/json';

export type BundleFormat = 'cyclonedx-json' | 'tar.gz' | 'zip';

export interface Hash {
  alg: string;
  content: string;
}

/** A CycloneDX component other than a cryptographic asset (library, application, OS, ...). */
export interface Component {
  bomRef?: string;
  type: string;
  name: string;
  group?: string;
  version?: string;
  /** Canonical package URL; null when the document's purl could not be parsed. */
  purl?: string | null;
  licenses?: string[];
  hashes?: Hash[];
  /** The bom-ref of the component it is nested in (`components[].components`): the nearest enclosing one that has a bom-ref. */
  parentRef?: string;
  /** How many components name this one as their `parentRef` (so the graph looks for nested ones only where there are some). */
  nestedComponents?: number;
}

export const CRYPTO_ASSET_TYPES = ['algorithm', 'certificate', 'protocol', 'related-crypto-material'] as const;
export type CryptoAssetType = (typeof CRYPTO_ASSET_TYPES)[number];

export interface AlgorithmProperties {
  primitive?: string;
  /** CycloneDX 1.7 `algorithmFamily` (e.g. "RSA", "ML-DSA"). */
  algorithmFamily?: string;
  parameterSetIdentifier?: string;
  /** `curve` (1.6) or `ellipticCurve` (1.7). */
  curve?: string;
  mode?: string;
  padding?: string;
  cryptoFunctions?: string[];
  classicalSecurityLevel?: number;
  nistQuantumSecurityLevel?: number;
  executionEnvironment?: string;
  implementationPlatform?: string;
  certificationLevel?: string[];
}

/** One evidence occurrence as the document gave it (CycloneDX `evidence.occurrences[]`). */
export interface Occurrence {
  location: string;
  line?: number;
  offset?: number;
  symbol?: string;
  additionalContext?: string;
}

/** A CycloneDX `properties[]` entry (name and value). */
export interface Property {
  name: string;
  value?: string;
}

export interface CertificateProperties {
  subjectName?: string;
  issuerName?: string;
  notValidBefore?: string;
  notValidAfter?: string;
  /** 1.6 `signatureAlgorithmRef`, or the 1.7 related asset of type `algorithm`. */
  signatureAlgorithmRef?: string;
  /** 1.6 `subjectPublicKeyRef`, or the 1.7 related asset of type `publicKey`. */
  subjectPublicKeyRef?: string;
  certificateFormat?: string;
  /** 1.6 `certificateExtension` or 1.7 `certificateFileExtension` (the file's extension). */
  certificateFileExtension?: string;
  /** 1.7 only. */
  serialNumber?: string;
  /** 1.7 `fingerprint`: what identifies the certificate across files. */
  fingerprint?: Hash;
}

export interface CipherSuite {
  name?: string;
  algorithms?: string[];
  identifiers?: string[];
}

export interface ProtocolProperties {
  type?: string;
  version?: string;
  cipherSuites?: CipherSuite[];
  /** bom-refs of the algorithms and materials the protocol uses (`cryptoRefArray`). */
  cryptoRefs?: string[];
  /** IKEv2 transform types: bom-refs per transform (`encr`, `prf`, `integ`, `ke`, `auth`) and `esn`. */
  ikev2?: { encr?: string[]; prf?: string[]; integ?: string[]; ke?: string[]; auth?: string[]; esn?: boolean };
}

export interface RelatedCryptoMaterialProperties {
  type?: string;
  size?: number;
  /** 1.6 `algorithmRef`, or the 1.7 related asset of type `algorithm`. */
  algorithmRef?: string;
  format?: string;
  state?: string;
  id?: string;
  creationDate?: string;
  activationDate?: string;
  updateDate?: string;
  expirationDate?: string;
  securedBy?: { mechanism?: string; algorithmRef?: string };
  /**
   * The document's fingerprint (1.7), else the SHA-256 of the key's `value`. The value itself is never
   * kept: a secret must not reach a report, a document or a log.
   */
  fingerprint?: Hash;
}

/** A CycloneDX `cryptographic-asset` component (CBOM, CycloneDX 1.6/1.7). */
export interface CryptoAsset {
  bomRef?: string;
  name: string;
  assetType: CryptoAssetType;
  oid?: string;
  algorithm?: AlgorithmProperties;
  certificate?: CertificateProperties;
  protocol?: ProtocolProperties;
  relatedCryptoMaterial?: RelatedCryptoMaterialProperties;
  /** How many places the document's evidence says the asset was found in. */
  occurrences?: number;
  /** The first of those places (`path:line`), at most KEPT_LOCATIONS. */
  locations?: string[];
  /** The bom-ref of the component it is nested in: the nearest enclosing one that has a bom-ref. */
  parentRef?: string;
  /** What the document said beside the properties, kept for the `cbom` report. */
  description?: string;
  version?: string;
  /** The first evidence occurrences as the document gave them (at most KEPT_LOCATIONS). */
  evidence?: Occurrence[];
  /** The component's `properties` (at most KEPT_PROPERTIES). */
  properties?: Property[];
}

/**
 * One `dependencies[]` entry: what the component or asset `ref` depends on and (CycloneDX 1.6+)
 * what it provides, as bom-refs. Each list holds at most MAX_DEPENDENCY_REFS distinct refs.
 */
export interface Dependency {
  ref: string;
  dependsOn: string[];
  provides: string[];
}

/** One observed use of cryptography at run time (a line of `runtime/*.jsonl`). */
export interface Observation {
  algorithm: string;
  keySize?: number;
  protocol?: string;
  cipherSuite?: string;
  group?: string;
  library?: string;
  count: number;
}

export interface MetadataComponent {
  name: string;
  version?: string;
  purl?: string;
}

export interface DocumentSummary {
  /** Path inside the archive, or the bundle's file name for a single document. */
  path: string;
  specVersion: string;
  serialNumber?: string;
  metadataComponent?: MetadataComponent;
  components: number;
  cryptoAssets: number;
  dependencies: number;
}

export interface SkippedEntry {
  path: string;
  reason: string;
}

export interface BundleSummary {
  format: BundleFormat;
  manifest: Manifest | null;
  documents: DocumentSummary[];
  components: number;
  cryptoAssets: number;
  observations: number;
  dependencies: number;
  /** Components whose purl could not be parsed (kept with `purl: null`). */
  invalidPurls: number;
  /** Components without a name and crypto assets without a known `cryptoProperties.assetType`. */
  skippedComponents: number;
  /** `*.json` archive entries that are not CycloneDX 1.2-1.7 documents. */
  skippedEntries: number;
  /** The first few skipped entries with the reason, for the data-health record. */
  skipped: SkippedEntry[];
  /** The first document's `metadata.component.name` (see subjectOf). */
  subjectFromDocuments: string | null;
}

export interface ItemSource {
  /** The document or runtime file the item came from. */
  path: string;
}

export interface ObservationSource extends ItemSource {
  line: number;
}

/**
 * Called in document order as items are parsed. The reader awaits each call before parsing on,
 * so a consumer that buffers and writes batches gets back-pressure for free.
 */
export interface BundleSinks {
  onComponent?(component: Component, source: ItemSource): void | Promise<void>;
  onCryptoAsset?(asset: CryptoAsset, source: ItemSource): void | Promise<void>;
  onObservation?(observation: Observation, source: ObservationSource): void | Promise<void>;
  onDependency?(dependency: Dependency, source: ItemSource): void | Promise<void>;
}

/**
 * What an analysis stores: what the bundle holds (components, crypto assets, runtime observations,
 * the documents' dependency graph) and the findings derived from them (classified cryptography from
 * assets and from observations, advisories per component). Findings live beside the contents they
 * come from and are flipped with them, so a subject's findings always match its contents.
 */
export const CONTENT_KINDS = ['component', 'crypto_asset', 'observation', 'dependency', 'crypto_finding', 'runtime_finding', 'vuln_finding'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];
export type FindingKind = 'crypto_finding' | 'runtime_finding' | 'vuln_finding';
/** How many rows of each kind an analysis stored. */
export type StoredCounts = Record<ContentKind, number>;

/** A stored item as the analysis reads it back (a page of one kind of an analysis attempt's rows). */
export interface AnalysisRow {
  key: string;
  name: string;
  purl: string | null;
  version: string | null;
  data: JsonObject;
}

/** A finding as the analysis derives it: its identity in the subject, what it names, and the whole entry. */
export type FindingRow = AnalysisRow;

/** The library component a crypto asset is used through (`provided_by` of a crypto finding). */
export interface ProvidedBy {
  name: string;
  purl: string | null;
  bom_ref: string;
}
