// The classification of cryptographic assets (issue 8, the `pqc` axis): every row of the table one by
// one with name variants, the messy names real CBOMs use, certificates, protocols, keys and runtime
// observations, and every distinct asset of the fixture CBOMs (read by the project's own bundle
// reader) against the hand-reviewed test/fixtures/expected/cbom-sections.txt.
import { describe, expect, it } from 'vitest';
import { classifyAsset, classifyObservation, judge, worse, type CryptoEntry } from '../../src/analysis/crypto/classify';
import { normalizeAlgorithm } from '../../src/analysis/crypto/normalize';
import { ADDED_FAMILIES, curveOf, REGISTRY_CURVES, REGISTRY_FAMILIES } from '../../src/analysis/crypto/registry';
import { pbeParts, suiteParts } from '../../src/analysis/crypto/suites';
import {
  CLASSIFICATION_TABLE, CNSA2_EXCLUSIVE, DEPRECATED_2030, DISALLOWED_2013, DISALLOWED_2035, PROTOCOL_TABLE, TDEA2_2015, TDEA3_2023,
} from '../../src/analysis/crypto/table';
import type { CryptoAsset } from '../../src/analysis/types';
import { cboms, readCbom } from '../cbom-fixtures';
import expected from '../fixtures/expected/cbom-sections.txt?raw';
const CITATION = /NIST IR 8547|SP 800-|FIPS \d|RFC \d|CNSA 2\.0|draft-|Outside NIST|Sweet32/;

const algorithm = (name: string, extra: Partial<CryptoAsset> = {}): CryptoAsset => ({ bomRef: name, name, assetType: 'algorithm', ...extra });
const refs = (...assets: CryptoAsset[]) => ({ byRef: new Map(assets.map((a) => [a.bomRef!, a])) });

describe('the classification table, row by row', () => {
  it.each(CLASSIFICATION_TABLE.map((row) => [row.id, row] as const))('%s: its example and every name variant land on it', (_id, row) => {
    expect(row.source).toMatch(CITATION);
    expect(row.examples.length).toBeGreaterThan(0);
    for (const example of row.examples) {
      const judged = judge(example);
      expect({ example, rule: judged.rule }).toEqual({ example, rule: row.id });
      expect(judged.section).toBe(row.section);
      expect(judged.deadline).toBe(row.deadline);
      expect(judged.quantumVulnerable).toBe(row.quantumVulnerable);
      expect(judged.explanation).toMatch(/^.{40,}\.$/s);
      expect(judged.source).toBe(row.source);
      if (row.section !== 'green') expect(judged.replacement).toBeTruthy();
      expect(judged.cnsa2.note.length).toBeGreaterThan(10);
    }
  });

  it.each(PROTOCOL_TABLE.map((row) => [row.id, row] as const))('protocol row %s decides a bare protocol of that version', (_id, row) => {
    expect(row.source).toMatch(CITATION);
    for (const { type, version } of row.examples) {
      const entry = classifyAsset({ name: `${type} ${version}`, assetType: 'protocol', protocol: { type, version } }, refs());
      expect(entry).toMatchObject({ section: row.section, rule: row.id, deadline: row.deadline });
      expect(entry.explanation).toMatch(/^.{40,}\.$/s);
    }
  });

  it('names families and curves as the CycloneDX registry does, and says which families it adds', () => {
    expect(REGISTRY_FAMILIES.size).toBeGreaterThan(80);
    expect(REGISTRY_FAMILIES.has('ML-KEM') && REGISTRY_FAMILIES.has('RSASSA-PSS')).toBe(true);
    for (const added of Object.keys(ADDED_FAMILIES)) expect(REGISTRY_FAMILIES.has(added), added).toBe(false);
    const known = (f: string) => REGISTRY_FAMILIES.has(f) || f in ADDED_FAMILIES;
    expect(CLASSIFICATION_TABLE.flatMap((row) => row.families).filter((f) => !known(f))).toEqual([]);
    const emitted = CLASSIFICATION_TABLE.flatMap((row) => row.examples.map((e) => judge(e).family!));
    expect(emitted.filter((f) => !known(f))).toEqual([]);
    for (const name of ['secp256r1', 'prime256v1', 'P-256', 'nistp256', 'secp384r1', 'x25519', 'Ed25519', 'brainpoolP256r1', 'secp256k1', 'sect283k1', 'SM2']) {
      const curve = curveOf(name)!;
      expect(REGISTRY_CURVES, name).toContain(curve.registry);
    }
  });

  it('orders sections red, unclassified, yellow, transition, green', () => {
    expect(worse('green', 'red')).toBe('red');
    expect(worse('unclassified', 'red')).toBe('red');
    expect(worse('unclassified', 'yellow')).toBe('unclassified');
    expect(worse('transition', 'yellow')).toBe('yellow');
    expect(worse('green', 'transition')).toBe('transition');
  });
});

