// From what a BOM says about one algorithm (a name, an OID, the 1.7 `algorithmFamily`, a parameter
// set, a curve, a mode, a padding, a key size) to one normalised algorithm: its CycloneDX registry
// family, its parameters, its display name and its classical strength. Real CBOMs are messy: "SHA1"
// and "SHA-1", "SHA256withRSA", "secp256r1" / "P-256" / "prime256v1", "desede-168", OIDs alone, key
// sizes only in `parameterSetIdentifier` or in the name. Cipher suites and PBE schemes (several
// algorithms in one name) are split by suites.ts.
import { compact, findHash, hashOf, type Hash } from './hashes';
import { isOid, oidName } from './oids';
import { curveOf, curveStrength, type Curve } from './registry';

/** What a BOM says about one algorithm. */
export interface AlgorithmInput {
  name: string;
  oid?: string;
  /** CycloneDX 1.7 `algorithmFamily`. */
  family?: string;
  primitive?: string;
  parameterSetIdentifier?: string;
  curve?: string;
  mode?: string;
  padding?: string;
  /** A key's size in bits (related crypto material `size`, a runtime `keySize`). */
  keyBits?: number;
  classicalSecurityLevel?: number;
  /** The input describes a key, not an operation: a hash named with a public-key algorithm is the signature's, not the key's. */
  key?: boolean;
}

/** A normalised algorithm. `family` is a registry family or one of ADDED_FAMILIES. */
export interface Algorithm {
  family: string;
  /** Display name: `RSA-2048`, `ECDSA-P256-SHA256`, `AES-256-GCM`, `SHA-256`, `ML-KEM-768`, `X25519MLKEM768`. */
  name: string;
  primitive: string | null;
  keyBits?: number;
  curve?: Curve;
  mode?: string;
  /** The hash a signature, MAC or KDF is built on. */
  hash?: Hash;
  /** FIPS 203/204/205 parameter set (`768`, `65`, `SHA2-128s`). */
  set?: string;
  /** A hybrid key establishment; `pre-standard` when its post-quantum part is not FIPS 203. */
  hybrid?: 'standard' | 'pre-standard';
  composite?: boolean;
  /** Classical security strength in bits (SP 800-57 Part 1 Rev. 5 tables 2-3), null when unknown. */
  securityBits: number | null;
}

type Draft = Omit<Algorithm, 'securityBits' | 'primitive'> & { primitive?: string };

export const RSA_FAMILIES = ['RSA', 'RSAES-OAEP', 'RSAES-PKCS1', 'RSASSA-PKCS1', 'RSASSA-PSS'];
export const EC_FAMILIES = ['EC', 'ECDSA', 'ECDH', 'EdDSA', 'MQV', 'ECIES', 'SM2'];
const kind = (family: string) => (RSA_FAMILIES.includes(family) ? 'RSA' : EC_FAMILIES.includes(family) ? 'EC' : family);

/** Block cipher modes and MAC modes as the registry spells them. */
function modeOf(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const t = `-${text.toUpperCase().replace(/[\s_/]/g, '-')}-`;
  const m = /-(GCM-SIV|GCM|CCM|CBC|CTR|CFB(?:1|8|64|128)?|OFB|ECB|XTS|CTS|KWP|KW|WRAP-PAD|WRAP|SIV|OCB|EAX|CMAC|GMAC|IGE)(?:-|\d)/.exec(t);
  return m ? ({ WRAP: 'KW', 'WRAP-PAD': 'KWP' } as Record<string, string>)[m[1]!] ?? m[1] : undefined;
}

// ---- public-key names ("RSA-2048", "SHA256withRSA", "ecdsa-sha2-nistp256", "diffie-hellman-group14-sha256") ----
const KEY_TOKENS: Record<string, string> = {
  RSA: 'RSA', RSAENCRYPTION: 'RSA', RSAES: 'RSA', RSASSA: 'RSA', RSAPSS: 'RSASSA-PSS', ECDSA: 'ECDSA', EC: 'EC', ECC: 'EC', ECPUBLICKEY: 'EC',
  ECDH: 'ECDH', ECDHE: 'ECDH', ECMQV: 'MQV', MQV: 'MQV', FFMQV: 'MQV', ECIES: 'ECIES', X25519: 'ECDH', X448: 'ECDH', CURVE25519: 'ECDH', CURVE448: 'ECDH',
  ED25519: 'EdDSA', ED448: 'EdDSA', EDDSA: 'EdDSA', DSA: 'DSA', DSS: 'DSA', DH: 'FFDH', DHE: 'FFDH', EDH: 'FFDH', FFDH: 'FFDH', FFDHE: 'FFDH', DIFFIE: 'FFDH',
  ELGAMAL: 'ElGamal', SM2: 'SM2',
};
/** SSH and IKE Diffie-Hellman groups (RFC 4253, RFC 8268, RFC 3526, RFC 7919) by their size. */
const GROUPS: Record<string, number> = { GROUP1: 1024, GROUP2: 1024, GROUP5: 1536, GROUP14: 2048, GROUP15: 3072, GROUP16: 4096, GROUP17: 6144, GROUP18: 8192 };

