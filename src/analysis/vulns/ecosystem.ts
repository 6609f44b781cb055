// From a package URL to the package as OSV names it: the ecosystem (with the distribution's release
// for OS packages, spelled as OSV spells it) and the package name in it. OS packages are matched by
// their source package (the `upstream` / `origin` qualifier), which is what distribution advisories name.
import { PackageURL } from 'packageurl-js';
import type { PackageKey } from './osv-types';

const LANGUAGE = new Map([
  ['npm', 'npm'], ['golang', 'Go'], ['maven', 'Maven'], ['pypi', 'PyPI'], ['nuget', 'NuGet'], ['gem', 'RubyGems'], ['cargo', 'crates.io'],
  ['composer', 'Packagist'], ['hex', 'Hex'], ['pub', 'Pub'], ['cran', 'CRAN'], ['hackage', 'Hackage'], ['swift', 'SwiftURL'],
]);

// Release codenames seen in `distro` qualifiers (syft writes `bookworm` or `debian-12`; cdxgen `ubuntu-22.04`).
const DEBIAN_CODENAMES = new Map([['wheezy', '7'], ['jessie', '8'], ['stretch', '9'], ['buster', '10'], ['bullseye', '11'], ['bookworm', '12'], ['trixie', '13'], ['forky', '14']]);
const UBUNTU_CODENAMES = new Map([
  ['trusty', '14.04'], ['xenial', '16.04'], ['bionic', '18.04'], ['focal', '20.04'], ['jammy', '22.04'], ['kinetic', '22.10'],
  ['lunar', '23.04'], ['mantic', '23.10'], ['noble', '24.04'], ['oracular', '24.10'], ['plucky', '25.04'], ['questing', '25.10'],
]);

/** PEP 503 normalisation: lower case, runs of `-`, `_` and `.` as one `-` (OSV's PyPI names are normalised). */
export const pep503 = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/** The leading dotted number of a release string (`3.16.2` in `3.16.2`), or null. */
const releaseNumber = (text: string) => /^[0-9]+(?:\.[0-9]+)*/.exec(text)?.[0] ?? null;

/**
 * OSV's Ubuntu ecosystem for a release: `Ubuntu:22.04:LTS` for the long-term ones (April releases of even
 * years), `Ubuntu:23.10` otherwise, as OSV spells them, so that an exact lookup finds the records.
 */
function ubuntu(release: string | null): string {
  const m = release ? /^(\d+)\.(\d+)/.exec(release) : null;
  if (!m) return 'Ubuntu';
  const version = `${m[1]}.${m[2]!.padStart(2, '0')}`;
  return Number(m[1]) % 2 === 0 && m[2] === '04' ? `Ubuntu:${version}:LTS` : `Ubuntu:${version}`;
}

function debEcosystem(namespace: string, distro: string): string | null {
  // The distribution may be named in the qualifier (`debian-11`, `debian-11.6`, `ubuntu-22.04`, `bookworm`,
  // `jammy`, `11`) or by the namespace; the qualifier is the more precise of the two.
  const [, word = '', number = null] = /^([a-z]*)[-:_ ]?([0-9][0-9.]*)?/.exec(distro) ?? [];
  const named = word === 'ubuntu' || UBUNTU_CODENAMES.has(word) ? 'ubuntu' : word === 'debian' || DEBIAN_CODENAMES.has(word) ? 'debian' : null;
  const vendor = named ?? (namespace || 'debian');
  // A namespace naming another vendor (a PPA, a derivative) is not a Debian or Ubuntu package.
  if (vendor !== 'debian' && vendor !== 'ubuntu') return null;
  const release = UBUNTU_CODENAMES.get(word) ?? DEBIAN_CODENAMES.get(word) ?? (named || word === '' ? number : null);
  if (vendor === 'ubuntu') return ubuntu(release);
  // Debian's OSV ecosystems carry the major release only (`Debian:11`); testing and sid have none to match.
  return release ? `Debian:${release.split('.')[0]}` : 'Debian';
}

function apkEcosystem(namespace: string, distro: string): string | null {
  if (namespace === 'wolfi' || distro.startsWith('wolfi')) return 'Wolfi';
  if (namespace === 'chainguard' || distro.startsWith('chainguard')) return 'Chainguard';
  if (namespace !== '' && namespace !== 'alpine') return null;
  // `alpine-3.16.2` (syft), `3.22.0` (osv-scanner), `alpine:3.18`: OSV's branch is `v<major>.<minor>`.
  const release = releaseNumber(distro.replace(/^alpine[-:_ ]?/, ''))?.split('.');
  return release && release.length >= 2 ? `Alpine:v${release[0]}.${release[1]}` : 'Alpine';
}

