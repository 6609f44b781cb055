// Rows for quantum-vulnerable public-key cryptography (all `red`), by scheme and strength.
// NIST IR 8547 ipd table 2 (quantum-vulnerable digital signatures: ECDSA, EdDSA, RSA) and table 4
// (quantum-vulnerable key establishment: finite-field DH and MQV, ECDH and ECMQV, RSA): 112-bit
// security deprecated after 2030, every strength disallowed after 2035. Under 112 bits they are already
// disallowed (SP 800-131A Rev. 2); strengths per SP 800-57 Part 1 Rev. 5 table 2.
import { EC_FAMILIES, RSA_FAMILIES, type Algorithm } from './normalize';
import {
  cnsa1, DEPRECATED_2030, DISALLOWED_2013, DISALLOWED_2035, DSA_FIPS186_5, notCnsa, publicKeyReplacement, SIGNATURES, type Row,
} from './policy';

export { EC_FAMILIES, RSA_FAMILIES };
const FF_FAMILIES = ['FFDH', 'ElGamal'];
const WEAK_HASHES = ['SHA-1', 'MD2', 'MD4', 'MD5'];

/** The size that decides an elliptic-curve algorithm's strength: the curve's, else the key's; EdDSA is 255 or 448 bits. */
export const ecBits = (a: Algorithm): number | undefined => a.curve?.bits ?? a.keyBits ?? (a.family === 'EdDSA' ? 255 : undefined);
const what = (a: Algorithm) => (a.curve && a.family !== 'ECDH' && a.family !== 'EdDSA' ? `${a.name} (curve ${a.curve.registry})` : a.name);
const SHOR = "a large quantum computer breaks it with Shor's algorithm";
const RSA_CNSA = notCnsa('CNSA 1.0 required RSA-3072 or more; CNSA 2.0 replaces RSA with ML-KEM-1024 and ML-DSA-87.');
const EC_CNSA = notCnsa('CNSA 1.0 required P-384; CNSA 2.0 replaces elliptic curves with ML-KEM-1024 and ML-DSA-87.');
const DH_CNSA = notCnsa('CNSA 1.0 required 3072-bit groups or more; CNSA 2.0 replaces Diffie-Hellman with ML-KEM-1024.');

