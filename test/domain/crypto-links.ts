// Classification as a security lead reads it (issue 20), on the fixture CBOMs read by the project's own
// reader and classified as the analysis does (test/cbom-fixtures.ts): keys and certificates through
// every link CycloneDX gives, names the table did not know, one certificate per certificate, trust
// anchors by their key, a date on every red entry, parts by their role, names a person recognises.
// Each test names the rule it shows.
import { describe, expect, it } from 'vitest';
import { classifyAsset, judge } from '../../src/analysis/crypto/classify';
import { MAX_LINKS } from '../../src/analysis/crypto-findings';
import { CNSA2_EXCLUSIVE, DEPRECATED_2030, DISALLOWED_2013, DISALLOWED_2035, TDEA3_2023 } from '../../src/analysis/crypto/table';
import type { CryptoAsset } from '../../src/analysis/types';
import analysisDoc from '../../docs/analysis.md?raw';
import { cbom, cboms, readCbom } from '../cbom-fixtures';

type Tally = [kind: 'certificate' | 'key', algorithm: string, section: string, deadline: string | null, trustAnchor: boolean | null, count: number];

/** Per fixture, every key and certificate finding: its deciding algorithm (or name), section, date, whether a trust anchor, and how many. */
const EXPECTED: Record<string, Tally[]> = {
  'aquasecurity-trivy__crypto-image.cbom.json': [
    ['certificate', 'EC-P256', 'red', DISALLOWED_2035, true, 1], ['certificate', 'Ed25519', 'red', DISALLOWED_2035, true, 1],
    ['certificate', 'ML-DSA-65', 'green', null, true, 1], ['certificate', 'RSA-2048', 'red', DEPRECATED_2030, false, 1],
    ['certificate', 'RSA-2048', 'red', DEPRECATED_2030, true, 2],
    ['key', 'EC-P256', 'red', DISALLOWED_2035, null, 2], ['key', 'Ed25519', 'red', DISALLOWED_2035, null, 2],
    // Encrypted blobs: nothing in the document says what is inside.
    ['key', 'Encrypted PKCS#1 private key', 'unclassified', null, null, 1], ['key', 'Encrypted PKCS#8 private key', 'unclassified', null, null, 1],
    ['key', 'ML-DSA-65', 'green', null, null, 1], ['key', 'RSA-2048', 'red', DEPRECATED_2030, null, 5],
  ],
  'cyclonedx-bom-examples__certificate.cbom.json': [['certificate', 'RSA-2048', 'red', DEPRECATED_2030, false, 1], ['key', 'RSA-2048', 'red', DEPRECATED_2030, null, 1]],
  'cyclonedx-bom-examples__key.cbom.json': [['key', 'RSA-2048', 'red', DEPRECATED_2030, null, 1]],
  'cyclonedx-bom-examples__protocol.cbom.json': [['certificate', 'RSA-2048', 'red', DEPRECATED_2030, false, 1], ['key', 'RSA-2048', 'red', DEPRECATED_2030, null, 1]],
  'cyclonedx-spec__valid-cryptography-certificate-advanced-1.7.json': [
    ['certificate', 'ECDSA-P256-SHA256', 'red', DISALLOWED_2035, false, 1], ['certificate', 'RSA-SHA256', 'red', DEPRECATED_2030, false, 1],
    ['key', 'ECDSA-P256', 'red', DISALLOWED_2035, null, 1], ['key', 'RSA-4096', 'red', DISALLOWED_2035, null, 1],
  ],
  // Placeholders whose references point at nothing.
  'cyclonedx-spec__valid-cryptography-full-1.6.json': [['certificate', 'Name here', 'unclassified', null, false, 1], ['key', 'Name here', 'unclassified', null, null, 1]],
  'ibm-cbomkit-theia__certificates.cbom.json': [
    ['certificate', 'RSA-2048', 'red', DEPRECATED_2030, false, 3], ['certificate', 'RSA-2048', 'red', DEPRECATED_2030, true, 2],
    ['certificate', 'RSA-SHA1', 'red', DISALLOWED_2013, false, 1], ['certificate', 'RSA-SHA384', 'red', DEPRECATED_2030, false, 1],
    ['key', 'RSA-2048', 'red', DEPRECATED_2030, null, 5], ['key', 'RSA-4096', 'red', DISALLOWED_2035, null, 1], ['key', 'RSA-8192', 'red', DISALLOWED_2035, null, 1],
  ],
  'ibm-cbomkit-theia__temurin-jdk-image.cbom.json': [
    ['certificate', 'ECDSA', 'red', DEPRECATED_2030, true, 22], ['certificate', 'RSA-2048', 'red', DEPRECATED_2030, false, 1],
    ['certificate', 'RSA-2048', 'red', DEPRECATED_2030, true, 74], ['certificate', 'RSA-4096', 'red', DISALLOWED_2035, true, 52],
    ['key', 'ECDSA', 'red', DEPRECATED_2030, null, 23], ['key', 'RSA-2048', 'red', DEPRECATED_2030, null, 75], ['key', 'RSA-4096', 'red', DISALLOWED_2035, null, 52],
  ],
  // The keys the scan left without algorithm are tied to EC, RSA-2048 and DSA by `dependencies`; the
  // fourth to "PRIVATE KEY", a PEM label and no algorithm.
  'ibm-cbomkit__kafka-cbom.json': [
    ['key', 'DSA-2048', 'red', '2023-02-03', null, 1], ['key', 'EC', 'red', DEPRECATED_2030, null, 1], ['key', 'RSA-2048', 'red', DEPRECATED_2030, null, 1],
    ['key', 'secret-key@65c423f4-6a60-4051-8edc-1a5f782fea48', 'unclassified', null, null, 1],
  ],
  'mastercard-client-encryption-java__cbom.json': [['key', 'AES-128', 'green', null, null, 3], ['key', 'RSA-2048', 'red', DEPRECATED_2030, null, 1]],
  'pkic-cbom__nginx-fail.cbom.json': [['certificate', 'RSA-2048', 'red', DEPRECATED_2030, false, 1]],
  'pkic-cbom__nginx-pass.cbom.json': [['certificate', 'RSA-2048', 'red', DEPRECATED_2030, false, 1]],
};

