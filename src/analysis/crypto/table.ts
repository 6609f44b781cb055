// The classification table of the `pqc` axis: one row per algorithm family and strength, each citing
// its source, deciding the section, the date that applies, what to move to, and the CNSA 2.0 verdict.
// The first row whose family and condition match decides (so narrower rows come first); an algorithm
// no row matches is `unclassified`. Public-key rows are in table-public-key.ts; dates and CNSA 2.0
// helpers in policy.ts. Raise CLASSIFICATION_VERSION (src/analysis/versions.ts) with every change.
import type { Algorithm } from './normalize';
import {
  AEAD, cnsaApproved, DEPRECATED_2030, DES_WITHDRAWN, DISALLOWED_2013, ECB_SP800_131A_R3, HASH, NOT_CNSA, notCnsa, SKIPJACK_2010, SP800_52R2, TDEA2_2015, TDEA3_2023,
  type Row, type Section,
} from './policy';
import { PUBLIC_KEY_ROWS } from './table-public-key';

export * from './policy';
export { EC_FAMILIES, RSA_FAMILIES } from './table-public-key';

const KDFS = ['HMAC', 'HKDF', 'PBKDF2', 'SP800-108', 'SP800-56C', 'ANSI-KDF', 'TLS-PRF', 'SSH-KDF', 'IKE-PRF', 'MGF1'];
/** Why a broken algorithm NIST never approved carries 2013-12-31: it gives less than 112 bits of security. */
const UNDER_112 = 'SP 800-131A Rev. 2 and SP 800-57 Part 1 Rev. 5 (every use under 112 bits of security disallowed after 2013)';
const OTHER_CIPHERS = ['CAMELLIA', 'ARIA', 'SEED', 'SM4', 'GOST', 'Twofish', 'Serpent', 'CAST6', 'RC6', 'Salsa20', 'ChaCha20', 'HC', 'RABBIT', 'ZUC', 'SNOW3G'];
const BLOCK_CIPHERS = ['AES', 'CAMELLIA', 'ARIA', 'SEED', 'SM4', 'GOST', 'Twofish', 'Serpent', 'CAST6', 'RC6'];
/** AES modes of the SP 800-38 series (A: ECB, CBC, CFB, OFB, CTR, CTS; B: CMAC; C: CCM; D: GCM, GMAC; E: XTS; F: KW, KWP). */
const APPROVED_MODES = ['CBC', 'CFB', 'CFB1', 'CFB8', 'CFB64', 'CFB128', 'OFB', 'CTR', 'CTS', 'XTS', 'GCM', 'CCM', 'KW', 'KWP', 'CMAC', 'GMAC'];
/** The algorithm is a hash function itself (not something built on one). */
const isHash = (a: Algorithm) => a.hash !== undefined && a.name === a.hash.name;
const approvedHash = (a: Algorithm) => (a.hash?.family === 'SHA-2' || a.hash?.family === 'SHA-3') && a.hash.collision >= 128;
const cnsaHash = (a: Algorithm) => /^SHA-(384|512)$/.test(a.hash?.name ?? '');
const GROVER = "Grover's algorithm at most halves its strength, which leaves enough margin (NIST IR 8547)";
/** SHA-2 named without its size ("HMACSHA2") is judged as SHA-256 or larger; the entry says so. */
const sizeNote = (a: Algorithm) => (a.hash?.name === 'SHA-2' ? ' The SHA-2 size is not stated: this assumes SHA-256 or larger (over SHA-224 it would retire after 2030).' : '');

