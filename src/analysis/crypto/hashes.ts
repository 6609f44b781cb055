// Hash functions by any of their spellings ("SHA1", "SHA-1", "sha-256", "SHA2-256", "SHA512/256",
// "SHA3_384", "SHAKE256", "RIPEMD160"), named as the CycloneDX registry names them, with their collision
// strength (SP 800-57 Part 1 Rev. 5 table 3; for broken ones the cost of the best known collision attack).

export interface Hash {
  /** Registry family: `SHA-1`, `SHA-2`, `SHA-3`, `MD5`, `RIPEMD`, `BLAKE2`, ... */
  family: string;
  /** Registry name: `SHA-256`, `SHA-512/256`, `SHA3-256`, `SHAKE128`, `MD5`, `RIPEMD-160`. */
  name: string;
  /** Collision strength in bits. */
  collision: number;
}

const h = (family: string, name: string, collision: number): Hash => ({ family, name, collision });

/** A hash from its name, or undefined. */
export function hashOf(text: string | undefined): Hash | undefined {
  if (!text) return undefined;
  const t = text.trim().toUpperCase().replace(/[\s_]/g, '-');
  let m: RegExpExecArray | null;
  if ((m = /^SHA-?512[/-](224|256)$/.exec(t))) return h('SHA-2', `SHA-512/${m[1]}`, Number(m[1]) / 2);
  if ((m = /^SHA-?2?-?(224|256|384|512)$/.exec(t))) return h('SHA-2', `SHA-${m[1]}`, Number(m[1]) / 2);
  if (/^SHA-?1?$/.test(t)) return h('SHA-1', 'SHA-1', 63); // SHAttered (2017): about 2^63 work
  // SHA-2 of a size not stated ("HMACSHA2"): judged as SHA-256 or larger, the sizes in common use; the entry says so.
  if (/^SHA-?2$/.test(t)) return h('SHA-2', 'SHA-2', 128);
  if ((m = /^SHA3-?(224|256|384|512)$/.exec(t))) return h('SHA-3', `SHA3-${m[1]}`, Number(m[1]) / 2);
  if ((m = /^SHAKE-?(128|256)$/.exec(t))) return h('SHA-3', `SHAKE${m[1]}`, Number(m[1]));
  if ((m = /^MD([245])$/.exec(t))) return h(`MD${m[1]}`, `MD${m[1]}`, m[1] === '5' ? 18 : m[1] === '4' ? 2 : 63);
  if ((m = /^(?:RIPEMD|RMD)-?(128|160|256|320)?$/.exec(t))) return h('RIPEMD', `RIPEMD-${m[1] ?? 160}`, Number(m[1] ?? 160) / 2);
  if ((m = /^BLAKE2([BS])-?(\d+)?$/.exec(t))) {
    const bits = Number(m[2] ?? (m[1] === 'B' ? 512 : 256));
    return h('BLAKE2', `BLAKE2${m[1]!.toLowerCase()}-${bits}`, bits / 2);
  }
  if (/^BLAKE3/.test(t)) return h('BLAKE3', 'BLAKE3', 128);
  if (t === 'SM3') return h('SM3', 'SM3', 128);
  if (t === 'WHIRLPOOL') return h('Whirlpool', 'Whirlpool', 256);
  if ((m = /^(?:GOSTR-?3411|GOST-?R-?34\.11|STREEBOG)(?:-?(?:94|2012))?-?(256|512)?$/.exec(t))) return h('GOST', `GOSTR3411${m[1] ? `-${m[1]}` : ''}`, Number(m[1] ?? 256) / 2);
  if (/^ASCON-?HASH-?256$/.test(t)) return h('Ascon', 'Ascon-Hash256', 128);
  return undefined;
}

/** The compact spelling used inside compound names: `SHA256`, `SHA512/256`, `SHA3-256`, `SHA1`. */
export const compact = (hash: Hash): string => hash.name.replace(/^SHA-(?=\d)/, 'SHA');

/**
 * Finds a hash written anywhere in a longer name ("SHA256withRSA", "RSA-PKCS1-1.5-SHA-256",
 * "ecdsa-sha2-nistp256", "PBKDF2WithHmacSHA512"). Returns the hash and the name without it.
 */
export function findHash(text: string): { hash: Hash; rest: string } | undefined {
  const pattern = /(SHA3[-_]?(?:224|256|384|512)|SHAKE-?(?:128|256)|SHA-?512[/_-](?:224|256)(?!\d)|SHA-?2?-?(?:224|256|384|512)|SHA-?1(?!\d)|SHA(?=$|[-_]|AND)|MD[245]|RIPEMD-?\d*|SM3)/i;
  const m = pattern.exec(text);
  if (!m) return undefined;
  const hash = hashOf(m[1]!);
  return hash ? { hash, rest: (text.slice(0, m.index) + text.slice(m.index + m[1]!.length)).replace(/--+/g, '-') } : undefined;
}