/** The algorithm assets a link reaches from a key or certificate (bom-refs, 1.7 related assets, dependencies), without the classifier. */
function reached(asset: CryptoAsset, byRef: Map<string, CryptoAsset>, links: Map<string, string[]>, depth = 0): CryptoAsset[] {
  const refs = [asset.relatedCryptoMaterial?.algorithmRef, asset.certificate?.signatureAlgorithmRef, asset.certificate?.subjectPublicKeyRef, ...(links.get(asset.bomRef ?? '') ?? [])];
  return refs.flatMap((ref) => (ref ? byRef.get(ref) ?? [] : [])).flatMap((a) => (a.assetType === 'algorithm' ? [a] : depth < 1 ? reached(a, byRef, links, depth + 1) : []));
}

describe('rule: keys and other material are classified through what they belong to (links)', () => {
  it.each(Object.keys(EXPECTED))('%s: no key or certificate a link ties to a known algorithm is unclassified; each lands in its section', async (file) => {
    const { findings, byRef, links } = await readCbom(file);
    const tally = new Map<string, number>();
    for (const f of findings.filter((x) => x.assetType === 'certificate' || x.assetType === 'related-crypto-material')) {
      const known = reached(byRef.get(f.bom_ref)!, byRef, links).filter((a) => classifyAsset(a, { byRef, links }).section !== 'unclassified');
      if (known.length) expect(f.section, `${f.name}: ${known.map((a) => a.name).join(', ')} is reachable`).not.toBe('unclassified');
      if (f.section === 'unclassified') expect(f.explanation, f.name).toMatch(/not classified: |not known to the classification table|names neither/);
      const key = JSON.stringify([f.assetType === 'certificate' ? 'certificate' : 'key', f.algorithm ?? f.name, f.section, f.deadline, f.trustAnchor ?? null]);
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    const got = [...tally].map(([key, n]) => [...JSON.parse(key), n]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(got).toEqual([...EXPECTED[file]!].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))));
  });

  it('covers every fixture CBOM', () => {
    expect(Object.keys(cboms).map((p) => p.split('/').pop()).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('a key says what tied it: the dependency, or its own name ("key:aes"); what was missing when nothing does', async () => {
    const { findings } = await readCbom('ibm-cbomkit__kafka-cbom.json');
    const ec = findings.find((f) => f.bom_ref === 'ff11be02-d1ac-4887-ae6e-b4e49f2bc41c');
    expect(ec).toMatchObject({ section: 'red', name: 'EC secret-key', reasons: ['secret-key: EC (red), tied by dependencies to EC'], quantumVulnerable: true });
    const blob = findings.find((f) => f.bom_ref === '65c423f4-6a60-4051-8edc-1a5f782fea48');
    expect(blob.explanation).toMatch(/the algorithm it belongs to \(PRIVATE KEY\) is not one the classification table knows/);
    const named = (name: string, size?: number) => classifyAsset({ name, assetType: 'related-crypto-material', relatedCryptoMaterial: { type: 'secret-key', size } }, { byRef: new Map() });
    expect(named('key:aes', 256)).toMatchObject({ section: 'green', name: 'AES-256 secret-key', algorithm: 'AES-256' });
    expect(named('secret-key:rsa')).toMatchObject({ section: 'red', rule: 'rsa-size-unknown' });
    expect(named('key@0b6b7e3c-1b1f-4cde-9a52-2f3a6f0e8d11').explanation).toMatch(/no algorithmRef, no dependency ties it to an algorithm, and its name names none/);
  });

  it('a certificate that names neither part takes them from its dependencies; a protocol takes what they tie to it', async () => {
    const text = JSON.parse(cbom('cyclonedx-bom-examples__protocol.cbom.json'));
    const certificate = text.components.find((c: any) => c.cryptoProperties.assetType === 'certificate');
    const { signatureAlgorithmRef, subjectPublicKeyRef } = certificate.cryptoProperties.certificateProperties;
    delete certificate.cryptoProperties.certificateProperties.signatureAlgorithmRef;
    delete certificate.cryptoProperties.certificateProperties.subjectPublicKeyRef;
    text.dependencies = [{ ref: certificate['bom-ref'], dependsOn: [signatureAlgorithmRef, subjectPublicKeyRef] }];
    const { findings } = await readCbom('protocol-linked.json', JSON.stringify(text));
    expect(findings.find((f) => f.assetType === 'certificate')).toMatchObject({ section: 'red', reasons: ['signature: RSA-SHA512 (red)', 'key: RSA-2048 (red)'] });
  });
});

describe('bounds: a hub many assets link to', () => {
  it('a key 2,000 keys name keeps at most MAX_LINKS links, its own first, and every key is still classified through it', async () => {
    const keys = Array.from({ length: 2_000 }, (_, i) => `k${i}`);
    const text = JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      components: [
        { type: 'cryptographic-asset', 'bom-ref': 'rsa', name: 'RSA-2048', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'pke' } } },
        ...['hub', ...keys].map((ref) => ({ type: 'cryptographic-asset', 'bom-ref': ref, name: `${ref}`, cryptoProperties: { assetType: 'related-crypto-material', relatedCryptoMaterialProperties: { type: 'secret-key' } } })),
      ],
      dependencies: [{ ref: 'hub', dependsOn: ['rsa'] }, ...keys.map((ref) => ({ ref, dependsOn: ['hub'] }))],
    });
    const { links, findings } = await readCbom('hub.json', text);
    expect(links.get('hub')).toHaveLength(MAX_LINKS);
    expect(links.get('hub')![0]).toBe('rsa');
    const tied = findings.filter((f) => f.assetType === 'related-crypto-material');
    expect(tied).toHaveLength(2_001);
    expect(tied.filter((f) => f.section !== 'red')).toEqual([]);
  });
});