function publicKey(text: string): Draft | undefined {
  const ssh = text.startsWith('SSH-');
  let t = text.replace(/^SSH-/, '').replace(/\b([PBK])-(\d{3})\b/g, '$1$2').replace(/PKCS1-?V?1[._-]?5/g, 'PKCS1V15');
  // OpenSSH names the hash of ECDSA and ECDH by the curve ("ecdsa-sha2-nistp384" is SHA-384 on P-384).
  t = t.replace(/^(ECDSA|ECDH)-SHA2-NISTP(256|384|521)$/, (_, k: string, n: string) => `${k}-P${n}-SHA${n === '521' ? 512 : n}`);
  if (ssh && (t === 'RSA' || t === 'DSS')) t = `${t}-SHA1`; // ssh-rsa and ssh-dss sign with SHA-1
  const found = findHash(t);
  const tokens = (found ? found.rest : t).split('-').filter(Boolean);
  const first = (tokens[0] ?? '').replace(/^(ED25519|ED448)(PH|CTX)$/, '$1');
  const numbered = /^(FFDHE|MODP)(\d{3,5})$/.exec(first);
  let family = numbered ? 'FFDH' : KEY_TOKENS[first];
  let curve = family ? undefined : curveOf(first);
  if (!family && /^ECP\d{3}$/.test(first)) curve = curveOf(`P-${first.slice(3)}`);
  if (!family && curve) family = 'EC'; // a bare curve name ("secp256r1", a TLS group) is an EC key
  if (!family) return undefined;
  if (first === 'X25519' || first === 'CURVE25519' || first === 'ED25519') curve = curveOf(first === 'ED25519' ? 'Ed25519' : 'x25519');
  if (first === 'X448' || first === 'CURVE448' || first === 'ED448') curve = curveOf(first === 'ED448' ? 'Ed448' : 'x448');
  let keyBits = numbered ? Number(numbered[2]) : undefined;
  let scheme: string | undefined = family === 'RSASSA-PSS' ? 'PSS' : first === 'RSASSA' ? 'SSA' : first === 'RSAES' ? 'ES' : undefined;
  for (const token of tokens.slice(1)) {
    if (/^\d{3,5}$/.test(token)) keyBits ??= family === 'EC' || EC_FAMILIES.includes(family) || Number(token) >= 512 ? Number(token) : undefined;
    else if (GROUPS[token]) keyBits = GROUPS[token];
    else if (/^(MODP|FFDHE)(\d{3,5})$/.test(token)) keyBits = Number(/\d+/.exec(token)![0]);
    else if (token === 'OAEP' || token === 'PSS') scheme = token;
    else if (token === 'PKCS1V15' || token === 'PKCS1') scheme ??= token;
    else curve ??= curveOf(token);
  }
  if (family === 'RSA') {
    family = scheme === 'OAEP' ? 'RSAES-OAEP' : scheme === 'PSS' ? 'RSASSA-PSS' : found || scheme === 'SSA' ? 'RSASSA-PKCS1' : scheme ? 'RSAES-PKCS1' : 'RSA';
  }
  if (family === 'EC' && found) family = 'ECDSA';
  return { family, name: first, keyBits, curve, hash: found?.hash };
}

