// Cryptographic libraries and the first release of each with standard post-quantum algorithms (FIPS 203
// ML-KEM, FIPS 204 ML-DSA), for the agility axis: whether a library an application uses can do post-quantum
// cryptography at the installed version, and which version to move to. Each row cites the release notes
// that say so; where a project has no release with them, pqcSince is null and the note says what to use.
//
// Matching a package URL (packages below, lower case, `*` standing for any run of characters in a name):
// - OS packages (deb, apk and syft's old `alpine`, rpm) are written without their vendor namespace, because
//   Debian, Ubuntu and their derivatives (and Alpine and Wolfi, and the rpm distributions) name packages alike
//   and SBOMs differ in whether they write one (`pkg:deb/libssl3@…` in cdxgen's, `pkg:deb/ubuntu/…` in
//   syft's). A package is the library when its binary name or its source package (the `upstream` / `origin`
//   qualifier) is listed: `pkg:deb/ubuntu/libssl1.1?upstream=openssl` is OpenSSL. Documentation and debug
//   symbol packages (`-doc`, `-dbg`, …) are no library, even when built from the library's source.
// - Other types are matched on type, namespace and name; a Go module covers its packages
//   (`pkg:golang/github.com/cloudflare/circl/kem/mlkem` is CIRCL).
// Versions are ordered by the ecosystem's own rules (src/analysis/vulns/versions), so that a distribution's
// `3.0.2-0ubuntu1.10` or `3.5.1-r0` compares with the upstream release; generic package URLs and names
// are read as SemVer leniently.
import { PackageURL } from 'packageurl-js';
import { packageOf } from '../analysis/vulns/ecosystem';
import { compareVersions, isOrderedEcosystem } from '../analysis/vulns/versions/index';

export interface CryptoLibrary {
  /** Stable id, e.g. 'openssl', 'bouncycastle-java', 'go-stdlib'. */
  id: string;
  /** Display name, e.g. 'OpenSSL'. */
  name: string;
  /**
   * Package identities that are this library, as package-URL prefixes without version, lower-case,
   * e.g. 'pkg:generic/openssl', 'pkg:deb/openssl', 'pkg:maven/org.bouncycastle/bc*-jdk18on'.
   * OS packages are written without the vendor namespace (see the rule at the top of this file).
   */
  packages: string[];
  /** Lower-case names/prefixes seen without a package URL (component names, runtime `library` strings such as "OpenSSL 3.0.2", "BoringSSL", "SunJCE", "BC"). */
  names: RegExp;
  /** The first release with standard post-quantum support (ML-KEM and/or ML-DSA by their FIPS names), or null when no release has it yet. */
  pqcSince: string | null;
  /** One sentence: what that release added (or, when null, what to move to instead). */
  note: string;
  /** The citation: the release notes / changelog URL that says so. */
  source: string;
}

