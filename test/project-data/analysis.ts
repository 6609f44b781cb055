/// <reference types="vite/client" />
// The bundle reader (src/analysis): formats, CycloneDX mapping, archives, limits, failure classes
// and the subject rule. Inputs are built here from the real fixtures in test/fixtures (loaded
// with vite's `?raw` imports, which vitest-pool-workers serves into workerd as strings).
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { createTarPacker, packTar } from 'modern-tar';
import { describe, expect, it } from 'vitest';
import { BundleError, MAX_ARCHIVE_ENTRIES, readBundle, subjectOf, type ReadBundleOptions } from '../../src/analysis/bundle';
import type { Component, CryptoAsset, Observation } from '../../src/analysis/types';
import { sha256Hex } from '../../src/lib/ids';

import trivy from '../fixtures/cbom/aquasecurity-trivy__crypto-image.cbom.json?raw';
import certificateCbom from '../fixtures/cbom/cyclonedx-bom-examples__certificate.cbom.json?raw';
import keyCbom from '../fixtures/cbom/cyclonedx-bom-examples__key.cbom.json?raw';
import protocolCbom from '../fixtures/cbom/cyclonedx-bom-examples__protocol.cbom.json?raw';
import specCertificate17 from '../fixtures/cbom/cyclonedx-spec__valid-cryptography-certificate-advanced-1.7.json?raw';
import specFull16 from '../fixtures/cbom/cyclonedx-spec__valid-cryptography-full-1.6.json?raw';
import theiaCertificates from '../fixtures/cbom/ibm-cbomkit-theia__certificates.cbom.json?raw';
import theiaTemurin from '../fixtures/cbom/ibm-cbomkit-theia__temurin-jdk-image.cbom.json?raw';
import kafka from '../fixtures/cbom/ibm-cbomkit__kafka-cbom.json?raw';
import mastercard from '../fixtures/cbom/mastercard-client-encryption-java__cbom.json?raw';
import nginxFail from '../fixtures/cbom/pkic-cbom__nginx-fail.cbom.json?raw';
import nginxPass from '../fixtures/cbom/pkic-cbom__nginx-pass.cbom.json?raw';
import alpine from '../fixtures/sbom/apk__alpine-3.16-syft0.58.cdx-1.4.json?raw';
import zlib from '../fixtures/sbom/apk__osv-scanner-alpine-zlib.cdx-1.6.json?raw';
import popOs from '../fixtures/sbom/deb__pop-os-22.04-host.cdx-1.4.json?raw';
import harp from '../fixtures/sbom/golang__elastic-harp-v0.2.10.cdx-1.4.json?raw';
import dependencyTrack from '../fixtures/sbom/maven__dependency-track-apiserver-4.5.0.cdx-1.4.json?raw';
import juiceShop from '../fixtures/sbom/npm__juice-shop-14.1.1.cdx-1.4.json?raw';
import poetry from '../fixtures/sbom/pypi__poetry-regression-issue702.cdx-1.6.json?raw';

const MiB = 1024 * 1024;
const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

interface Counter {
  pulled: number;
}

/** The bytes as a pull-driven stream of `chunk`-byte chunks, counting what the reader pulled. */
function streamOf(data: Uint8Array | string, chunk = 64 * 1024, counter?: Counter): ReadableStream<Uint8Array> {
  const all = typeof data === 'string' ? bytes(data) : data;
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= all.byteLength) return controller.close();
        const piece = all.slice(offset, offset + chunk);
        offset += piece.byteLength;
        if (counter) counter.pulled += piece.byteLength;
        controller.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
}

type Seen = Observation & { path: string; line: number };

async function read(data: Uint8Array | string, options: ReadBundleOptions & { chunk?: number } = {}) {
  const components: Component[] = [];
  const assets: CryptoAsset[] = [];
  const observations: Seen[] = [];
  const order: string[] = [];
  const summary = await readBundle(streamOf(data, options.chunk), {
    onComponent: (c, s) => {
      components.push(c);
      order.push(`${s.path}:component`);
    },
    onCryptoAsset: (a, s) => {
      assets.push(a);
      order.push(`${s.path}:asset`);
    },
    onObservation: (o, s) => {
      observations.push({ ...o, ...s });
    },
    ...options,
  });
  return { summary, components, assets, observations, order };
}

async function refusal(promise: Promise<unknown>): Promise<BundleError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BundleError);
    return error as BundleError;
  }
  throw new Error('expected the bundle to be refused');
}

async function gzip(data: Uint8Array): Promise<Uint8Array> {
  const compressed = new Blob([data]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(compressed).arrayBuffer());
}

type Files = Record<string, string | Uint8Array>;

async function tarGz(files: Files): Promise<Uint8Array> {
  const tar = await packTar(
    Object.entries(files).map(([name, body]) => {
      const data = typeof body === 'string' ? bytes(body) : body;
      return { header: { name, size: data.byteLength, type: 'file' as const }, body: data };
    }),
  );
  return gzip(tar);
}

function zip(files: Files): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(files).map(([name, body]) => [name, typeof body === 'string' ? bytes(body) : body])));
}

