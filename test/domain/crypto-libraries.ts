// The table of crypto libraries and their first post-quantum release (the agility axis): the table's own
// consistency, the components of the fixture SBOMs read through the project's bundle reader (which do and
// which do not match), the answer below and at the boundary in each ecosystem's version order, and the
// runtime library names. Package URLs written out below are copied from the SBOMs in shared/fixtures/sbom
// (the file is named beside each) unless marked as made up for a case the fixtures lack.
import { describe, expect, it } from 'vitest';
import { readBundle } from '../../src/analysis/bundle';
import type { Component } from '../../src/analysis/types';
import { CRYPTO_LIBRARIES, cryptoLibraryByName, cryptoLibraryOf, type CryptoLibraryMatch } from '../../src/scoring/crypto-libraries';

const sboms = import.meta.glob('../fixtures/sbom/*.json', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

async function componentsOf(file: string): Promise<Component[]> {
  const components: Component[] = [];
  await readBundle(new Blob([sboms[`../fixtures/sbom/${file}`]!]).stream(), { onComponent: (c) => void components.push(c) });
  expect(components.length).toBeGreaterThan(0);
  return components;
}

/** The answer in short: library id, version read, capable, version to move to. */
const answer = (m: CryptoLibraryMatch | null) => m && [m.library.id, m.version, m.pqcCapable, m.upgradeTo];
const ofPurl = (purl: string, version?: string) => answer(cryptoLibraryOf({ purl, name: purl, version }));

describe('the table', () => {
  it('has unique ids, an https source, a one-sentence note and lower-case identities in every row', () => {
    const ids = CRYPTO_LIBRARIES.map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const library of CRYPTO_LIBRARIES) {
      expect(new URL(library.source).protocol, library.id).toBe('https:');
      expect(library.note, library.id).toMatch(/^[A-Z(].{20,}[.)]$/s);
      expect(library.pqcSince === null || /^\d+(\.\d+)*$/.test(library.pqcSince), library.id).toBe(true);
      expect(library.names.flags, library.id).toBe('');
      expect(library.names.source, library.id).toBe(library.names.source.toLowerCase());
      expect(library.packages.length, library.id).toBeGreaterThan(0);
      for (const p of library.packages) expect(p, library.id).toMatch(/^pkg:[a-z]+\/[a-z0-9@._*/+-]+$/);
    }
  });

  it('holds the reviewed first releases', () => {
    const since = Object.fromEntries(CRYPTO_LIBRARIES.map((l) => [l.id, l.pqcSince]));
    expect(since).toEqual({
      openssl: '3.5.0', boringssl: '0.20240913.0', 'aws-lc': '1.35.0', 'aws-lc-rs': '1.12.0', liboqs: '0.11.0', wolfssl: '5.7.4',
      gnutls: '3.8.8', nss: '3.105', libgcrypt: '1.11.1', botan: '3.6.0', 'bouncycastle-java': '1.79', 'bouncycastle-java-jdk15on': null,
      'bouncycastle-csharp': '2.5.0', 'bouncycastle-csharp-legacy': null, 'go-stdlib': '1.24', circl: '1.4.0', openjdk: '24', dotnet: '10.0.0',
      nodejs: '24.7.0', rustls: '0.23.22', 'pyca-cryptography': '48.0.0', libsodium: '1.0.22', mbedtls: null, 'node-forge': null,
      'crypto-js': null, pycryptodome: null,
    });
  });

  it('claims each listed package for its own library only', () => {
    for (const library of CRYPTO_LIBRARIES) {
      for (const p of library.packages) {
        const purl = `${p.replace(/\*/g, '1').replace('/@', '/%40')}@1.0`;
        expect({ purl, id: cryptoLibraryOf({ purl, name: 'x' })?.library.id }).toEqual({ purl, id: library.id });
      }
    }
  });
});