// ---- symmetric ciphers ----
const CIPHERS: [RegExp, string][] = [
  [/^AES/, 'AES'], [/^(3DES|TDEA|TDES|TRIPLE-?DES|DESEDE|DES-?EDE|DES3|DES-CBC3|2TDEA|3TDEA)/, '3DES'], [/^DES(?![A-Z])/, 'DES'],
  [/^X?CHACHA20/, 'ChaCha20'], [/^CAMELLIA/, 'CAMELLIA'], [/^ARIA/, 'ARIA'], [/^SEED/, 'SEED'], [/^SM4/, 'SM4'],
  [/^(GOST-?28147|MAGMA|KUZNYECHIK|GOST-?R?-?3412|GOST$)/, 'GOST'], [/^(BLOWFISH|BF(?=-|$))/, 'Blowfish'], [/^TWOFISH/, 'Twofish'], [/^SERPENT/, 'Serpent'],
  [/^IDEA/, 'IDEA'], [/^(CAST5|CAST-?128)/, 'CAST5'], [/^(CAST6|CAST-?256)/, 'CAST6'], [/^RC2/, 'RC2'], [/^(RC4|ARCFOUR|ARC4)/, 'RC4'], [/^RC5/, 'RC5'],
  [/^RC6/, 'RC6'], [/^SKIPJACK/, 'Skipjack'], [/^X?SALSA20/, 'Salsa20'], [/^HC-?(128|256)/, 'HC'], [/^RABBIT/, 'RABBIT'], [/^(ZUC|128-EEA3|128-EIA3)/, 'ZUC'],
  [/^(SNOW-?3G|128-EEA1|128-EIA1)/, 'SNOW3G'], [/^A5\/?1/, 'A5/1'], [/^A5\/?2/, 'A5/2'], [/^CMEA/, 'CMEA'], [/^ASCON/, 'Ascon'], [/^(NULL|ENC-NULL)$/, 'NULL'],
];

function symmetric(t: string, input: AlgorithmInput): Draft | undefined {
  const entry = CIPHERS.find(([pattern]) => pattern.test(t));
  if (!entry) return undefined;
  const [pattern, family] = entry;
  const matched = pattern.exec(t)![0];
  const rest = t.slice(matched.length);
  const mode = modeOf(rest) ?? modeOf(input.mode);
  if (family === 'ChaCha20') return { family, name: `${matched.startsWith('X') ? 'X' : ''}ChaCha20${/POLY1305/.test(rest) ? '-Poly1305' : ''}`, keyBits: 256 };
  if (family === '3DES') {
    // "des-ede" (OpenSSL) is two-key, "des-ede3" and JCA "DESede" three-key unless the key size says otherwise.
    const two = /^2TDEA|^DES-EDE(?!3)|-(112|128)(?!\d)/.test(t) || input.keyBits === 112 || input.keyBits === 128;
    return { family, name: '3DES', keyBits: two ? 112 : 168, mode };
  }
  const sizeInName = /^-?(\d{2,3})(?!\d)/.exec(rest)?.[1] ?? /^HC-?(\d+)/.exec(t)?.[1];
  const pset = Number(input.parameterSetIdentifier) || undefined;
  let keyBits = sizeInName ? Number(sizeInName) : family === 'DES' ? 56 : undefined;
  if (family === 'AES' && keyBits && ![128, 192, 256].includes(keyBits)) keyBits = undefined;
  keyBits ??= family === 'AES' ? [pset, input.keyBits].find((b) => b === 128 || b === 192 || b === 256) : (pset ?? input.keyBits);
  const name = family === 'GOST' ? (/KUZNYECHIK|3412/.test(t) ? 'Kuznyechik' : 'GOST28147') : family === 'Ascon' ? 'Ascon-AEAD128' : family;
  return { family, name, keyBits, mode };
}