/** A zip as a streaming writer makes it: deflated entries with data descriptors, no sizes up front. */
function streamedZip(files: Files): Uint8Array {
  const chunks: Uint8Array[] = [];
  const writer = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  for (const [name, body] of Object.entries(files)) {
    const file = new ZipDeflate(name, { level: 6 });
    writer.add(file);
    file.push(typeof body === 'string' ? bytes(body) : body, true);
  }
  writer.end();
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

const countBy = <T>(items: T[], key: (item: T) => string) =>
  items.reduce<Record<string, number>>((acc, item) => ({ ...acc, [key(item)]: (acc[key(item)] ?? 0) + 1 }), {});

const purlType = (c: Component) => (c.purl ? c.purl.slice(4, c.purl.indexOf('/')) : '(none)');

// Counts from test/fixtures/SOURCES.md: components (all, crypto assets included) / crypto assets by type.
const CBOMS: [string, string, number, Record<string, number>][] = [
  ['aquasecurity-trivy__crypto-image', trivy, 24, { 'related-crypto-material': 12, algorithm: 6, certificate: 6 }],
  ['cyclonedx-bom-examples__certificate', certificateCbom, 4, { algorithm: 2, certificate: 1, 'related-crypto-material': 1 }],
  ['cyclonedx-bom-examples__key', keyCbom, 3, { algorithm: 2, 'related-crypto-material': 1 }],
  ['cyclonedx-bom-examples__protocol', protocolCbom, 8, { algorithm: 5, protocol: 1, certificate: 1, 'related-crypto-material': 1 }],
  ['cyclonedx-spec__valid-cryptography-full-1.6', specFull16, 4, { algorithm: 1, certificate: 1, protocol: 1, 'related-crypto-material': 1 }],
  ['cyclonedx-spec__valid-cryptography-certificate-advanced-1.7', specCertificate17, 6, { certificate: 2, algorithm: 2, 'related-crypto-material': 2 }],
  ['ibm-cbomkit-theia__certificates', theiaCertificates, 23, { certificate: 8, algorithm: 8, 'related-crypto-material': 7 }],
  ['ibm-cbomkit-theia__temurin-jdk-image', theiaTemurin, 319, { 'related-crypto-material': 150, certificate: 149, algorithm: 19, protocol: 1 }],
  ['ibm-cbomkit__kafka-cbom', kafka, 11, { algorithm: 7, 'related-crypto-material': 4 }],
  ['mastercard-client-encryption-java__cbom', mastercard, 11, { algorithm: 7, 'related-crypto-material': 4 }],
  ['pkic-cbom__nginx-pass', nginxPass, 11, { algorithm: 6, protocol: 2, certificate: 1 }],
  ['pkic-cbom__nginx-fail', nginxFail, 6, { algorithm: 3, protocol: 1, certificate: 1 }],
];

// Purl types as normalized: the legacy pkg:alpine/<name> of Syft 0.58 becomes pkg:apk/alpine/<name>.
const SBOMS: [string, string, number, Record<string, number>][] = [
  ['deb__pop-os-22.04-host', popOs, 2669, { deb: 2613, swid: 56 }],
  ['npm__juice-shop-14.1.1', juiceShop, 1115, { npm: 1115 }],
  ['apk__alpine-3.16-syft0.58', alpine, 15, { apk: 14, '(none)': 1 }],
  ['apk__osv-scanner-alpine-zlib', zlib, 1, { apk: 1 }],
  ['maven__dependency-track-apiserver-4.5.0', dependencyTrack, 132, { maven: 132 }],
  ['golang__elastic-harp-v0.2.10', harp, 705, { golang: 705 }],
  ['pypi__poetry-regression-issue702', poetry, 63, { pypi: 63 }],
];

describe('format detection', () => {
  it('reads a CycloneDX JSON document, after a byte-order mark and whitespace', async () => {
    const { summary, assets } = await read(`\uFEFF \n\t${keyCbom}\n`);
    expect(summary.format).toBe('cyclonedx-json');
    expect(summary.documents).toEqual([
      expect.objectContaining({ path: 'bundle.json', specVersion: '1.6', components: 0, cryptoAssets: 3 }),
    ]);
    expect(assets).toHaveLength(3);
  });

  it('names a single document by options.fileName', async () => {
    const { summary } = await read(keyCbom, { fileName: 'key.cbom.json' });
    expect(summary.documents[0]?.path).toBe('key.cbom.json');
  });

  it('refuses bytes of no known format as unreadable', async () => {
    const random = new Uint8Array(4096);
    crypto.getRandomValues(random);
    random[0] = 0x07;
    expect((await refusal(read(random))).failureClass).toBe('unreadable');
    const xml = await refusal(read('<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.6"/>'));
    expect(xml.failureClass).toBe('unreadable');
    expect(xml.message).toMatch(/XML/);
  });

  it('refuses an empty bundle as empty', async () => {
    expect((await refusal(read(''))).failureClass).toBe('empty');
    expect((await refusal(read('  \n '))).failureClass).toBe('empty');
  });

  it('refuses JSON that is not CycloneDX as not_cyclonedx', async () => {
    const spdx = await refusal(read(JSON.stringify({ spdxVersion: 'SPDX-2.3', bomFormat: 'SPDX', packages: [] })));
    expect(spdx.failureClass).toBe('not_cyclonedx');
    expect(spdx.message).toMatch(/bomFormat is "SPDX"/);
    const old = await refusal(read(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.1', components: [] })));
    expect(old.failureClass).toBe('not_cyclonedx');
    expect(old.message).toMatch(/specVersion "1.1"/);
    expect((await refusal(read('{"name": "x"}'))).failureClass).toBe('not_cyclonedx');
  });

  it('refuses a cut or malformed JSON document as unreadable', async () => {
    const cut = await refusal(read(keyCbom.slice(0, keyCbom.length / 2)));
    expect(cut.failureClass).toBe('unreadable');
    expect(cut.message).toMatch(/cut short or malformed/);
    expect((await refusal(read(`${keyCbom} trailing`))).failureClass).toBe('unreadable');
  });
});

describe('CycloneDX documents', () => {
  it.each(CBOMS)('%s parses with the counts of SOURCES.md', async (_name, text, total, byType) => {
    const { summary, components, assets } = await read(text);
    const crypto = Object.values(byType).reduce((a, b) => a + b, 0);
    expect(summary.cryptoAssets).toBe(crypto);
    expect(summary.components).toBe(total - crypto);
    expect(components).toHaveLength(total - crypto);
    expect(countBy(assets, (a) => a.assetType)).toEqual(byType);
    expect(summary.documents[0]).toMatchObject({ components: total - crypto, cryptoAssets: crypto });
  });

  it.each(SBOMS)('%s parses with the counts of SOURCES.md', async (_name, text, total, purlTypes) => {
    const { summary, components, assets } = await read(text);
    expect(summary.components).toBe(total);
    expect(assets).toHaveLength(0);
    expect(countBy(components, purlType)).toEqual(purlTypes);
    expect(summary.invalidPurls).toBe(0);
  });

  it('streams the largest fixture in 7-byte chunks with the same result as 64 KiB chunks', async () => {
    const small = await read(popOs, { chunk: 7 });
    const large = await read(popOs, { chunk: 64 * 1024 });
    expect(small.components).toHaveLength(2669);
    expect(small.components).toEqual(large.components);
    expect(small.summary).toEqual(large.summary);
  });

  it('reads components while the document arrives, waiting for each sink call (back-pressure)', async () => {
    const counter: Counter = { pulled: 0 };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    let pulledAtFirstCall = -1;
    const reading = readBundle(streamOf(juiceShop, 16 * 1024, counter), {
      onComponent: async () => {
        calls++;
        if (calls === 1) {
          pulledAtFirstCall = counter.pulled;
          await gate;
        }
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The sink is still waiting: nothing more was read than before it was called.
    expect(calls).toBe(1);
    expect(counter.pulled).toBe(pulledAtFirstCall);
    expect(counter.pulled).toBeLessThan(256 * 1024);
    release();
    const summary = await reading;
    expect(calls).toBe(1115);
    expect(summary.components).toBe(1115);
    expect(counter.pulled).toBe(bytes(juiceShop).byteLength);
  });

  it('maps a component with its normalized purl, licenses and hashes', async () => {
    const { components, summary } = await read(dependencyTrack);
    expect(summary.documents[0]).toEqual({
      path: 'bundle.json',
      specVersion: '1.4',
      serialNumber: expect.stringMatching(/^urn:uuid:/),
      metadataComponent: { name: 'dependency-track', version: '4.5.0', purl: 'pkg:maven/org.dependencytrack/dependency-track@4.5.0?type=war' },
      components: 132,
      cryptoAssets: 0,
      dependencies: 128,
    });
    const first = components[0]!;
    expect(first).toMatchObject({ type: 'library', name: expect.any(String), version: expect.any(String), purl: expect.stringMatching(/^pkg:maven\//) });
    expect(components.filter((c) => c.licenses?.length).length).toBeGreaterThan(100);
    expect(components.some((c) => c.hashes?.some((h) => h.alg === 'SHA-256' && h.content.length === 64))).toBe(true);
  });

  it('rewrites the legacy pkg:alpine type to pkg:apk/alpine and keeps an invalid purl as null', async () => {
    const { components } = await read(alpine);
    expect(components.find((c) => c.name === 'zlib')?.purl).toBe('pkg:apk/alpine/zlib@1.2.12-r3?arch=x86_64&distro=alpine-3.16.2&upstream=zlib');
    const doc = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      components: [
        { type: 'library', name: 'ok', purl: 'pkg:npm/JSONStream@1.3.5' },
        { type: 'library', name: 'bad', purl: 'not a purl' },
        { type: 'library', purl: 'pkg:npm/nameless@1' },
      ],
    });
    const { components: mapped, summary } = await read(doc);
    expect(mapped).toEqual([
      { type: 'library', name: 'ok', purl: 'pkg:npm/jsonstream@1.3.5' },
      { type: 'library', name: 'bad', purl: null },
    ]);
    expect(summary.invalidPurls).toBe(1);
    expect(summary.skippedComponents).toBe(1);
  });

  it('reads nested components, parents first, and counts dependencies', async () => {
    const { components, summary } = await read(harp);
    expect(components).toHaveLength(705);
    expect(summary.dependencies).toBe(157);
    expect(summary.documents[0]?.metadataComponent).toEqual({
      name: 'github.com/elastic/harp',
      version: 'v0.2.10',
      purl: 'pkg:golang/github.com/elastic/harp@v0.2.10?type=module#cmd/harp',
    });
    const doc = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.4',
      components: [{ type: 'application', name: 'a', components: [{ type: 'library', name: 'b', components: [{ type: 'library', name: 'c' }] }, { type: 'library', name: 'd' }] }],
    });
    expect((await read(doc)).components.map((c) => c.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reads a document whose keys are sorted (bomFormat and specVersion after the components)', async () => {
    const { summary } = await read(poetry, { chunk: 4096 });
    expect(summary.documents[0]).toMatchObject({ specVersion: '1.6', components: 63, dependencies: 64 });
  });

  it('sends components listed before the header on trust past 5,000, and refuses the bundle if the header then fails', async () => {
    const many = Array.from({ length: 6000 }, (_, i) => `{"type":"library","name":"p${i}"}`).join(',');
    const good = await read(`{"components":[${many}],"bomFormat":"CycloneDX","specVersion":"1.5"}`);
    expect(good.components).toHaveLength(6000);
    const bad = await refusal(read(`{"components":[${many}],"bomFormat":"SPDX"}`));
    expect(bad.failureClass).toBe('not_cyclonedx');
    expect(bad.message).toMatch(/before its header/);
  });

  it('a public key\'s value is kept only as its SHA-256; secret material (private keys, secret keys, passwords) keeps neither', async () => {
    const material = (ref: string, type: string, value: string) => ({
      type: 'cryptographic-asset', 'bom-ref': ref, name: ref, cryptoProperties: { assetType: 'related-crypto-material', relatedCryptoMaterialProperties: { type, value } },
    });
    const doc = JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      components: [material('pub', 'public-key', 'MIIBIjANBgkq'), material('priv', 'private-key', 'MIIEvQIBADAN'), material('pw', 'password', 'hunter2'), material('sk', 'secret-key', '00112233')],
    });
    const { assets } = await read(doc);
    const fingerprints = Object.fromEntries(assets.map((a) => [a.bomRef, a.relatedCryptoMaterial?.fingerprint ?? null]));
    expect(fingerprints).toEqual({ pub: { alg: 'SHA-256', content: await sha256Hex('MIIBIjANBgkq') }, priv: null, pw: null, sk: null });
    expect(JSON.stringify(assets)).not.toMatch(/MIIBIjANBgkq|MIIEvQIBADAN|hunter2|00112233/);
  });

  it('maps every CycloneDX 1.6 crypto property of the schema fixture', async () => {
    const { assets } = await read(specFull16);
    expect(assets).toEqual([
      {
        bomRef: 'asset-1',
        name: 'Name here',
        assetType: 'algorithm',
        oid: 'oid:1.2.3.4.5.6.7.8.9',
        algorithm: {
          primitive: 'ae',
          parameterSetIdentifier: '128',
          curve: 'brainpoolP160r1',
          mode: 'gcm',
          padding: 'pkcs5',
          cryptoFunctions: ['keygen', 'encrypt', 'decrypt', 'tag'],
          classicalSecurityLevel: 128,
          nistQuantumSecurityLevel: 1,
          executionEnvironment: 'software-plain-ram',
          implementationPlatform: 'x86_64',
          certificationLevel: ['fips140-1-l4'],
        },
      },
      {
        bomRef: 'asset-2',
        name: 'Name here',
        assetType: 'certificate',
        oid: 'oid:1.2.3.4.5.6.7.8.9',
        certificate: {
          subjectName: 'Subject name here',
          issuerName: 'Issuer name here',
          notValidBefore: '2022-01-01T00:00:00.000Z',
          notValidAfter: '2024-01-01T00:00:00.000Z',
          signatureAlgorithmRef: 'bom-ref-to-algorithm',
          subjectPublicKeyRef: 'bom-ref-to-public-key',
          certificateFormat: 'X.509',
          certificateFileExtension: 'crt',
        },
      },
      {
        bomRef: 'asset-3',
        name: 'Name here',
        assetType: 'protocol',
        oid: 'oid:1.2.3.4.5.6.7.8.9',
        protocol: {
          type: 'tls',
          version: '1.3',
          cipherSuites: [{ name: 'TLS_DHE_RSA_WITH_AES_128_CCM', algorithms: ['bom-ref-to-algorithm'], identifiers: ['0xC0'] }],
          cryptoRefs: ['asset-4'],
          ikev2: { encr: ['bom-ref-to-encr'], prf: ['bom-ref-to-prf'], integ: ['bom-ref-to-integ'], ke: ['bom-ref-to-ke'], auth: ['bom-ref-to-auth'], esn: true },
        },
      },
      {
        bomRef: 'asset-4',
        name: 'Name here',
        assetType: 'related-crypto-material',
        oid: 'oid:1.2.3.4.5.6.7.8.9',
        relatedCryptoMaterial: {
          type: 'private-key', size: 1024, algorithmRef: 'bom-ref-to-algorithm', format: 'PEM', state: 'active', id: '12345',
          creationDate: '2024-01-01T00:00:00.000Z', activationDate: '2024-01-02T00:00:00.000Z', updateDate: '2024-01-03T00:00:00.000Z', expirationDate: '2024-01-04T00:00:00.000Z',
          securedBy: { mechanism: 'HSM', algorithmRef: 'bom-ref-to-algorithm' },
          // The key's value is never kept (issue 20), and a private key's is not fingerprinted either:
          // a secret's hash could be guessed (a public key's SHA-256 stands in for its value).
        },
      },
    ]);
    expect(JSON.stringify(assets)).not.toContain('Value here');
  });

  it('reads the CycloneDX 1.7 names: related assets, certificateFileExtension, ellipticCurve, algorithmFamily', async () => {
    const { assets } = await read(specCertificate17);
    expect(assets[0]).toMatchObject({
      name: 'revoked-internal-ca.example.com',
      assetType: 'certificate',
      oid: '2.5.4.3',
      certificate: {
        serialNumber: 'ABCDEF1234567890FEDCBA',
        certificateFileExtension: 'pem',
        signatureAlgorithmRef: '2A0DA4D2-BBCA-4515-9BCD-C870A3EA4CE8',
        subjectPublicKeyRef: 'ACCAF8BC-5F73-4869-A3FE-1C64E8D96408',
        notValidAfter: '2025-12-31T23:59:59Z',
      },
    });
    expect(assets.find((a) => a.name === 'RSA-4096-Revoked-CA-Key')?.relatedCryptoMaterial).toEqual({
      type: 'public-key',
      size: 4096,
      algorithmRef: '2A0DA4D2-BBCA-4515-9BCD-C870A3EA4CE8',
      format: 'PEM',
      state: 'compromised',
      id: 'revoked-ca-key-2024',
      creationDate: '2022-12-15T10:00:00Z',
      activationDate: '2023-01-01T00:00:00Z',
      updateDate: '2024-01-10T15:45:30Z',
      securedBy: { mechanism: 'HSM', algorithmRef: 'aes-256-gcm-ref' },
      // 1.7 states the fingerprint: it is kept, the value is not.
      fingerprint: { alg: 'SHA-256', content: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' },
    });
    expect(assets[0]!.certificate).toMatchObject({ fingerprint: { alg: 'SHA-256' } });
    const { assets: trivyAssets } = await read(trivy);
    const mlDsa = trivyAssets.find((a) => a.algorithm?.algorithmFamily === 'ML-DSA');
    expect(mlDsa?.algorithm).toMatchObject({ primitive: 'signature', nistQuantumSecurityLevel: expect.any(Number) });
    expect(trivyAssets.some((a) => a.algorithm?.curve)).toBe(true);
  });

  it('counts evidence occurrences of crypto assets', async () => {
    const { assets } = await read(kafka);
    expect(assets.every((a) => (a.occurrences ?? 0) >= 1)).toBe(true);
    expect(assets.reduce((sum, a) => sum + (a.occurrences ?? 0), 0)).toBeGreaterThan(11);
  });

  it('refuses a single JSON element larger than maxJsonElementBytes with archive_limits', async () => {
    const doc = JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.5', components: [{ type: 'library', name: 'x', description: 'y'.repeat(8192) }] });
    const error = await refusal(read(doc, { maxJsonElementBytes: 4096, chunk: 1024 }));
    expect(error.failureClass).toBe('archive_limits');
    expect(error.message).toMatch(/limit on element size/);
  });

  it('passes an error thrown by a sink through unchanged', async () => {
    const failure = new Error('database unavailable');
    const promise = readBundle(streamOf(dependencyTrack), {
      onComponent: () => {
        throw failure;
      },
    });
    await expect(promise).rejects.toBe(failure);
    const inArchive = (data: Uint8Array) => readBundle(streamOf(data), { onCryptoAsset: () => Promise.reject(failure) });
    await expect(inArchive(await tarGz({ 'a.json': keyCbom }))).rejects.toBe(failure);
    await expect(inArchive(zip({ 'a.json': keyCbom }))).rejects.toBe(failure);
  });
});

const manifest = {
  subject: 'payments-api',
  tag: 'release-7',
  ci: { runId: '4711', url: 'https://ci.example.com/runs/4711' },
  tool: { name: 'posture-cli', version: '1.0.0' },
  runtime: true,
};
const tlsLines = [
  '{"algorithm":"ECDHE","group":"X25519","protocol":"TLSv1.3","cipherSuite":"TLS_AES_128_GCM_SHA256","library":"openssl","count":41}',
  '',
  '{"algorithm":"RSA","keySize":2048,"library":"openssl"}\r',
].join('\n');
const jcaLines = '\uFEFF{"algorithm":"AES","keySize":256,"library":"jca","count":3}\n';

function bundleFiles(): Files {
  return {
    'manifest.json': JSON.stringify(manifest),
    'sbom/dependency-track.cdx.json': dependencyTrack,
    'cbom/protocol.cbom.json': protocolCbom,
    'runtime/tls.jsonl': tlsLines,
    'runtime/jca.jsonl': jcaLines,
    'README.md': '# not read',
    'notes.json': '{"note": "not a BOM"}',
  };
}

function expectBundle(result: Awaited<ReturnType<typeof read>>, format: string) {
  const { summary, observations, order } = result;
  expect(summary).toMatchObject({
    format,
    manifest,
    components: 132,
    cryptoAssets: 8,
    observations: 3,
    dependencies: 128,
    skippedEntries: 1,
    skipped: [{ path: 'notes.json', reason: 'it has no bomFormat' }],
    subjectFromDocuments: 'dependency-track',
  });
  expect(summary.documents.map((d) => [d.path, d.specVersion, d.components, d.cryptoAssets])).toEqual([
    ['sbom/dependency-track.cdx.json', '1.4', 132, 0],
    ['cbom/protocol.cbom.json', '1.6', 0, 8],
  ]);
  expect(observations).toEqual([
    { algorithm: 'ECDHE', group: 'X25519', protocol: 'TLSv1.3', cipherSuite: 'TLS_AES_128_GCM_SHA256', library: 'openssl', count: 41, path: 'runtime/tls.jsonl', line: 1 },
    { algorithm: 'RSA', keySize: 2048, library: 'openssl', count: 1, path: 'runtime/tls.jsonl', line: 3 },
    { algorithm: 'AES', keySize: 256, library: 'jca', count: 3, path: 'runtime/jca.jsonl', line: 1 },
  ]);
  // In archive order: every component of the first document before any asset of the second.
  expect(order.lastIndexOf('sbom/dependency-track.cdx.json:component')).toBeLessThan(order.indexOf('cbom/protocol.cbom.json:asset'));
}

describe('archives', () => {
  it('reads a .tar.gz with a manifest, two documents and runtime records, in 7-byte and 64 KiB chunks', async () => {
    const archive = await tarGz(bundleFiles());
    expectBundle(await read(archive, { chunk: 7 }), 'tar.gz');
    expectBundle(await read(archive, { chunk: 64 * 1024 }), 'tar.gz');
  });

  it('reads a .zip with a manifest, two documents and runtime records, in 7-byte and 64 KiB chunks', async () => {
    const archive = zip(bundleFiles());
    expectBundle(await read(archive, { chunk: 7 }), 'zip');
    expectBundle(await read(archive, { chunk: 64 * 1024 }), 'zip');
  });

  it('reads a zip written as a stream (data descriptors, sizes unknown up front)', async () => {
    const archive = streamedZip({ 'a/key.cbom.json': keyCbom, 'b/juice.json': juiceShop });
    const { summary } = await read(archive, { chunk: 1000 });
    expect(summary.documents.map((d) => d.path)).toEqual(['a/key.cbom.json', 'b/juice.json']);
    expect(summary).toMatchObject({ components: 1115, cryptoAssets: 3 });
  });

  it('accepts ./-prefixed names and folders, and a runtime-only bundle', async () => {
    const tar = await packTar([
      { header: { name: './', type: 'directory', size: 0 } },
      { header: { name: './manifest.json', type: 'file', size: 19 }, body: bytes('{"subject":"edge"}\n') },
      { header: { name: './runtime/', type: 'directory', size: 0 } },
      { header: { name: './runtime/a.jsonl', type: 'file', size: 23 }, body: bytes('{"algorithm":"SHA-1"}\n\n') },
    ]);
    const { summary, observations } = await read(await gzip(tar));
    expect(summary).toMatchObject({ format: 'tar.gz', manifest: { subject: 'edge' }, documents: [], observations: 1, subjectFromDocuments: null });
    expect(observations[0]).toMatchObject({ algorithm: 'SHA-1', count: 1, path: 'runtime/a.jsonl', line: 1 });
  });

  it('refuses an archive whose JSON entries are none of them CycloneDX as not_cyclonedx', async () => {
    const error = await refusal(read(await tarGz({ 'a.json': '{"a":1}', 'b.json': '[1,2]', 'c.json': 'not json' })));
    expect(error.failureClass).toBe('not_cyclonedx');
    expect(error.message).toMatch(/None of the archive's 3 JSON entries/);
  });

  it('refuses an archive with no document and no observations as empty', async () => {
    expect((await refusal(read(await tarGz({ 'manifest.json': '{}', 'README.md': 'hello' }))))).toMatchObject({ failureClass: 'empty' });
    expect((await refusal(read(zip({}))))).toMatchObject({ failureClass: 'empty' });
  });
});

describe('failure classes', () => {
  it('corrupt_archive: a truncated gzip', async () => {
    const archive = await tarGz(bundleFiles());
    const error = await refusal(read(archive.subarray(0, Math.floor(archive.byteLength / 2))));
    expect(error.failureClass).toBe('corrupt_archive');
    expect(error.message).toMatch(/truncated/);
  });

  it('corrupt_archive: a truncated zip, inside an entry or before the central directory', async () => {
    const archive = zip(bundleFiles());
    const inside = await refusal(read(archive.subarray(0, Math.floor(archive.byteLength / 2))));
    expect(inside.failureClass).toBe('corrupt_archive');
    const cd = new DataView(archive.buffer, archive.byteOffset).getUint32(archive.byteLength - 6, true);
    const beforeDirectory = await refusal(read(archive.subarray(0, cd)));
    expect(beforeDirectory.failureClass).toBe('corrupt_archive');
    expect(beforeDirectory.message).toMatch(/central directory/);
  });

  it('corrupt_archive: a gzip that holds no tar archive', async () => {
    expect((await refusal(read(await gzip(bytes(keyCbom)))))).toMatchObject({ failureClass: 'corrupt_archive' });
  });

  it('invalid_manifest: a manifest of the wrong shape, or not JSON', async () => {
    const wrong = await refusal(read(await tarGz({ 'manifest.json': '{"subject": 42}', 'a.json': keyCbom })));
    expect(wrong.failureClass).toBe('invalid_manifest');
    expect(wrong.message).toMatch(/subject/);
    const tool = await refusal(read(zip({ 'manifest.json': '{"tool": {"name": "x"}}', 'a.json': keyCbom })));
    expect(tool).toMatchObject({ failureClass: 'invalid_manifest' });
    expect(tool.message).toMatch(/tool\.version/);
    expect((await refusal(read(zip({ 'manifest.json': '{subject: x}', 'a.json': keyCbom }))))).toMatchObject({ failureClass: 'invalid_manifest' });
  });

  it('invalid_runtime_record: a bad line, naming the file and the line', async () => {
    const files = { 'a.json': keyCbom, 'runtime/tls.jsonl': '{"algorithm":"RSA"}\n{"keySize":2048}\n' };
    const missing = await refusal(read(await tarGz(files)));
    expect(missing.failureClass).toBe('invalid_runtime_record');
    expect(missing.message).toMatch(/runtime\/tls\.jsonl line 2/);
    expect(missing.message).toMatch(/algorithm/);
    const notJson = await refusal(read(zip({ 'runtime/x.jsonl': '{"algorithm":"RSA"}\n\n{oops\n' })));
    expect(notJson).toMatchObject({ failureClass: 'invalid_runtime_record' });
    expect(notJson.message).toMatch(/runtime\/x\.jsonl line 3 is not valid JSON/);
    const count = await refusal(read(zip({ 'runtime/x.jsonl': '{"algorithm":"RSA","count":0}' })));
    expect(count.message).toMatch(/line 1.*count/);
  });

  it('archive_limits: entry paths with .. or absolute paths', async () => {
    const traversal = await refusal(read(await tarGz({ 'a.json': keyCbom, '../evil.json': keyCbom })));
    expect(traversal.failureClass).toBe('archive_limits');
    expect(traversal.message).toMatch(/"\.\.\/evil\.json" contains "\.\."/);
    const nested = await refusal(read(zip({ 'docs/../../evil.json': keyCbom })));
    expect(nested.failureClass).toBe('archive_limits');
    const absolute = await refusal(read(zip({ '/etc/evil.json': keyCbom })));
    expect(absolute.failureClass).toBe('archive_limits');
    expect(absolute.message).toMatch(/absolute path/);
  });

  it(`archive_limits: more than ${MAX_ARCHIVE_ENTRIES} entries`, async () => {
    const entries = Array.from({ length: MAX_ARCHIVE_ENTRIES + 1 }, (_, i) => ({ header: { name: `f/${i}.txt`, type: 'file' as const, size: 0 } }));
    const error = await refusal(read(await gzip(await packTar(entries))));
    expect(error.failureClass).toBe('archive_limits');
    expect(error.message).toMatch(/more than 10000 entries \(limit on entry count\)/);
    const small = await refusal(read(zip({ 'a.json': keyCbom, 'b.json': keyCbom, 'c.json': keyCbom }), { maxEntries: 2 }));
    expect(small.message).toMatch(/more than 2 entries/);
  });

  it('archive_limits: more uncompressed bytes than allowed, announced or counted', async () => {
    const files = { 'a.json': dependencyTrack };
    const announced = await refusal(read(await tarGz(files), { maxUncompressedBytes: 200_000 }));
    expect(announced.failureClass).toBe('archive_limits');
    expect(announced.message).toMatch(/"a\.json" \(.*\) would take the archive past .* \(limit on total uncompressed size\)/);
    // Declared sizes fit, but the tar stream itself (headers, padding, end blocks) does not.
    const counted = await refusal(read(await tarGz(files), { maxUncompressedBytes: bytes(dependencyTrack).byteLength + 100 }));
    expect(counted.failureClass).toBe('archive_limits');
    expect(counted.message).toMatch(/expands to more than .* \(limit on total uncompressed size\)/);
    // A zip written as a stream announces no sizes: the bytes are counted as they expand.
    const streamed = await refusal(read(streamedZip(files), { maxUncompressedBytes: 200_000 }));
    expect(streamed.message).toMatch(/expands to more than/);
    const zipped = await refusal(read(zip(files), { maxUncompressedBytes: 200_000 }));
    expect(zipped.message).toMatch(/would take the archive past/);
  });

  it('archive_limits: a gzip bomb (300 MB of zeros) is stopped early, without expanding it', async () => {
    const total = 300 * 1000 * 1000;
    let written = 0;
    const { readable, controller } = createTarPacker();
    const writing = (async () => {
      const body = controller.add({ name: 'bomb.json', type: 'file', size: total }).getWriter();
      const zeros = new Uint8Array(MiB);
      while (written < total) {
        const piece = zeros.subarray(0, Math.min(zeros.byteLength, total - written));
        await body.write(piece);
        written += piece.byteLength;
      }
      await body.close();
      controller.finalize();
    })().catch(() => {});
    const counter: Counter = { pulled: 0 };
    const bomb = readable.pipeThrough(new CompressionStream('gzip')).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          counter.pulled += chunk.byteLength;
          out.enqueue(chunk);
        },
      }),
    );
    const started = Date.now();
    const error = await refusal(readBundle(bomb, {}));
    expect(error.failureClass).toBe('archive_limits');
    expect(error.message).toMatch(/limit on compression ratio/);
    expect(Date.now() - started).toBeLessThan(5000);
    // ~290 KB compressed in all: the reader stopped after its first few KB (about 1.3 MB expanded);
    // the generator ran ahead only by the tar packer's own 8 MiB buffer.
    expect(counter.pulled).toBeLessThan(16 * 1024);
    expect(written).toBeLessThan(16 * MiB);
    await writing;
  });

  it('archive_limits: a zip bomb is stopped the same way', async () => {
    let written = 0;
    const total = 300 * 1000 * 1000;
    const queue: Uint8Array[] = [];
    let ended = false;
    const writer = new Zip((error, chunk, final) => {
      if (error) throw error;
      queue.push(chunk);
      if (final) ended = true;
    });
    const file = new ZipDeflate('bomb.json', { level: 6 });
    writer.add(file);
    const zeros = new Uint8Array(MiB);
    const bomb = new ReadableStream<Uint8Array>(
      {
        pull(out) {
          while (!queue.length && !ended) {
            const size = Math.min(zeros.byteLength, total - written);
            written += size;
            file.push(zeros.subarray(0, size), written >= total);
            if (written >= total) writer.end();
          }
          const next = queue.shift();
          if (next) out.enqueue(next);
          else out.close();
        },
      },
      { highWaterMark: 0 },
    );
    const error = await refusal(readBundle(bomb, {}));
    expect(error.failureClass).toBe('archive_limits');
    expect(error.message).toMatch(/limit on compression ratio/);
    expect(written).toBeLessThan(32 * MiB);
  });

  it('rethrows a failure of the stream itself (an R2 read breaking off) unchanged, not as a bundle fault', async () => {
    const broken = new Error('network connection lost');
    const failing = (data: Uint8Array) => {
      let sent = false;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent) return controller.error(broken);
          sent = true;
          controller.enqueue(data.slice(0, Math.floor(data.byteLength / 2)));
        },
      });
    };
    await expect(readBundle(failing(bytes(dependencyTrack)))).rejects.toBe(broken);
    await expect(readBundle(failing(await tarGz(bundleFiles())))).rejects.toBe(broken);
    await expect(readBundle(failing(zip(bundleFiles())))).rejects.toBe(broken);
  });

  it('never lets anything but BundleError escape for damaged archives', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const originals = [await tarGz(bundleFiles()), zip(bundleFiles())];
    for (let round = 0; round < 40; round++) {
      const original = originals[round % 2]!;
      let damaged = original.slice();
      if (round % 3 === 0) damaged = damaged.subarray(0, Math.floor(random() * damaged.byteLength));
      else for (let i = 0; i < 1 + Math.floor(random() * 8); i++) damaged[Math.floor(random() * damaged.byteLength)] = Math.floor(random() * 256);
      try {
        await read(damaged, { chunk: 4096 });
      } catch (error) {
        expect(error, `round ${round}`).toBeInstanceOf(BundleError);
      }
    }
  });
});