export const PUBLIC_KEY_ROWS: Row[] = [
  {
    id: 'signature-weak-hash', section: 'red', families: [...RSA_FAMILIES, 'ECDSA', 'EC', 'DSA', 'SM2'], condition: 'signature over SHA-1 or MD2/MD4/MD5',
    when: (a) => WEAK_HASHES.includes(a.hash?.family ?? ''),
    source: 'SP 800-131A Rev. 2 sec. 9 (SHA-1 for digital signature generation disallowed after 2013); RFC 9155 (no SHA-1/MD5 signatures in TLS 1.2)',
    deadline: DISALLOWED_2013, quantumVulnerable: true, replacement: SIGNATURES,
    explain: (a) => `${a.name} signs a ${a.hash!.name} digest, and ${a.hash!.name} collisions are practical: signatures like this have been disallowed since 2013 and can be forged. Re-sign with SHA-256 or better now, and plan ML-DSA since ${SHOR}.`,
    cnsa2: () => notCnsa('Never allowed: CNSA requires SHA-384 or SHA-512.'),
    examples: [{ name: 'SHA1withRSA' }, { name: 'SHA1-RSA', parameterSetIdentifier: '160' }, { name: 'ssh-rsa' }, { name: 'ecdsa-with-SHA1' }, { name: 'MD5withRSA' }, { name: 'oid:1.2.840.113549.1.1.5', oid: '1.2.840.113549.1.1.5' }],
  },
  {
    id: 'dsa', section: 'red', families: ['DSA'],
    source: 'FIPS 186-5 (DSA no longer approved for signature generation, verification only); SP 800-131A Rev. 3 ipd',
    deadline: DSA_FIPS186_5, quantumVulnerable: true, replacement: SIGNATURES,
    explain: (a) => `${a.name}: FIPS 186-5 (2023) withdrew DSA for generating signatures, only verifying old ones remains allowed, and ${SHOR}. Sign with ML-DSA (or ECDSA/EdDSA until then) instead.`,
    cnsa2: () => notCnsa('Never a CNSA algorithm.'),
    examples: [{ name: 'DSA', parameterSetIdentifier: '2048' }, { name: 'DSA-SHA256' }, { name: 'SHA256withDSA' }, { name: 'oid:1.2.840.10040.4.1', oid: '1.2.840.10040.4.1' }],
  },
  {
    id: 'rsa-under-112', section: 'red', families: RSA_FAMILIES, condition: 'modulus under 2048 bits',
    when: (a) => a.keyBits !== undefined && a.keyBits < 2048,
    source: 'SP 800-131A Rev. 2 sec. 3 and 6 (under 112 bits disallowed after 2013); SP 800-57 Part 1 Rev. 5 table 2',
    deadline: DISALLOWED_2013, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${a.name} gives under 112 bits of security: disallowed since 2013 and within reach of classical attacks; ${SHOR} too. Replace it now.`,
    cnsa2: () => RSA_CNSA,
    examples: [{ name: 'RSA-1024' }, { name: 'RSA', keyBits: 1024 }, { name: 'RSA-512' }],
  },
  {
    id: 'rsa-112', section: 'red', families: RSA_FAMILIES, condition: 'modulus 2048 to 3071 bits (112-bit security)',
    when: (a) => a.keyBits !== undefined && a.keyBits < 3072,
    source: 'NIST IR 8547 ipd tables 2 and 4 (112-bit: deprecated after 2030, disallowed after 2035)',
    deadline: DEPRECATED_2030, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${a.name} gives 112 bits of security and ${SHOR}: NIST IR 8547 deprecates it after 2030 and disallows it after 2035. Plan the move now.`,
    cnsa2: () => RSA_CNSA,
    examples: [{ name: 'RSA-2048' }, { name: 'RSA', parameterSetIdentifier: '2048' }, { name: 'RSA-OAEP', parameterSetIdentifier: '2048', padding: 'oaep' }, { name: 'SHA256withRSA', keyBits: 2048 }],
  },
  {
    id: 'rsa-128', section: 'red', families: RSA_FAMILIES, condition: 'modulus of 3072 bits or more (128-bit security or more)',
    when: (a) => a.keyBits !== undefined,
    source: 'NIST IR 8547 ipd tables 2 and 4 (128 bits and up: disallowed after 2035)',
    deadline: DISALLOWED_2035, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${a.name} is strong classically but ${SHOR}: NIST IR 8547 disallows it after 2035. Plan the move.`,
    cnsa2: () => cnsa1('RSA-3072 and larger', 'ML-KEM-1024 and ML-DSA-87'),
    examples: [{ name: 'RSA-4096' }, { name: 'RSA-3072' }, { name: 'RSA', keyBits: 8192 }],
  },
  {
    id: 'rsa-size-unknown', section: 'red', families: RSA_FAMILIES, condition: 'modulus size not stated',
    source: 'NIST IR 8547 ipd tables 2 and 4; the 2030 date assumes the common 2048-bit size',
    deadline: DEPRECATED_2030, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${a.name} (key size unknown) is quantum-vulnerable: ${SHOR}. At 2048 bits NIST IR 8547 deprecates it after 2030, at 3072+ disallows it after 2035, under 2048 it is already disallowed: check the key size and plan the move.`,
    cnsa2: () => RSA_CNSA,
    examples: [{ name: 'RSA' }, { name: 'SHA256withRSA' }, { name: 'RSA-OAEP' }, { name: 'RSASSA-PSS' }, { name: 'RSA/ECB/OAEPWithSHA-256AndMGF1Padding' }, { name: 'rsa-sha2-256' }, { name: 'oid:1.2.840.113549.1.1.1', oid: '1.2.840.113549.1.1.1' }],
  },
  {
    id: 'ecc-under-112', section: 'red', families: EC_FAMILIES, condition: 'curve under 224 bits',
    when: (a) => (ecBits(a) ?? 999) < 224,
    source: 'SP 800-131A Rev. 2 sec. 3 (under 112 bits disallowed after 2013); SP 800-186',
    deadline: DISALLOWED_2013, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${what(a)} gives under 112 bits of security: disallowed since 2013; ${SHOR} too. Replace it now.`,
    cnsa2: () => EC_CNSA,
    examples: [{ name: 'ECDSA', curve: 'prime192v1' }, { name: 'ECDH', curve: 'secp160r1' }, { name: 'EC', curve: 'brainpoolP160r1' }],
  },
  {
    id: 'ecc-112', section: 'red', families: EC_FAMILIES, condition: 'curve of 224 to 254 bits (112-bit security)',
    when: (a) => (ecBits(a) ?? 999) < 255,
    source: 'NIST IR 8547 ipd tables 2 and 4 (112-bit: deprecated after 2030, disallowed after 2035)',
    deadline: DEPRECATED_2030, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${what(a)} gives 112 bits of security and ${SHOR}: NIST IR 8547 deprecates it after 2030 and disallows it after 2035. Plan the move now.`,
    cnsa2: () => EC_CNSA,
    examples: [{ name: 'ECDSA', curve: 'secp224r1' }, { name: 'P-224' }, { name: 'ECDH', curve: 'brainpoolP224r1' }],
  },
  {
    id: 'ecc-128', section: 'red', families: EC_FAMILIES, condition: 'curve of 255 bits or more (128-bit security or more), including X25519, X448, Ed25519, Ed448',
    when: (a) => ecBits(a) !== undefined,
    source: 'NIST IR 8547 ipd tables 2 and 4 (128 bits and up: disallowed after 2035); SP 800-186',
    deadline: DISALLOWED_2035, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${what(a)} is strong classically but ${SHOR}: NIST IR 8547 disallows it after 2035. Plan the move.`,
    cnsa2: (a) => (a.curve?.registry === 'nist/P-384' ? cnsa1('P-384', 'ML-KEM-1024 and ML-DSA-87') : EC_CNSA),
    examples: [{ name: 'ECDSA', curve: 'secp256r1' }, { name: 'X25519' }, { name: 'Ed25519' }, { name: 'ECDH', curve: 'P-384' }, { name: 'prime256v1' }, { name: 'curve25519-sha256' },
      { name: 'ecdsa-sha2-nistp521' }, { name: 'Ed448' }, { name: 'secp256k1' }, { name: 'EC', curve: 'nist/P-256' }, { name: 'oid:1.3.101.112', oid: '1.3.101.112' }],
  },
  {
    id: 'ecc-curve-unknown', section: 'red', families: EC_FAMILIES, condition: 'curve not stated',
    source: 'NIST IR 8547 ipd tables 2 and 4; the 2030 date assumes a 224-bit curve could be in use',
    deadline: DEPRECATED_2030, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${a.name} (curve unknown) is quantum-vulnerable: ${SHOR}. NIST IR 8547 disallows every curve after 2035 and 224-bit curves are deprecated after 2030: check the curve and plan the move.`,
    cnsa2: () => EC_CNSA,
    examples: [{ name: 'ECDSA' }, { name: 'EC' }, { name: 'ECDH' }, { name: 'ECDSA-SHA256' }, { name: 'SHA384withECDSA' }, { name: 'oid:1.2.840.10045.2.1', oid: '1.2.840.10045.2.1' }],
  },
  {
    id: 'ffdh-under-112', section: 'red', families: FF_FAMILIES, condition: 'group under 2048 bits',
    when: (a) => a.keyBits !== undefined && a.keyBits < 2048,
    source: 'SP 800-131A Rev. 2 sec. 5 (under 112 bits disallowed after 2013); RFC 8270; RFC 9142',
    deadline: DISALLOWED_2013, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${a.name} gives under 112 bits of security (Logjam-class attacks): disallowed since 2013; ${SHOR} too. Replace it now.`,
    cnsa2: () => DH_CNSA,
    examples: [{ name: 'DH-1024' }, { name: 'diffie-hellman-group1-sha1' }, { name: 'DHE', keyBits: 1024 }],
  },
  {
    id: 'ffdh-112', section: 'red', families: FF_FAMILIES, condition: 'group of 2048 to 3071 bits (112-bit security)',
    when: (a) => a.keyBits !== undefined && a.keyBits < 3072,
    source: 'NIST IR 8547 ipd table 4 (112-bit: deprecated after 2030, disallowed after 2035)',
    deadline: DEPRECATED_2030, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${a.name} gives 112 bits of security and ${SHOR}: NIST IR 8547 deprecates it after 2030 and disallows it after 2035. Plan the move now.`,
    cnsa2: () => DH_CNSA,
    examples: [{ name: 'DH-2048' }, { name: 'diffie-hellman-group14-sha256' }, { name: 'ffdhe2048' }],
  },
  {
    id: 'ffdh-128', section: 'red', families: FF_FAMILIES, condition: 'group of 3072 bits or more',
    when: (a) => a.keyBits !== undefined,
    source: 'NIST IR 8547 ipd table 4 (128 bits and up: disallowed after 2035)',
    deadline: DISALLOWED_2035, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${a.name} is strong classically but ${SHOR}: NIST IR 8547 disallows it after 2035. Plan the move.`,
    cnsa2: (a) => (a.family === 'FFDH' ? cnsa1('Diffie-Hellman with 3072-bit groups or more', 'ML-KEM-1024') : DH_CNSA),
    examples: [{ name: 'ffdhe3072' }, { name: 'diffie-hellman-group16-sha512' }, { name: 'DH', parameterSetIdentifier: '4096' }],
  },
  {
    id: 'ffdh-size-unknown', section: 'red', families: FF_FAMILIES, condition: 'group size not stated',
    source: 'NIST IR 8547 ipd table 4; the 2030 date assumes the common 2048-bit group',
    deadline: DEPRECATED_2030, quantumVulnerable: true, replacement: publicKeyReplacement,
    explain: (a) => `${a.name} (group size unknown) is quantum-vulnerable: ${SHOR}. At 2048 bits NIST IR 8547 deprecates it after 2030, under 2048 it is already disallowed: check the group and plan the move.`,
    cnsa2: () => DH_CNSA,
    examples: [{ name: 'DH' }, { name: 'DHE' }, { name: 'diffie-hellman-group-exchange-sha256' }, { name: 'ElGamal' }],
  },
  {
    id: 'discrete-log-other', section: 'red', families: ['SRP', 'J-PAKE', 'SPAKE2', 'SPAKE2PLUS', 'OPAQUE', 'X3DH', 'BLS', 'SM9', 'HPKE'],
    condition: 'PAKEs, pairings and HPKE over a classical (EC)DH group',
    source: 'Outside NIST IR 8547 tables, same mathematics (discrete logarithms): RFC 5054 (SRP), RFC 8236 (J-PAKE), RFC 9382 (SPAKE2), RFC 9180 (HPKE DHKEM)',
    deadline: DISALLOWED_2035, quantumVulnerable: true, replacement: (a) => (a.family === 'HPKE' ? 'HPKE with ML-KEM or X-Wing (draft-ietf-hpke-pq)' : KEY_OR_SIG(a)),
    explain: (a) => `${a.name} rests on a discrete-logarithm problem, and ${SHOR}: treat it like the NIST quantum-vulnerable schemes (disallowed after 2035) and plan a post-quantum replacement.`,
    examples: [{ name: 'SRP-6' }, { name: 'HPKE-DHKEM(X25519, HKDF-SHA256)' }, { name: 'BLS12-381' }],
  },
];

function KEY_OR_SIG(a: Algorithm): string {
  return a.family === 'BLS' || a.family === 'SM9' ? SIGNATURES : 'a post-quantum PAKE or ML-KEM based key exchange when standardised; keep strong passwords meanwhile';
}
