// The classification table of the `pqc` axis: one row per algorithm family (and strength), each citing
// its source, deciding the section, the date that applies, what to move to, and the CNSA 2.0 verdict.
// Sources: NIST IR 8547 ipd (Transition to PQC standards, tables 2-4), SP 800-131A Rev. 2,
// SP 800-57 Part 1 Rev. 5 (security strengths), FIPS 203/204/205, SP 800-208, NSA CNSA 2.0 (CSA
// 2022, FAQ 2024). The first row whose family and condition match decides.
import type { Algorithm } from './normalize';

export type CryptoSection = 'red' | 'yellow' | 'transition' | 'green' | 'unclassified';

export interface Verdict {
  section: Exclude<CryptoSection, 'unclassified'>;
  /** The date that applies (ISO), null when it applies now or never. */
  deadline: string | null;
  replacement: string | null;
  explanation: string;
  quantumVulnerable: boolean;
  /** Classical security strength in bits (SP 800-57 table 2), when known. */
  securityBits: number | null;
  cnsa2: { approved: boolean; deadline: string | null };
}

export interface Row {
  id: string;
  source: string;
  /** Registry families (CycloneDX cryptography-defs) or names this table adds (`Kyber`, `Dilithium`, ...). */
  families: string[];
  when?: (a: Algorithm) => boolean;
  verdict: (a: Algorithm) => Verdict;
  /** A representative input, so the table is tested row by row. */
  example: { name: string; parameterSetIdentifier?: string; curve?: string; mode?: string; oid?: string };
}

/** NIST IR 8547: quantum-vulnerable 112-bit schemes are deprecated after 2030; all are disallowed after 2035. */
export const DEPRECATED_2030 = '2030-12-31';
export const DISALLOWED_2035 = '2035-12-31';
/** CNSA 2.0: exclusive use of CNSA 2.0 algorithms in National Security Systems by 2033 (2030 for software and firmware signing). */
export const CNSA2_EXCLUSIVE = '2033-12-31';

type Cnsa2 = Verdict['cnsa2'];
const NOT_CNSA: Cnsa2 = { approved: false, deadline: CNSA2_EXCLUSIVE };
const CNSA: Cnsa2 = { approved: true, deadline: null };

/** Security strength of RSA / finite-field keys (SP 800-57 Part 1, table 2). */
export function ifcStrength(bits: number | undefined): number | null {
  if (!bits) return null;
  return bits >= 15360 ? 256 : bits >= 7680 ? 192 : bits >= 3072 ? 128 : bits >= 2048 ? 112 : bits >= 1024 ? 80 : 0;
}

/** A quantum-vulnerable public-key verdict: broken now under 112 bits, deprecated after 2030 at 112, disallowed after 2035. */
function quantumVulnerable(what: string, strength: number | null, replacement: string, sizeText: string): Verdict {
  const broken = strength !== null && strength < 112;
  const deadline = broken ? null : strength === 112 ? DEPRECATED_2030 : DISALLOWED_2035;
  const explanation = broken
    ? `${what} at ${sizeText} gives under 112 bits of security and is disallowed now (SP 800-131A); it is also breakable by a quantum computer. Replace it with ${replacement}.`
    : `${what} is breakable by a large quantum computer (Shor's algorithm); NIST IR 8547 ${strength === 112 ? 'deprecates it after 2030 and disallows it after 2035' : 'disallows it after 2035'}${strength === null ? ` (key size unknown: ${sizeText})` : ''}. Plan the move to ${replacement}.`;
  return { section: 'red', deadline, replacement, explanation, quantumVulnerable: true, securityBits: strength, cnsa2: NOT_CNSA };
}

const green = (explanation: string, securityBits: number | null, cnsa2 = NOT_CNSA): Verdict =>
  ({ section: 'green', deadline: null, replacement: null, explanation, quantumVulnerable: false, securityBits, cnsa2 });
const red = (explanation: string, replacement: string, securityBits: number | null): Verdict =>
  ({ section: 'red', deadline: null, replacement, explanation, quantumVulnerable: false, securityBits, cnsa2: NOT_CNSA });
const yellow = (explanation: string, replacement: string, deadline: string | null, securityBits: number | null): Verdict =>
  ({ section: 'yellow', deadline, replacement, explanation, quantumVulnerable: false, securityBits, cnsa2: NOT_CNSA });

const hashName = (a: Algorithm) => a.hash?.name ?? a.name;
const curveBits = (a: Algorithm) => a.curve?.bits;
const KEM = 'ML-KEM-768 or ML-KEM-1024 (FIPS 203), or a hybrid such as X25519MLKEM768 in the meantime';
const SIG = 'ML-DSA (FIPS 204), SLH-DSA (FIPS 205), or LMS/XMSS for firmware (SP 800-208)';