describe('the sections, dates and CNSA 2.0 verdicts issue 8 names', () => {
  it.each([
    // red: classically broken or disallowed now
    ['MD2', 'red'], ['MD4', 'red'], ['MD5', 'red'], ['SHA1withRSA', 'red'], ['SHA-1', 'red'], ['DES', 'red'], ['2TDEA', 'red'], ['DESede', 'red'], ['RC2', 'red'],
    ['RC4', 'red'], ['RSA-1024', 'red'], ['DH-1024', 'red'], ['DSA', 'red'], ['P-192', 'red'], ['AES-128-ECB', 'red'],
    // red: quantum-vulnerable public keys
    ['RSA-4096', 'red'], ['ECDSA-P384-SHA384', 'red'], ['Ed25519', 'red'], ['Ed448', 'red'], ['ffdhe4096', 'red'], ['ECDH-P521', 'red'], ['X25519', 'red'], ['X448', 'red'], ['ECMQV', 'red'], ['ElGamal', 'red'],
    // yellow
    ['SHA-224', 'yellow'], ['SHA-512/224', 'yellow'], ['HMAC-SHA1', 'yellow'], ['PBKDF2WithHmacSHA1', 'yellow'], ['HKDF-SHA1', 'yellow'], ['Kyber1024', 'yellow'], ['Dilithium5', 'yellow'],
    ['SPHINCS+', 'yellow'], ['Camellia-256-GCM', 'yellow'], ['ARIA-128-CBC', 'yellow'], ['SEED', 'yellow'], ['GOST28147', 'yellow'], ['SM4-CBC', 'yellow'],
    // transition
    ['X25519MLKEM768', 'transition'], ['SecP256r1MLKEM768', 'transition'], ['SecP384r1MLKEM1024', 'transition'], ['X25519Kyber768Draft00', 'transition'], ['MLDSA87-ECDSA-P384-SHA512', 'transition'],
    // green
    ['ML-KEM-512', 'green'], ['ML-KEM-768', 'green'], ['ML-KEM-1024', 'green'], ['ML-DSA-44', 'green'], ['ML-DSA-65', 'green'], ['ML-DSA-87', 'green'], ['SLH-DSA-SHAKE-192s', 'green'],
    ['LMS', 'green'], ['HSS', 'green'], ['XMSS', 'green'], ['AES-128-GCM', 'green'], ['AES-192-CCM', 'green'], ['AES-256-XTS', 'green'], ['ChaCha20-Poly1305', 'green'],
    ['SHA-256', 'green'], ['SHA-384', 'green'], ['SHA-512', 'green'], ['SHA3-384', 'green'], ['SHAKE128', 'green'], ['HMAC-SHA384', 'green'], ['HKDF-SHA256', 'green'], ['PBKDF2-SHA512', 'green'],
  ] as const)('%s is %s', (name, section) => {
    expect(judge({ name }).section).toBe(section);
  });

  it.each([
    ['RSA-2048 (112 bits): deprecated after 2030', 'RSA-2048', DEPRECATED_2030],
    ['RSA-3072 (128 bits): disallowed after 2035', 'RSA-3072', DISALLOWED_2035],
    ['P-224 (112 bits): deprecated after 2030', 'ECDSA-P224', DEPRECATED_2030],
    ['P-256: disallowed after 2035', 'ECDSA-P256', DISALLOWED_2035],
    ['RSA-1024: disallowed since 2013', 'RSA-1024', DISALLOWED_2013],
    ['SHA-1 signatures: disallowed since 2013', 'SHA1withECDSA', DISALLOWED_2013],
    ['SHA-224: disallowed after 2030', 'SHA-224', DEPRECATED_2030],
    ['HMAC-SHA-1: disallowed after 2030', 'HmacSHA1', DEPRECATED_2030],
    ['2TDEA encryption: disallowed since 2015', 'DES-EDE-CBC', TDEA2_2015],
    ['3TDEA encryption: disallowed since 2023', 'DES-EDE3-CBC', TDEA3_2023],
    // Issue 20: every red algorithm has its date; broken ones the date of the rule that disallowed them.
    ['MD5: under 112 bits, disallowed since 2013 (SP 800-131A)', 'MD5', DISALLOWED_2013],
    ['DES: withdrawn 2005', 'DES', '2005-05-19'],
    ['RC4: under 112 bits, disallowed since 2013', 'RC4', DISALLOWED_2013],
    ['Skipjack encryption: disallowed since 2010', 'Skipjack', '2010-12-31'],
    ['ECB: disallowed for encryption by SP 800-131A Rev. 3 ipd', 'AES-128-ECB', '2024-10-21'],
    ['ML-KEM-768: no date', 'ML-KEM-768', null],
  ])('%s', (_title, name, deadline) => {
    expect(judge({ name }).deadline).toBe(deadline);
  });

  it('every red row of the table, and every red protocol row, has a date (issue 20: MD5 is in the overdue count as DES is)', () => {
    for (const row of [...CLASSIFICATION_TABLE, ...PROTOCOL_TABLE].filter((r) => r.section === 'red')) expect(row.deadline, row.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('CNSA 2.0 approves AES-256, SHA-384/512, ML-KEM-1024, ML-DSA-87, LMS and XMSS only', () => {
    const cnsa = (name: string) => judge({ name }).cnsa2;
    for (const name of ['AES-256-GCM', 'SHA-384', 'SHA-512', 'ML-KEM-1024', 'ML-DSA-87', 'LMS', 'XMSS', 'HMAC-SHA384']) expect(cnsa(name), name).toMatchObject({ approved: true, deadline: null });
    for (const name of ['AES-128-GCM', 'SHA-256', 'ML-KEM-768', 'ML-DSA-65', 'SLH-DSA-SHA2-256s', 'SHA3-512', 'X25519MLKEM768', 'ChaCha20-Poly1305']) expect(cnsa(name).approved, name).toBe(false);
    // CNSA 1.0 algorithms keep a date (the CNSA 2.0 transition); others were never allowed.
    expect(cnsa('RSA-4096')).toMatchObject({ approved: false, deadline: CNSA2_EXCLUSIVE });
    expect(cnsa('ECDSA-P384-SHA384')).toMatchObject({ approved: false, deadline: CNSA2_EXCLUSIVE });
    expect(cnsa('ECDSA-P256-SHA256')).toMatchObject({ approved: false, deadline: null });
    expect(cnsa('RSA-2048')).toMatchObject({ approved: false, deadline: null });
  });
});

describe('messy names normalise to one algorithm', () => {
  it.each([
    ['SHA1', 'SHA-1', 'SHA-1'], ['sha-1', 'SHA-1', 'SHA-1'], ['SHA', 'SHA-1', 'SHA-1'], ['SHA256', 'SHA-256', 'SHA-2'], ['SHA2-384', 'SHA-384', 'SHA-2'], ['sha3_256', 'SHA3-256', 'SHA-3'],
    ['SHA256withRSA', 'RSA-SHA256', 'RSASSA-PKCS1'], ['sha256WithRSAEncryption', 'RSA-SHA256', 'RSASSA-PKCS1'], ['SHA1-RSA', 'RSA-SHA1', 'RSASSA-PKCS1'],
    ['RSA-PKCS1-1.5-SHA-256', 'RSA-SHA256', 'RSASSA-PKCS1'], ['SHA256withRSA/PSS', 'RSA-PSS-SHA256', 'RSASSA-PSS'], ['RS256', 'RSA-SHA256', 'RSASSA-PKCS1'],
    ['RSA-OAEP', 'RSA-OAEP', 'RSAES-OAEP'], ['RSA-OAEP-256', 'RSA-OAEP-SHA256', 'RSAES-OAEP'], ['RSA/ECB/OAEPWithSHA-256AndMGF1Padding', 'RSA-OAEP-SHA256', 'RSAES-OAEP'],
    ['ecdsa-with-SHA384', 'ECDSA-SHA384', 'ECDSA'], ['ES256', 'ECDSA-P256-SHA256', 'ECDSA'], ['ecdsa-sha2-nistp256', 'ECDSA-P256-SHA256', 'ECDSA'],
    ['secp256r1', 'EC-P256', 'EC'], ['prime256v1', 'EC-P256', 'EC'], ['P-256', 'EC-P256', 'EC'], ['EC-P-256', 'EC-P256', 'EC'],
    ['desede-168', '3DES-168', '3DES'], ['DESede/CBC/PKCS5Padding', '3DES-168-CBC', '3DES'], ['TDEA', '3DES-168', '3DES'],
    ['curve25519-sha256', 'X25519', 'ECDH'], ['curve25519-sha256@libssh.org', 'X25519', 'ECDH'], ['ssh-ed25519', 'Ed25519', 'EdDSA'], ['ssh-rsa', 'RSA-SHA1', 'RSASSA-PKCS1'],
    ['diffie-hellman-group14-sha1', 'DH-2048', 'FFDH'], ['ffdhe3072', 'DH-3072', 'FFDH'],
    ['AES-128-GCM', 'AES-128-GCM', 'AES'], ['AES256', 'AES-256', 'AES'], ['AES_256_CBC', 'AES-256-CBC', 'AES'], ['aes128-gcm@openssh.com', 'AES-128-GCM', 'AES'], ['A256GCM', 'AES-256-GCM', 'AES'],
    ['AES/GCM/NoPadding', 'AES-GCM', 'AES'], ['HmacSHA256', 'HMAC-SHA256', 'HMAC'], ['hmac-sha2-512-etm@openssh.com', 'HMAC-SHA512', 'HMAC'], ['PBKDF2WithHmacSHA512', 'PBKDF2-SHA512', 'PBKDF2'],
    ['ML-KEM-768', 'ML-KEM-768', 'ML-KEM'], ['MLKEM768', 'ML-KEM-768', 'ML-KEM'], ['ML_DSA_65', 'ML-DSA-65', 'ML-DSA'], ['x25519_mlkem768', 'X25519MLKEM768', 'ML-KEM'],
  ])('%s -> %s (%s)', (name, normalised, family) => {
    expect(normalizeAlgorithm({ name })).toMatchObject({ name: normalised, family });
  });

  it('reads OIDs when the name is one, or a placeholder, and fills in what the name leaves out', () => {
    expect(judge({ name: 'oid:1.2.840.113549.1.1.11', oid: '1.2.840.113549.1.1.11' })).toMatchObject({ name: 'RSA-SHA256', family: 'RSASSA-PKCS1', section: 'red' });
    expect(judge({ name: '2.16.840.1.101.3.4.4.3' })).toMatchObject({ name: 'ML-KEM-1024', section: 'green' });
    expect(judge({ name: 'PRIVATE KEY', oid: '1.3.101.112' })).toMatchObject({ name: 'Ed25519', section: 'red' });
    // The name names the curve, the OID the hash: ECDSA on P-256 with SHA-256.
    expect(judge({ name: 'ECDSA-P256', oid: '1.2.840.10045.4.3.2' }).name).toBe('ECDSA-P256-SHA256');
    // A name that normalises wins over a contradicting OID (the CycloneDX example puts SHA3-384's OID on "SHA384").
    expect(judge({ name: 'SHA384', oid: '2.16.840.1.101.3.4.2.9' }).name).toBe('SHA-384');
    // The 1.7 algorithmFamily stands in for an unreadable name.
    expect(judge({ name: 'corp-signing-v2', family: 'ML-DSA', parameterSetIdentifier: '87' })).toMatchObject({ name: 'ML-DSA-87', section: 'green' });
  });

  it('one curve, however it is named: registry name, size and strength', () => {
    for (const name of ['secp256r1', 'prime256v1', 'P-256', 'nistp256', 'nist/P-256', 'P256']) expect(curveOf(name), name).toMatchObject({ registry: 'nist/P-256', name: 'P256', bits: 256 });
    expect(normalizeAlgorithm({ name: 'ECDSA', curve: 'secp384r1' })).toMatchObject({ name: 'ECDSA-P384', securityBits: 192 });
    expect(normalizeAlgorithm({ name: 'ECDH', curve: 'curve25519' })).toMatchObject({ name: 'X25519', securityBits: 128 });
    expect(normalizeAlgorithm({ name: 'EC', oid: '1.2.840.10045.2.1', curve: 'brainpoolP384r1' })!.curve!.registry).toBe('brainpool/brainpoolP384r1');
  });

  it('key sizes come from the name, parameterSetIdentifier or the key, never from a hash size', () => {
    expect(normalizeAlgorithm({ name: 'RSA', parameterSetIdentifier: '3072' })).toMatchObject({ name: 'RSA-3072', keyBits: 3072, securityBits: 128 });
    expect(normalizeAlgorithm({ name: 'RSA-4096-Revoked-CA-Key' })).toMatchObject({ keyBits: 4096 });
    expect(normalizeAlgorithm({ name: 'SHA384-RSA', parameterSetIdentifier: '384' })).toMatchObject({ keyBits: undefined, name: 'RSA-SHA384' });
    expect(normalizeAlgorithm({ name: 'SHA512withRSA', parameterSetIdentifier: '512' })!.keyBits).toBeUndefined();
    expect(normalizeAlgorithm({ name: 'AES128', parameterSetIdentifier: '128', mode: 'cbc' })).toMatchObject({ name: 'AES-128-CBC', securityBits: 128 });
    expect(normalizeAlgorithm({ name: 'AES', parameterSetIdentifier: '256', mode: 'gcm' })!.name).toBe('AES-256-GCM');
    expect(normalizeAlgorithm({ name: 'DSA', parameterSetIdentifier: '2048' })!.keyBits).toBe(2048);
  });

  it('infers what it can and says what it could not: an RSA key without a size is still red, and says so', () => {
    const rsa = judge({ name: 'RSA' });
    expect(rsa).toMatchObject({ section: 'red', rule: 'rsa-size-unknown', quantumVulnerable: true, securityBits: null, deadline: DEPRECATED_2030 });
    expect(rsa.explanation).toMatch(/key size unknown/);
    expect(judge({ name: 'RSA', classicalSecurityLevel: 128 }).securityBits).toBe(128);
    expect(judge({ name: 'ECDSA' }).explanation).toMatch(/curve unknown/);
  });

  it('an algorithm the table does not know is unclassified with what was seen, never dropped', () => {
    expect(judge({ name: 'FrobCipher-9', oid: '1.2.3.4', parameterSetIdentifier: '77' })).toMatchObject({ section: 'unclassified', name: 'FrobCipher-9', seen: 'FrobCipher-9, oid 1.2.3.4, parameters 77', rule: null });
    const hmac = judge({ name: 'HMAC' });
    expect(hmac).toMatchObject({ section: 'unclassified', family: 'HMAC' });
    expect(hmac.explanation).toMatch(/hash or cipher it is built on is not stated/);
  });
});

describe('cipher suites and compound names', () => {
  const names = (suite: string) => suiteParts(suite)?.parts.map((p) => `${p.role}:${p.name}`);
  it('reads IANA and OpenSSL suite names', () => {
    expect(names('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256')).toEqual(['key exchange:ECDH', 'authentication:RSA', 'cipher:AES_128_GCM', 'prf:HMAC-SHA256']);
    expect(names('TLS_RSA_WITH_3DES_EDE_CBC_SHA')).toEqual(['key exchange:RSA', 'cipher:3DES_EDE_CBC', 'mac:HMAC-SHA1']);
    expect(names('TLS_AES_256_GCM_SHA384')).toEqual(['cipher:AES_256_GCM', 'prf:HKDF-SHA384']);
    expect(names('TLS_DHE_DSS_WITH_AES_256_CBC_SHA256')).toEqual(['key exchange:DH', 'authentication:DSA', 'cipher:AES_256_CBC', 'mac:HMAC-SHA256']);
    expect(names('ECDHE-ECDSA-CHACHA20-POLY1305')).toEqual(['key exchange:ECDH', 'authentication:ECDSA', 'cipher:CHACHA20-POLY1305']);
    expect(names('AES128-SHA')).toEqual(['key exchange:RSA', 'cipher:AES128', 'mac:HMAC-SHA1']);
    expect(suiteParts('TLS_PSK_WITH_AES_128_GCM_SHA256')!.pskOnly).toBe(true);
    expect(suiteParts('AES128-GCM')).toBeUndefined();
  });

  it('judges a suite or a PBE scheme by its worst part', () => {
    expect(judge({ name: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256' }).section).toBe('red');
    expect(judge({ name: 'TLS_AES_128_GCM_SHA256' })).toMatchObject({ section: 'green', reasons: ['cipher: AES-128-GCM (green)', 'prf: HKDF-SHA256 (green)'] });
    expect(judge({ name: 'TLS_RSA_WITH_RC4_128_MD5' })).toMatchObject({ section: 'red', deadline: DISALLOWED_2013 });
    expect(pbeParts('PBEWithMD5AndDES')).toEqual([{ role: 'key derivation', name: 'PBKDF1-MD5' }, { role: 'cipher', name: 'DES' }]);
    expect(judge({ name: 'PBEWithHmacSHA256AndAES_256' }).section).toBe('green');
    expect(judge({ name: 'PBEWithMD5AndTripleDES' }).section).toBe('red');
  });
});

describe('certificates, protocols, keys and observations', () => {
  const sig = algorithm('SHA256withRSA', { algorithm: { primitive: 'signature' }, oid: '1.2.840.113549.1.1.11' });
  const rsa = algorithm('RSA', { oid: '1.2.840.113549.1.1.1' });
  const key = (size: number): CryptoAsset => ({ bomRef: `key-${size}`, name: `RSA-${size}`, assetType: 'related-crypto-material', relatedCryptoMaterial: { type: 'public-key', size, algorithmRef: 'RSA' } });
  const cert = (certificate: CryptoAsset['certificate']): CryptoAsset => ({ bomRef: 'c', name: 'shop.example', assetType: 'certificate', certificate });

  it('a certificate takes the worst of its signature and key and names both', () => {
    const entry = classifyAsset(cert({ subjectName: 'CN=shop', issuerName: 'CN=CA', signatureAlgorithmRef: 'SHA256withRSA', subjectPublicKeyRef: 'key-2048' }), refs(sig, rsa, key(2048)));
    expect(entry).toMatchObject({ key: 'c', assetType: 'certificate', section: 'red', name: 'shop.example', deadline: DEPRECATED_2030, quantumVulnerable: true, securityBits: 112 });
    expect(entry.reasons).toEqual(['signature: RSA-SHA256 (red)', 'key: RSA-2048 (red)']);
    // Both parts are due in 2030; the one whose strength is known (the key) explains it.
    expect(entry).toMatchObject({ rule: 'rsa-112', seen: 'signature SHA256withRSA; key RSA-2048' });
    expect(entry.explanation).toMatch(/^shop\.example: RSA-2048 \(key\) decides\. RSA-2048 gives 112 bits/);
  });

  it('a self-signed certificate is a trust anchor: its key decides, its own signature is shown but not checked (issue 20)', () => {
    const entry = classifyAsset(cert({ subjectName: 'CN=Root', issuerName: 'CN = Root', signatureAlgorithmRef: 'SHA256withRSA', subjectPublicKeyRef: 'key-4096' }), refs(sig, rsa, key(4096)));
    expect(entry).toMatchObject({ section: 'red', rule: 'rsa-128', deadline: DISALLOWED_2035, trustAnchor: true, reasons: ['signature: RSA-SHA256 (not checked: a trust anchor\'s own signature)', 'key: RSA-4096 (red)'] });
    expect(entry.cnsa2).toMatchObject({ approved: false, deadline: CNSA2_EXCLUSIVE });
  });

  it('a SHA-1 signature makes a certificate overdue whatever its key', () => {
    const sha1 = algorithm('SHA1-RSA', { oid: '1.2.840.113549.1.1.5' });
    expect(classifyAsset(cert({ signatureAlgorithmRef: 'SHA1-RSA', subjectPublicKeyRef: 'key-4096' }), refs(sha1, rsa, key(4096)))).toMatchObject({ section: 'red', rule: 'signature-weak-hash', deadline: DISALLOWED_2013 });
  });

  it('an ML-DSA certificate is green; unknown parts: red beats them, alone they are unclassified', () => {
    const mldsa = algorithm('ML-DSA-87');
    expect(classifyAsset(cert({ signatureAlgorithmRef: 'ML-DSA-87', subjectPublicKeyRef: 'ML-DSA-87' }), refs(mldsa))).toMatchObject({ section: 'green', cnsa2: { approved: true } });
    const odd = algorithm('vendor-sig-3');
    expect(classifyAsset(cert({ signatureAlgorithmRef: 'vendor-sig-3', subjectPublicKeyRef: 'key-2048' }), refs(odd, rsa, key(2048))).section).toBe('red');
    expect(classifyAsset(cert({ signatureAlgorithmRef: 'vendor-sig-3', subjectPublicKeyRef: 'missing' }), refs(odd))).toMatchObject({ section: 'unclassified', reasons: ['signature: vendor-sig-3 (unclassified)', 'public key: missing (unclassified)'] });
    expect(classifyAsset(cert({ signatureAlgorithmRef: 'vendor-sig-3', subjectPublicKeyRef: 'ML-DSA-87' }), refs(odd, mldsa)).section).toBe('unclassified');
    expect(classifyAsset(cert({}), refs()).section).toBe('unclassified');
  });

  const tls = (protocol: CryptoAsset['protocol'], ...assets: CryptoAsset[]) => classifyAsset({ bomRef: 'p', name: 'tls', assetType: 'protocol', protocol }, refs(...assets));

  it('TLS 1.3 takes its groups: a hybrid group is transition, X25519 red', () => {
    const aes = algorithm('AES-256-GCM');
    const hybrid = tls({ type: 'tls', version: '1.3', cipherSuites: [{ name: 'TLS_AES_256_GCM_SHA384', algorithms: ['AES-256-GCM', 'X25519MLKEM768'] }], cryptoRefs: ['ML-DSA-65'] }, aes, algorithm('X25519MLKEM768'), algorithm('ML-DSA-65'));
    expect(hybrid).toMatchObject({ name: 'TLS 1.3', section: 'transition', assetType: 'protocol', deadline: null });
    expect(tls({ type: 'tls', version: '1.3', cipherSuites: [{ name: 'TLS_AES_256_GCM_SHA384', algorithms: ['AES-256-GCM', 'X25519'] }] }, aes, algorithm('X25519')).section).toBe('red');
  });

  it('TLS before 1.2 and SSL are red whatever their suites; TLS 1.2 with nothing stated has a classical key exchange', () => {
    expect(tls({ type: 'tls', version: '1.0', cipherSuites: [{ name: 'TLS_AES_256_GCM_SHA384' }] })).toMatchObject({ section: 'red', rule: 'tls-before-1.2', deadline: '2019-08-29' });
    expect(classifyAsset({ name: 'SSLv3', assetType: 'protocol', protocol: {} }, refs())).toMatchObject({ name: 'SSL 3', section: 'red', rule: 'ssl' });
    expect(tls({ type: 'tls', version: '1.2' })).toMatchObject({ section: 'red', rule: 'tls-1.2-classical-key-exchange', quantumVulnerable: true });
    expect(tls({ type: 'tls', version: '1.3' })).toMatchObject({ section: 'unclassified' });
    expect(tls({ type: 'tls', version: '1.2', cipherSuites: [{ name: 'TLS_PSK_WITH_AES_128_GCM_SHA256' }] }).section).toBe('green');
    const suites = tls({ type: 'tls', version: '1.2', cipherSuites: [{ name: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256' }, { name: 'TLS_RSA_WITH_3DES_EDE_CBC_SHA' }] });
    expect(suites).toMatchObject({ section: 'red', rule: 'tdea-3key', deadline: TDEA3_2023 });
    expect(suites.reasons).toContain('cipher suite TLS_RSA_WITH_3DES_EDE_CBC_SHA: 3DES-168-CBC (red)');
    expect(suites.reasons).toContain('cipher suite TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: AES-128-GCM (green)');
  });

  it('SSH takes its key exchange, host key and ciphers; SSH-1 is red', () => {
    const ssh = (...names: string[]) => classifyAsset({ name: 'sshd', assetType: 'protocol', protocol: { type: 'ssh', version: '2.0', cryptoRefs: names } }, refs(...names.map((n) => algorithm(n))));
    expect(ssh('mlkem768x25519-sha256', 'chacha20-poly1305@openssh.com', 'ssh-mldsa-65@example').section).toBe('unclassified');
    expect(ssh('mlkem768x25519-sha256', 'chacha20-poly1305@openssh.com').section).toBe('transition');
    expect(ssh('sntrup761x25519-sha512@openssh.com', 'aes256-gcm@openssh.com').section).toBe('transition');
    expect(ssh('curve25519-sha256', 'ssh-ed25519', 'aes128-ctr', 'hmac-sha2-256').section).toBe('red');
    expect(ssh('mlkem768x25519-sha256', 'aes128-ctr', 'hmac-sha1')).toMatchObject({ section: 'yellow', deadline: DEPRECATED_2030 });
    expect(classifyAsset({ name: 'SSH-1.5', assetType: 'protocol', protocol: { type: 'ssh', version: '1.5' } }, refs())).toMatchObject({ section: 'red', rule: 'ssh-1' });
  });

  it('IPsec takes what it references; a reference the BOM lacks is unclassified, not dropped', () => {
    const ipsec = classifyAsset({ name: 'vpn', assetType: 'protocol', protocol: { type: 'ipsec', cryptoRefs: ['AES-256-GCM', 'ffdhe2048', 'gone'] } }, refs(algorithm('AES-256-GCM'), algorithm('ffdhe2048')));
    expect(ipsec).toMatchObject({ name: 'IPSEC', section: 'red', rule: 'ffdh-112' });
    expect(ipsec.reasons).toContain('referenced asset: gone (unclassified)');
  });

  it('a key takes its algorithm and size; material naming no algorithm is unclassified, with what was seen', () => {
    expect(classifyAsset(key(2048), refs(rsa))).toMatchObject({ section: 'red', name: 'RSA-2048 public-key', rule: 'rsa-112', reasons: ['public-key: RSA-2048 (red)'] });
    const ec: CryptoAsset = { bomRef: 'k', name: 'server key', assetType: 'related-crypto-material', relatedCryptoMaterial: { type: 'private-key', size: 384, algorithmRef: 'ec' } };
    expect(classifyAsset(ec, refs(algorithm('ec', { name: 'EC', algorithm: { curve: 'secp384r1' } })))).toMatchObject({ name: 'EC-P384 private-key', rule: 'ecc-128' });
    const named: CryptoAsset = { name: 'ML-KEM-768 private key', assetType: 'related-crypto-material', relatedCryptoMaterial: { type: 'private-key' } };
    expect(classifyAsset(named, refs())).toMatchObject({ key: 'related-crypto-material:ML-KEM-768 private-key', section: 'green', name: 'ML-KEM-768 private-key' });
    const blob: CryptoAsset = { name: 'secret-key@1', assetType: 'related-crypto-material', relatedCryptoMaterial: { type: 'secret-key', size: 256 } };
    expect(classifyAsset(blob, refs())).toMatchObject({ section: 'unclassified', name: 'secret-key@1', seen: 'secret-key@1, secret-key, 256 bits' });
  });

  it('an observation is judged by its algorithm and key size, group, suite and protocol version', () => {
    const expectEntry = (e: CryptoEntry, section: string, name: string) => expect({ section: e.section, name: e.name, assetType: e.assetType }).toEqual({ section, name, assetType: 'observation' });
    expectEntry(classifyObservation({ algorithm: 'RSA', keySize: 2048, protocol: 'TLSv1.2', count: 4 }), 'red', 'RSA-2048 (TLSv1.2)');
    expectEntry(classifyObservation({ algorithm: 'AES', keySize: 256, library: 'jca', count: 3 }), 'green', 'AES-256');
    const hybrid = classifyObservation({ algorithm: 'ECDHE', group: 'X25519MLKEM768', protocol: 'TLSv1.3', cipherSuite: 'TLS_AES_128_GCM_SHA256', count: 41 });
    expectEntry(hybrid, 'transition', 'X25519MLKEM768 (TLSv1.3)');
    expect(hybrid.reasons).toEqual(['group: X25519MLKEM768 (transition)', 'cipher suite TLS_AES_128_GCM_SHA256: AES-128-GCM (green)', 'cipher suite TLS_AES_128_GCM_SHA256: HKDF-SHA256 (green)']);
    expectEntry(classifyObservation({ algorithm: 'ECDHE', group: 'X25519', protocol: 'TLSv1.3', count: 1 }), 'red', 'X25519 (TLSv1.3)');
    expect(classifyObservation({ algorithm: 'AES-128-GCM', protocol: 'TLSv1.0', count: 1 })).toMatchObject({ section: 'red', rule: 'tls-before-1.2' });
    expect(classifyObservation({ algorithm: 'ECDHE-RSA-AES128-GCM-SHA256', count: 1 })).toMatchObject({
      section: 'red', reasons: ['key exchange: ECDH (red)', 'authentication: RSA (red)', 'cipher: AES-128-GCM (green)', 'prf: HMAC-SHA256 (green)'],
    });
    expect(judge({ name: 'RSA-PSS-SHA256' }).name).toBe('RSA-PSS-SHA256');
    expect(classifyObservation({ algorithm: 'SHA-1', count: 1 })).toMatchObject({ section: 'red', deadline: DEPRECATED_2030 });
    expect(classifyObservation({ algorithm: 'FrobCipher', library: 'vendor', count: 2 })).toMatchObject({ section: 'unclassified', seen: 'FrobCipher, library vendor' });
  });
});

// ---- the fixture CBOMs against the hand-reviewed expectation file ----

const elide = (name: string) => name.replace(/@[0-9a-f]{8}-[0-9a-f-]{27}$/i, '@<uuid>');
/** What the BOM calls an asset, without identifiers: one expectation line serves every asset named alike. */
function seenName(asset: CryptoAsset, byRef: Map<string, CryptoAsset>, links: Map<string, string[]>): string {
  const ref = (r?: string) => (r ? (byRef.get(r)?.name ?? `${r} (missing)`) : 'none');
  if (asset.assetType === 'certificate') return `${ref(asset.certificate?.signatureAlgorithmRef)} + ${ref(asset.certificate?.subjectPublicKeyRef)}`;
  if (asset.assetType === 'related-crypto-material') {
    const m = asset.relatedCryptoMaterial ?? {};
    // "~>": what the dependency graph ties the key to (issue 20).
    const tied = (asset.bomRef ? links.get(asset.bomRef) ?? [] : []).map((r) => byRef.get(r)!.name);
    return `${m.type ?? 'material'}: ${elide(asset.name)}${m.algorithmRef ? ` -> ${ref(m.algorithmRef)}` : ''}${tied.length ? ` ~> ${tied.join(', ')}` : ''}`;
  }
  return asset.name;
}

describe('every distinct asset of the fixture CBOMs lands where the reviewed expectation file says', () => {
  it('matches test/fixtures/expected/cbom-sections.txt line for line', async () => {
    const want = new Map<string, string>();
    for (const line of expected.split('\n').filter((l) => l.trim() && !l.startsWith('#'))) {
      const [section, assetType, seen, reason, ...rest] = line.split('\t');
      expect({ line, columns: rest.length, reason: Boolean(reason?.trim()) }).toEqual({ line, columns: 0, reason: true });
      const key = `${assetType}\t${seen}`;
      expect(want.has(key), `duplicate line: ${key}`).toBe(false);
      want.set(key, section!);
    }
    const got = new Map<string, Set<string>>();
    let assets = 0;
    for (const path of Object.keys(cboms)) {
      // As the analysis classifies: with the bom-refs and the documents' dependency graph.
      const { assets: found, byRef, links } = await readCbom(path.split('/').pop()!);
      for (const asset of found) {
        const entry = classifyAsset(asset, { byRef, links });
        expect(entry.explanation.length, entry.name).toBeGreaterThan(20);
        const key = `${asset.assetType}\t${seenName(asset, byRef, links)}`;
        got.set(key, (got.get(key) ?? new Set()).add(entry.section));
        assets++;
      }
    }
    expect(assets).toBe(427);
    const ambiguous = [...got].filter(([, sections]) => sections.size > 1).map(([key]) => key);
    expect(ambiguous, 'assets named alike that land in different sections').toEqual([]);
    const lines = (m: Map<string, string>) => [...m].map(([key, section]) => `${section}\t${key}`).sort();
    expect(lines(new Map([...got].map(([key, sections]) => [key, [...sections][0]!])))).toEqual(lines(want));
  });
});