// ---- MACs, KDFs, DRBGs and password hashing ----
function macOrKdf(t: string): Draft | undefined {
  let m: RegExpExecArray | null;
  if ((m = /^(CTR|HASH|HMAC)-?DRBG/.exec(t))) return { family: `${m[1] === 'CTR' ? 'CTR' : m[1] === 'HASH' ? 'Hash' : 'HMAC'}_DRBG`, name: `${m[1] === 'CTR' ? 'CTR' : m[1] === 'HASH' ? 'Hash' : 'HMAC'}_DRBG` };
  if ((m = /^(FORTUNA|YARROW)/.exec(t))) return { family: m[1] === 'FORTUNA' ? 'Fortuna' : 'Yarrow', name: m[1] === 'FORTUNA' ? 'Fortuna' : 'Yarrow' };
  if ((m = /^(KMAC|KMACXOF|CSHAKE|TUPLEHASH|PARALLELHASH)-?(128|256)$/.exec(t))) return { family: 'SHA-3', name: `${{ KMAC: 'KMAC', KMACXOF: 'KMACXOF', CSHAKE: 'cSHAKE', TUPLEHASH: 'TupleHash', PARALLELHASH: 'ParallelHash' }[m[1]!]}${m[2]}`, primitive: /KMAC/.test(m[1]!) ? 'mac' : 'hash' };
  if ((m = /^(?:HMAC-?(.*)|(.+?)-?HMAC)$/.exec(t))) return { family: 'HMAC', name: 'HMAC', hash: hashOf(m[1] ?? m[2]) ?? findHash(m[1] ?? m[2] ?? '')?.hash };
  if (/^(AES-?)?(CMAC|GMAC)(-?AES)?/.test(t) && !/^AES-?\d/.test(t)) return /GMAC|AES/.test(t) ? { family: 'AES', name: 'AES', mode: /GMAC/.test(t) ? 'GMAC' : 'CMAC' } : { family: 'CMAC', name: 'CMAC' };
  if (/^POLY1305/.test(t)) return { family: 'Poly1305', name: 'Poly1305' };
  if (/^UMAC/.test(t)) return { family: 'UMAC', name: t.replace(/^UMAC-?/, 'UMAC-').replace(/-$/, '') };
  if (/^SIPHASH/.test(t)) return { family: 'SipHash', name: 'SipHash' };
  const kdfs: [RegExp, string][] = [[/^HKDF/, 'HKDF'], [/^PBKDF2/, 'PBKDF2'], [/^PBKDF1/, 'PBKDF1'], [/^(SP-?800-?108|KBKDF)/, 'SP800-108'],
    [/^(SP-?800-?56C|CONCAT(ENATION)?-?KDF|ONE-?STEP-?KDF)/, 'SP800-56C'], [/^MGF-?1/, 'MGF1'], [/^(ANSI-?KDF|X9\.?63-?KDF|X963KDF|X9\.?42-?KDF)/, 'ANSI-KDF'],
    [/^(TLS-?1[0-3]?-?PRF|TLS-?PRF|TLS-?1\.[0-3]-?PRF)/, 'TLS-PRF'], [/^SSH-?KDF/, 'SSH-KDF'], [/^IKE/, 'IKE-PRF'],
    [/^SCRYPT/, 'scrypt'], [/^ARGON2/, 'Argon2'], [/^BCRYPT/, 'bcrypt'], [/^YESCRYPT/, 'yescrypt']];
  const kdf = kdfs.find(([pattern]) => pattern.test(t));
  if (!kdf) return undefined;
  const family = kdf[1];
  if (family === 'HKDF' || family === 'TLS-PRF' && /13/.test(t)) return { family: 'HKDF', name: 'HKDF', hash: findHash(t.replace(/^TLS-?13-?PRF/, ''))?.hash };
  // The TLS 1.0/1.1 PRF combines MD5 and SHA-1; its weaker part decides.
  const hash = family === 'TLS-PRF' && /^TLS-?(1|1\.[01]|10|11)-?PRF/.test(t) ? hashOf('SHA-1') : findHash(t.replace(kdf[0], ''))?.hash;
  return { family, name: family === 'Argon2' ? `Argon2${/ARGON2(ID|I|D)/.exec(t)?.[1]?.toLowerCase() ?? ''}` : family, hash };
}

// ---- post-quantum and hybrid names ----
const HYBRIDS: Record<string, [string, 'standard' | 'pre-standard', string]> = {
  X25519MLKEM768: ['X25519MLKEM768', 'standard', 'ML-KEM'], SECP256R1MLKEM768: ['SecP256r1MLKEM768', 'standard', 'ML-KEM'],
  SECP384R1MLKEM1024: ['SecP384r1MLKEM1024', 'standard', 'ML-KEM'], X448MLKEM1024: ['X448MLKEM1024', 'standard', 'ML-KEM'],
  CURVESM2MLKEM768: ['curveSM2MLKEM768', 'standard', 'ML-KEM'], MLKEM768X25519SHA256: ['mlkem768x25519-sha256', 'standard', 'ML-KEM'],
  MLKEM768NISTP256SHA256: ['mlkem768nistp256-sha256', 'standard', 'ML-KEM'], MLKEM1024NISTP384SHA384: ['mlkem1024nistp384-sha384', 'standard', 'ML-KEM'],
  XWING: ['X-Wing', 'standard', 'X-Wing'], X25519KYBER768DRAFT00: ['X25519Kyber768Draft00', 'pre-standard', 'Kyber'],
  X25519KYBER512DRAFT00: ['X25519Kyber512Draft00', 'pre-standard', 'Kyber'], SECP256R1KYBER768DRAFT00: ['SecP256r1Kyber768Draft00', 'pre-standard', 'Kyber'],
  SNTRUP761X25519SHA512: ['sntrup761x25519-sha512', 'pre-standard', 'PQC-candidate'],
};