export const CLASSIFICATION_TABLE: Row[] = [
  // ---- transition: hybrids and composites ----
  { id: 'hybrid-kem', source: 'NIST IR 8547 ipd sec. 3.3; draft-ietf-tls-ecdhe-mlkem; draft-kampanakis-curdle-ssh-pq-ke', families: ['ML-KEM'], when: (a) => Boolean(a.parts),
    verdict: (a) => ({ section: 'transition', deadline: DISALLOWED_2035, replacement: 'ML-KEM-768 or ML-KEM-1024 alone once every peer supports it', explanation: `${a.name} combines classical key exchange with a post-quantum KEM: safe against quantum attacks as long as the post-quantum part holds. Keep it while peers need the classical part.`, quantumVulnerable: false, securityBits: 128, cnsa2: a.name.includes('1024') ? CNSA : NOT_CNSA }),
    example: { name: 'X25519MLKEM768' } },
  { id: 'composite-signature', source: 'NIST IR 8547 ipd sec. 3.3; draft-ietf-lamps-pq-composite-sigs', families: ['ML-DSA'], when: (a) => Boolean(a.parts),
    verdict: (a) => ({ section: 'transition', deadline: DISALLOWED_2035, replacement: 'ML-DSA alone once relying parties accept it', explanation: `${a.name} is a composite signature: it stays unforgeable while either part holds.`, quantumVulnerable: false, securityBits: 128, cnsa2: NOT_CNSA }),
    example: { name: 'MLDSA65-ECDSA-P256-SHA512' } },
  // ---- green: post-quantum standards ----
  { id: 'ml-kem', source: 'FIPS 203; CNSA 2.0 (ML-KEM-1024)', families: ['ML-KEM'],
    verdict: (a) => green(`${a.name} is the NIST post-quantum KEM (FIPS 203).`, a.name.endsWith('512') ? 128 : a.name.endsWith('768') ? 192 : 256, a.name.endsWith('1024') ? CNSA : NOT_CNSA),
    example: { name: 'ML-KEM-768' } },
  { id: 'ml-dsa', source: 'FIPS 204; CNSA 2.0 (ML-DSA-87)', families: ['ML-DSA'],
    verdict: (a) => green(`${a.name} is the NIST post-quantum signature (FIPS 204).`, a.name.endsWith('44') ? 128 : a.name.endsWith('65') ? 192 : 256, a.name.endsWith('87') ? CNSA : NOT_CNSA),
    example: { name: 'ML-DSA-65' } },
  { id: 'slh-dsa', source: 'FIPS 205', families: ['SLH-DSA'], verdict: (a) => green(`${a.name} is the NIST stateless hash-based signature (FIPS 205).`, null), example: { name: 'SLH-DSA-SHA2-128s' } },
  { id: 'lms-xmss', source: 'SP 800-208; CNSA 2.0 (LMS, XMSS)', families: ['LMS', 'XMSS'],
    verdict: (a) => green(`${a.name} is a stateful hash-based signature (SP 800-208), quantum-resistant; keep its state safe.`, null, CNSA), example: { name: 'LMS' } },
  // ---- yellow: pre-standard post-quantum names ----
  { id: 'pqc-round3', source: 'FIPS 203/204/205 (final parameter sets differ from round-3 submissions)', families: ['Kyber', 'Dilithium', 'SPHINCS+', 'FN-DSA'],
    verdict: (a) => yellow(`${a.name} is a pre-standard post-quantum algorithm; its final form differs and is not interoperable.`, a.family === 'Kyber' ? 'ML-KEM (FIPS 203)' : a.family === 'Dilithium' ? 'ML-DSA (FIPS 204)' : a.family === 'SPHINCS+' ? 'SLH-DSA (FIPS 205)' : 'ML-DSA (FIPS 204) until FN-DSA (FIPS 206) is final', null, null),
    example: { name: 'Kyber768' } },
  // ---- red: quantum-vulnerable public-key cryptography ----
  { id: 'rsa', source: 'NIST IR 8547 ipd table 2 and 4; SP 800-131A Rev. 2 sec. 3 and 6', families: ['RSA', 'RSAES-OAEP', 'RSAES-PKCS1', 'RSASSA-PKCS1', 'RSASSA-PSS'],
    verdict: (a) => quantumVulnerable(a.hash ? `RSA signatures with ${a.hash.name}` : 'RSA', ifcStrength(a.keyBits), a.family.startsWith('RSAES') ? KEM : a.family.startsWith('RSASSA') ? SIG : `${SIG} for signatures, ${KEM} for key transport`, a.keyBits ? `${a.keyBits} bits` : 'size not stated'),
    example: { name: 'RSA-2048' } },
  { id: 'dsa', source: 'FIPS 186-5 (DSA no longer approved for signing); NIST IR 8547 ipd table 2', families: ['DSA'],
    verdict: () => red('DSA is no longer approved for generating signatures (FIPS 186-5) and is quantum-vulnerable; only verification of old signatures remains allowed.', SIG, null),
    example: { name: 'DSA' } },
  { id: 'ecc', source: 'NIST IR 8547 ipd table 2 and 3; SP 800-186; SP 800-57 Part 1 table 2', families: ['ECDSA', 'ECDH', 'EdDSA', 'MQV', 'ECIES', 'SM2'],
    verdict: (a) => {
      const b = curveBits(a);
      const strength = b ? Math.min(256, Math.floor(b / 2)) : null;
      const what = `${a.name}${a.curve ? ` on ${a.curve.name}` : ''}`;
      return quantumVulnerable(what, b && b < 224 ? 0 : strength, a.family === 'ECDSA' || a.family === 'EdDSA' ? SIG : KEM, a.curve ? `${a.curve.bits}-bit curve` : 'curve not stated');
    },
    example: { name: 'ECDSA', curve: 'secp256r1' } },
  { id: 'ffdh', source: 'NIST IR 8547 ipd table 3; SP 800-56A Rev. 3; SP 800-131A Rev. 2 sec. 5', families: ['FFDH', 'ElGamal'],
    verdict: (a) => quantumVulnerable(a.family === 'ElGamal' ? 'ElGamal' : 'Finite-field Diffie-Hellman', ifcStrength(a.keyBits), KEM, a.keyBits ? `${a.keyBits} bits` : 'group size not stated'),
    example: { name: 'DH', parameterSetIdentifier: '2048' } },
  // ---- hashes ----
  { id: 'md', source: 'SP 800-131A Rev. 2 sec. 9; RFC 6151', families: ['MD2', 'MD4', 'MD5'],
    verdict: (a) => red(`${a.name} is broken (practical collisions) and not approved for any use.`, 'SHA-256 or SHA-3', 0), example: { name: 'MD5' } },
  { id: 'sha1', source: 'SP 800-131A Rev. 2 sec. 9; NIST (Dec 2022) SHA-1 retirement', families: ['SHA-1'],
    verdict: () => red('SHA-1 has practical collisions: disallowed for signatures and not safe as a hash; HMAC and key derivation use is a separate row.', 'SHA-256, SHA-384 or SHA-3', 0), example: { name: 'SHA1' } },
  { id: 'sha2-112', source: 'NIST IR 8547 ipd sec. 4.1.3 (112-bit hashes disallowed after 2030); SP 800-57 Part 1 table 3', families: ['SHA-2'], when: (a) => /224/.test(a.name),
    verdict: (a) => yellow(`${a.name} gives 112 bits of collision resistance: allowed until 2030, disallowed after.`, 'SHA-256 or SHA-384', DEPRECATED_2030, 112), example: { name: 'SHA-224' } },
  { id: 'sha2', source: 'FIPS 180-4; CNSA 2.0 (SHA-384, SHA-512)', families: ['SHA-2'],
    verdict: (a) => green(`${a.name} is an approved hash with no known quantum weakness beyond Grover's square-root speed-up.`, a.name === 'SHA-256' || a.name.endsWith('/256') ? 128 : 192, /384|512$/.test(a.name) && !a.name.includes('/') ? CNSA : NOT_CNSA),
    example: { name: 'SHA-256' } },
  { id: 'sha3', source: 'FIPS 202', families: ['SHA-3'], verdict: (a) => green(`${a.name} is an approved SHA-3 function (FIPS 202).`, null), example: { name: 'SHA3-256' } },
  { id: 'other-hash', source: 'Outside NIST standards (ISO/IEC 10118-3, GM/T 0004)', families: ['RIPEMD', 'Whirlpool', 'SM3', 'BLAKE2', 'BLAKE3'],
    verdict: (a) => yellow(`${a.name} is not a NIST-approved hash.`, 'SHA-256, SHA-384 or SHA-3', null, null), example: { name: 'RIPEMD160' } },
  // ---- MACs and key derivation ----
  { id: 'mac-sha1', source: 'NIST IR 8547 ipd sec. 4.1.3; SP 800-131A Rev. 2 sec. 10-11 (SHA-1 in HMAC and KDFs until 2030)', families: ['HMAC', 'HKDF', 'PBKDF2', 'SP800-108'], when: (a) => a.hash?.family === 'SHA-1',
    verdict: (a) => yellow(`${a.family} over SHA-1 is still allowed but retiring: disallowed after 2030.`, `${a.family} with SHA-256 or SHA-384`, DEPRECATED_2030, 128), example: { name: 'HmacSHA1' } },
  { id: 'mac-md5', source: 'SP 800-131A Rev. 2 sec. 10', families: ['HMAC', 'PBKDF1', 'PBKDF2', 'HKDF'], when: (a) => /^MD/.test(a.hash?.family ?? '') || a.family === 'PBKDF1',
    verdict: (a) => red(`${a.family} over ${hashName(a)} is not approved.`, `${a.family === 'PBKDF1' ? 'PBKDF2' : a.family} with SHA-256 or SHA-384`, null), example: { name: 'HmacMD5' } },
  { id: 'mac-kdf', source: 'FIPS 198-1; SP 800-56C Rev. 2; SP 800-108 Rev. 1; SP 800-132', families: ['HMAC', 'HKDF', 'PBKDF2', 'SP800-108', 'CMAC', 'Poly1305', 'scrypt', 'Argon2', 'bcrypt'],
    verdict: (a) => green(`${a.family}${a.hash ? ` over ${a.hash.name}` : ''} is an approved construction with no known quantum weakness.`, null, a.hash && /384|512/.test(a.hash.name) ? CNSA : NOT_CNSA),
    example: { name: 'HmacSHA256' } },
  // ---- symmetric ciphers ----
  { id: 'aes-ecb', source: 'SP 800-38A (ECB leaks patterns); NIST SP 800-131A Rev. 3 ipd (ECB for confidentiality disallowed)', families: ['AES'], when: (a) => a.mode === 'ECB',
    verdict: (a) => red(`AES${a.keyBits ? `-${a.keyBits}` : ''} in ECB mode leaks which blocks are equal: not for confidentiality.`, 'AES-256-GCM (or another authenticated mode)', a.keyBits ?? null), example: { name: 'AES-128-ECB' } },
  { id: 'aes', source: 'FIPS 197; SP 800-38A-G; NIST IR 8547 ipd sec. 4.2; CNSA 2.0 (AES-256)', families: ['AES'],
    verdict: (a) => green(`AES${a.keyBits ? `-${a.keyBits}` : ''}${a.mode ? ` in ${a.mode} mode` : ''} is approved and stays so: Grover's algorithm leaves AES-128 ample margin (NIST IR 8547).`, a.keyBits || null, a.keyBits === 256 ? CNSA : NOT_CNSA),
    example: { name: 'AES-256-GCM' } },
  { id: 'chacha20', source: 'RFC 8439 (not a NIST standard; accepted by NIST IR 8547 in TLS 1.3 profiles)', families: ['ChaCha20', 'ChaCha'],
    verdict: (a) => green(`${a.name} (256-bit key) has no known quantum weakness beyond Grover.`, 256), example: { name: 'ChaCha20-Poly1305' } },
  { id: 'tdea', source: 'SP 800-131A Rev. 2 sec. 2 (3TDEA disallowed for encryption after 2023; 2TDEA disallowed)', families: ['3DES'],
    verdict: (a) => red(`Triple DES (${a.keyBits === 112 ? '2TDEA' : '3TDEA'}) is disallowed for encryption: 64-bit blocks (Sweet32) and at most 112 bits of strength.`, 'AES-256-GCM', a.keyBits === 112 ? 80 : 112),
    example: { name: 'desede-168' } },
  { id: 'broken-ciphers', source: 'SP 800-131A Rev. 2 sec. 2; RFC 7465 (RC4 prohibited in TLS); Sweet32 (64-bit blocks)', families: ['DES', 'RC2', 'RC4', 'RC5', 'Blowfish', 'IDEA', 'CAST5', 'Skipjack'],
    verdict: (a) => red(`${a.name} is broken or disallowed (a short key or a 64-bit block).`, 'AES-256-GCM', a.family === 'DES' ? 56 : null), example: { name: 'DES' } },
  { id: 'other-ciphers', source: 'Outside NIST standards: Camellia (RFC 3713), ARIA (RFC 5794), SEED (RFC 4269), GOST (RFC 5830, 7801), SM4 (GB/T 32907)', families: ['CAMELLIA', 'ARIA', 'SEED', 'GOST', 'SM4', 'Twofish', 'Serpent', 'Salsa20', 'RC6'],
    verdict: (a) => yellow(`${a.name}${a.keyBits ? `-${a.keyBits}` : ''} is not covered by a NIST standard${a.keyBits && a.keyBits < 128 ? ' and its key is short' : ''}; it cannot be used where FIPS validation is required.`, 'AES-256-GCM', null, a.keyBits ?? null),
    example: { name: 'Camellia-128' } },
];

/** The first row deciding an algorithm, if any. */
export const rowFor = (a: Algorithm): Row | undefined => CLASSIFICATION_TABLE.find((row) => row.families.includes(a.family) && (!row.when || row.when(a)));
