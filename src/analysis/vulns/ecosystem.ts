// From a package URL to the package as OSV names it: the ecosystem (with the distribution's release
// for OS packages) and the package name in it. OS packages are matched by their source package (the
// `upstream`/`origin` qualifier), which is what distribution advisories name.
import { PackageURL } from 'packageurl-js';
import type { PackageKey } from './osv-types';

const LANGUAGE: Record<string, string> = {
  npm: 'npm', golang: 'Go', maven: 'Maven', pypi: 'PyPI', nuget: 'NuGet', gem: 'RubyGems', cargo: 'crates.io',
  composer: 'Packagist', hex: 'Hex', pub: 'Pub', cran: 'CRAN', hackage: 'Hackage', swift: 'SwiftURL',
};

const DEBIAN_CODENAMES: Record<string, string> = { buster: '10', bullseye: '11', bookworm: '12', trixie: '13', forky: '14', stretch: '9', jessie: '8' };

/** PEP 503 normalisation: lower case, runs of `-`, `_` and `.` as one `-`. */
const pep503 = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/** The distribution release in a `distro` qualifier such as `debian-11`, `ubuntu-22.04`, `alpine-3.16.2`, `bookworm`, `3.22.0`. */
function distroRelease(distro: string | undefined): string | null {
  if (!distro) return null;
  const d = distro.toLowerCase().replace(/^(debian|ubuntu|alpine|rhel|redhat|almalinux|rocky|opensuse|sles)[-:]?/, '');
  return DEBIAN_CODENAMES[d] ?? (/^[0-9][0-9.]*/.exec(d)?.[0] ?? null);
}

function osEcosystem(purl: PackageURL, qualifiers: Record<string, string>): string | null {
  const namespace = (purl.namespace ?? '').toLowerCase();
  const distro = qualifiers.distro?.toLowerCase() ?? '';
  const release = distroRelease(qualifiers.distro);
  if (purl.type === 'deb') {
    if (namespace === 'ubuntu' || distro.startsWith('ubuntu')) return release ? `Ubuntu:${release}` : 'Ubuntu';
    return release ? `Debian:${release.split('.')[0]}` : 'Debian';
  }
  if (purl.type === 'apk') {
    if (namespace === 'wolfi') return 'Wolfi';
    if (namespace === 'chainguard') return 'Chainguard';
    const minor = release?.split('.').slice(0, 2).join('.');
    return minor ? `Alpine:v${minor}` : 'Alpine';
  }
  if (purl.type === 'rpm') {
    const major = release?.split('.')[0];
    const name = `${namespace} ${distro}`;
    if (/almalinux/.test(name)) return major ? `AlmaLinux:${major}` : 'AlmaLinux';
    if (/rocky/.test(name)) return major ? `Rocky Linux:${major}` : 'Rocky Linux';
    if (/opensuse/.test(name)) return 'openSUSE';
    if (/suse|sles/.test(name)) return 'SUSE';
    if (/redhat|rhel|centos/.test(name)) return 'Red Hat';
    return null;
  }
  return null;
}

/** The OSV package of a package URL, with its version; null when OSV has no ecosystem for it. */
export function packageOf(purlText: string): (PackageKey & { version: string | null }) | null {
  let purl: PackageURL;
  try {
    purl = PackageURL.fromString(purlText);
  } catch {
    return null;
  }
  const qualifiers = (purl.qualifiers ?? {}) as Record<string, string>;
  const version = purl.version ?? null;
  const language = LANGUAGE[purl.type];
  if (language) {
    const ns = purl.namespace;
    const name = purl.type === 'maven' ? `${ns}:${purl.name}`
      : purl.type === 'pypi' ? pep503(purl.name)
        : ns && ['npm', 'golang', 'composer', 'swift'].includes(purl.type) ? `${ns}/${purl.name}` : purl.name;
    // Go pseudo and module versions carry a leading `v` in purls; OSV's SEMVER ranges have none.
    const v = purl.type === 'golang' && version?.startsWith('v') ? version.slice(1) : version;
    return { ecosystem: language, name, version: v };
  }
  const ecosystem = osEcosystem(purl, qualifiers);
  if (!ecosystem) return null;
  // Distribution advisories name the source package: `upstream` (deb, rpm), `origin` (apk).
  const source = (qualifiers.upstream ?? qualifiers.origin ?? '').replace(/@.*$/, '').trim();
  return { ecosystem, name: source || purl.name, version };
}