function postQuantum(c: string, text: string, input: AlgorithmInput): Draft | undefined {
  const hybrid = HYBRIDS[c];
  if (hybrid) return { family: hybrid[2], name: hybrid[0], hybrid: hybrid[1], set: /(512|768|1024)/.exec(c)?.[1] };
  let m: RegExpExecArray | null;
  if ((m = /^(X25519|X448|SECP\d{3}R1|P\d{3})(MLKEM|KYBER)(512|768|1024)/.exec(c))) return { family: m[2] === 'MLKEM' ? 'ML-KEM' : 'Kyber', name: text, hybrid: m[2] === 'MLKEM' ? 'standard' : 'pre-standard', set: m[3] };
  if (/^(ID)?MLDSA(44|65|87)(RSA|ECDSA|ED25519|ED448|BP|BRAINPOOL)/.test(c)) return { family: 'ML-DSA', name: text.replace(/^id-/i, ''), composite: true, set: /(44|65|87)/.exec(c)![1] };
  const pset = (input.parameterSetIdentifier ?? '').toUpperCase().replace(/[-_\s]/g, '');
  if ((m = /^(HASH)?MLKEM(512|768|1024)?$/.exec(c))) return { family: 'ML-KEM', name: 'ML-KEM', set: m[2] ?? /(512|768|1024)/.exec(pset)?.[1] };
  if ((m = /^(HASH)?MLDSA(44|65|87)?(SHA\d+|SHAKE\d+)?$/.exec(c))) return { family: 'ML-DSA', name: m[1] ? 'HashML-DSA' : 'ML-DSA', set: m[2] ?? /(44|65|87)/.exec(pset)?.[1], hash: m[3] ? hashOf(m[3]) : undefined };
  if ((m = /^(HASH)?SLHDSA(SHA2|SHAKE)?(128|192|256)?([SF])?/.exec(c))) return { family: 'SLH-DSA', name: `${m[1] ? 'Hash' : ''}SLH-DSA`, set: m[2] && m[3] ? `${m[2]}-${m[3]}${(m[4] ?? '').toLowerCase()}` : undefined };
  if (/^(HSS|LMS|LMOTS)/.test(c)) return { family: 'LMS', name: /^HSS/.test(c) ? 'HSS-LMS' : 'LMS' };
  if (/^(XMSS|WOTSP)/.test(c)) return { family: 'XMSS', name: /^XMSS(MT|\^MT)/.test(c) ? 'XMSS^MT' : 'XMSS' };
  if ((m = /^(CRYSTALS)?KYBER(512|768|1024)?/.exec(c))) return { family: 'Kyber', name: `Kyber${m[2] ?? ''}` };
  if ((m = /^(CRYSTALS)?DILITHIUM([235])?/.exec(c))) return { family: 'Dilithium', name: `Dilithium${m[2] ?? ''}` };
  if (/^SPHINCS/.test(c)) return { family: 'SPHINCS+', name: text };
  if ((m = /^(FALCON|FNDSA)(512|1024)?/.exec(c))) return { family: 'Falcon', name: `Falcon${m[2] ? `-${m[2]}` : ''}` };
  if (/^(HQC|BIKE|FRODO|CLASSICMCELIECE|MCELIECE|NTRU|SNTRUP)/.test(c)) return { family: 'PQC-candidate', name: text };
  return undefined;
}

/** JOSE algorithm names (RFC 7518, RFC 8037) to what they stand for. */
const JOSE: Record<string, string> = {
  RS256: 'SHA256withRSA', RS384: 'SHA384withRSA', RS512: 'SHA512withRSA', PS256: 'RSA-PSS-SHA256', PS384: 'RSA-PSS-SHA384', PS512: 'RSA-PSS-SHA512',
  ES256: 'ECDSA-P256-SHA256', ES384: 'ECDSA-P384-SHA384', ES512: 'ECDSA-P521-SHA512', ES256K: 'ECDSA-secp256k1-SHA256', HS256: 'HMAC-SHA256', HS384: 'HMAC-SHA384',
  HS512: 'HMAC-SHA512', RSA1_5: 'RSA-PKCS1V15', 'RSA-OAEP-256': 'RSA-OAEP-SHA256', 'RSA-OAEP-384': 'RSA-OAEP-SHA384', 'RSA-OAEP-512': 'RSA-OAEP-SHA512',
  A128GCM: 'AES-128-GCM', A192GCM: 'AES-192-GCM', A256GCM: 'AES-256-GCM', A128KW: 'AES-128-KW', A192KW: 'AES-192-KW', A256KW: 'AES-256-KW',
  'A128CBC-HS256': 'AES-128-CBC', 'A192CBC-HS384': 'AES-192-CBC', 'A256CBC-HS512': 'AES-256-CBC', A128GCMKW: 'AES-128-GCM', A256GCMKW: 'AES-256-GCM',
};