export const CRYPTO_LIBRARIES: readonly CryptoLibrary[] = [
  {
    id: 'openssl',
    name: 'OpenSSL',
    packages: [
      'pkg:generic/openssl', 'pkg:github/openssl/openssl', 'pkg:conan/openssl',
      'pkg:deb/openssl', 'pkg:deb/libssl3', 'pkg:deb/libssl3t64', 'pkg:deb/libssl1.1', 'pkg:deb/libssl1.0.0', 'pkg:deb/libssl1.0.2', 'pkg:deb/libssl-dev',
      'pkg:apk/openssl', 'pkg:apk/libssl3', 'pkg:apk/libcrypto3', 'pkg:apk/libssl1.1', 'pkg:apk/libcrypto1.1',
      'pkg:rpm/openssl', 'pkg:rpm/openssl-libs', 'pkg:rpm/libopenssl3', 'pkg:rpm/libopenssl1_1',
    ],
    names: /openssl|libssl|libcrypto/,
    pqcSince: '3.5.0',
    note: 'ML-KEM, ML-DSA and SLH-DSA in the default and FIPS providers, with the X25519MLKEM768 hybrid among the default TLS 1.3 key shares.',
    source: 'https://github.com/openssl/openssl/blob/openssl-3.5/CHANGES.md',
  },
  {
    id: 'boringssl',
    name: 'BoringSSL',
    // Debian's android-libboringssl is numbered by Android release, which says nothing about BoringSSL's: not listed.
    packages: ['pkg:generic/boringssl', 'pkg:github/google/boringssl'],
    names: /boringssl/,
    pqcSince: '0.20240913.0',
    note: 'BoringSSL writes no release notes; ML-KEM-768 (include/openssl/mlkem.h) and ML-DSA-65 (mldsa.h) are in its first tagged release.',
    source: 'https://github.com/google/boringssl/blob/0.20240913.0/include/openssl/mlkem.h',
  },
  {
    id: 'aws-lc',
    name: 'AWS-LC',
    packages: ['pkg:generic/aws-lc', 'pkg:github/aws/aws-lc'],
    names: /aws-?lc/,
    pqcSince: '1.35.0',
    note: 'Its ML-KEM moves from the FIPS 203 draft to the final standard (ML-DSA came in later releases).',
    source: 'https://github.com/aws/aws-lc/releases/tag/v1.35.0',
  },
  {
    id: 'aws-lc-rs',
    name: 'aws-lc-rs',
    packages: ['pkg:cargo/aws-lc-rs'],
    names: /aws-lc-rs/,
    pqcSince: '1.12.0',
    note: 'ML-KEM-512, ML-KEM-768 and ML-KEM-1024 become stable in the kem module (ML-DSA was stabilised later).',
    source: 'https://github.com/aws/aws-lc-rs/pull/628',
  },
  {
    id: 'liboqs',
    name: 'liboqs (Open Quantum Safe)',
    // @oqs/liboqs-js is the project's own WebAssembly build, numbered like liboqs.
    packages: [
      'pkg:generic/liboqs', 'pkg:github/open-quantum-safe/liboqs', 'pkg:npm/@oqs/liboqs-js',
      'pkg:deb/liboqs', 'pkg:deb/liboqs*', 'pkg:apk/liboqs', 'pkg:rpm/liboqs',
    ],
    names: /liboqs|open quantum safe/,
    pqcSince: '0.11.0',
    note: 'ML-KEM-512, ML-KEM-768 and ML-KEM-1024 updated to final FIPS 203 (ML-DSA to final FIPS 204 in 0.12.0).',
    source: 'https://github.com/open-quantum-safe/liboqs/releases/tag/0.11.0',
  },
  {
    id: 'wolfssl',
    name: 'wolfSSL',
    packages: ['pkg:generic/wolfssl', 'pkg:github/wolfssl/wolfssl', 'pkg:conan/wolfssl', 'pkg:deb/wolfssl', 'pkg:deb/libwolfssl*', 'pkg:apk/wolfssl', 'pkg:rpm/wolfssl'],
    names: /wolfssl|wolfcrypt/,
    pqcSince: '5.7.4',
    note: 'Kyber and Dilithium updated to final FIPS 203 ML-KEM and FIPS 204 ML-DSA (PR 7877), when enabled at build time.',
    source: 'https://github.com/wolfSSL/wolfssl/blob/master/ChangeLog.md',
  },
  {
    id: 'gnutls',
    name: 'GnuTLS',
    packages: ['pkg:generic/gnutls', 'pkg:deb/gnutls28', 'pkg:deb/libgnutls*', 'pkg:deb/gnutls-bin', 'pkg:apk/gnutls', 'pkg:rpm/gnutls', 'pkg:rpm/libgnutls30'],
    names: /(?:lib)?gnutls/,
    pqcSince: '3.8.8',
    note: 'Experimental X25519MLKEM768 and SecP256r1MLKEM768 TLS 1.3 key exchange on final ML-KEM, only when built with liboqs (ML-DSA followed in 3.8.9, also through leancrypto).',
    source: 'https://github.com/gnutls/gnutls/blob/master/NEWS',
  },
  {
    id: 'nss',
    name: 'NSS (Network Security Services)',
    packages: [
      'pkg:generic/nss', 'pkg:deb/nss', 'pkg:deb/libnss3*', 'pkg:apk/nss',
      'pkg:rpm/nss', 'pkg:rpm/nss-util', 'pkg:rpm/nss-softokn', 'pkg:rpm/mozilla-nss',
    ],
    names: /nss|libnss3|network security services/,
    pqcSince: '3.105',
    note: 'ML-KEM-768 for TLS 1.3 key exchange (mlkem768x25519, from libcrux), with ML-DSA keys from 3.116, as the PQCA readiness tracker reads these release notes.',
    source: 'https://firefox-source-docs.mozilla.org/security/nss/releases/nss_3_105.html',
  },
  {
    id: 'libgcrypt',
    name: 'Libgcrypt',
    packages: ['pkg:generic/libgcrypt', 'pkg:deb/libgcrypt20', 'pkg:deb/libgcrypt20-dev', 'pkg:apk/libgcrypt', 'pkg:rpm/libgcrypt', 'pkg:rpm/libgcrypt20'],
    names: /libgcrypt/,
    pqcSince: '1.11.1',
    note: 'Its ML-KEM (GCRY_KEM_MLKEM512/768/1024, from the FIPS 203 draft in 1.11.0) follows final FIPS 203; ML-DSA came in 1.12.0.',
    source: 'https://github.com/gpg/libgcrypt/blob/libgcrypt-1.11.1/NEWS',
  },
  {
    id: 'botan',
    name: 'Botan',
    packages: ['pkg:generic/botan', 'pkg:github/randombit/botan', 'pkg:conan/botan', 'pkg:deb/botan', 'pkg:deb/libbotan-*', 'pkg:apk/botan*', 'pkg:rpm/botan*'],
    names: /botan/,
    pqcSince: '3.6.0',
    note: 'FIPS 203 ML-KEM, FIPS 204 ML-DSA and FIPS 205 SLH-DSA.',
    source: 'https://github.com/randombit/botan/blob/master/news.rst',
  },
  {
    id: 'bouncycastle-java',
    name: 'BouncyCastle Java',
    packages: [
      'pkg:maven/org.bouncycastle/bc*-jdk18on', 'pkg:maven/org.bouncycastle/bc*-jdk15to18',
      'pkg:deb/bouncycastle', 'pkg:deb/libbc*-java', 'pkg:rpm/bouncycastle',
    ],
    // "BC" and "BCPQC" are the names of its JCA providers.
    names: /bouncy ?castle(?: java)?|bc|bcpqc|bc(?:prov|pkix|util|tls|pg|mail)(?:-ext)?(?:-jdk18on|-jdk15to18)?/,
    pqcSince: '1.79',
    note: 'ML-KEM, ML-DSA and SLH-DSA (with their pre-hash variants) in the BC provider and the lightweight API.',
    source: 'https://github.com/bcgit/bc-java/blob/main/docs/releasenotes.html#r1rv79',
  },
  {
    id: 'bouncycastle-java-jdk15on',
    name: 'BouncyCastle Java (jdk15on and older artifacts)',
    packages: [
      'pkg:maven/org.bouncycastle/bc*-jdk15on', 'pkg:maven/org.bouncycastle/bc*-jdk15',
      'pkg:maven/org.bouncycastle/bc*-jdk14', 'pkg:maven/org.bouncycastle/bc*-jdk16',
    ],
    names: /bc(?:prov|pkix|util|tls|pg|mail)(?:-ext)?-jdk1[456](?:on)?/,
    pqcSince: null,
    note: 'These artifacts stopped at 1.70, before the standards; move to bcprov-jdk18on (or bcprov-jdk15to18) 1.79 or later.',
    source: 'https://github.com/bcgit/bc-java/blob/main/docs/releasenotes.html#r1rv79',
  },
  {
    id: 'bouncycastle-csharp',
    name: 'BouncyCastle C# (.NET)',
    packages: ['pkg:nuget/bouncycastle.cryptography'],
    names: /bouncy ?castle(?:\.net| c#| for \.net)|bouncycastle\.cryptography|bc-csharp/,
    pqcSince: '2.5.0',
    note: 'ML-KEM, ML-DSA and SLH-DSA (with their pre-hash variants).',
    source: 'https://github.com/bcgit/bc-csharp/blob/master/crypto/Readme.html',
  },
  {
    id: 'bouncycastle-csharp-legacy',
    name: 'BouncyCastle C# 1.x (legacy NuGet packages)',
    packages: ['pkg:nuget/bouncycastle', 'pkg:nuget/portable.bouncycastle', 'pkg:nuget/bouncycastle.netcore'],
    names: /portable\.bouncycastle|bouncycastle\.netcore/,
    pqcSince: null,
    note: 'These 1.8 and 1.9 packages were superseded by BouncyCastle.Cryptography from 2.0.0; move to BouncyCastle.Cryptography 2.5.0 or later.',
    source: 'https://github.com/bcgit/bc-csharp/blob/master/crypto/Readme.html',
  },
  {
    id: 'go-stdlib',
    name: 'Go standard library',
    // golang.org/x/crypto is another module, not the standard library. Debian's golang-go metapackage is
    // numbered `2:1.24~2` (below 1.24 in Debian's order): the golang-1.24 packages it pulls in are matched instead.
    packages: ['pkg:golang/stdlib', 'pkg:generic/go', 'pkg:deb/golang-1.*', 'pkg:apk/go', 'pkg:rpm/golang'],
    names: /go(?:lang)?(?: crypto(?:\/tls)?| standard library| stdlib)?|crypto\/(?:tls|mlkem|ecdh|x509)/,
    pqcSince: '1.24',
    note: 'The crypto/mlkem package (ML-KEM-768 and ML-KEM-1024), and X25519MLKEM768 by default in crypto/tls.',
    source: 'https://go.dev/doc/go1.24',
  },
  {
    id: 'circl',
    name: 'Cloudflare CIRCL',
    packages: ['pkg:golang/github.com/cloudflare/circl'],
    names: /(?:cloudflare )?circl/,
    pqcSince: '1.4.0',
    note: 'The kem/mlkem package (FIPS 203); sign/mldsa (FIPS 204) followed in 1.5.0.',
    source: 'https://github.com/cloudflare/circl/releases/tag/v1.4.0',
  },
  {
    id: 'openjdk',
    name: 'Java (OpenJDK)',
    packages: [
      'pkg:generic/openjdk', 'pkg:generic/oracle/openjdk', 'pkg:generic/java',
      'pkg:deb/openjdk-*', 'pkg:apk/openjdk*', 'pkg:rpm/java-*-openjdk*',
    ],
    // SunJCE, SunEC, SunJSSE, SunPKCS11 and SUN are the JDK's own JCA providers.
    names: /openjdk|java(?: se| runtime)?|jdk|jre|sun(?:jce|ec|jsse|pkcs11|rsasign)?/,
    pqcSince: '24',
    note: 'JEP 496 adds ML-KEM and JEP 497 ML-DSA to the JDK providers (KEM, KeyPairGenerator, Signature).',
    source: 'https://openjdk.org/jeps/496',
  },
  {
    id: 'dotnet',
    name: '.NET',
    // Microsoft.Bcl.Cryptography carries the same types to older target frameworks, numbered like .NET.
    packages: [
      'pkg:nuget/microsoft.netcore.app', 'pkg:nuget/microsoft.netcore.app.ref', 'pkg:nuget/microsoft.netcore.app.runtime.*', 'pkg:nuget/microsoft.bcl.cryptography',
      'pkg:generic/dotnet', 'pkg:deb/dotnet*', 'pkg:apk/dotnet*', 'pkg:rpm/dotnet*',
    ],
    names: /\.net(?: core| runtime)?|dotnet|system\.security\.cryptography/,
    pqcSince: '10.0.0',
    note: 'System.Security.Cryptography.MLKem, MLDsa and SlhDsa, where the platform provides them (OpenSSL 3.5+ on Linux, recent Windows).',
    source: 'https://devblogs.microsoft.com/dotnet/post-quantum-cryptography-in-dotnet/',
  },
  {
    id: 'nodejs',
    name: 'Node.js',
    packages: ['pkg:generic/node', 'pkg:generic/nodejs', 'pkg:deb/nodejs', 'pkg:deb/libnode*', 'pkg:apk/nodejs', 'pkg:rpm/nodejs'],
    names: /node(?:\.?js)?/,
    pqcSince: '24.7.0',
    note: 'ML-KEM (crypto.encapsulate / decapsulate) and ML-DSA in node:crypto and Web Crypto, on its bundled OpenSSL 3.5.',
    source: 'https://github.com/nodejs/node/releases/tag/v24.7.0',
  },
  {
    id: 'rustls',
    name: 'rustls',
    packages: ['pkg:cargo/rustls'],
    names: /rustls/,
    pqcSince: '0.23.22',
    note: 'The X25519MLKEM768 hybrid key exchange moves into the core crate, with the aws-lc-rs provider (not with ring).',
    source: 'https://github.com/rustls/rustls/releases/tag/v%2F0.23.22',
  },
  {
    id: 'pyca-cryptography',
    name: 'pyca/cryptography',
    packages: [
      'pkg:pypi/cryptography', 'pkg:deb/python-cryptography', 'pkg:deb/python3-cryptography',
      'pkg:apk/py3-cryptography', 'pkg:rpm/python-cryptography', 'pkg:rpm/python3-cryptography',
    ],
    names: /pyca[/ ]cryptography|python3?-cryptography|^cryptography/,
    pqcSince: '48.0.0',
    note: 'ML-KEM and ML-DSA with OpenSSL 3.5+, so in the PyPI wheels (47.0.0 had them only when built against AWS-LC or BoringSSL).',
    source: 'https://cryptography.io/en/latest/changelog/#v48-0-0',
  },
  {
    id: 'libsodium',
    name: 'libsodium',
    packages: [
      'pkg:generic/libsodium', 'pkg:github/jedisct1/libsodium', 'pkg:nuget/libsodium', 'pkg:conan/libsodium',
      'pkg:deb/libsodium', 'pkg:deb/libsodium23', 'pkg:deb/libsodium-dev', 'pkg:apk/libsodium', 'pkg:rpm/libsodium',
    ],
    names: /(?:lib)?sodium/,
    pqcSince: '1.0.22',
    note: 'ML-KEM768 (crypto_kem_mlkem768_*) and the X-Wing hybrid behind crypto_kem_*, for key encapsulation only.',
    source: 'https://github.com/jedisct1/libsodium/releases/tag/1.0.22-RELEASE',
  },
  {
    id: 'mbedtls',
    name: 'Mbed TLS',
    packages: [
      'pkg:generic/mbedtls', 'pkg:github/mbed-tls/mbedtls', 'pkg:github/armmbed/mbedtls', 'pkg:conan/mbedtls',
      'pkg:deb/mbedtls', 'pkg:deb/libmbedtls*', 'pkg:deb/libmbedcrypto*', 'pkg:apk/mbedtls', 'pkg:rpm/mbedtls',
    ],
    names: /mbed ?tls|libmbed(?:tls|crypto)|tf-psa-crypto/,
    pqcSince: null,
    note: 'No release through Mbed TLS 4.1 has ML-KEM or ML-DSA (ML-DSA is being added to TF-PSA-Crypto); for post-quantum algorithms use wolfSSL 5.7.4+ or OpenSSL 3.5+.',
    source: 'https://github.com/Mbed-TLS/mbedtls/blob/development/ChangeLog',
  },
  {
    id: 'node-forge',
    name: 'node-forge',
    packages: ['pkg:npm/node-forge'],
    names: /node-forge/,
    pqcSince: null,
    note: 'No ML-KEM or ML-DSA in any release; use node:crypto, which has both from Node.js 24.7.0.',
    source: 'https://github.com/digitalbazaar/forge/blob/main/CHANGELOG.md',
  },
  {
    id: 'crypto-js',
    name: 'crypto-js',
    packages: ['pkg:npm/crypto-js'],
    names: /crypto-?js/,
    pqcSince: null,
    note: 'Discontinued without post-quantum algorithms; move to Web Crypto or node:crypto (ML-KEM and ML-DSA from Node.js 24.7.0).',
    source: 'https://github.com/brix/crypto-js/blob/develop/README.md',
  },
  {
    id: 'pycryptodome',
    name: 'PyCryptodome',
    packages: ['pkg:pypi/pycryptodome', 'pkg:pypi/pycryptodomex', 'pkg:deb/pycryptodome', 'pkg:deb/python3-pycryptodome', 'pkg:apk/py3-pycryptodome', 'pkg:rpm/python3-pycryptodomex'],
    names: /pycryptodomex?/,
    pqcSince: null,
    note: 'No ML-KEM or ML-DSA in its changelog; move to pyca/cryptography 48.0.0 or later.',
    source: 'https://github.com/Legrandin/pycryptodome/blob/master/Changelog.rst',
  },
];

export interface CryptoLibraryMatch {
  library: CryptoLibrary;
  /** The installed version, when known. */
  version: string | null;
  /** true when the installed version is at or above pqcSince; false when below or when the library has no such release; null when the version is unknown. */
  pqcCapable: boolean | null;
  /** The version to upgrade to (pqcSince) when the installed one is below it; null otherwise. */
  upgradeTo: string | null;
}

/** Versions without an ecosystem (generic package URLs, names) are SemVer read leniently, as npm's are ordered. */
const LOOSE = 'npm';

// OS package types, with the ordering of their family for distributions the vulnerability ecosystems do not name.
const OS_TYPES: Record<string, { type: string; ecosystem: string }> = {
  deb: { type: 'deb', ecosystem: 'Debian' },
  apk: { type: 'apk', ecosystem: 'Alpine' },
  alpine: { type: 'apk', ecosystem: 'Alpine' },
  rpm: { type: 'rpm', ecosystem: 'Red Hat' },
};
const NOT_A_LIBRARY = /-(?:docs?|dbg|dbgsym|debuginfo|debugsource)$/;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function packagePattern(packages: string[]): RegExp {
  const alternatives = packages.map((p) => {
    const body = p.split('*').map(escape).join('[^/]*');
    return p.startsWith('pkg:golang/') ? `${body}(?:/.+)?` : body;
  });
  return new RegExp(`^(?:${alternatives.join('|')})$`);
}

// A name counts only as a word of its own: not inside another (pyOpenSSL, node-openssl, openssl-wrapper,
// x/crypto), but followed by a version ("OpenSSL 3.0.2", "OpenSSL/3.0.13", "go1.22", "libssl3") or nothing.
const BEFORE = String.raw`(?:^|[\s(,;:"'])`;
const AFTER = String.raw`(?=$|[\s/@:(),;"']|[-_ ]?v?\d)`;

const MATCHERS = CRYPTO_LIBRARIES.map((library) => ({
  library,
  packages: packagePattern(library.packages),
  names: new RegExp(`${BEFORE}(${library.names.source})${AFTER}`),
}));

/**
 * A version as the comparators read it: null when it has no digit ("(devel)", "latest"), and a Go
 * toolchain's `go1.22.3` as `1.22.3`. Read loosely (no ecosystem), it starts at its first digit, without an
 * epoch or a release-tag suffix (`openssl-3.5.0`, `v5.7.4-stable`, `1.0.22-RELEASE`).
 */
function readVersion(version: string | null | undefined, ecosystem: string | null): string | null {
  const v = version?.trim().replace(/^go(?=\d)/, '');
  if (!v || !/\d/.test(v)) return null;
  if (ecosystem !== null) return v;
  const plain = v.replace(/^\d+:/, '');
  return plain.slice(plain.search(/\d/)).replace(/-(?:stable|release|final)$/i, '');
}

function matchOf(library: CryptoLibrary, version: string | null, ecosystem: string | null): CryptoLibraryMatch {
  // No release has the algorithms: whatever the version, the answer is no.
  if (library.pqcSince === null) return { library, version, pqcCapable: false, upgradeTo: null };
  if (version === null) return { library, version, pqcCapable: null, upgradeTo: null };
  // A distribution's epoch (Debian's `2:3.68.2-…`, rpm's) outranks the upstream version: compare within it.
  const epoch = /^\d+:/.exec(version)?.[0] ?? '';
  const capable = compareVersions(ecosystem ?? LOOSE, version, epoch + library.pqcSince) >= 0;
  return { library, version, pqcCapable: capable, upgradeTo: capable ? null : library.pqcSince };
}

/**
 * The library a free text names, with the version written after the name (a number glued to a name is
 * part of it, as in libssl3, except after Go's "go1.22"); the longest name wins ("Bouncy Castle C#" over
 * "Bouncy Castle").
 */
function named(text: string): { library: CryptoLibrary; version: string | null } | null {
  const lower = text.toLowerCase();
  let best: { library: CryptoLibrary; name: string; end: number } | null = null;
  for (const { library, names } of MATCHERS) {
    const m = names.exec(lower);
    if (m && (!best || m[1]!.length > best.name.length)) best = { library, name: m[1]!, end: m.index + m[0].length };
  }
  if (!best) return null;
  const rest = lower.slice(best.end);
  const glued = /^\d/.test(rest) && !best.name.endsWith('go');
  const version = glued ? null : /^[\s/@:(,;"'_-]*(?:version\s+)?(?:v|go)?(\d+(?:\.\d+)*)/.exec(rest)?.[1] ?? null;
  return { library: best.library, version };
}

function byPurl(purl: PackageURL, purlText: string, fallbackVersion: string | null | undefined): CryptoLibraryMatch | null {
  const os = OS_TYPES[purl.type];
  if (os && NOT_A_LIBRARY.test(purl.name)) return null;
  const pkg = packageOf(purlText);
  // OS packages: the binary name and the source package (packageOf's name), without the vendor.
  const keys = os
    ? [purl.name, pkg?.name].filter((n): n is string => !!n).map((n) => `pkg:${os.type}/${n.toLowerCase()}`)
    : [`pkg:${purl.type}/${purl.namespace ? `${purl.namespace}/` : ''}${purl.name}`.toLowerCase()];
  const found = MATCHERS.find((m) => keys.some((k) => m.packages.test(k)));
  if (!found) return null;
  const ecosystem = (pkg && isOrderedEcosystem(pkg.ecosystem) ? pkg.ecosystem : null) ?? os?.ecosystem ?? null;
  return matchOf(found.library, readVersion(pkg?.version ?? purl.version ?? fallbackVersion, ecosystem), ecosystem);
}

function parsePurl(text: string | null | undefined): PackageURL | null {
  if (!text?.trim()) return null;
  try {
    return PackageURL.fromString(text.trim());
  } catch {
    return null;
  }
}

/** A component (its package URL when it has one, else its name and version) that is a known crypto library, or null. */
export function cryptoLibraryOf(component: { purl?: string | null; name: string; version?: string | null }): CryptoLibraryMatch | null {
  const purl = parsePurl(component.purl);
  if (purl) return byPurl(purl, component.purl!, component.version);
  const hit = named(component.name);
  return hit && matchOf(hit.library, readVersion(component.version ?? hit.version, null), null);
}

/** A free-text library name as runtime observations carry it ("OpenSSL 3.0.2", "Go crypto/tls", "BouncyCastle 1.78"), or null. */
export function cryptoLibraryByName(text: string): CryptoLibraryMatch | null {
  const hit = named(text);
  return hit && matchOf(hit.library, hit.version, null);
}
