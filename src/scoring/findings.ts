// A subject's findings as the scoring model weighs them (docs/scoring.md, "Findings"): every
// vulnerability, every cryptographic asset or runtime use to move away from, and what makes its
// cryptography hard to replace, each with its penalty on one axis and the fix row that removes it.
// Plain functions over what the analysis stored (src/project/scoring-store.ts reads it).
import { PackageURL } from 'packageurl-js';
import type { JsonObject } from '../lib/json';
import { cryptoLibraryByName, cryptoLibraryOf, type CryptoLibraryMatch } from './crypto-libraries';
import { AGILITY_PENALTY, pqcPenalty, usageFactor, vulnPenalty, type Axis } from './model';

export interface ScoredFinding {
  subject: string;
  /** Unique within the subject: a finding key can repeat (one advisory on two versions of a package). */
  id: string;
  axis: Axis;
  /** Its identity in its fix row: the advisory id, the crypto finding's key, `pqc-support:<library>`, ... */
  findingKey: string;
  /** The fix row that removes it (`pkg:...` a package to upgrade, `algorithm:...` a use to migrate); null when none can. */
  itemKey: string | null;
  penalty: number;
  /** What rows, breakdowns and documents show of it. */
  detail: JsonObject;
}

/** What the analysis stored for one subject, as the scoring store reads it. */
export interface SubjectEvidence {
  subject: string;
  /** `vuln_finding` rows' data, with how many times their component was listed. */
  vulns: { data: JsonObject; listed: number }[];
  /** `crypto_finding` rows' data, with the protocol properties of the asset (for protocols). */
  crypto: { data: JsonObject; protocol: JsonObject | null }[];
  /** `runtime_finding` rows' data. */
  runtime: JsonObject[];
  /** Components that may be crypto libraries (the store filters by name first). */
  libraries: { key: string; name: string; purl: string | null; version: string | null; listed: number }[];
  /** What each component with a finding bundles (nested components, the dependency graph), by component key. */
  bundles?: Record<string, { name: string; purl: string | null; version: string | null }[]>;
}

/** Package URLs seen lately and their item keys: a portfolio names the same few thousand packages in every subject. */
const itemKeys = new Map<string, string>();
const ITEM_KEYS_KEPT = 10_000;

/** A package URL without its version, qualifiers and subpath: the package a team upgrades. */
export function packageItemKey(purl: string): string {
  let key = itemKeys.get(purl);
  if (key === undefined) {
    if (itemKeys.size >= ITEM_KEYS_KEPT) itemKeys.clear();
    itemKeys.set(purl, (key = itemKeyOf(purl)));
  }
  return key;
}