const PQC_ROWS: Row[] = [
  {
    id: 'hybrid-kem', section: 'transition', families: ['ML-KEM', 'X-Wing'], condition: 'hybrid of a classical key exchange and ML-KEM',
    when: (a) => a.hybrid === 'standard',
    source: 'NIST IR 8547 ipd (hybrid key establishment, SP 800-56C Rev. 2 combiners); draft-ietf-tls-ecdhe-mlkem; draft-ietf-tls-hybrid-design; draft-ietf-sshm-mlkem-hybrid-kex; RFC 9180 with draft-connolly-cfrg-xwing-kem',
    deadline: null, quantumVulnerable: false, replacement: 'ML-KEM-768 or ML-KEM-1024 alone once every peer supports it; keep the hybrid meanwhile',
    explain: (a) => `${a.name} combines a classical key exchange with ML-KEM: it stays secure against a quantum computer as long as ML-KEM holds, and against classical attacks as long as either part holds. Keep it during the transition.`,
    cnsa2: (a) => (a.set === '1024' ? cnsaApproved('Its ML-KEM-1024 part is CNSA 2.0; NSA accepts a hybrid where a protocol requires one and prefers ML-KEM-1024 alone.') : notCnsa('CNSA 2.0 requires ML-KEM-1024.')),
    examples: [{ name: 'X25519MLKEM768' }, { name: 'SecP256r1MLKEM768' }, { name: 'SecP384r1MLKEM1024' }, { name: 'mlkem768x25519-sha256' }, { name: 'x25519_mlkem768' }, { name: 'X-Wing' }],
  },
  {
    id: 'hybrid-kem-pre-standard', section: 'transition', families: ['Kyber', 'PQC-candidate'], condition: 'hybrid whose post-quantum part is not FIPS 203',
    when: (a) => a.hybrid === 'pre-standard',
    source: 'draft-tls-westerbaan-xyber768d00 (X25519Kyber768Draft00, withdrawn for X25519MLKEM768); draft-josefsson-ntruprime-ssh (sntrup761x25519-sha512)',
    deadline: null, quantumVulnerable: false, replacement: 'X25519MLKEM768 (TLS 1.3) or mlkem768x25519-sha256 (SSH)',
    explain: (a) => `${a.name} is a hybrid key exchange, so it already resists quantum attacks, but its post-quantum part is not the FIPS 203 ML-KEM: switch to the standard hybrid when both ends support it.`,
    cnsa2: () => notCnsa('Pre-standard post-quantum parts are not CNSA 2.0 compliant.'),
    examples: [{ name: 'X25519Kyber768Draft00' }, { name: 'sntrup761x25519-sha512@openssh.com' }],
  },
  {
    id: 'composite-signature', section: 'transition', families: ['ML-DSA'], condition: 'ML-DSA composed with a classical signature',
    when: (a) => a.composite === true,
    source: 'draft-ietf-lamps-pq-composite-sigs; NIST IR 8547 ipd (hybrid signatures)',
    deadline: null, quantumVulnerable: false, replacement: 'ML-DSA alone once relying parties accept it',
    explain: (a) => `${a.name} is a composite signature: it stays unforgeable while either part holds. Keep it while relying parties still need the classical part.`,
    cnsa2: () => notCnsa('CNSA 2.0 requires ML-DSA-87 alone.'),
    examples: [{ name: 'MLDSA65-ECDSA-P256-SHA512' }, { name: 'id-MLDSA44-RSA2048-PSS-SHA256' }],
  },
  {
    id: 'ml-kem', section: 'green', families: ['ML-KEM'], source: 'FIPS 203; NIST IR 8547 ipd table 5; CNSA 2.0 (ML-KEM-1024)',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is the NIST post-quantum key-encapsulation mechanism (FIPS 203).${a.set ? '' : ' The parameter set is not stated: use ML-KEM-768 or ML-KEM-1024.'}`,
    cnsa2: (a) => (a.set === '1024' ? cnsaApproved('CNSA 2.0 key establishment.') : notCnsa('CNSA 2.0 requires ML-KEM-1024.')),
    examples: [{ name: 'ML-KEM-768' }, { name: 'MLKEM1024' }, { name: 'ML-KEM', parameterSetIdentifier: '512' }, { name: '2.16.840.1.101.3.4.4.3', oid: '2.16.840.1.101.3.4.4.3' }],
  },
  {
    id: 'ml-dsa', section: 'green', families: ['ML-DSA'], source: 'FIPS 204; NIST IR 8547 ipd table 3; CNSA 2.0 (ML-DSA-87)',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is the NIST post-quantum signature (FIPS 204).${a.set ? '' : ' The parameter set is not stated: use ML-DSA-65 or ML-DSA-87.'}`,
    cnsa2: (a) => (a.set === '87' ? cnsaApproved('CNSA 2.0 signatures.') : notCnsa('CNSA 2.0 requires ML-DSA-87.')),
    examples: [{ name: 'ML-DSA-65' }, { name: 'mldsa87' }, { name: 'ML-DSA', parameterSetIdentifier: '44' }, { name: 'HashML-DSA-87-SHA512' }, { name: 'oid:2.16.840.1.101.3.4.3.18', oid: '2.16.840.1.101.3.4.3.18' }],
  },
  {
    id: 'slh-dsa', section: 'green', families: ['SLH-DSA'], source: 'FIPS 205; NIST IR 8547 ipd table 3',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is the NIST stateless hash-based signature (FIPS 205): conservative and large; fine where signature size does not matter.`,
    cnsa2: () => notCnsa('CNSA 2.0 lists ML-DSA-87, LMS and XMSS for signatures, not SLH-DSA.'),
    examples: [{ name: 'SLH-DSA-SHA2-128s' }, { name: 'SLH-DSA-SHAKE-256f' }, { name: 'oid:2.16.840.1.101.3.4.3.20', oid: '2.16.840.1.101.3.4.3.20' }],
  },
  {
    id: 'stateful-hash-signature', section: 'green', families: ['LMS', 'XMSS'], source: 'SP 800-208; NIST IR 8547 ipd table 3; CNSA 2.0 (LMS, XMSS)',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is a stateful hash-based signature (SP 800-208), quantum-resistant: never reuse a one-time key, so keep its state in hardware.`,
    cnsa2: () => cnsaApproved('CNSA 2.0 software and firmware signing.'),
    examples: [{ name: 'LMS' }, { name: 'HSS-LMS' }, { name: 'XMSS' }, { name: 'XMSSMT-SHA2_20/2_256' }],
  },
  {
    id: 'pqc-pre-standard', section: 'yellow', families: ['Kyber', 'Dilithium', 'SPHINCS+', 'Falcon', 'PQC-candidate'],
    source: 'FIPS 203/204/205 (the final algorithms differ from the round-3 submissions and do not interoperate); NIST IR 8545 (HQC selected, not yet standard); FIPS 206 (FN-DSA) draft',
    deadline: null, quantumVulnerable: false,
    replacement: (a) => ({ Kyber: 'ML-KEM (FIPS 203)', Dilithium: 'ML-DSA (FIPS 204)', 'SPHINCS+': 'SLH-DSA (FIPS 205)', Falcon: 'ML-DSA (FIPS 204) until FN-DSA (FIPS 206) is final' } as Record<string, string>)[a.family] ?? 'ML-KEM (FIPS 203) or ML-DSA (FIPS 204)',
    explain: (a) => `${a.name} is a pre-standard post-quantum algorithm: quantum-resistant by design, but not the standardised form, so it neither interoperates with nor validates as the FIPS algorithm. Move to the FIPS parameter sets.`,
    cnsa2: () => notCnsa('Pre-standard versions are not CNSA 2.0 compliant (CNSA 2.0 FAQ).'),
    examples: [{ name: 'Kyber768' }, { name: 'CRYSTALS-Dilithium3' }, { name: 'SPHINCS+-SHA2-128f-simple' }, { name: 'Falcon-512' }, { name: 'FrodoKEM-640-AES' }],
  },
];