function parse(text: string, input: AlgorithmInput): Draft | undefined {
  const jose = JOSE[text.trim().toUpperCase()];
  if (jose) return parse(jose, input);
  let t = text.trim().toUpperCase().replace(/@[\w.-]+$/, '').replace(/[\s_]+/g, '-').replace(/^(SK-)?SSH-/, 'SSH-').replace(/-CERT-V0\d$/, '');
  if (/^(TLS|SSL)-/.test(t) || /^PBE/.test(t)) return undefined; // several algorithms in one name: suites.ts
  t = t.replace(/(-(PUBLIC|PRIVATE|SECRET|HOST|SERVER|CLIENT|SIGNING|CA|ROOT))*-KEY(-?PAIR)?$/, ''); // "ML-KEM-768 private key"
  t = t.replace(/^((PUBLIC|PRIVATE|SECRET|SYMMETRIC)-)?KEY(-?PAIR)?[:/]-?/, ''); // "key:aes", "secret-key:rsa-2048"
  // A JCA transformation: ALGORITHM/MODE/PADDING ("AES/GCM/NoPadding", "RSA/ECB/OAEPWithSHA-256AndMGF1Padding").
  const jca = /^([A-Z0-9-]+)\/([A-Z0-9-]+)\/([A-Z0-9.-]+)$/.exec(t);
  if (jca) {
    const a = parse(jca[1]!, input);
    if (!a) return undefined;
    if (a.family === 'RSA' && /OAEP/.test(jca[3]!)) Object.assign(a, { family: 'RSAES-OAEP', hash: findHash(jca[3]!.replace(/MGF1/, ''))?.hash });
    else if (a.family === 'RSA' && /PKCS1/.test(jca[3]!)) a.family = 'RSAES-PKCS1';
    else if (jca[2] !== 'NONE' && !RSA_FAMILIES.includes(a.family)) a.mode = modeOf(jca[2]) ?? a.mode;
    return a;
  }
  const c = t.replace(/[-.]/g, '');
  const pq = postQuantum(c, text.trim(), input);
  if (pq) return pq;
  const hash = hashOf(t);
  if (hash) return { family: hash.family, name: hash.name, hash, primitive: hash.name.startsWith('SHAKE') ? 'xof' : 'hash' };
  const mac = macOrKdf(t);
  if (mac) return mac;
  const dl = /^(SRP|J-?PAKE|SPAKE2(?:\+|PLUS)?|OPAQUE|X3DH|BLS|SM9|HPKE)/.exec(t);
  if (dl) {
    if (/^HPKE/.test(t) && /XWING|X-WING/.test(t)) return { family: 'X-Wing', name: 'X-Wing', hybrid: 'standard', set: '768' };
    if (/^HPKE/.test(t) && /ML-?KEM-?(512|768|1024)/.test(t)) return { family: 'ML-KEM', name: 'ML-KEM', set: /ML-?KEM-?(512|768|1024)/.exec(t)![1] };
    const family = ({ JPAKE: 'J-PAKE', 'J-PAKE': 'J-PAKE', 'SPAKE2+': 'SPAKE2PLUS', SPAKE2PLUS: 'SPAKE2PLUS' } as Record<string, string>)[dl[1]!] ?? dl[1]!;
    return { family, name: text.trim() };
  }
  // Signatures written as hash and key in either order: "SHA256withRSA", "sha256WithRSAEncryption", "SHA1-RSA", "ecdsa-with-SHA384".
  t = t.replace(/-?WITH-?/, '-').replace(/\/PSS$/, '-PSS');
  return publicKey(t) ?? symmetric(t, input);
}

