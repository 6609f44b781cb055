// Names that stand for several algorithms at once: TLS cipher suites (IANA names, RFC 8446 and the
// TLS registry; OpenSSL names), Java PBE schemes, and protocol names with their version.

/** One algorithm a compound name uses, with its role (`key exchange`, `authentication`, `cipher`, `mac`, ...). */
export interface SuitePart {
  role: string;
  name: string;
}

export interface SuiteParts {
  parts: SuitePart[];
  /** True when the key exchange is a pre-shared key alone (no public-key exchange to judge). */
  pskOnly: boolean;
}

const KEX: Record<string, [string, string] | null> = {
  ECDHE: ['key exchange', 'ECDH'], ECDH: ['key exchange', 'ECDH'], DHE: ['key exchange', 'DH'], DH: ['key exchange', 'DH'], EDH: ['key exchange', 'DH'],
  AECDH: ['key exchange', 'ECDH'], ADH: ['key exchange', 'DH'], RSA: ['key exchange', 'RSA'], SRP: ['key exchange', 'SRP'], ECCPWD: ['key exchange', 'ECCPWD'],
  ECDSA: ['authentication', 'ECDSA'], DSS: ['authentication', 'DSA'], PSK: null, ANON: null, EXPORT: null, EXPORT1024: null, SHA: null, KRB5: null, NULL: null,
};

const mac = (token: string | undefined, aead: boolean): SuitePart[] =>
  !token ? [] : [{ role: aead ? 'prf' : 'mac', name: token === 'MD5' ? 'HMAC-MD5' : token === 'SHA' ? 'HMAC-SHA1' : `HMAC-${token}` }];

function kexParts(tokens: string[]): SuiteParts {
  const parts: SuitePart[] = [];
  for (const token of tokens) {
    const known = KEX[token];
    if (known === undefined) parts.push({ role: 'key exchange', name: token });
    else if (known && !(known[1] === 'RSA' && parts.length)) parts.push({ role: known[0], name: known[1] });
    else if (known && known[1] === 'RSA') parts.push({ role: 'authentication', name: 'RSA' });
  }
  const pskOnly = tokens.includes('PSK') && !parts.some((p) => p.role === 'key exchange');
  return { parts, pskOnly };
}

/** The algorithms of a TLS cipher suite, IANA (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`) or OpenSSL (`ECDHE-RSA-AES128-GCM-SHA256`) name. */
export function suiteParts(suite: string): SuiteParts | undefined {
  const s = suite.trim().toUpperCase().replace(/-/g, '_');
  let m = /^(?:TLS|SSL)_(AES_\d+_(?:GCM|CCM(?:_8)?)|CHACHA20_POLY1305|SM4_(?:GCM|CCM)|SHA\d+)_(SHA\d+|SM3)$/.exec(s);
  if (m) {
    // TLS 1.3 (RFC 8446 B.4, RFC 8998, RFC 9150): the AEAD and the HKDF hash; the key exchange is negotiated apart.
    const integrityOnly = /^SHA/.test(m[1]!);
    return { parts: [{ role: 'cipher', name: integrityOnly ? 'NULL' : m[1]! }, { role: 'prf', name: integrityOnly ? `HMAC-${m[1]}` : `HKDF-${m[2]}` }], pskOnly: false };
  }
  m = /^(?:TLS|SSL)_(.+?)_WITH_(.+)$/.exec(s);
  if (m) {
    const rest = m[2]!.split('_');
    const last = rest.at(-1)!;
    const hasMac = /^(SHA\d*|MD5)$/.test(last) && rest.length > 1;
    const cipher = (hasMac ? rest.slice(0, -1) : rest).join('_');
    const aead = /GCM|CCM|POLY1305/.test(cipher);
    const kex = kexParts(m[1]!.split('_'));
    return { parts: [...kex.parts, { role: 'cipher', name: cipher }, ...mac(hasMac ? last : undefined, aead)], pskOnly: kex.pskOnly };
  }
  // OpenSSL: [KEX-][AUTH-]CIPHER[-MODE]-MAC; no key exchange prefix means RSA key transport.
  const tokens = s.split('_');
  const last = tokens.at(-1)!;
  if (tokens.length < 2 || !/^(SHA\d*|MD5|POLY1305)$/.test(last)) return undefined;
  let i = 0;
  const kexTokens: string[] = [];
  while (i < tokens.length && KEX[tokens[i]!] !== undefined && tokens[i] !== 'NULL') kexTokens.push(tokens[i++]!);
  const cipherTokens = tokens.slice(i, last === 'POLY1305' ? undefined : -1);
  if (!cipherTokens.length || !/^(AES|CAMELLIA|ARIA|SEED|IDEA|DES|RC4|RC2|CHACHA20|3DES|NULL|SM4)/.test(cipherTokens[0]!)) return undefined;
  const cipher = cipherTokens.join('-');
  const kex = kexParts(kexTokens.length ? kexTokens : ['RSA']);
  return { parts: [...kex.parts, { role: 'cipher', name: cipher }, ...mac(last === 'POLY1305' ? undefined : last, /GCM|CCM|POLY1305/.test(cipher))], pskOnly: kex.pskOnly };
}

/** The algorithms of a Java PBE scheme (`PBEWithMD5AndDES`, `PBEWithHmacSHA256AndAES_256`): PBES1 uses PBKDF1, PBES2 PBKDF2. */
export function pbeParts(name: string): SuitePart[] | undefined {
  const m = /^PBEWITH(HMAC)?(.+?)AND(.+)$/i.exec(name.trim());
  if (!m) return undefined;
  return [{ role: 'key derivation', name: `${m[1] ? 'PBKDF2' : 'PBKDF1'}-${m[2]}` }, { role: 'cipher', name: m[3]! }];
}

/** A protocol's type and version from its properties or its name (`TLSv1.2`, `SSH 2.0`, `SSLv3`, `IKEv2`). */
export function protocolOf(type: string | undefined, version: string | undefined, name: string): { type: string; version: string | undefined } {
  const pattern = /\b(TLS|DTLS|SSL|SSH|IPSEC|IKE|QUIC)\s*v?\s*(\d+(?:\.\d+)?)?/i;
  const fromType = type && !/^(other|unknown)$/i.test(type) ? pattern.exec(type) : null;
  const fromName = pattern.exec(name);
  const t = (fromType?.[1] ?? (type && !/^(other|unknown)$/i.test(type) ? type : undefined) ?? fromName?.[1] ?? type ?? name).toUpperCase();
  return { type: t, version: version ?? fromType?.[2] ?? fromName?.[2] };
}