describe('subject', () => {
  const documents = [{ metadataComponent: undefined }, { metadataComponent: { name: 'from-bom' } }];

  it("is the survey's target first", () => {
    expect(subjectOf({ target: 'payments', manifest: { subject: 'from-manifest' }, documents })).toBe('payments');
  });

  it("is the manifest's subject without a target (a blank target counts as none)", () => {
    expect(subjectOf({ target: '  ', manifest: { subject: 'from-manifest' }, documents })).toBe('from-manifest');
    expect(subjectOf({ manifest: { subject: 'from-manifest' }, documents })).toBe('from-manifest');
  });

  it("is the first document's metadata.component.name otherwise", () => {
    expect(subjectOf({ target: null, manifest: null, documents })).toBe('from-bom');
    expect(subjectOf({ manifest: {}, documents: [{ metadataComponent: { name: 'first' } }, { metadataComponent: { name: 'second' } }] })).toBe('first');
  });

  it('is null when nothing names one', () => {
    expect(subjectOf({ target: undefined, manifest: null, documents: [] })).toBeNull();
    expect(subjectOf({ documents: [{ metadataComponent: undefined }] })).toBeNull();
  });

  it('comes out of a real bundle through the summary', async () => {
    const { summary } = await read(zip({ 'manifest.json': '{"tag":"x"}', 'one.json': zlib, 'two.json': dependencyTrack }));
    expect(summary.subjectFromDocuments).toBe('dependency-track');
    expect(subjectOf({ target: null, manifest: summary.manifest, documents: summary.documents })).toBe('dependency-track');
    expect(subjectOf({ target: 'override', ...summary })).toBe('override');
  });
});