function rpmEcosystem(namespace: string, distro: string): string | null {
  const major = releaseNumber(distro.replace(/^[a-z-]*?-?(?=\d)/, ''))?.split('.')[0];
  const vendor = `${namespace} ${distro}`;
  if (/almalinux/.test(vendor)) return major ? `AlmaLinux:${major}` : 'AlmaLinux';
  if (/rocky/.test(vendor)) return major ? `Rocky Linux:${major}` : 'Rocky Linux';
  if (/opensuse/.test(vendor)) return 'openSUSE';
  if (/\bsuse\b|sles|sled/.test(vendor)) return 'SUSE';
  if (/mageia/.test(vendor)) return major ? `Mageia:${major}` : 'Mageia';
  if (/openeuler/.test(vendor)) return 'openEuler';
  // Red Hat's OSV ecosystems are per product stream (`Red Hat:enterprise_linux:8::baseos`), which a purl
  // does not say; the bare name covers them all. CentOS (Linux, not Stream) ships Red Hat's builds.
  if (/redhat|rhel|centos/.test(vendor)) return 'Red Hat';
  return null;
}

/** The source package an OS package was built from: `upstream` (deb, rpm; rpm gives a `.src.rpm` file name) or `origin` (apk). */
function sourceName(type: string, qualifiers: Record<string, string>): string | null {
  let source = (qualifiers.upstream ?? qualifiers.origin ?? '').trim();
  if (type === 'rpm' && /\.src\.rpm$/.test(source)) source = source.replace(/\.src\.rpm$/, '').replace(/-[^-]+-[^-]+$/, '');
  // Syft writes `upstream=glibc@2.31-13` when the source version differs; the name is what is matched.
  source = source.replace(/@.*$/, '').trim();
  return source || null;
}

/**
 * The OSV package of a package URL, with its version (null when the purl has none); null when OSV has
 * no ecosystem for it. An OS package whose distribution release is unknown gets the bare ecosystem
 * (`Debian`, `Alpine`), which matches the records of every release.
 */
export function packageOf(purlText: string): (PackageKey & { version: string | null }) | null {
  let purl: PackageURL;
  try {
    purl = PackageURL.fromString(purlText.trim());
  } catch {
    return null;
  }
  const qualifiers = (purl.qualifiers ?? {}) as Record<string, string>;
  const namespace = purl.namespace ?? '';
  const version = purl.version || null;
  const language = LANGUAGE.get(purl.type);
  if (language) {
    const name = purl.type === 'maven' ? `${namespace}:${purl.name}`
      : purl.type === 'pypi' ? pep503(purl.name)
        : namespace && ['npm', 'golang', 'composer', 'swift'].includes(purl.type) ? `${namespace}/${purl.name}` : purl.name;
    // Go versions carry a leading `v` in purls; OSV's Go ranges have none.
    const v = purl.type === 'golang' && version?.startsWith('v') ? version.slice(1) : version;
    return { ecosystem: language, name, version: v };
  }
  const ns = namespace.toLowerCase();
  const distro = (qualifiers.distro ?? '').toLowerCase().trim();
  // Syft before 0.60 wrote Alpine packages as `pkg:alpine/<name>`; it means `pkg:apk/alpine/<name>`.
  const ecosystem = purl.type === 'deb' ? debEcosystem(ns, distro)
    : purl.type === 'apk' ? apkEcosystem(ns, distro)
      : purl.type === 'alpine' && !ns ? apkEcosystem('alpine', distro)
        : purl.type === 'rpm' ? rpmEcosystem(ns, distro) : null;
  if (!ecosystem) return null;
  // An rpm epoch travels as a qualifier; OSV's RPM versions carry it as `epoch:`.
  const epoch = purl.type === 'rpm' && /^\d+$/.test(qualifiers.epoch ?? '') && version && !/^\d+:/.test(version) ? `${qualifiers.epoch}:` : '';
  return { ecosystem, name: sourceName(purl.type, qualifiers) ?? purl.name, version: version ? epoch + version : null };
}
