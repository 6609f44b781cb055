// The shapes of the classification table and the dates and CNSA 2.0 verdicts its rows share.
// Dates are the last day a use is allowed ("deprecated after 2030" -> 2030-12-31); a date in the past
// means the use is already disallowed since then.
import type { Algorithm, AlgorithmInput } from './normalize';

export type Section = 'red' | 'yellow' | 'transition' | 'green';
export type CryptoSection = Section | 'unclassified';

export interface Cnsa2 {
  approved: boolean;
  /** The CNSA 2.0 date that applies (a CNSA 1.0 algorithm's end of use), null when approved or never allowed. */
  deadline: string | null;
  note: string;
}

/** What a row says about one algorithm. */
export interface Verdict {
  rule: string;
  source: string;
  section: Section;
  deadline: string | null;
  replacement: string | null;
  explanation: string;
  quantumVulnerable: boolean;
  securityBits: number | null;
  cnsa2: Cnsa2;
}

export interface Row {
  id: string;
  section: Section;
  /** Registry families (or ADDED_FAMILIES) the row is about. */
  families: string[];
  /** When the family alone does not decide: the condition in words (docs) and in code. */
  condition?: string;
  when?: (a: Algorithm) => boolean;
  source: string;
  deadline: string | null;
  quantumVulnerable: boolean;
  replacement: string | null | ((a: Algorithm) => string);
  explain: (a: Algorithm) => string;
  /** Default: not a CNSA 2.0 algorithm, never allowed in National Security Systems. */
  cnsa2?: (a: Algorithm) => Cnsa2;
  /** Representative inputs: the first is the row's canonical example, the others name variants. */
  examples: AlgorithmInput[];
}

// ---- dates ----
/** SP 800-131A Rev. 2: keys under 112 bits of security, and SHA-1 for signature generation, disallowed after 2013. */
export const DISALLOWED_2013 = '2013-12-31';
/** SP 800-131A Rev. 2: two-key TDEA encryption disallowed after 2015. */
export const TDEA2_2015 = '2015-12-31';
/** SP 800-131A Rev. 2: three-key TDEA encryption disallowed after 2023. */
export const TDEA3_2023 = '2023-12-31';
/** FIPS 186-5 (published 2023-02-03): DSA no longer approved for generating signatures. */
export const DSA_FIPS186_5 = '2023-02-03';
/** FIPS 46-3 (DES) withdrawn on 2005-05-19. */
export const DES_WITHDRAWN = '2005-05-19';
/** SP 800-131A Rev. 2 sec. 2: Skipjack encryption disallowed after 2010. */
export const SKIPJACK_2010 = '2010-12-31';
/** SP 800-52 Rev. 2 (published 2019-08-29): TLS 1.2 at least; TLS 1.0, SSL 3.0 and SSL 2.0 not to be used. */
export const SP800_52R2 = '2019-08-29';
/** SP 800-131A Rev. 3 ipd (published 2024-10-21): ECB disallowed for encryption. */
export const ECB_SP800_131A_R3 = '2024-10-21';
/** NIST IR 8547 ipd: quantum-vulnerable 112-bit schemes deprecated after 2030; SHA-1, SHA-224 and 112-bit hashes retire after 2030. */
export const DEPRECATED_2030 = '2030-12-31';
/** NIST IR 8547 ipd: all quantum-vulnerable public-key schemes disallowed after 2035. */
export const DISALLOWED_2035 = '2035-12-31';
/** CNSA 2.0 (NSA CSA, Sept. 2022; FAQ 2024): exclusive use of CNSA 2.0 by 2033 (2030 for software/firmware signing and networking equipment). */
export const CNSA2_EXCLUSIVE = '2033-12-31';

// ---- CNSA 2.0 verdicts ----
export const cnsaApproved = (note: string): Cnsa2 => ({ approved: true, deadline: null, note });
/** A CNSA 1.0 algorithm: allowed in National Security Systems only until the CNSA 2.0 transition. */
export const cnsa1 = (what: string, instead: string): Cnsa2 => ({
  approved: false, deadline: CNSA2_EXCLUSIVE,
  note: `${what} is a CNSA 1.0 algorithm: National Security Systems may use it only until they use CNSA 2.0 exclusively (2033; 2030 for software and firmware signing and networking equipment). CNSA 2.0 uses ${instead}.`,
});
export const notCnsa = (note: string): Cnsa2 => ({ approved: false, deadline: null, note });
export const NOT_CNSA = notCnsa('Not a CNSA 2.0 algorithm (CNSA 2.0: AES-256, SHA-384/512, ML-KEM-1024, ML-DSA-87, LMS, XMSS).');

// ---- replacements ----
export const SIGNATURES = 'ML-DSA-65 or ML-DSA-87 (FIPS 204); SLH-DSA (FIPS 205) or LMS/XMSS (SP 800-208) for firmware signing';
export const KEY_ESTABLISHMENT = 'a hybrid key exchange now (X25519MLKEM768 in TLS 1.3, mlkem768x25519-sha256 in SSH), ML-KEM-768 or ML-KEM-1024 (FIPS 203) alone later';
export const KEY_TRANSPORT = 'ML-KEM-768 or ML-KEM-1024 (FIPS 203), or a hybrid such as X25519MLKEM768 meanwhile';
export const AEAD = 'AES-256-GCM (or ChaCha20-Poly1305 where FIPS validation is not required)';
export const HASH = 'SHA-256, SHA-384 or SHA3-256';

/** The replacement of a quantum-vulnerable public-key use, by what the algorithm does. */
export function publicKeyReplacement(a: Algorithm): string {
  if (a.primitive === 'signature' || ['RSASSA-PKCS1', 'RSASSA-PSS', 'ECDSA', 'EdDSA', 'DSA', 'SM2'].includes(a.family)) return SIGNATURES;
  if (a.primitive === 'key-agree' || ['ECDH', 'FFDH', 'MQV'].includes(a.family)) return KEY_ESTABLISHMENT;
  if (a.primitive === 'pke' || a.primitive === 'kem' || ['RSAES-OAEP', 'RSAES-PKCS1', 'ECIES', 'ElGamal'].includes(a.family)) return KEY_TRANSPORT;
  return `${SIGNATURES} for signatures; ${KEY_TRANSPORT} for key establishment`;
}
