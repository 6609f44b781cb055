// Common algorithm and curve OIDs (RFC 8017, RFC 5480, RFC 5758, RFC 8410, RFC 8708, RFC 8391, SEC 2,
// NIST CSOR "Computer Security Objects Register") to the name the normaliser reads. A BOM's own name
// wins when it normalises; the OID fills in what the name leaves out, or stands in for a name that
// is an OID or a placeholder.
const nist = (arc: string, names: Record<number, string>) => Object.fromEntries(Object.entries(names).map(([n, name]) => [`2.16.840.1.101.3.4.${arc}.${n}`, name]));

export const OIDS: Record<string, string> = {
  // PKCS #1 (RFC 8017)
  '1.2.840.113549.1.1.1': 'RSA', '1.2.840.113549.1.1.2': 'MD2withRSA', '1.2.840.113549.1.1.4': 'MD5withRSA', '1.2.840.113549.1.1.5': 'SHA1withRSA',
  '1.2.840.113549.1.1.7': 'RSA-OAEP', '1.2.840.113549.1.1.10': 'RSASSA-PSS', '1.2.840.113549.1.1.11': 'SHA256withRSA', '1.2.840.113549.1.1.12': 'SHA384withRSA',
  '1.2.840.113549.1.1.13': 'SHA512withRSA', '1.2.840.113549.1.1.14': 'SHA224withRSA', '1.2.840.113549.1.1.15': 'SHA512/224withRSA', '1.2.840.113549.1.1.16': 'SHA512/256withRSA',
  // Elliptic curves (RFC 5480, RFC 5758, SEC 2)
  '1.2.840.10045.2.1': 'EC', '1.3.132.1.12': 'ECDH', '1.3.132.1.13': 'ECMQV',
  '1.2.840.10045.4.1': 'SHA1withECDSA', '1.2.840.10045.4.3.1': 'SHA224withECDSA', '1.2.840.10045.4.3.2': 'SHA256withECDSA',
  '1.2.840.10045.4.3.3': 'SHA384withECDSA', '1.2.840.10045.4.3.4': 'SHA512withECDSA',
  '1.2.840.10045.3.1.1': 'P-192', '1.3.132.0.33': 'P-224', '1.2.840.10045.3.1.7': 'P-256', '1.3.132.0.34': 'P-384', '1.3.132.0.35': 'P-521',
  '1.3.132.0.10': 'secp256k1', '1.3.36.3.3.2.8.1.1.7': 'brainpoolP256r1', '1.3.36.3.3.2.8.1.1.11': 'brainpoolP384r1', '1.3.36.3.3.2.8.1.1.13': 'brainpoolP512r1',
  '1.2.156.10197.1.301': 'SM2', '1.2.156.10197.1.501': 'SM3withSM2',
  // RFC 8410
  '1.3.101.110': 'X25519', '1.3.101.111': 'X448', '1.3.101.112': 'Ed25519', '1.3.101.113': 'Ed448',
  // DSA and Diffie-Hellman (RFC 3279, PKCS #3, X9.42)
  '1.2.840.10040.4.1': 'DSA', '1.2.840.10040.4.3': 'SHA1withDSA', '1.2.840.113549.1.3.1': 'DH', '1.2.840.10046.2.1': 'DH',
  // Hashes and HMAC (RFC 3279, RFC 4231, NIST CSOR)
  '1.3.14.3.2.26': 'SHA-1', '1.2.840.113549.2.2': 'MD2', '1.2.840.113549.2.4': 'MD4', '1.2.840.113549.2.5': 'MD5', '1.3.36.3.2.1': 'RIPEMD-160',
  '1.2.840.113549.2.7': 'HMAC-SHA1', '1.2.840.113549.2.8': 'HMAC-SHA224', '1.2.840.113549.2.9': 'HMAC-SHA256', '1.2.840.113549.2.10': 'HMAC-SHA384', '1.2.840.113549.2.11': 'HMAC-SHA512',
  ...nist('2', { 1: 'SHA-256', 2: 'SHA-384', 3: 'SHA-512', 4: 'SHA-224', 5: 'SHA-512/224', 6: 'SHA-512/256', 7: 'SHA3-224', 8: 'SHA3-256', 9: 'SHA3-384', 10: 'SHA3-512', 11: 'SHAKE128', 12: 'SHAKE256' }),
  // AES (NIST CSOR); the arc itself is what some scanners put on any AES use
  '2.16.840.1.101.3.4.1': 'AES',
  ...nist('1', { 1: 'AES-128-ECB', 2: 'AES-128-CBC', 3: 'AES-128-OFB', 4: 'AES-128-CFB', 5: 'AES-128-KW', 6: 'AES-128-GCM', 7: 'AES-128-CCM', 8: 'AES-128-KWP',
    21: 'AES-192-ECB', 22: 'AES-192-CBC', 23: 'AES-192-OFB', 24: 'AES-192-CFB', 25: 'AES-192-KW', 26: 'AES-192-GCM', 27: 'AES-192-CCM', 28: 'AES-192-KWP',
    41: 'AES-256-ECB', 42: 'AES-256-CBC', 43: 'AES-256-OFB', 44: 'AES-256-CFB', 45: 'AES-256-KW', 46: 'AES-256-GCM', 47: 'AES-256-CCM', 48: 'AES-256-KWP' }),
  // Legacy ciphers and password-based encryption (RFC 8018)
  '1.2.840.113549.3.7': 'DES-EDE3-CBC', '1.3.14.3.2.7': 'DES-CBC', '1.2.840.113549.3.2': 'RC2-CBC', '1.2.840.113549.3.4': 'RC4',
  '1.2.840.113549.1.5.12': 'PBKDF2', '1.2.840.113549.1.5.3': 'PBEWithMD5AndDES',
  // Post-quantum: FIPS 203/204/205 (NIST CSOR), SP 800-208 (RFC 8708, RFC 9802)
  ...nist('3', { 1: 'DSA-SHA224', 2: 'DSA-SHA256', 9: 'ECDSA-SHA3-224', 10: 'ECDSA-SHA3-256', 11: 'ECDSA-SHA3-384', 12: 'ECDSA-SHA3-512',
    13: 'RSA-SHA3-224', 14: 'RSA-SHA3-256', 15: 'RSA-SHA3-384', 16: 'RSA-SHA3-512', 17: 'ML-DSA-44', 18: 'ML-DSA-65', 19: 'ML-DSA-87',
    20: 'SLH-DSA-SHA2-128s', 21: 'SLH-DSA-SHA2-128f', 22: 'SLH-DSA-SHA2-192s', 23: 'SLH-DSA-SHA2-192f', 24: 'SLH-DSA-SHA2-256s', 25: 'SLH-DSA-SHA2-256f',
    26: 'SLH-DSA-SHAKE-128s', 27: 'SLH-DSA-SHAKE-128f', 28: 'SLH-DSA-SHAKE-192s', 29: 'SLH-DSA-SHAKE-192f', 30: 'SLH-DSA-SHAKE-256s', 31: 'SLH-DSA-SHAKE-256f' }),
  ...nist('4', { 1: 'ML-KEM-512', 2: 'ML-KEM-768', 3: 'ML-KEM-1024' }),
  '1.2.840.113549.1.9.16.3.17': 'HSS-LMS', '1.3.6.1.5.5.7.6.34': 'XMSS', '1.3.6.1.5.5.7.6.35': 'XMSSMT',
};

/** The name an OID stands for (`oid:` prefix allowed), or undefined. */
export const oidName = (oid: string | undefined): string | undefined => (oid ? OIDS[oid.trim().replace(/^(urn:)?oid:/i, '')] : undefined);

/** True when the text is an OID (optionally `oid:`-prefixed) rather than a name. */
export const isOid = (text: string): boolean => /^(urn:)?(oid:)?\d+(\.\d+)+$/i.test(text.trim());