describe('the fixture SBOMs', () => {
  it('pop-os 22.04 (cdxgen: no vendor namespace, no upstream qualifier): every crypto library package, none capable', async () => {
    const found = new Map<string, string[]>();
    for (const c of await componentsOf('deb__pop-os-22.04-host.cdx-1.4.json')) {
      const m = cryptoLibraryOf(c);
      if (!m) continue;
      expect({ name: c.name, capable: m.pqcCapable, upgradeTo: m.upgradeTo }).toEqual({ name: c.name, capable: false, upgradeTo: m.library.pqcSince });
      found.set(m.library.id, [...(found.get(m.library.id) ?? []), c.name].sort());
    }
    expect(Object.fromEntries(found)).toEqual({
      openssl: ['libssl-dev', 'libssl1.1', 'libssl3', 'openssl'],
      gnutls: ['libgnutls-dane0', 'libgnutls-openssl27', 'libgnutls28-dev', 'libgnutls30', 'libgnutlsxx28'],
      nss: ['libnss3', 'libnss3-dev', 'libnss3-tools'],
      libgcrypt: ['libgcrypt20', 'libgcrypt20-dev'],
      libsodium: ['libsodium23'],
      nodejs: ['nodejs'],
      'pyca-cryptography': ['python3-cryptography'],
      pycryptodome: ['python3-pycryptodome'],
      dotnet: [
        'dotnet-apphost-pack-5.0', 'dotnet-apphost-pack-6.0', 'dotnet-host', 'dotnet-hostfxr-5.0', 'dotnet-hostfxr-6.0', 'dotnet-runtime-5.0',
        'dotnet-runtime-6.0', 'dotnet-runtime-deps-5.0', 'dotnet-sdk-5.0', 'dotnet-sdk-6.0', 'dotnet-targeting-pack-5.0', 'dotnet-targeting-pack-6.0',
      ],
    });
  });

  it('pop-os 22.04: packages that only use a crypto library, or share a name, are not one', async () => {
    const components = await componentsOf('deb__pop-os-22.04-host.cdx-1.4.json');
    const lookalikes = [
      'android-libboringssl', // Android's BoringSSL, numbered by Android release
      'libnss-systemd', 'libcurl3-gnutls', 'libcurl4-openssl-dev', 'libxmlsec1-openssl', 'libssh-gcrypt-4',
      'python3-openssl', 'perl-openssl-defaults', 'libio-socket-ssl-perl', 'ssl-cert', 'libcrypt1', 'libk5crypto3',
    ];
    for (const name of lookalikes) {
      const component = components.find((c) => c.name === name);
      expect(component?.purl, name).toMatch(/^pkg:deb\//);
      expect(cryptoLibraryOf(component!), name).toBeNull();
    }
  });

  it('Alpine 3.16 (syft 0.58, pkg:alpine with upstream=openssl): libcrypto1.1 and libssl1.1 are OpenSSL 1.1.1q', async () => {
    const found = (await componentsOf('apk__alpine-3.16-syft0.58.cdx-1.4.json')).map((c) => [c.name, answer(cryptoLibraryOf(c))]).filter(([, a]) => a);
    expect(found).toEqual([
      ['libcrypto1.1', ['openssl', '1.1.1q-r0', false, '3.5.0']],
      ['libssl1.1', ['openssl', '1.1.1q-r0', false, '3.5.0']],
    ]);
  });

  it('juice-shop: crypto-js is the one crypto library, and it has no post-quantum release', async () => {
    const found = (await componentsOf('npm__juice-shop-14.1.1.cdx-1.4.json')).map((c) => answer(cryptoLibraryOf(c))).filter(Boolean);
    expect(found).toEqual([['crypto-js', '3.3.0', false, null]]);
  });

  it('elastic harp: golang.org/x/crypto and its packages are not the Go standard library', async () => {
    const components = await componentsOf('golang__elastic-harp-v0.2.10.cdx-1.4.json');
    const xcrypto = components.filter((c) => c.purl?.startsWith('pkg:golang/golang.org/x/crypto'));
    expect(xcrypto.length).toBeGreaterThan(10);
    expect(components.map((c) => cryptoLibraryOf(c)).filter(Boolean)).toEqual([]);
  });

  it('Ubuntu 20.04 (syft, namespace and upstream qualifiers; deb-golang__mongo-image-syft)', () => {
    expect(ofPurl('pkg:deb/ubuntu/libssl1.1@1.1.1f-1ubuntu2.16?arch=amd64&upstream=openssl&distro=ubuntu-20.04')).toEqual(['openssl', '1.1.1f-1ubuntu2.16', false, '3.5.0']);
    expect(ofPurl('pkg:deb/ubuntu/openssl@1.1.1f-1ubuntu2.16?arch=amd64&distro=ubuntu-20.04')).toEqual(['openssl', '1.1.1f-1ubuntu2.16', false, '3.5.0']);
    expect(ofPurl('pkg:deb/ubuntu/libgnutls30@3.6.13-2ubuntu1.7?arch=amd64&upstream=gnutls28&distro=ubuntu-20.04')).toEqual(['gnutls', '3.6.13-2ubuntu1.7', false, '3.8.8']);
    expect(ofPurl('pkg:deb/ubuntu/libgcrypt20@1.8.5-5ubuntu1.1?arch=amd64&distro=ubuntu-20.04')).toEqual(['libgcrypt', '1.8.5-5ubuntu1.1', false, '1.11.1']);
    expect(ofPurl('pkg:golang/golang.org/x/crypto@v0.0.0-20220622213112-05595931fe9d')).toBeNull();
  });

  it('maven__vuln-spring-evinse: the jdk15on artifacts never get the algorithms', () => {
    expect(ofPurl('pkg:maven/org.bouncycastle/bcprov-jdk15on@1.65?type=jar')).toEqual(['bouncycastle-java-jdk15on', '1.65', false, null]);
    expect(ofPurl('pkg:maven/org.bouncycastle/bcpkix-jdk15on@1.65?type=jar')).toEqual(['bouncycastle-java-jdk15on', '1.65', false, null]);
    expect(cryptoLibraryOf({ purl: 'pkg:maven/org.bouncycastle/bcprov-jdk15on@1.70', name: 'bcprov-jdk15on' })?.library.note).toMatch(/bcprov-jdk18on.*1\.79/);
  });
});

describe('below and at the first post-quantum release, in each ecosystem order', () => {
  it.each([
    // Debian and Ubuntu: the Ubuntu revision, a pre-release tilde and an epoch are read as dpkg reads them.
    ['pkg:deb/ubuntu/libssl3@3.0.2-0ubuntu1.10?upstream=openssl&distro=ubuntu-22.04', ['openssl', '3.0.2-0ubuntu1.10', false, '3.5.0']],
    ['pkg:deb/debian/openssl@3.5.0~beta1-1', ['openssl', '3.5.0~beta1-1', false, '3.5.0']],
    ['pkg:deb/debian/libssl3t64@3.5.0-1?upstream=openssl', ['openssl', '3.5.0-1', true, null]],
    ['pkg:deb/libnss3@2:3.68.2-0ubuntu1.1#/var/lib/dpkg', ['nss', '2:3.68.2-0ubuntu1.1', false, '3.105']], // pop-os fixture
    ['pkg:deb/debian/libnss3@2:3.110-1', ['nss', '2:3.110-1', true, null]],
    ['pkg:deb/debian/openjdk-21-jre-headless@21.0.2+13-1', ['openjdk', '21.0.2+13-1', false, '24']],
    ['pkg:deb/debian/openjdk-25-jre-headless@25+36-1', ['openjdk', '25+36-1', true, null]],
    // Alpine (apk's own order) and Wolfi.
    ['pkg:apk/alpine/libcrypto3@3.3.3-r0?origin=openssl&distro=alpine-3.21.3', ['openssl', '3.3.3-r0', false, '3.5.0']],
    ['pkg:apk/alpine/libcrypto3@3.5.1-r0?origin=openssl&distro=alpine-3.22.0', ['openssl', '3.5.1-r0', true, null]],
    ['pkg:apk/wolfi/libssl3@3.5.0-r0?origin=openssl', ['openssl', '3.5.0-r0', true, null]],
    // rpm: the epoch travels as a qualifier; a Fedora package has no OSV ecosystem and is read as rpm.
    ['pkg:rpm/redhat/openssl-libs@3.2.2-6.el9_5?epoch=1&upstream=openssl-3.2.2-6.el9_5.src.rpm', ['openssl', '1:3.2.2-6.el9_5', false, '3.5.0']],
    ['pkg:rpm/redhat/openssl-libs@3.5.1-1.el10?epoch=1&upstream=openssl-3.5.1-1.el10.src.rpm', ['openssl', '1:3.5.1-1.el10', true, null]],
    ['pkg:rpm/fedora/openssl-libs@3.5.0-1.fc42', ['openssl', '3.5.0-1.fc42', true, null]],
    // Maven, NuGet, PyPI (a release candidate is below its release), crates.io.
    ['pkg:maven/org.bouncycastle/bcprov-jdk18on@1.78.1', ['bouncycastle-java', '1.78.1', false, '1.79']],
    ['pkg:maven/org.bouncycastle/bcpkix-jdk18on@1.79', ['bouncycastle-java', '1.79', true, null]],
    ['pkg:maven/org.bouncycastle/bcprov-jdk15to18@1.80', ['bouncycastle-java', '1.80', true, null]],
    ['pkg:nuget/BouncyCastle.Cryptography@2.4.0', ['bouncycastle-csharp', '2.4.0', false, '2.5.0']],
    ['pkg:nuget/BouncyCastle.Cryptography@2.5.1', ['bouncycastle-csharp', '2.5.1', true, null]],
    ['pkg:nuget/Portable.BouncyCastle@1.9.0', ['bouncycastle-csharp-legacy', '1.9.0', false, null]],
    ['pkg:pypi/cryptography@47.0.0', ['pyca-cryptography', '47.0.0', false, '48.0.0']],
    ['pkg:pypi/cryptography@48.0.0rc1', ['pyca-cryptography', '48.0.0rc1', false, '48.0.0']],
    ['pkg:pypi/cryptography@48.0.1', ['pyca-cryptography', '48.0.1', true, null]],
    ['pkg:cargo/rustls@0.23.21', ['rustls', '0.23.21', false, '0.23.22']],
    ['pkg:cargo/aws-lc-rs@1.12.0', ['aws-lc-rs', '1.12.0', true, null]],
    // Go: the standard library under the toolchain's `go1.22.3`, trivy's `v1.24.1` or a plain version; a module covers its packages.
    ['pkg:golang/stdlib@go1.22.3', ['go-stdlib', '1.22.3', false, '1.24']],
    ['pkg:golang/stdlib@v1.24.1', ['go-stdlib', '1.24.1', true, null]],
    ['pkg:golang/stdlib@1.24.0', ['go-stdlib', '1.24.0', true, null]],
    ['pkg:golang/github.com/cloudflare/circl@v1.3.7', ['circl', '1.3.7', false, '1.4.0']],
    ['pkg:golang/github.com/cloudflare/circl/kem/mlkem@v1.4.0?type=package', ['circl', '1.4.0', true, null]],
    // Generic and GitHub package URLs: SemVer read leniently, release tags included.
    ['pkg:generic/openssl@3.4.1', ['openssl', '3.4.1', false, '3.5.0']],
    ['pkg:generic/openssl@3.5', ['openssl', '3.5', true, null]],
    ['pkg:github/openssl/openssl@openssl-3.5.0', ['openssl', '3.5.0', true, null]],
    ['pkg:generic/wolfssl@v5.7.2-stable', ['wolfssl', '5.7.2', false, '5.7.4']],
    ['pkg:generic/wolfssl@v5.7.4-stable', ['wolfssl', '5.7.4', true, null]],
    ['pkg:github/jedisct1/libsodium@1.0.22-RELEASE', ['libsodium', '1.0.22', true, null]],
  ])('%s', (purl, expected) => {
    expect(ofPurl(purl)).toEqual(expected);
  });

  it('takes the component version when the package URL has none', () => {
    expect(ofPurl('pkg:golang/stdlib', 'go1.23.4')).toEqual(['go-stdlib', '1.23.4', false, '1.24']);
    expect(ofPurl('pkg:pypi/cryptography', '48.0.0')).toEqual(['pyca-cryptography', '48.0.0', true, null]);
  });

  it('answers null when the version is unknown, and no for a library without a post-quantum release whatever the version', () => {
    expect(ofPurl('pkg:generic/openssl')).toEqual(['openssl', null, null, null]);
    expect(ofPurl('pkg:golang/stdlib@(devel)')).toEqual(['go-stdlib', null, null, null]);
    expect(answer(cryptoLibraryOf({ name: 'OpenSSL' }))).toEqual(['openssl', null, null, null]);
    for (const purl of ['pkg:npm/crypto-js', 'pkg:npm/node-forge@1.3.1', 'pkg:pypi/pycryptodome@3.20.0', 'pkg:generic/mbedtls@3.6.0', 'pkg:maven/org.bouncycastle/bcprov-jdk15on@1.70']) {
      const [, , capable, upgradeTo] = ofPurl(purl)!;
      expect({ purl, capable, upgradeTo }).toEqual({ purl, capable: false, upgradeTo: null });
    }
  });

  it('reads a component without a package URL by its name and version', () => {
    expect(answer(cryptoLibraryOf({ name: 'openssl', version: '3.0.2' }))).toEqual(['openssl', '3.0.2', false, '3.5.0']);
    expect(answer(cryptoLibraryOf({ name: 'bcprov-jdk18on', version: '1.80' }))).toEqual(['bouncycastle-java', '1.80', true, null]);
    expect(answer(cryptoLibraryOf({ name: 'bcprov-jdk15on', version: '1.70' }))).toEqual(['bouncycastle-java-jdk15on', '1.70', false, null]);
    // A number glued to a package name is part of the name, not its version.
    expect(answer(cryptoLibraryOf({ name: 'libssl3' }))).toEqual(['openssl', null, null, null]);
    // An unparsable package URL leaves the name.
    expect(answer(cryptoLibraryOf({ purl: 'not a purl', name: 'OpenSSL', version: '3.5.0' }))).toEqual(['openssl', '3.5.0', true, null]);
  });
});

describe('lookalikes', () => {
  it.each([
    'pkg:npm/openssl-wrapper@0.3.4', // a wrapper named after the library
    'pkg:deb/ubuntu/openssl-doc@3.0.2-0ubuntu1.10', // made up: a documentation package by its name
    'pkg:apk/alpine/openssl-doc@3.5.1-r0?origin=openssl', // made up: built from OpenSSL's source, but no library
    'pkg:deb/debian/libssl3-dbgsym@3.0.15-1?upstream=openssl', // made up: debug symbols
    'pkg:maven/org.bouncycastle/bc-fips@2.1.0', // BC-FJA, a separate product with its own versions
    'pkg:golang/golang.org/x/crypto/ssh@v0.0.0-20211215153901-e495a2d5b3d3?type=package', // golang__elastic-harp
    'pkg:golang/github.com/hashicorp/go-secure-stdlib/strutil@v0.1.1?type=module', // golang__elastic-harp
    'pkg:npm/crypto-browserify@3.12.0', // npm__redis-commander
    'pkg:pypi/pyopenssl@24.0.0',
  ])('%s is no known crypto library', (purl) => {
    expect(ofPurl(purl)).toBeNull();
  });

  it('the package URL decides when there is one: the name does not', () => {
    expect(cryptoLibraryOf({ purl: 'pkg:npm/openssl-wrapper@0.3.4', name: 'openssl', version: '3.5.0' })).toBeNull();
  });
});

describe('runtime library names', () => {
  it.each([
    ['OpenSSL 3.0.2 15 Mar 2022', ['openssl', '3.0.2', false, '3.5.0']],
    ['OpenSSL 3.5.1 1 Jul 2025', ['openssl', '3.5.1', true, null]],
    ['curl/8.5.0 OpenSSL/3.0.13 zlib/1.3', ['openssl', '3.0.13', false, '3.5.0']],
    ['BoringSSL', ['boringssl', null, null, null]],
    ['Go crypto/tls', ['go-stdlib', null, null, null]],
    ['go1.22.3', ['go-stdlib', '1.22.3', false, '1.24']],
    ['go version go1.24.2 linux/amd64', ['go-stdlib', '1.24.2', true, null]],
    ['BouncyCastle 1.78', ['bouncycastle-java', '1.78', false, '1.79']],
    ['BC', ['bouncycastle-java', null, null, null]],
    ['BCPQC', ['bouncycastle-java', null, null, null]],
    ['Bouncy Castle C# 2.5.0', ['bouncycastle-csharp', '2.5.0', true, null]],
    ['SunJCE', ['openjdk', null, null, null]],
    ['SunJCE version 24', ['openjdk', '24', true, null]],
    ['Java 21.0.2', ['openjdk', '21.0.2', false, '24']],
    ['.NET 8.0.1', ['dotnet', '8.0.1', false, '10.0.0']],
    ['.NET 10.0.0', ['dotnet', '10.0.0', true, null]],
    ['Node.js v22.1.0', ['nodejs', '22.1.0', false, '24.7.0']],
    ['wolfSSL 5.7.2', ['wolfssl', '5.7.2', false, '5.7.4']],
    ['aws-lc-rs 1.11.0', ['aws-lc-rs', '1.11.0', false, '1.12.0']],
    ['AWS-LC 1.35.0', ['aws-lc', '1.35.0', true, null]],
    ['libsodium 1.0.18', ['libsodium', '1.0.18', false, '1.0.22']],
    ['NSS 3.101', ['nss', '3.101', false, '3.105']],
    ['mbedTLS 3.6.0', ['mbedtls', '3.6.0', false, null]],
  ])('%s', (text, expected) => {
    expect(answer(cryptoLibraryByName(text))).toEqual(expected);
  });

  it.each(['BCFIPS', 'LibreSSL 3.8.2', 'pyOpenSSL 24.0.0', 'node-openssl', 'Windows CNG', ''])('%j names no known crypto library', (text) => {
    expect(cryptoLibraryByName(text)).toBeNull();
  });
});