const HASH_ROWS: Row[] = [
  {
    id: 'md', section: 'red', families: ['MD2', 'MD4', 'MD5'], source: `RFC 6149 (MD2), RFC 6150 (MD4), RFC 6151 (MD5); never approved in FIPS 180; ${UNDER_112}`,
    deadline: DISALLOWED_2013, quantumVulnerable: false, replacement: HASH,
    explain: (a) => `${a.name} is broken: collisions take seconds. Never rely on it for integrity or signatures; use SHA-256 or better.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'MD5' }, { name: 'md5' }, { name: 'MD4' }, { name: 'MD2' }, { name: 'oid:1.2.840.113549.2.5', oid: '1.2.840.113549.2.5' }],
  },
  {
    id: 'sha1', section: 'red', families: ['SHA-1'], condition: 'SHA-1 as a hash (HMAC and key derivation are a separate row)', when: isHash,
    source: 'SP 800-131A Rev. 2 sec. 9; NIST SHA-1 retirement (2022-12-15: removed from all uses by 2030-12-31); SP 800-131A Rev. 3 ipd',
    deadline: DEPRECATED_2030, quantumVulnerable: false, replacement: HASH,
    explain: () => 'SHA-1 collisions are practical (SHAttered, 2017): it must not protect anything a forger could profit from, and NIST removes it from every use after 2030. Use SHA-256 or better.',
    cnsa2: () => NOT_CNSA, examples: [{ name: 'SHA1' }, { name: 'SHA-1' }, { name: 'sha', parameterSetIdentifier: '1' }, { name: 'oid:1.3.14.3.2.26', oid: '1.3.14.3.2.26' }],
  },
  {
    id: 'hash-112', section: 'yellow', families: ['SHA-2', 'SHA-3', ...KDFS], condition: '112-bit hash (SHA-224, SHA-512/224, SHA3-224), alone or inside HMAC/KDF',
    when: (a) => a.hash?.collision === 112,
    source: 'NIST IR 8547 ipd table 7 and SP 800-131A Rev. 3 ipd (112-bit security and 224-bit hashes retire after 2030)',
    deadline: DEPRECATED_2030, quantumVulnerable: false, replacement: (a) => (isHash(a) ? 'SHA-256 or SHA-384' : `${a.family} with SHA-256 or SHA-384`),
    explain: (a) => `${a.name} gives 112 bits of security: allowed until the end of 2030, then disallowed. Move to SHA-256 or SHA-384 when you next touch it.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'SHA-224' }, { name: 'SHA224' }, { name: 'SHA-512/224' }, { name: 'SHA3-224' }, { name: 'HmacSHA224' }],
  },
  {
    id: 'mac-kdf-sha1', section: 'yellow', families: [...KDFS], condition: 'HMAC or key derivation over SHA-1',
    when: (a) => a.hash?.family === 'SHA-1',
    source: 'SP 800-131A Rev. 2 sec. 10-11 (HMAC-SHA-1 and SHA-1 in KDFs acceptable); NIST SHA-1 retirement and SP 800-131A Rev. 3 ipd (disallowed after 2030)',
    deadline: DEPRECATED_2030, quantumVulnerable: false, replacement: (a) => `${a.family} with SHA-256 or SHA-384`,
    explain: (a) => `${a.name} is still safe (HMAC does not depend on SHA-1 collisions) but NIST retires every SHA-1 use after 2030: switch to ${a.family}-SHA256 when you next touch it.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'HmacSHA1' }, { name: 'HMAC-SHA1' }, { name: 'hmac-sha1' }, { name: 'PBKDF2WithHmacSHA1' }, { name: 'TLS1-PRF' }, { name: 'MGF1-SHA1' }, { name: 'oid:1.2.840.113549.2.7', oid: '1.2.840.113549.2.7' }],
  },
  {
    id: 'mac-kdf-broken', section: 'red', families: [...KDFS, 'PBKDF1'], condition: 'over MD2/MD4/MD5, or PBKDF1',
    when: (a) => a.family === 'PBKDF1' || /^MD[245]$/.test(a.hash?.family ?? ''),
    source: `SP 800-131A Rev. 2 sec. 10 (HMAC over approved hashes only); SP 800-132 (PBKDF2 only); RFC 8018 sec. 5.1 (PBKDF1 not recommended); ${UNDER_112}`,
    deadline: DISALLOWED_2013, quantumVulnerable: false, replacement: (a) => (a.family === 'PBKDF1' ? 'PBKDF2-HMAC-SHA256 (SP 800-132) or Argon2id' : `${a.family} with SHA-256 or SHA-384`),
    explain: (a) => `${a.name} is not approved for any use${a.family === 'PBKDF1' ? ' (PBKDF1 derives short keys from MD5 or SHA-1)' : ` (built on ${a.hash?.name})`}: replace it.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'HmacMD5' }, { name: 'hmac-md5' }, { name: 'PBKDF1' }],
  },
  {
    id: 'sha2', section: 'green', families: ['SHA-2'], when: isHash, source: 'FIPS 180-4; NIST IR 8547 ipd table 7; CNSA 2.0 (SHA-384, SHA-512)',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is an approved hash; ${GROVER}.${sizeNote(a)}`,
    cnsa2: (a) => (cnsaHash(a) ? cnsaApproved('CNSA 2.0 hashing.') : notCnsa('CNSA 2.0 requires SHA-384 or SHA-512.')),
    examples: [{ name: 'SHA-256' }, { name: 'SHA256', parameterSetIdentifier: '256' }, { name: 'sha-384' }, { name: 'SHA2-512' }, { name: 'SHA-512/256' }, { name: 'SHA2' }, { name: 'oid:2.16.840.1.101.3.4.2.1', oid: '2.16.840.1.101.3.4.2.1' }],
  },
  {
    id: 'sha3', section: 'green', families: ['SHA-3'], source: 'FIPS 202; SP 800-185 (cSHAKE, KMAC, TupleHash, ParallelHash); NIST IR 8547 ipd table 7',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is an approved SHA-3 function; ${GROVER}.`,
    cnsa2: () => notCnsa('CNSA 2.0 lists SHA-384 and SHA-512 (SHA-2), not SHA-3.'),
    examples: [{ name: 'SHA3-256' }, { name: 'SHA3_512' }, { name: 'SHAKE256' }, { name: 'KMAC256' }],
  },
  {
    id: 'hash-under-112', section: 'red', families: ['RIPEMD', 'BLAKE2', 'GOST'], condition: 'hash outside NIST standards with under 112-bit collision strength',
    when: (a) => isHash(a) && a.hash!.collision < 112,
    source: `ISO/IEC 10118-3 (RIPEMD); ${UNDER_112}`,
    deadline: DISALLOWED_2013, quantumVulnerable: false, replacement: HASH,
    explain: (a) => `${a.name} gives only ${a.hash!.collision} bits of collision resistance, under the 112-bit minimum: use SHA-256 or better.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'RIPEMD-160' }, { name: 'RIPEMD128' }],
  },
  {
    id: 'mac-kdf', section: 'green', families: [...KDFS], condition: 'over SHA-256 or better (SHA-2 or SHA-3)', when: approvedHash,
    source: 'FIPS 198-1 (HMAC); SP 800-56C Rev. 2 and RFC 5869 (HKDF); SP 800-108 Rev. 1; SP 800-132 (PBKDF2); SP 800-135 Rev. 1 (TLS, SSH, IKE KDFs)',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is an approved construction over an approved hash; ${GROVER}.${sizeNote(a)}`,
    cnsa2: (a) => (cnsaHash(a) ? cnsaApproved('Built on SHA-384/512 (CNSA 2.0).') : notCnsa('CNSA 2.0 requires SHA-384 or SHA-512 underneath.')),
    examples: [{ name: 'HMAC-SHA256' }, { name: 'HmacSHA512' }, { name: 'HKDF-SHA384' }, { name: 'PBKDF2WithHmacSHA256' }, { name: 'hmac-sha2-256-etm@openssh.com' }, { name: 'TLS12-PRF-SHA256' }, { name: 'SP800_108_CounterKDF-HMAC-SHA256' },
      { name: 'HMACSHA2' }, { name: 'ConcatenationKDF-SHA256' }, { name: 'MGF1-SHA256' }],
  },
  {
    id: 'drbg', section: 'green', families: ['CTR_DRBG', 'Hash_DRBG', 'HMAC_DRBG'], source: 'SP 800-90A Rev. 1',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is an approved deterministic random bit generator (SP 800-90A).`,
    cnsa2: () => notCnsa('CNSA 2.0 does not list random bit generators; use one built on AES-256 or SHA-384 in National Security Systems.'),
    examples: [{ name: 'CTR_DRBG' }, { name: 'HMAC-DRBG' }, { name: 'Hash_DRBG' }],
  },
  {
    id: 'outside-standards', section: 'yellow', families: ['RIPEMD', 'BLAKE2', 'BLAKE3', 'SM3', 'Whirlpool', 'GOST', 'UMAC', 'SipHash', 'Poly1305', 'Fortuna', 'Yarrow', ...KDFS],
    condition: 'hash, MAC or generator no NIST standard covers (or HMAC/KDF over one), at 112 bits or more',
    when: (a) => (a.family !== 'GOST' || isHash(a)) && (!KDFS.includes(a.family) || (a.hash !== undefined && !approvedHash(a))),
    source: 'Outside NIST standards: ISO/IEC 10118-3 (RIPEMD, Whirlpool), RFC 7693 (BLAKE2), GB/T 32905 (SM3), RFC 6986 (Streebog), RFC 4418 (UMAC), RFC 8439 (Poly1305)',
    deadline: null, quantumVulnerable: false, replacement: (a) => (a.primitive === 'mac' ? 'HMAC-SHA256 or KMAC' : a.primitive === 'drbg' ? 'an SP 800-90A DRBG' : HASH),
    explain: (a) => `${a.name} is not covered by a NIST standard: fine where FIPS validation is not required, but it cannot be used where it is.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'BLAKE2b-512' }, { name: 'BLAKE3' }, { name: 'SM3' }, { name: 'Whirlpool' }, { name: 'umac-128-etm@openssh.com' }, { name: 'HMAC-SM3' }, { name: 'RIPEMD-256' }],
  },
  {
    id: 'password-hashing', section: 'yellow', families: ['scrypt', 'Argon2', 'bcrypt', 'yescrypt'],
    source: 'Outside NIST standards (SP 800-132 approves PBKDF2 only): RFC 7914 (scrypt), RFC 9106 (Argon2)',
    deadline: null, quantumVulnerable: false, replacement: 'keep Argon2id or scrypt; PBKDF2-HMAC-SHA256 (SP 800-132) only where FIPS validation is required',
    explain: (a) => `${a.name} is a strong password hash but not a NIST-approved KDF: keep it unless the system needs FIPS validation.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'Argon2id' }, { name: 'scrypt' }, { name: 'bcrypt' }],
  },
];

const SYMMETRIC_ROWS: Row[] = [
  {
    id: 'ecb', section: 'red', families: BLOCK_CIPHERS, condition: 'ECB mode', when: (a) => a.mode === 'ECB',
    source: 'SP 800-38A (ECB reveals equal plaintext blocks); SP 800-131A Rev. 3 ipd, 2024-10-21 (ECB disallowed for encryption, decryption legacy use only)',
    deadline: ECB_SP800_131A_R3, quantumVulnerable: false, replacement: AEAD,
    explain: (a) => `${a.name} encrypts equal blocks to equal ciphertext, which leaks the data's structure: do not use ECB for confidentiality; use an authenticated mode such as GCM.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'AES-128-ECB' }, { name: 'AES', mode: 'ecb', parameterSetIdentifier: '256' }, { name: 'AES/ECB/PKCS5Padding' }, { name: 'SM4-ECB' }],
  },
  {
    id: 'aes', section: 'green', families: ['AES'], condition: 'in a mode of the SP 800-38 series, or mode not stated', when: (a) => !a.mode || APPROVED_MODES.includes(a.mode),
    source: 'FIPS 197; SP 800-38A-F; NIST IR 8547 ipd table 6; CNSA 2.0 (AES-256)',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is approved and stays so: ${GROVER}.${a.mode === 'CBC' || a.mode === 'CTR' ? ' Pair it with a MAC, or prefer GCM.' : ''}`,
    cnsa2: (a) => (a.keyBits === 256 ? cnsaApproved('CNSA 2.0 symmetric encryption.') : notCnsa(a.keyBits ? 'CNSA 2.0 requires AES-256.' : 'Key size not stated; CNSA 2.0 requires AES-256.')),
    examples: [{ name: 'AES-256-GCM' }, { name: 'AES-128-GCM', parameterSetIdentifier: '128', mode: 'gcm' }, { name: 'AES128', parameterSetIdentifier: '128' }, { name: 'AES256' }, { name: 'AES/GCM/NoPadding' },
      { name: 'aes128-ctr' }, { name: 'aes256-gcm@openssh.com' }, { name: 'AES128-CBC-PKCS5', mode: 'cbc' }, { name: 'AES-256-KW' }, { name: 'AES-CMAC' }, { name: 'oid:2.16.840.1.101.3.4.1.46', oid: '2.16.840.1.101.3.4.1.46' }],
  },
  {
    id: 'aes-other-mode', section: 'yellow', families: ['AES'], condition: 'mode outside the SP 800-38 series (OCB, SIV, GCM-SIV, EAX, IGE)',
    source: 'RFC 7253 (OCB), RFC 5297 (SIV), RFC 8452 (GCM-SIV): not NIST-approved modes',
    deadline: null, quantumVulnerable: false, replacement: 'AES-GCM or AES-CCM (SP 800-38C/D)',
    explain: (a) => `${a.name}: AES itself is approved, but the ${a.mode} mode is not a NIST mode, so the use cannot be FIPS-validated.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'AES-256-GCM-SIV' }, { name: 'AES-128-OCB' }],
  },
  {
    id: 'chacha20-poly1305', section: 'green', families: ['ChaCha20'], condition: 'ChaCha20-Poly1305 AEAD', when: (a) => a.name.endsWith('ChaCha20-Poly1305'),
    source: 'RFC 8439 (AEAD in TLS 1.3, RFC 8446, and SSH); 256-bit key; not a NIST standard',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is a 256-bit authenticated cipher with no quantum weakness beyond Grover; it is not FIPS-approved, so FIPS-validated systems use AES-GCM instead.`,
    cnsa2: () => notCnsa('CNSA 2.0 requires AES-256.'),
    examples: [{ name: 'ChaCha20-Poly1305' }, { name: 'chacha20-poly1305@openssh.com' }, { name: 'CHACHA20_POLY1305' }, { name: 'XChaCha20-Poly1305' }],
  },
  {
    id: 'ascon', section: 'green', families: ['Ascon'], source: 'SP 800-232 (Ascon lightweight cryptography, 2025)',
    deadline: null, quantumVulnerable: false, replacement: null,
    explain: (a) => `${a.name} is the NIST lightweight standard (SP 800-232) at 128 bits.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'Ascon-AEAD128' }, { name: 'Ascon-Hash256' }],
  },
  {
    id: 'tdea-2key', section: 'red', families: ['3DES'], condition: 'two-key TDEA (112-bit key, 80-bit security)', when: (a) => a.keyBits === 112,
    source: 'SP 800-131A Rev. 2 sec. 2 (2TDEA encryption disallowed after 2015)',
    deadline: TDEA2_2015, quantumVulnerable: false, replacement: AEAD,
    explain: () => 'Two-key Triple DES gives 80 bits of security and a 64-bit block (Sweet32): disallowed for encryption since 2015. Decrypt old data only; encrypt with AES.',
    cnsa2: () => NOT_CNSA, examples: [{ name: 'DES-EDE-CBC' }, { name: 'DESede', keyBits: 112 }, { name: '2TDEA' }],
  },
  {
    id: 'tdea-3key', section: 'red', families: ['3DES'], condition: 'three-key TDEA',
    source: 'SP 800-131A Rev. 2 sec. 2 (3TDEA encryption disallowed after 2023); Sweet32 (CVE-2016-2183)',
    deadline: TDEA3_2023, quantumVulnerable: false, replacement: AEAD,
    explain: () => 'Triple DES has a 64-bit block (Sweet32 recovers plaintext after about 32 GB) and at most 112 bits of security: disallowed for encryption since 2023. Decrypt old data only; encrypt with AES.',
    cnsa2: () => NOT_CNSA, examples: [{ name: 'desede-168' }, { name: 'DESede' }, { name: '3DES_EDE_CBC' }, { name: 'DES-EDE3-CBC' }, { name: 'TripleDES' }, { name: 'oid:1.2.840.113549.3.7', oid: '1.2.840.113549.3.7' }],
  },
  {
    id: 'des', section: 'red', families: ['DES'], source: 'FIPS 46-3 withdrawn 2005; SP 800-131A Rev. 2',
    deadline: DES_WITHDRAWN, quantumVulnerable: false, replacement: AEAD,
    explain: () => 'DES has a 56-bit key, found by brute force in hours: withdrawn since 2005. Replace it with AES.',
    cnsa2: () => NOT_CNSA, examples: [{ name: 'DES' }, { name: 'DES-CBC' }, { name: 'DES40_CBC' }, { name: 'oid:1.3.14.3.2.7', oid: '1.3.14.3.2.7' }],
  },
  {
    id: 'skipjack', section: 'red', families: ['Skipjack'], source: 'SP 800-131A Rev. 2 sec. 2 (Skipjack encryption disallowed after 2010, decryption legacy use only)',
    deadline: SKIPJACK_2010, quantumVulnerable: false, replacement: AEAD,
    explain: () => 'Skipjack has an 80-bit key and a 64-bit block: NIST disallowed it for encryption after 2010. Decrypt old data only; encrypt with AES.',
    cnsa2: () => NOT_CNSA, examples: [{ name: 'Skipjack' }, { name: 'SKIPJACK-CBC' }],
  },
  {
    id: 'legacy-ciphers', section: 'red', families: ['RC2', 'RC4', 'RC5', 'Blowfish', 'IDEA', 'CAST5', 'A5/1', 'A5/2', 'CMEA'],
    source: `RFC 7465 (RC4 prohibited in TLS); Sweet32 (CVE-2016-2183, CVE-2016-6329: 64-bit block ciphers); RFC 8429; never NIST-approved; ${UNDER_112}`,
    deadline: DISALLOWED_2013, quantumVulnerable: false, replacement: AEAD,
    explain: (a) => `${a.name} is broken or obsolete (${a.family === 'RC4' ? 'keystream biases recover plaintext' : /^A5|CMEA/.test(a.family) ? 'practical key recovery' : 'a 64-bit block that leaks after a few gigabytes, or a short key'}): replace it with AES.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'RC4' }, { name: 'ARCFOUR' }, { name: 'RC4_128' }, { name: 'RC2-CBC' }, { name: 'Blowfish' }, { name: 'blowfish-cbc' }, { name: 'IDEA-CBC' }, { name: 'CAST5-CBC' }],
  },
  {
    id: 'no-encryption', section: 'red', families: ['NULL'], source: `RFC 5246 and RFC 9150 (NULL and integrity-only suites give no confidentiality); SP 800-52 Rev. 2; ${UNDER_112}`,
    deadline: DISALLOWED_2013, quantumVulnerable: false, replacement: AEAD,
    explain: () => 'No encryption at all: the data travels in clear. Use an AEAD cipher suite.',
    cnsa2: () => NOT_CNSA, examples: [{ name: 'NULL' }],
  },
  {
    id: 'other-symmetric-under-112', section: 'red', families: OTHER_CIPHERS, condition: 'key under 112 bits', when: (a) => a.keyBits !== undefined && a.keyBits < 112,
    source: `SP 800-57 Part 1 Rev. 5 table 2 (112-bit minimum); ${UNDER_112}`,
    deadline: DISALLOWED_2013, quantumVulnerable: false, replacement: AEAD,
    explain: (a) => `${a.name} has a ${a.keyBits}-bit key, under the 112-bit minimum: replace it with AES.`,
    cnsa2: () => NOT_CNSA, examples: [{ name: 'RC6-64' }, { name: 'Salsa20', keyBits: 80 }],
  },
  {
    id: 'other-symmetric', section: 'yellow', families: OTHER_CIPHERS, condition: 'key of 112 bits or more, or not stated',
    source: 'Outside NIST standards: Camellia (RFC 3713), ARIA (RFC 5794), SEED (RFC 4269), GOST 28147-89 / Kuznyechik (RFC 5830, RFC 7801), SM4 (GB/T 32907), Twofish, Serpent, Salsa20/ChaCha20 (RFC 7539 without Poly1305)',
    deadline: null, quantumVulnerable: false, replacement: AEAD,
    explain: (a) => `${a.name} is not covered by a NIST standard${a.family === 'GOST' && a.name === 'GOST28147' ? ' (and GOST 28147-89 has a 64-bit block)' : ''}${a.family === 'ChaCha20' || a.family === 'Salsa20' ? ' and is not authenticated on its own' : ''}: acceptable where FIPS validation is not required; move to AES where it is.`,
    cnsa2: () => NOT_CNSA,
    examples: [{ name: 'Camellia-128' }, { name: 'CAMELLIA_256_CBC' }, { name: 'ARIA-256-GCM' }, { name: 'SEED-CBC' }, { name: 'SM4-GCM' }, { name: 'GOST28147' }, { name: 'Kuznyechik' }, { name: 'Twofish-256' }, { name: 'ChaCha20' }, { name: 'HC-128' }],
  },
];

export const CLASSIFICATION_TABLE: Row[] = [...PQC_ROWS, ...PUBLIC_KEY_ROWS, ...HASH_ROWS, ...SYMMETRIC_ROWS];

/** The first row deciding an algorithm, if any. */
export const rowFor = (a: Algorithm): Row | undefined => CLASSIFICATION_TABLE.find((row) => row.families.includes(a.family) && (!row.when || row.when(a)));

/** A row about a protocol's version rather than its algorithms. */
export interface ProtocolRow {
  id: string;
  section: Section;
  condition: string;
  when: (type: string, version: number) => boolean;
  source: string;
  deadline: string | null;
  quantumVulnerable: boolean;
  replacement: string;
  explain: (name: string) => string;
  examples: { type: string; version: string }[];
}

export const PROTOCOL_TABLE: ProtocolRow[] = [
  {
    id: 'ssl', section: 'red', condition: 'SSL 2.0 or 3.0', when: (type) => type === 'SSL',
    source: 'RFC 6176 (SSL 2.0 prohibited); RFC 7568 (SSL 3.0 prohibited, POODLE); SP 800-52 Rev. 2, 2019-08-29 (SSL not to be used)', deadline: SP800_52R2, quantumVulnerable: false, replacement: 'TLS 1.3 (TLS 1.2 at least)',
    explain: (name) => `${name} is broken (POODLE, DROWN) and prohibited: disable it and offer TLS 1.3.`,
    examples: [{ type: 'ssl', version: '3.0' }, { type: 'SSLv2', version: '2.0' }],
  },
  {
    id: 'tls-before-1.2', section: 'red', condition: 'TLS 1.0, TLS 1.1 or DTLS 1.0', when: (type, version) => (type === 'TLS' || type === 'DTLS') && version < 1.2,
    source: 'SP 800-52 Rev. 2 sec. 3.1, 2019-08-29 (TLS 1.2 minimum); RFC 8996 (TLS 1.0 and 1.1 deprecated)', deadline: SP800_52R2, quantumVulnerable: false, replacement: 'TLS 1.3 (TLS 1.2 at least)',
    explain: (name) => `${name} is deprecated (RFC 8996) and not allowed by SP 800-52 Rev. 2: disable it and offer TLS 1.3.`,
    examples: [{ type: 'tls', version: '1.0' }, { type: 'tls', version: '1.1' }, { type: 'dtls', version: '1.0' }],
  },
  {
    id: 'ssh-1', section: 'red', condition: 'SSH protocol 1', when: (type, version) => type === 'SSH' && version < 2,
    source: `RFC 4251-4253 (SSH-2 replaces SSH-1, whose design is broken: CRC-32 compensation attack, no integrity); ${UNDER_112}`, deadline: DISALLOWED_2013, quantumVulnerable: false, replacement: 'SSH 2.0',
    explain: (name) => `${name} is broken by design: disable protocol 1 and use SSH 2.0.`,
    examples: [{ type: 'ssh', version: '1.5' }],
  },
  {
    id: 'tls-1.2-classical-key-exchange', section: 'red', condition: 'TLS 1.2 or DTLS 1.2 whose key exchange is not stated', when: (type, version) => (type === 'TLS' || type === 'DTLS') && version === 1.2,
    source: 'RFC 5246 (TLS 1.2 key exchanges: RSA, DHE, ECDHE); NIST IR 8547 ipd table 4; SP 800-52 Rev. 2 (TLS 1.3 support required from 2024)',
    deadline: DEPRECATED_2030, quantumVulnerable: true, replacement: 'TLS 1.3 with X25519MLKEM768',
    explain: (name) => `${name} has no post-quantum key exchange: whatever it negotiates (RSA, DHE, ECDHE) is quantum-vulnerable, deprecated after 2030 at 112 bits and disallowed after 2035 (NIST IR 8547). Offer TLS 1.3 with X25519MLKEM768.`,
    examples: [{ type: 'tls', version: '1.2' }],
  },
];