const DEFAULT_PRIMITIVES: Record<string, string> = {
  'RSAES-OAEP': 'pke', 'RSAES-PKCS1': 'pke', 'RSASSA-PKCS1': 'signature', 'RSASSA-PSS': 'signature', ECDSA: 'signature', ECDH: 'key-agree', EdDSA: 'signature',
  MQV: 'key-agree', ECIES: 'pke', SM2: 'signature', FFDH: 'key-agree', DSA: 'signature', ElGamal: 'pke', 'ML-KEM': 'kem', 'ML-DSA': 'signature', 'SLH-DSA': 'signature',
  LMS: 'signature', XMSS: 'signature', Kyber: 'kem', Dilithium: 'signature', 'SPHINCS+': 'signature', Falcon: 'signature', 'X-Wing': 'kem',
  HMAC: 'mac', CMAC: 'mac', Poly1305: 'mac', UMAC: 'mac', SipHash: 'mac', CTR_DRBG: 'drbg', Hash_DRBG: 'drbg', HMAC_DRBG: 'drbg', Fortuna: 'drbg', Yarrow: 'drbg',
  RC4: 'stream-cipher', Salsa20: 'stream-cipher', HC: 'stream-cipher', RABBIT: 'stream-cipher', ZUC: 'stream-cipher', SNOW3G: 'stream-cipher', 'A5/1': 'stream-cipher', 'A5/2': 'stream-cipher',
  Ascon: 'ae', NULL: 'other',
};

function primitiveOf(a: Draft, input: AlgorithmInput): string | null {
  if (input.primitive && !/^(unknown|other)$/i.test(input.primitive)) return input.primitive.toLowerCase();
  if (a.primitive) return a.primitive;
  if (['HKDF', 'PBKDF1', 'PBKDF2', 'SP800-108', 'SP800-56C', 'ANSI-KDF', 'TLS-PRF', 'SSH-KDF', 'IKE-PRF', 'MGF1', 'scrypt', 'Argon2', 'bcrypt', 'yescrypt'].includes(a.family)) return 'kdf';
  if (a.family === 'ChaCha20') return a.name.endsWith('Poly1305') ? 'ae' : 'stream-cipher';
  if (a.mode === 'CMAC' || a.mode === 'GMAC') return 'mac';
  if (a.mode === 'KW' || a.mode === 'KWP') return 'key-wrap';
  if (a.mode && /GCM|CCM|SIV|OCB|EAX/.test(a.mode)) return 'ae';
  if (CIPHERS.some(([, f]) => f === a.family)) return 'block-cipher';
  return DEFAULT_PRIMITIVES[a.family] ?? null;
}

/** Security strength of RSA and finite-field keys (SP 800-57 Part 1 Rev. 5, table 2). */
export function ifcStrength(bits: number): number {
  return bits >= 15360 ? 256 : bits >= 7680 ? 192 : bits >= 3072 ? 128 : bits >= 2048 ? 112 : bits >= 1024 ? 80 : bits >= 512 ? 56 : 40;
}

function strengthOf(a: Draft): number | null {
  const k = kind(a.family);
  if (k === 'RSA' || a.family === 'FFDH' || a.family === 'DSA' || a.family === 'ElGamal') return a.keyBits ? ifcStrength(a.keyBits) : null;
  if (k === 'EC') {
    const bits = a.curve?.bits ?? a.keyBits;
    return bits ? curveStrength(bits) : a.family === 'EdDSA' ? 128 : null;
  }
  if (a.hybrid || a.family === 'ML-KEM') return a.set ? ({ 512: 128, 768: 192, 1024: 256 } as Record<string, number>)[a.set] ?? null : null;
  if (a.family === 'ML-DSA') return a.set ? ({ 44: 128, 65: 192, 87: 256 } as Record<string, number>)[a.set] ?? null : null;
  if (a.family === 'SLH-DSA') return a.set ? Number(/(128|192|256)/.exec(a.set)![1]) : null;
  if (a.hash && a.name === a.hash.name) return a.hash.collision;
  if (a.family === '3DES') return a.keyBits === 112 ? 80 : 112;
  if (a.primitive === 'mac' || a.primitive === 'hash' || DEFAULT_PRIMITIVES[a.family] === 'mac') return null;
  return a.keyBits ?? null;
}

