// Where a notification may be sent (issue 24, "Safety"): https URLs on public hosts only. Checked when a
// destination is saved and again before every delivery, by name and by literal address; after DNS
// resolution the runtime itself refuses private addresses (wrangler.toml `global_fetch_strictly_public`).
// Local development (DEV_SECRET set) may also use http://127.0.0.1 and localhost, so a receiver on the
// same machine works; production never may.
import ipaddr from 'ipaddr.js';

/** Names that only ever resolve inside a network (RFC 6761, 6762, 8375 and common internal suffixes). */
const PRIVATE_SUFFIXES = ['.localhost', '.local', '.internal', '.intranet', '.lan', '.home.arpa', '.corp', '.private', '.test', '.invalid'];
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export class RefusedUrl extends Error {}

/** A development instance (DEV_SECRET set): loopback receivers are allowed. */
export const isLocalInstance = (env: { DEV_SECRET?: string }) => Boolean(env.DEV_SECRET);

/** Whether an address literal (IPv4, or IPv6 without brackets) is on the public internet. */
export function isPublicAddress(literal: string): boolean {
  if (!ipaddr.isValid(literal)) return false;
  let address = ipaddr.parse(literal);
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  return address.range() === 'unicast';
}

/**
 * The URL a notification may be sent to, or a RefusedUrl naming why not. `local` (a development
 * instance) also accepts http on 127.0.0.1 and localhost.
 */
export function checkDestinationUrl(raw: string, options: { local: boolean }): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedUrl('The URL is not a valid absolute URL.');
  }
  const host = url.hostname.toLowerCase();
  if (url.username || url.password) throw new RefusedUrl('The URL may not carry a user name or password.');
  if (options.local && LOOPBACK_NAMES.has(host) && (url.protocol === 'http:' || url.protocol === 'https:')) return url;
  if (url.protocol !== 'https:') throw new RefusedUrl('Notifications are sent to https URLs only.');
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  // The URL parser has already turned other IPv4 spellings (http://2130706433/, 0x7f.1) into dotted decimal.
  if (ipaddr.isValid(literal)) {
    if (!isPublicAddress(literal)) throw new RefusedUrl(`The host ${literal} is not a public address (private, loopback, link-local or reserved).`);
    return url;
  }
  if (!literal.includes('.')) throw new RefusedUrl(`The host ${literal} is not a public name (it has no domain).`);
  if (literal === 'localhost' || PRIVATE_SUFFIXES.some((suffix) => literal.endsWith(suffix))) throw new RefusedUrl(`The host ${literal} names a private network, not a public host.`);
  return url;
}

/**
 * What reads show of a destination URL: scheme, host and the path's first segment; the rest (where
 * Slack and Teams keep the secret) is masked.
 */
export function maskUrl(url: URL): string {
  const first = url.pathname.split('/').filter(Boolean)[0];
  return `${url.protocol}//${url.host}/${first ? `${first}/` : ''}…`;
}
