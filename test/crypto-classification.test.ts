// The classification of cryptographic assets (issue 8, the `pqc` axis): every row of the table, the
// messy names real CBOMs use, certificates, protocols, keys and observations, and every distinct asset
// of the fixture CBOMs against a checked-in, hand-reviewed expectation file.
import { describe, expect, it } from 'vitest';
import { readBundle } from '../src/analysis/bundle';
import { classifyAsset, classifyObservation, judge } from '../src/analysis/crypto/classify';
import { CLASSIFICATION_TABLE, DEPRECATED_2030, DISALLOWED_2035 } from '../src/analysis/crypto/table';
import type { CryptoAsset } from '../src/analysis/types';
// The registry ships in @cyclonedx/cyclonedx-library, whose exports do not name it: read by path.
import registry from '../node_modules/@cyclonedx/cyclonedx-library/res/schema/cryptography-defs.SNAPSHOT.schema.json';
import expected from './fixtures/expected/cbom-sections.txt?raw';

const cboms = import.meta.glob('./fixtures/cbom/*.json', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

describe('the classification table, row by row', () => {
  it.each(CLASSIFICATION_TABLE.map((row) => [row.id, row] as const))('%s decides its own example', (_id, row) => {
    const judged = judge(row.example);
    expect(judged.rule).toBe(row.id);
    expect(judged.verdict?.explanation.length).toBeGreaterThan(20);
    expect(row.source).toMatch(/NIST|FIPS|SP 800|RFC|CNSA|ISO|GB\/T|Outside/);
  });

  it('names families as the CycloneDX cryptography registry does (or says which it adds)', () => {
    const families = new Set<string>((registry as any).definitions.algorithmFamiliesEnum.enum);
    const added = new Set(['RSA', 'Kyber', 'Dilithium', 'SPHINCS+', 'FN-DSA']);
    const unknown = CLASSIFICATION_TABLE.flatMap((row) => row.families).filter((f) => !families.has(f) && !added.has(f));
    expect(unknown).toEqual([]);
  });
});

describe('sections, dates and CNSA 2.0 as NIST IR 8547 and CNSA 2.0 say', () => {
  const cases: [string, Parameters<typeof judge>[0], string, string | null][] = [
    ['RSA-1024 is broken now', { name: 'RSA', keyBits: 1024 }, 'red', null],
    ['RSA-2048 (112 bits) is deprecated after 2030', { name: 'RSA-2048' }, 'red', DEPRECATED_2030],
    ['RSA-3072 is disallowed after 2035', { name: 'RSA', parameterSetIdentifier: '3072' }, 'red', DISALLOWED_2035],
    ['P-224 (112 bits) is deprecated after 2030', { name: 'ECDSA', curve: 'secp224r1' }, 'red', DEPRECATED_2030],
    ['P-192 is broken now', { name: 'ECDSA', curve: 'prime192v1' }, 'red', null],
    ['X25519 is quantum-vulnerable', { name: 'X25519' }, 'red', DISALLOWED_2035],
    ['SHA-224 retires after 2030', { name: 'SHA224' }, 'yellow', DEPRECATED_2030],
    ['HMAC-SHA1 retires after 2030', { name: 'HmacSHA1' }, 'yellow', DEPRECATED_2030],
    ['MD5 is broken', { name: 'md5' }, 'red', null],
    ['AES-128-ECB is not for confidentiality', { name: 'AES', mode: 'ecb', keyBits: 128 }, 'red', null],
    ['3TDEA is disallowed', { name: 'desede-168' }, 'red', null],
    ['RC4 is disallowed', { name: 'ARCFOUR' }, 'red', null],
    ['Kyber768 is pre-standard', { name: 'Kyber768' }, 'yellow', null],
    ['Camellia is outside the standards', { name: 'CAMELLIA-256-CBC' }, 'yellow', null],
    ['X25519MLKEM768 is a hybrid', { name: 'X25519MLKEM768' }, 'transition', DISALLOWED_2035],
    ['SSH hybrid key exchange', { name: 'mlkem768x25519-sha256' }, 'transition', DISALLOWED_2035],
    ['SecP384r1MLKEM1024 is a hybrid', { name: 'SecP384r1MLKEM1024' }, 'transition', DISALLOWED_2035],
    ['ML-KEM-1024 is green', { name: 'ML-KEM-1024' }, 'green', null],
    ['SLH-DSA is green', { name: 'SLH-DSA-SHAKE-256f' }, 'green', null],
    ['XMSS is green', { name: 'XMSS' }, 'green', null],
    ['SHA3-256 is green', { name: 'SHA3-256' }, 'green', null],
    ['an unknown name is unclassified', { name: 'FrobCipher-9' }, 'unclassified', null],
  ];
  it.each(cases)('%s', (_title, input, section, deadline) => {
    const judged = judge(input);
    expect(judged.section).toBe(section);
    expect(judged.verdict?.deadline ?? null).toBe(deadline);
  });

  it('CNSA 2.0 approves AES-256, SHA-384, ML-KEM-1024, ML-DSA-87 and LMS, not their smaller siblings', () => {
    const approved = (name: string) => judge({ name }).verdict?.cnsa2.approved;
    expect(['AES-256-GCM', 'SHA384', 'ML-KEM-1024', 'ML-DSA-87', 'LMS'].map(approved)).toEqual([true, true, true, true, true]);
    expect(['AES-128-GCM', 'SHA256', 'ML-KEM-768', 'ML-DSA-65', 'RSA-4096'].map(approved)).toEqual([false, false, false, false, false]);
  });
});

describe('messy names normalise to one algorithm', () => {
  it.each([
    ['SHA1', 'SHA-1'], ['sha-1', 'SHA-1'], ['SHA256withRSA', 'SHA-256withRSA'], ['sha256WithRSAEncryption', 'SHA-256withRSA'],
    ['SHA1-RSA', 'SHA-1withRSA'], ['ecdsa-with-SHA384', 'ECDSA-SHA-384'], ['secp256r1', 'ECDSA-P-256'], ['prime256v1', 'ECDSA-P-256'],
    ['P-256', 'ECDSA-P-256'], ['desede-168', '3DES'], ['curve25519-sha256', 'X25519'], ['AES256', 'AES-256'], ['AES/GCM/NoPadding', 'AES-GCM'],
  ])('%s -> %s', (name, normalised) => {
    expect(judge({ name }).name).toBe(normalised);
  });

  it('OIDs alone, key sizes in parameterSetIdentifier', () => {
    expect(judge({ name: 'oid:1.2.840.113549.1.1.11', oid: '1.2.840.113549.1.1.11' }).name).toBe('SHA-256withRSA');
    expect(judge({ name: '2.16.840.1.101.3.4.4.3', oid: '2.16.840.1.101.3.4.4.3' }).name).toBe('ML-KEM-1024');
    expect(judge({ name: 'RSA', parameterSetIdentifier: '4096' }).name).toBe('RSA-4096');
  });
});

describe('certificates, protocols, keys and observations', () => {
  const byRef = new Map<string, CryptoAsset>([
    ['sig', { bomRef: 'sig', name: 'SHA256withRSA', assetType: 'algorithm' }],
    ['rsa', { bomRef: 'rsa', name: 'RSA', assetType: 'algorithm' }],
    ['key', { bomRef: 'key', name: 'server key', assetType: 'related-crypto-material', relatedCryptoMaterial: { type: 'public-key', size: 2048, algorithmRef: 'rsa' } }],
    ['mldsa', { bomRef: 'mldsa', name: 'ML-DSA-87', assetType: 'algorithm' }],
  ]);

  it('a certificate takes the worst of its signature and key, naming both', () => {
    const entry = classifyAsset({ name: 'cert', assetType: 'certificate', certificate: { subjectName: 'CN=shop', signatureAlgorithmRef: 'sig', subjectPublicKeyRef: 'key' } }, { byRef });
    expect(entry).toMatchObject({ section: 'red', name: 'CN=shop', deadline: DEPRECATED_2030, quantumVulnerable: true });
    expect(entry.reasons).toEqual(['signature: SHA-256withRSA (red)', 'key: RSA-2048 (red)']);
  });

  it('a TLS 1.3 protocol with a hybrid group is transition; TLS 1.0 is red whatever its suites', () => {
    const hybrid = classifyAsset({ name: 'tls', assetType: 'protocol', protocol: { type: 'tls', version: '1.3', cipherSuites: [{ name: 'TLS_AES_256_GCM_SHA384', algorithms: ['aes', 'grp'] }] } },
      { byRef: new Map([['aes', { bomRef: 'aes', name: 'AES-256-GCM', assetType: 'algorithm' }], ['grp', { bomRef: 'grp', name: 'X25519MLKEM768', assetType: 'algorithm' }]]) });
    expect(hybrid.section).toBe('transition');
    const old = classifyAsset({ name: 'tls', assetType: 'protocol', protocol: { type: 'tls', version: '1.0', cipherSuites: [{ name: 'TLS_AES_256_GCM_SHA384' }] } }, { byRef });
    expect(old.section).toBe('red');
    const suite = classifyAsset({ name: 'tls', assetType: 'protocol', protocol: { type: 'tls', version: '1.2', cipherSuites: [{ name: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256' }] } }, { byRef });
    expect(suite.reasons.map((r) => r.replace(/^cipher suite \S+: /, ''))).toEqual(['ECDH (red)', 'RSA (red)', 'AES-128-GCM (green)', 'SHA-256 (green)']);
  });

  it('a key takes its algorithm and size; material with no algorithm is unclassified, never dropped', () => {
    expect(classifyAsset(byRef.get('key')!, { byRef })).toMatchObject({ section: 'red', name: 'RSA-2048 public-key' });
    expect(classifyAsset({ name: 'blob', assetType: 'related-crypto-material', relatedCryptoMaterial: { type: 'secret-key' } }, { byRef })).toMatchObject({ section: 'unclassified', seen: 'blob, secret-key' });
  });

  it('an observation is judged by its algorithm, key size, group and suite', () => {
    expect(classifyObservation({ algorithm: 'RSA', keySize: 2048, protocol: 'TLS', count: 4 })).toMatchObject({ section: 'red', name: 'RSA-2048 (TLS)' });
    expect(classifyObservation({ algorithm: 'AES-256-GCM', group: 'X25519MLKEM768', count: 1 }).section).toBe('transition');
  });
});

describe('every distinct asset of the fixture CBOMs lands where the reviewed expectation file says', () => {
  it('matches test/fixtures/expected/cbom-sections.txt line for line', async () => {
    const lines = new Set<string>();
    for (const [path, text] of Object.entries(cboms)) {
      const assets: CryptoAsset[] = [];
      await readBundle(new Blob([text]).stream(), { fileName: path.split('/').pop(), onCryptoAsset: (a) => void assets.push(a) });
      const byRef = new Map(assets.filter((a) => a.bomRef).map((a) => [a.bomRef!, a]));
      for (const asset of assets) {
        const e = classifyAsset(asset, { byRef });
        const what = asset.assetType === 'certificate' || asset.assetType === 'protocol'
          ? e.reasons.map((r) => r.replace(/^cipher suite \S+/, 'suite')).join('; ') || asset.name : asset.name;
        lines.add(`${e.section}\t${asset.assetType}\t${what}\t${e.rule ?? '-'}`);
      }
    }
    const want = expected.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t').slice(0, 4).join('\t'));
    expect([...lines].sort()).toEqual(want.sort());
  });
});