function itemKeyOf(purl: string): string {
  try {
    const p = PackageURL.fromString(purl);
    return new PackageURL(p.type, p.namespace, p.name, undefined, undefined, undefined).toString();
  } catch {
    const bare = purl.split(/[?#]/)[0]!;
    const at = bare.lastIndexOf('@');
    return at > bare.lastIndexOf('/') ? bare.slice(0, at) : bare;
  }
}

/**
 * The migration row of a cryptographic finding. Quantum-vulnerable cryptography leaves as a family (every
 * RSA key and certificate is one move: `algorithm:RSA`); anything else is a matter of its parameters or
 * mode (SHA-224, AES-128-ECB, MD5), so its row is its normalised name.
 */
export const algorithmItemKey = (entry: JsonObject): string =>
  `algorithm:${String(entry.quantumVulnerable === true && entry.family ? entry.family : entry.name)}`;

/** File names that are source code: an algorithm named there is hard-coded in first-party code. */
const SOURCE_FILE = /\.(java|kt|kts|scala|groovy|go|py|rb|php|js|mjs|cjs|ts|tsx|jsx|cs|vb|fs|c|cc|cpp|cxx|h|hh|hpp|m|mm|swift|rs|dart|ex|exs|erl|clj|lua|pl|r)(:\d+)?$/i;
/** Protocols that agree on their algorithms at run time. */
const NEGOTIATING = /\b(tls|ssl|dtls|ssh|ipsec|ike|ikev2|quic|wireguard|noise)\b/i;

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const str = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

function vulnFinding(subject: string, data: JsonObject, listed: number, bundles: SubjectEvidence['bundles']): ScoredFinding | null {
  const purl = str(data.purl);
  const advisory = str(data.advisory_id);
  if (!purl || !advisory) return null;
  const severity = (data.severity ?? {}) as JsonObject;
  const fixVersion = str(data.fix_version) ?? str(data.fixed_version);
  const penalty = vulnPenalty({ score: num(severity.score), label: str(severity.label), fixAvailable: fixVersion !== null, uses: listed });
  return {
    subject, id: `vuln|${advisory}|${String(data.component_key ?? purl)}`, axis: 'vuln', findingKey: advisory, itemKey: packageItemKey(purl), penalty,
    detail: {
      kind: 'advisory', advisory_id: advisory, aliases: data.aliases ?? [], summary: data.summary ?? null,
      severity: str(severity.label) ?? 'unknown', cvss: num(severity.score), fixed_version: data.fixed_version ?? null, fix_version: data.fix_version ?? null,
      component_key: data.component_key ?? null, name: data.name ?? null, version: data.version ?? null, purl, ecosystem: data.ecosystem ?? null,
      uses: listed, source: data.source ?? null, explanation: data.explanation ?? null,
      bundles: (bundles?.[String(data.component_key)] ?? []) as unknown as JsonObject[],
    },
  };
}

function pqcFinding(subject: string, origin: 'crypto' | 'runtime', data: JsonObject, uses: number, asOf: string): ScoredFinding | null {
  const penalty = pqcPenalty({ section: String(data.section), deadline: str(data.deadline), uses }, asOf);
  if (penalty <= 0) return null;
  return {
    subject, id: `pqc|${origin}|${String(data.key)}`, axis: 'pqc', findingKey: String(data.key), itemKey: algorithmItemKey(data), penalty,
    detail: {
      kind: origin, name: data.name ?? null, asset_type: data.assetType ?? null, primitive: data.primitive ?? null, family: data.family ?? null,
      section: data.section ?? null, deadline: data.deadline ?? null, replacement: data.replacement ?? null, uses,
      locations: Array.isArray(data.locations) ? data.locations.slice(0, 10) : [], bom_ref: data.bom_ref ?? null, explanation: data.explanation ?? null,
      cnsa2: data.cnsa2 ?? null,
    },
  };
}

/** The agility finding of a crypto library the subject uses; fixable by upgrade when a capable release exists. */
function libraryFinding(subject: string, match: CryptoLibraryMatch, component: { key: string; name: string; purl: string | null } | null): ScoredFinding | null {
  const { library } = match;
  if (match.pqcCapable === true) return null;
  const penalty = match.pqcCapable === null ? AGILITY_PENALTY.libraryVersionUnknown
    : match.upgradeTo ? AGILITY_PENALTY.libraryBelowPqc : AGILITY_PENALTY.libraryWithoutPqc;
  const explanation = match.pqcCapable === null
    ? `${library.name} is used but its version is unknown: ${library.pqcSince ? `releases from ${library.pqcSince} support ML-KEM / ML-DSA` : 'no release supports ML-KEM / ML-DSA yet'}.`
    : match.upgradeTo
      ? `${library.name} ${match.version} has no standard post-quantum algorithms; ${match.upgradeTo} and later do (${library.note}).`
      : `${library.name} has no release with standard post-quantum algorithms: ${library.note}`;
  return {
    subject, id: `agility|pqc-support:${library.id}`, axis: 'agility', findingKey: `pqc-support:${library.id}`,
    itemKey: match.upgradeTo && component?.purl ? packageItemKey(component.purl) : null, penalty,
    detail: {
      kind: 'library', library: library.name, library_id: library.id, version: match.version, pqc_since: library.pqcSince, upgrade_to: match.upgradeTo,
      name: component?.name ?? library.name, purl: component?.purl ?? null, component_key: component?.key ?? null, source: library.source, explanation,
      version_installed: component ? match.version : null,
    },
  };
}

/** Every finding of one subject on every axis, with its penalty as of `asOf` (deadlines come closer). */
export function scoredFindings(evidence: SubjectEvidence, asOf: string): ScoredFinding[] {
  const { subject } = evidence;
  const out: ScoredFinding[] = [];
  for (const { data, listed } of evidence.vulns) {
    const finding = vulnFinding(subject, data, listed, evidence.bundles);
    if (finding) out.push(finding);
  }

  // Which implementations serve each primitive: the providing library, or first-party code.
  const implementations = new Map<string, Set<string>>();
  const implementedBy = (primitive: unknown, by: string) => {
    if (typeof primitive !== 'string' || !primitive) return;
    const set = implementations.get(primitive) ?? new Set<string>();
    set.add(by);
    implementations.set(primitive, set);
  };
  for (const { data, protocol } of evidence.crypto) {
    const uses = num(data.occurrences) ?? 1;
    const pqc = pqcFinding(subject, 'crypto', data, uses, asOf);
    if (pqc) out.push(pqc);
    const provider = (data.provided_by ?? null) as JsonObject | null;
    const locations = Array.isArray(data.locations) ? (data.locations as unknown[]).filter((l): l is string => typeof l === 'string') : [];
    const hardCoded = !provider && locations.some((l) => SOURCE_FILE.test(l));
    if (provider) implementedBy(data.primitive, String(provider.name ?? provider.purl ?? 'library'));
    else if (hardCoded) implementedBy(data.primitive, 'first-party code');
    if (hardCoded && (data.assetType === 'algorithm' || data.assetType === 'protocol')) {
      out.push({
        subject, id: `agility|hard-coded:${String(data.key)}`, axis: 'agility', findingKey: `hard-coded:${String(data.key)}`, itemKey: null, penalty: AGILITY_PENALTY.hardCoded * usageFactor(uses),
        detail: {
          kind: 'hard-coded', name: data.name ?? null, primitive: data.primitive ?? null, uses, locations: locations.slice(0, 10),
          explanation: `${String(data.name)} is chosen in first-party source code (${locations[0]}${locations.length > 1 ? ` and ${locations.length - 1} more` : ''}): moving away from it means changing code, not configuration. Take the algorithm from configuration or a crypto provider.`,
        },
      });
    }
    if (data.assetType === 'protocol' && protocol) {
      const suites = Array.isArray(protocol.cipherSuites) ? protocol.cipherSuites.length : 0;
      const type = `${str(protocol.type) ?? ''} ${String(data.name ?? '')}`;
      const pinned = suites === 1 || !NEGOTIATING.test(type);
      if (pinned) {
        out.push({
          subject, id: `agility|fixed-protocol:${String(data.key)}`, axis: 'agility', findingKey: `fixed-protocol:${String(data.key)}`, itemKey: null, penalty: AGILITY_PENALTY.fixedProtocol,
          detail: {
            kind: 'fixed-protocol', name: data.name ?? null, cipher_suites: suites,
            explanation: suites === 1
              ? `${String(data.name)} is configured with a single cipher suite: peers cannot agree on another algorithm without a configuration change on both sides.`
              : `${String(data.name)} does not negotiate its algorithms: both ends must change together.`,
          },
        });
      }
    }
  }

  for (const data of evidence.runtime) {
    const pqc = pqcFinding(subject, 'runtime', data, num(data.observed) ?? 1, asOf);
    if (pqc) out.push({ ...pqc, detail: { ...pqc.detail, library: data.library ?? null, protocol: data.protocol ?? null } });
    const library = str(data.library) ? cryptoLibraryByName(String(data.library)) : null;
    if (library) implementedBy(data.primitive, library.library.name);
  }

  // One finding per crypto library, whichever way it was seen (a component, or a runtime library name);
  // null: the library is used and capable. Several versions of one library: the worst one decides.
  const libraries = new Map<string, ScoredFinding | null>();
  const seeLibrary = (match: CryptoLibraryMatch | null, component: SubjectEvidence['libraries'][number] | null) => {
    if (!match) return;
    const finding = libraryFinding(subject, match, component);
    const known = libraries.get(match.library.id);
    if (!libraries.has(match.library.id) || (finding && (!known || finding.penalty > known.penalty))) libraries.set(match.library.id, finding);
  };
  for (const component of evidence.libraries) seeLibrary(cryptoLibraryOf(component), component);
  for (const data of evidence.runtime) {
    const match = str(data.library) ? cryptoLibraryByName(String(data.library)) : null;
    if (match && !libraries.has(match.library.id)) seeLibrary(match, null);
  }
  for (const finding of libraries.values()) if (finding) out.push(finding);

  for (const [primitive, by] of implementations) {
    if (by.size < 2) continue;
    const names = [...by].sort();
    out.push({
      subject, id: `agility|implementations:${primitive}`, axis: 'agility', findingKey: `implementations:${primitive}`, itemKey: null, penalty: AGILITY_PENALTY.extraImplementation * (by.size - 1),
      detail: {
        kind: 'implementations', primitive, implementations: names,
        explanation: `${by.size} implementations serve ${primitive} (${names.join(', ')}): each has to be migrated on its own. Serve it from one provider.`,
      },
    });
  }
  return out;
}
