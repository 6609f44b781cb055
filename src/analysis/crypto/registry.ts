// The CycloneDX cryptography registry as @cyclonedx/cyclonedx-library 10.3.0 ships it
// (res/schema/cryptography-defs.SNAPSHOT.schema.json, CycloneDX/specification commit 349314a9,
// stamped 2026-03-05): the enum of algorithm families and the enum of elliptic curves
// ("category/name"). The package's `exports` do not name the file, so it is imported by path (esbuild
// and vite bundle it into the worker). Families and curves the classifier emits are these names; the
// few it adds are listed in ADDED_FAMILIES, each with why.
import registry from '../../../node_modules/@cyclonedx/cyclonedx-library/res/schema/cryptography-defs.SNAPSHOT.schema.json';

export const REGISTRY_FAMILIES: ReadonlySet<string> = new Set(registry.definitions.algorithmFamiliesEnum.enum);
export const REGISTRY_CURVES: readonly string[] = registry.definitions.ellipticCurvesEnum.enum;
/** The registry snapshot's own timestamp, for provenance. */
export const REGISTRY_STAMP: string = registry.$comment;

/** Families the classifier names that the registry snapshot has no entry for. */
export const ADDED_FAMILIES: Record<string, string> = {
  RSA: 'an RSA key or use whose scheme (PKCS#1 v1.5, PSS, OAEP) the BOM does not say',
  EC: 'an elliptic-curve key (ecPublicKey) usable for ECDSA or ECDH',
  Kyber: 'pre-standard CRYSTALS-Kyber (round 3), not FIPS 203',
  Dilithium: 'pre-standard CRYSTALS-Dilithium (round 3), not FIPS 204',
  'SPHINCS+': 'pre-standard SPHINCS+ (round 3), not FIPS 205',
  Falcon: 'Falcon, whose standard (FN-DSA, FIPS 206) is not final',
  'X-Wing': 'the X-Wing hybrid KEM (X25519 + ML-KEM-768, draft-connolly-cfrg-xwing-kem)',
  'TLS-PRF': 'the TLS 1.0-1.2 PRF (registry data has it; the schema snapshot does not)',
  'SSH-KDF': 'the SSH key derivation (registry data has it; the schema snapshot does not)',
  'SP800-56C': 'the SP 800-56C key derivation (registry data has it; the schema snapshot does not)',
  'ANSI-KDF': 'the X9.42/X9.63 key derivation (registry data has it; the schema snapshot does not)',
  'PQC-candidate': 'post-quantum schemes NIST has not standardised (HQC, BIKE, FrodoKEM, Classic McEliece, NTRU, NTRU Prime)',
  NULL: 'no cipher at all (TLS NULL suites)',
  MGF1: 'the PKCS #1 mask generation function (RFC 8017 B.2.1) inside OAEP and PSS, judged by its hash',
};

export interface Curve {
  /** The registry's name, `category/name` (e.g. `nist/P-256`), or the text seen when the registry lacks it. */
  registry: string;
  /** Short display name: `P256`, `secp256k1`, `Curve25519`, `brainpoolP256r1`. */
  name: string;
  /** Field size in bits. */
  bits: number;
  inRegistry: boolean;
}

// Names that mean the same curve (SEC 2, X9.62, FIPS 186/SP 800-186, RFC 4492/8422, RFC 7748, OpenSSH).
const ALIASES: Record<string, string> = {};
const alias = (target: string, ...names: string[]) => names.forEach((n) => (ALIASES[n.toLowerCase()] = target));
alias('nist/P-192', 'P-192', 'P192', 'nistp192', 'secp192r1', 'prime192v1', 'ansip192r1');
alias('nist/P-224', 'P-224', 'P224', 'nistp224', 'secp224r1', 'ansip224r1', 'wap-wsg-idm-ecid-wtls12');
alias('nist/P-256', 'P-256', 'P256', 'nistp256', 'secp256r1', 'prime256v1', 'ansip256r1');
alias('nist/P-384', 'P-384', 'P384', 'nistp384', 'secp384r1', 'ansip384r1');
alias('nist/P-521', 'P-521', 'P521', 'nistp521', 'secp521r1', 'ansip521r1');
for (const [bits, k, b] of [[163, 'sect163k1', 'sect163r2'], [233, 'sect233k1', 'sect233r1'], [283, 'sect283k1', 'sect283r1'], [409, 'sect409k1', 'sect409r1'], [571, 'sect571k1', 'sect571r1']] as const) {
  alias(`nist/K-${bits}`, `K-${bits}`, k, `ansit${bits}k1`);
  alias(`nist/B-${bits}`, `B-${bits}`, b);
}
alias('other/Curve25519', 'Curve25519', 'x25519');
alias('other/Curve448', 'Curve448', 'x448');
alias('other/Ed25519', 'Ed25519', 'edwards25519');
alias('other/Ed448', 'Ed448', 'edwards448');
alias('oscaa/SM2', 'SM2', 'sm2p256v1', 'curveSM2');
alias('anssi/FRP256v1', 'FRP256v1');

/** Every name a registry curve goes by (`nist/P-384`: P-384, P384, nistp384, secp384r1, ansip384r1), for search. */
export function curveNames(registryName: string): string[] {
  const names = Object.entries(ALIASES).filter(([, target]) => target === registryName).map(([name]) => name);
  return [registryName.slice(registryName.indexOf('/') + 1), ...names];
}

const SIZES: Record<string, number> = { 'other/Curve25519': 255, 'other/Curve448': 448, 'other/Ed25519': 255, 'other/Ed448': 448, 'other/Ed448-Goldilocks': 448, 'oscaa/SM2': 256, 'anssi/FRP256v1': 256, 'other/FourQ': 256, 'other/JubJub': 255, 'other/Pallas': 255, 'other/Vesta': 255 };

const BY_NAME = new Map(REGISTRY_CURVES.map((c) => [c.slice(c.indexOf('/') + 1).toLowerCase(), c]));

const display = (registryName: string) => {
  const name = registryName.slice(registryName.indexOf('/') + 1);
  return /^[PBK]-\d{3}$/.test(name) ? name.replace('-', '') : name;
};

/** A curve from any of its names (`secp256r1`, `prime256v1`, `P-256`, `nist/P-256`, `x25519`, ...). */
export function curveOf(text: string | undefined): Curve | undefined {
  if (!text) return undefined;
  const t = text.trim().replace(/^[a-z0-9]+\//i, '').replace(/tls13$/i, '').toLowerCase();
  const found = ALIASES[t] ?? BY_NAME.get(t);
  const digits = /(\d{3})/.exec(t)?.[1];
  if (found) return { registry: found, name: display(found), bits: SIZES[found] ?? Number(/(\d{3})/.exec(found)?.[1] ?? 0), inRegistry: true };
  // A curve the registry does not list but whose size the name gives (e.g. "brainpoolP256r1tls13").
  if (digits && /^(secp|sect|prime|brainpool|c2[opt]nb|ansi[pt]|nistp|p-?)\w*$/.test(t)) return { registry: text.trim(), name: text.trim(), bits: Number(digits), inRegistry: false };
  return undefined;
}

/** Classical security strength of an elliptic-curve key by field size (SP 800-57 Part 1 Rev. 5, table 2). */
export function curveStrength(bits: number): number {
  return bits >= 512 ? 256 : bits >= 384 ? 192 : bits >= 255 ? 128 : bits >= 224 ? 112 : bits >= 160 ? 80 : Math.floor(bits / 2);
}