describe('rule: names the table did not know are classified or listed as not classifiable', () => {
  it('HMACSHA2 (HMAC over SHA-2), ConcatenationKDF (SP 800-56C, by its hash), MGF1 (by its hash)', () => {
    expect(judge({ name: 'HMACSHA2' })).toMatchObject({ section: 'green', name: 'HMAC-SHA2', family: 'HMAC', rule: 'mac-kdf' });
    expect(judge({ name: 'HMACSHA2' }).explanation).toMatch(/SHA-2 size is not stated/);
    expect(judge({ name: 'ConcatenationKDF-SHA256' })).toMatchObject({ section: 'green', family: 'SP800-56C' });
    expect(judge({ name: 'ConcatenationKDF' })).toMatchObject({ section: 'unclassified', family: 'SP800-56C' });
    expect(judge({ name: 'ConcatenationKDF' }).explanation).toMatch(/the hash or cipher it is built on is not stated/);
    expect(judge({ name: 'MGF1-SHA1' })).toMatchObject({ section: 'yellow', deadline: DEPRECATED_2030, family: 'MGF1' });
    expect(judge({ name: 'MGF1-SHA256' })).toMatchObject({ section: 'green', family: 'MGF1' });
  });

  it('a KDF or MGF1 named without its hash takes the hash the dependency graph ties to it', async () => {
    const document = {
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      components: [
        { type: 'cryptographic-asset', 'bom-ref': 'kdf', name: 'ConcatenationKDF', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'kdf' } } },
        { type: 'cryptographic-asset', 'bom-ref': 'mgf', name: 'MGF1', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'other' } } },
        { type: 'cryptographic-asset', 'bom-ref': 'sha256', name: 'SHA256', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'hash' } } },
        { type: 'cryptographic-asset', 'bom-ref': 'sha1', name: 'SHA1', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'hash' } } },
      ],
      dependencies: [{ ref: 'kdf', dependsOn: ['sha256'] }, { ref: 'mgf', dependsOn: ['sha1'] }],
    };
    const { findings } = await readCbom('kdf.json', JSON.stringify(document));
    expect(findings.find((f) => f.bom_ref === 'kdf')).toMatchObject({ section: 'green', name: 'SP800-56C-SHA256', reasons: ['hash: SHA-256 (green), tied by dependencies'] });
    expect(findings.find((f) => f.bom_ref === 'mgf')).toMatchObject({ section: 'yellow', name: 'MGF1-SHA1', deadline: DEPRECATED_2030 });
  });

  it('every algorithm name in a fixture CBOM is classified, or listed in docs/analysis.md with why it cannot be', async () => {
    const listed = [...analysisDoc.matchAll(/^\| `([^`]+)` \| [^|]+ \|$/gm)].map((m) => m[1]);
    const unclassified = new Set<string>();
    for (const path of Object.keys(cboms)) {
      for (const f of (await readCbom(path.split('/').pop()!)).findings) if (f.assetType === 'algorithm' && f.section === 'unclassified') unclassified.add(f.name);
    }
    expect([...unclassified].sort()).toEqual(['Name here', 'PRIVATE KEY']);
    for (const name of unclassified) expect(listed, name).toContain(name);
  });
});

describe('rule: one certificate is one asset', () => {
  it('the same certificate as .pem and .der is one entry with both occurrences, keyed by what identifies it', async () => {
    const { findings } = await readCbom('ibm-cbomkit-theia__certificates.cbom.json');
    const example = findings.filter((f) => f.name === 'www.example.com');
    expect(example).toHaveLength(1);
    expect(example[0]).toMatchObject({ occurrences: 2, bom_refs: ['bb286eccb13a830c', 'd2e76f38b11a355d'], key: expect.stringMatching(/^certificate:[0-9a-f]{32}$/) });
    expect(example[0].locations.sort()).toEqual(['/app/8192b-rsa-example-cert.der', '/app/8192b-rsa-example-cert.pem']);
    expect(findings.filter((f) => f.assetType === 'certificate')).toHaveLength(7);
  });

  it('a fingerprint keys the entry; two certificates a document gives one fingerprint but different subjects stay apart', async () => {
    const trivy = (await readCbom('aquasecurity-trivy__crypto-image.cbom.json')).findings.find((f) => f.name === 'rsa.trivy.test');
    expect(trivy).toMatchObject({ key: 'certificate:sha256:28b2e1169f00bea7689174b7cba81621fc144864a502cbde84186704077dbfd6', occurrences: 2 });
    const advanced = (await readCbom('cyclonedx-spec__valid-cryptography-certificate-advanced-1.7.json')).findings.filter((f) => f.assetType === 'certificate');
    expect(advanced.map((f) => f.name).sort()).toEqual(['active-server.example.com', 'revoked-internal-ca.example.com']);
    expect(new Set(advanced.map((f) => f.key)).size).toBe(2);
  });
});

describe('rule: trust anchors are judged by what is used', () => {
  it('a self-signed root with a SHA-1 self-signature is judged by its key and told to plan the PKI move, not to re-sign', async () => {
    const { findings } = await readCbom('ibm-cbomkit-theia__certificates.cbom.json');
    const root = findings.find((f) => f.name === 'DigiCert Assured ID Root CA');
    expect(root).toMatchObject({ section: 'red', trustAnchor: true, deadline: DEPRECATED_2030, rule: 'rsa-112', algorithm: 'RSA-2048' });
    expect(root.reasons).toEqual(["signature: RSA-SHA1 (not checked: a trust anchor's own signature)", 'key: RSA-2048 (red)']);
    expect(root.explanation).toMatch(/trust anchor.*never checked.*Plan the move of the PKI.*post-quantum \(ML-DSA\) roots/);
    expect(root.explanation).not.toMatch(/Re-sign/);
    // A certificate its issuer signed with SHA-1 is overdue: that signature is checked.
    expect(findings.find((f) => f.name === 'www.example.com')).toMatchObject({ trustAnchor: false, deadline: DISALLOWED_2013, rule: 'signature-weak-hash' });
  });

  it('a root whose key the document leaves unclassified is judged by the key algorithm its self-signature names', async () => {
    const text = JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      components: [
        { type: 'cryptographic-asset', 'bom-ref': 'sig', name: 'SHA256withRSA', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'signature' } } },
        { type: 'cryptographic-asset', 'bom-ref': 'key', name: 'public key', cryptoProperties: { assetType: 'related-crypto-material', relatedCryptoMaterialProperties: { type: 'public-key' } } },
        {
          type: 'cryptographic-asset', 'bom-ref': 'root', name: 'Example Root',
          cryptoProperties: { assetType: 'certificate', certificateProperties: { subjectName: 'CN=Example Root', issuerName: 'CN=Example Root', signatureAlgorithmRef: 'sig', subjectPublicKeyRef: 'key' } },
        },
      ],
    });
    const root = (await readCbom('inline.json', text)).findings.find((f) => f.assetType === 'certificate');
    expect(root).toMatchObject({ section: 'red', trustAnchor: true, decidedBy: 'trust anchor key' });
    expect(root.reasons).toContain('key (from its self-signature): RSA (red)');
  });

  it('an unnamed certificate is a trust anchor only when every copy of it was found in a trust store', async () => {
    const copy = (ref: string, path: string) => ({
      type: 'cryptographic-asset', 'bom-ref': ref, name: ref,
      cryptoProperties: { assetType: 'certificate', certificateProperties: { subjectPublicKeyRef: 'key', signatureAlgorithmRef: 'sig', fingerprint: { alg: 'SHA-256', content: 'ab'.repeat(32) } } },
      evidence: { occurrences: [{ location: path }] },
    });
    const document = (copies: object[]) => JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      components: [
        { type: 'cryptographic-asset', 'bom-ref': 'rsa', name: 'RSA-2048', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'signature' } } },
        { type: 'cryptographic-asset', 'bom-ref': 'sig', name: 'SHA1withRSA', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'signature' } } },
        { type: 'cryptographic-asset', 'bom-ref': 'key', name: 'RSA-2048 public-key', cryptoProperties: { assetType: 'related-crypto-material', relatedCryptoMaterialProperties: { type: 'public-key', algorithmRef: 'rsa', size: 2048 } } },
        ...copies,
      ],
    });
    // The first copy (in key order) is the trust store's: the second, in an application's folder, says it is not only a root there.
    const both = (await readCbom('copies.json', document([copy('a-store', 'etc/ssl/certs/x.pem'), copy('b-app', 'opt/app/x.pem')]))).findings.filter((f) => f.assetType === 'certificate');
    expect(both).toHaveLength(1);
    expect(both[0]).toMatchObject({ trustAnchor: false, deadline: DISALLOWED_2013, locations: ['etc/ssl/certs/x.pem', 'opt/app/x.pem'] });
    const stores = (await readCbom('copies.json', document([copy('a-store', 'etc/ssl/certs/x.pem'), copy('b-bundle', 'etc/ssl/cert.pem')]))).findings.filter((f) => f.assetType === 'certificate');
    expect(stores).toHaveLength(1);
    expect(stores[0]).toMatchObject({ trustAnchor: true, deadline: DEPRECATED_2030 });
  });

  it('in a JDK image\'s trust store no root is overdue because of its own signature', async () => {
    const { findings } = await readCbom('ibm-cbomkit-theia__temurin-jdk-image.cbom.json');
    const anchors = findings.filter((f) => f.trustAnchor);
    expect(anchors).toHaveLength(148);
    expect(anchors.filter((f) => f.deadline < '2026-01-01')).toEqual([]);
    // The unnamed ones (no subject, no issuer) are trust anchors because they were found only in /etc/ssl/cert.pem.
    expect(anchors.filter((f) => f.name.startsWith('certificate in /etc/ssl/cert.pem'))).toHaveLength(9);
  });
});

describe('rule: every red entry has its deadline', () => {
  it('on every fixture, every red finding carries a date', async () => {
    for (const path of Object.keys(cboms)) {
      for (const f of (await readCbom(path.split('/').pop()!)).findings) if (f.section === 'red') expect(f.deadline, `${path}: ${f.name}`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('the NIST and CNSA 2.0 dates of DES, 3DES, RSA, SHA-1 signatures and HMAC-SHA1', () => {
    expect(judge({ name: 'DES' })).toMatchObject({ section: 'red', deadline: '2005-05-19', cnsa2: { approved: false, deadline: null } });
    expect(judge({ name: 'DESede' })).toMatchObject({ section: 'red', deadline: TDEA3_2023, cnsa2: { approved: false, deadline: null } });
    expect(judge({ name: 'RSA-2048' })).toMatchObject({ section: 'red', deadline: DEPRECATED_2030, cnsa2: { approved: false, deadline: null } });
    expect(judge({ name: 'RSA-3072' })).toMatchObject({ section: 'red', deadline: DISALLOWED_2035, cnsa2: { approved: false, deadline: CNSA2_EXCLUSIVE } });
    expect(judge({ name: 'SHA1withRSA' })).toMatchObject({ section: 'red', deadline: DISALLOWED_2013, cnsa2: { approved: false, deadline: null } });
    expect(judge({ name: 'HmacSHA1' })).toMatchObject({ section: 'yellow', deadline: DEPRECATED_2030, cnsa2: { approved: false, deadline: null } });
  });
});

describe('rule: parts are judged by their role', () => {
  it('the SHA a TLS 1.2 cipher suite references is its HMAC (HMAC-SHA1, yellow), not a SHA-1 signature', async () => {
    const text = JSON.parse(cbom('cyclonedx-bom-examples__protocol.cbom.json'));
    const suite = text.components.find((c: any) => c.cryptoProperties.assetType === 'protocol').cryptoProperties.protocolProperties.cipherSuites[0];
    suite.name = 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA';
    const sha = text.components.find((c: any) => c.name === 'SHA384');
    Object.assign(sha, { name: 'SHA1', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'hash' } } });
    const { findings } = await readCbom('protocol-sha1.json', JSON.stringify(text));
    const tls = findings.find((f) => f.assetType === 'protocol');
    expect(tls.reasons).toContain('cipher suite TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA (mac): HMAC-SHA1 (yellow)');
    expect(tls.reasons.filter((r: string) => /SHA-1 \(red\)/.test(r))).toEqual([]);
    // By the suite's name alone, the same.
    expect(judge({ name: 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA' }).reasons).toContain('mac: HMAC-SHA1 (yellow)');
  });

  it('a hash the dependency graph ties to a protocol is judged in that role too (TLS 1.2: its MAC, HMAC-SHA1)', async () => {
    const text = JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      components: [
        { type: 'cryptographic-asset', 'bom-ref': 'sha1', name: 'SHA-1', cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'hash' } } },
        { type: 'cryptographic-asset', 'bom-ref': 'tls', name: 'TLS', cryptoProperties: { assetType: 'protocol', protocolProperties: { type: 'tls', version: '1.2' } } },
      ],
      dependencies: [{ ref: 'tls', dependsOn: ['sha1'] }],
    });
    const tls = (await readCbom('tls.json', text)).findings.find((f) => f.assetType === 'protocol');
    expect(tls.reasons).toContain('tied by dependencies (mac): HMAC-SHA1 (yellow)');
    expect(tls.reasons.join('\n')).not.toMatch(/: SHA-1 \(red\)/);
  });
});

describe('rule: names a person recognises', () => {
  it('an unnamed certificate is shown by its subject\'s common name or its file path, never by an internal hash', async () => {
    const { findings, assets } = await readCbom('ibm-cbomkit-theia__temurin-jdk-image.cbom.json');
    const certificates = findings.filter((f) => f.assetType === 'certificate');
    for (const f of certificates) expect(f.name, f.bom_ref).not.toMatch(/^[0-9a-f]{16}$/);
    expect(assets.filter((a) => a.assetType === 'certificate').map((a) => a.name)).toContain('certificate in /etc/ssl/cert.pem (valid 2009-05-29 to 2029-05-29)');
    expect(findings.find((f) => f.name === 'google.com')).toMatchObject({ subject_cn: 'www.google.com' });
    const unnamed = (await readCbom('x.json', JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      components: [{ type: 'cryptographic-asset', 'bom-ref': 'f00dfeedf00dfeed', name: '', cryptoProperties: { assetType: 'certificate', certificateProperties: { subjectName: 'C=DE, O=Example, CN=Example Root' } } }],
    }))).findings[0];
    expect(unnamed).toMatchObject({ name: 'Example Root', subject_cn: 'Example Root' });
  });

  it('a key a certificate holds is named by it (temurin: each root\'s public key, not one name 150 times)', async () => {
    const { findings } = await readCbom('ibm-cbomkit-theia__temurin-jdk-image.cbom.json');
    const keys = findings.filter((f) => f.assetType === 'related-crypto-material');
    expect(keys.find((f) => f.name === 'RSA-2048 public-key of Sonera Class2 CA')).toMatchObject({ section: 'red', algorithm: 'RSA-2048' });
    expect(new Set(keys.map((f) => f.name)).size).toBeGreaterThan(keys.length * 0.9);
  });
});