function display(a: Draft): string {
  const hash = a.hash ? compact(a.hash) : undefined;
  const curve = a.curve?.name;
  const join = (...parts: (string | number | undefined)[]) => parts.filter((p) => p !== undefined && p !== '').join('-');
  switch (a.family) {
    case 'RSA': case 'RSAES-PKCS1': case 'RSASSA-PKCS1': return join('RSA', a.keyBits, hash);
    case 'RSAES-OAEP': return join('RSA-OAEP', a.keyBits, hash);
    case 'RSASSA-PSS': return join('RSA-PSS', a.keyBits, hash);
    case 'DSA': return join('DSA', a.keyBits, hash);
    case 'EC': case 'ECDSA': case 'ECIES': return join(a.family, curve, a.family === 'ECDSA' ? hash : undefined);
    case 'ECDH': return a.curve?.registry === 'other/Curve25519' ? 'X25519' : a.curve?.registry === 'other/Curve448' ? 'X448' : join('ECDH', curve);
    case 'EdDSA': return curve === 'Ed448' ? 'Ed448' : curve === 'Ed25519' ? 'Ed25519' : 'EdDSA';
    case 'MQV': return join('ECMQV', curve);
    case 'FFDH': return join('DH', a.keyBits);
    case 'ElGamal': return join('ElGamal', a.keyBits);
    case 'ML-KEM': case 'ML-DSA': case 'SLH-DSA': return a.hybrid || a.composite ? a.name : join(a.name, a.set, a.family === 'ML-DSA' ? hash : undefined);
    case 'HMAC': case 'HKDF': case 'PBKDF1': case 'PBKDF2': case 'SP800-108': case 'SP800-56C': case 'ANSI-KDF': case 'TLS-PRF': case 'SSH-KDF': case 'IKE-PRF': case 'MGF1':
      return join(a.family, hash);
    default:
      return CIPHERS.some(([, f]) => f === a.family) && !['ChaCha20', 'Ascon', 'NULL'].includes(a.family) ? join(a.name, a.keyBits, a.mode) : a.name;
  }
}

/** Fills in what the OID adds to what the name said (same kind of algorithm only). */
function merge(a: Draft, b: Draft): Draft {
  const generic = a.family === 'RSA' || a.family === 'EC';
  return { ...b, ...a, family: generic ? b.family : a.family, hash: a.hash ?? b.hash, curve: a.curve ?? b.curve, keyBits: a.keyBits ?? b.keyBits, mode: a.mode ?? b.mode, set: a.set ?? b.set };
}

/**
 * Normalises one algorithm; undefined when nothing in the classifier's vocabulary is recognised
 * (the caller reports it as unclassified, with what was seen).
 */
export function normalizeAlgorithm(input: AlgorithmInput): Algorithm | undefined {
  const name = input.name.trim();
  const byName = isOid(name) ? undefined : parse(name, input);
  const fromOid = oidName(input.oid) ?? oidName(name);
  const byOid = fromOid ? parse(fromOid, input) : undefined;
  let a = byName ?? (input.family ? parse(input.family, input) : undefined) ?? byOid;
  if (!a) return undefined;
  if (byOid && a !== byOid && kind(byOid.family) === kind(a.family)) a = merge(a, byOid);
  a = { ...a };
  const pset = input.parameterSetIdentifier;
  // A key's size: the key material's `size`, else a number in the parameter set unless that number is the hash's.
  if (kind(a.family) === 'RSA' || a.family === 'FFDH' || a.family === 'DSA' || a.family === 'ElGamal') {
    const fromSet = Number(/(\d{3,5})/.exec(pset ?? '')?.[1]);
    a.keyBits ??= input.keyBits ?? (fromSet >= 512 && !(a.hash && fromSet <= 512) ? fromSet : undefined);
  }
  if (kind(a.family) === 'EC') {
    a.curve ??= curveOf(input.curve);
    if (!a.curve && input.keyBits) a.keyBits = input.keyBits;
  }
  if (kind(a.family) === 'RSA' && input.padding) {
    const padding = input.padding.toLowerCase();
    if (padding.includes('oaep')) a.family = 'RSAES-OAEP';
    else if (padding.includes('pss')) a.family = 'RSASSA-PSS';
    else if (/pkcs1|v15|1\.5/.test(padding) && a.family === 'RSA') a.family = input.primitive === 'signature' ? 'RSASSA-PKCS1' : 'RSAES-PKCS1';
  }
  a.mode ??= kind(a.family) === 'RSA' ? undefined : modeOf(input.mode);
  if (input.key && (kind(a.family) === 'RSA' || kind(a.family) === 'EC' || a.family === 'DSA')) {
    a.hash = undefined;
    if (kind(a.family) === 'RSA') a.family = 'RSA';
  }
  const primitive = primitiveOf(a, input);
  const securityBits = strengthOf({ ...a, primitive: primitive ?? undefined }) ?? input.classicalSecurityLevel ?? null;
  return { ...a, name: display(a), primitive, securityBits };
}
