// Certificates: a certificate takes the worst of its signature algorithm and public key, resolved
// through its bom-refs (or, when it names none, the assets the dependency graph ties to it). A trust
// anchor (a self-signed root, or an unnamed certificate found only in a trust store) is judged by its
// public key alone: its own signature is never checked when a chain is validated, so a SHA-1
// self-signature on a third party's root is not something anyone can or need re-sign.
import { createHash } from 'node:crypto';
import { commonName } from '../components';
import type { CryptoAsset } from '../types';
import { algorithmInput, combine, isBareHash, judge, linked, missing, unknown, type ClassifyContext, type Judgement, type Part } from './judge';
import { judgeMaterial } from './material';
import { normalizeAlgorithm } from './normalize';
import { EC_FAMILIES, RSA_FAMILIES } from './table';

const kindOf = (family: string) => (RSA_FAMILIES.includes(family) ? 'RSA' : EC_FAMILIES.includes(family) ? 'ECDSA' : family);
const dn = (name?: string) => name?.replace(/\s+/g, '').toLowerCase() ?? '';
const sameDn = (a?: string, b?: string) => Boolean(a && b && dn(a) === dn(b));

/** Where operating systems and runtimes keep the roots they trust. */
const TRUST_STORE = /(^|\/)(etc\/ssl\/cert\.pem$|etc\/ssl\/certs\/|etc\/pki\/(tls|ca-trust)\/|(usr\/(local\/)?share|etc)\/ca-certificates|cacerts$|ca-certificates\.crt$|ca-bundle(\.trust)?\.(crt|pem)$|tls-ca-bundle\.pem$)/i;

/**
 * A trust anchor: self-signed (subject and issuer the same name), or, when the document leaves either
 * out, found only in trust stores (an operating system's bundle, a JDK's cacerts).
 */
export function isTrustAnchor(asset: CryptoAsset): boolean {
  const c = asset.certificate ?? {};
  if (c.subjectName && c.issuerName) return sameDn(c.subjectName, c.issuerName);
  const locations = asset.evidence?.map((o) => o.location) ?? asset.locations ?? [];
  return locations.length > 0 && locations.every((l) => TRUST_STORE.test(l.replace(/:\d+$/, '')));
}

const ANCHOR_REPLACEMENT = 'post-quantum roots (ML-DSA, FIPS 204) as the PKI\'s vendor issues them: plan the move of every chain that ends at this root';

/** What a trust anchor whose key must move is told: the PKI's move, never a re-signing. */
function anchorVerdict(name: string, key: Judgement): Partial<Judgement> {
  const why = 'a self-signed root whose own signature is never checked when a chain is validated, so its public key decides. '
    + `${key.explanation} Plan the move of the PKI that chains to it, and track the vendor's post-quantum (ML-DSA) roots.`;
  return { explanation: `${name} is a trust anchor: ${why}`, verdict: `A trust anchor: ${why}`, decidedBy: 'trust anchor key', replacement: ANCHOR_REPLACEMENT };
}

/** The signature algorithm and public key, by reference; when the certificate names neither, what the dependency graph ties to it. */
function partsOf(asset: CryptoAsset, context: ClassifyContext): { signature?: CryptoAsset; key?: CryptoAsset } {
  const c = asset.certificate ?? {};
  let signature = c.signatureAlgorithmRef ? context.byRef.get(c.signatureAlgorithmRef) : undefined;
  let key = c.subjectPublicKeyRef ? context.byRef.get(c.subjectPublicKeyRef) : undefined;
  for (const other of c.signatureAlgorithmRef && c.subjectPublicKeyRef ? [] : linked(asset, context)) {
    const signs = other.assetType === 'algorithm' && normalizeAlgorithm(algorithmInput(other))?.hash !== undefined;
    if (!c.signatureAlgorithmRef && !signature && signs) signature = other;
    else if (!c.subjectPublicKeyRef && !key && (other.assetType === 'related-crypto-material' || other.assetType === 'algorithm')) key = other;
  }
  return { signature, key };
}

/** A signature named by its hash alone ("SHA1" as the signature algorithm) signs with the key's algorithm. */
function signatureJudgement(signature: CryptoAsset, key: Judgement | undefined): Judgement {
  const judged = judge(algorithmInput(signature));
  if (!isBareHash(judged) || !key?.family || key.section === 'unclassified') return judged;
  return judge({ name: `${judged.name}with${kindOf(key.family)}` });
}

/** Judges a certificate (see the file's opening comment). */
export function certificateJudgement(asset: CryptoAsset, context: ClassifyContext): Judgement {
  const c = asset.certificate ?? {};
  const { signature, key: keyAsset } = partsOf(asset, context);
  const key = keyAsset ? judgeMaterial(keyAsset, context).judged : undefined;
  const seen = [`signature ${signature?.name ?? c.signatureAlgorithmRef ?? 'not stated'}`, `key ${keyAsset?.name ?? c.subjectPublicKeyRef ?? 'not stated'}`].join('; ');
  const parts: Part[] = [];
  if (isTrustAnchor(asset)) {
    // Its own signature is never checked; a self-signature was made with its own key, so it names the key's algorithm when nothing else does.
    const fromSignature = signature ? judge(algorithmInput(signature, { key: true })) : undefined;
    if (key && (key.section !== 'unclassified' || !fromSignature || fromSignature.section === 'unclassified')) parts.push({ label: 'key', judged: key });
    else if (fromSignature) parts.push({ label: 'key (from its self-signature)', judged: fromSignature });
    else if (c.subjectPublicKeyRef) parts.push(missing('public key', c.subjectPublicKeyRef));
    const whole = combine(asset.name, seen, parts, `${asset.name}: the trust anchor names neither its public key nor its signature algorithm.`);
    const unchecked = signature ? [`signature: ${judge(algorithmInput(signature)).name} (not checked: a trust anchor's own signature)`] : [];
    const anchored = (whole.section === 'red' || whole.section === 'yellow') && parts[0] ? anchorVerdict(asset.name, parts[0].judged) : {};
    return { ...whole, ...anchored, reasons: [...unchecked, ...whole.reasons], trustAnchor: true };
  }
  if (signature) parts.push({ label: 'signature', judged: signatureJudgement(signature, key) });
  else if (c.signatureAlgorithmRef) parts.push(missing('signature algorithm', c.signatureAlgorithmRef));
  if (key) parts.push({ label: 'key', judged: key });
  else if (c.subjectPublicKeyRef) parts.push(missing('public key', c.subjectPublicKeyRef));
  return { ...combine(asset.name, seen, parts, `${asset.name}: the certificate names neither its signature algorithm nor its public key.`), trustAnchor: false };
}

const fold = (text?: string) => text?.replace(/\s+/g, ' ').trim().toLowerCase() ?? '';
const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * What identifies a certificate wherever it was found: its fingerprint, else its issuer and serial
 * number, else its subject key, signature algorithm, names and validity (the same file as `.pem` and
 * `.crt`, or in a bundle and alone, is one certificate). Null when the document says too little.
 */
export function certificateIdentity(asset: CryptoAsset, byRef: Map<string, CryptoAsset>): string | null {
  const c = asset.certificate ?? {};
  if (c.fingerprint) return `certificate:${c.fingerprint.alg.toLowerCase().replace(/[^a-z0-9]/g, '')}:${c.fingerprint.content.toLowerCase()}`;
  if (c.issuerName && c.serialNumber) return `certificate:${digest(`${dn(c.issuerName)}|${c.serialNumber.toLowerCase().replace(/[^0-9a-z]/g, '')}`)}`;
  const key = c.subjectPublicKeyRef ? byRef.get(c.subjectPublicKeyRef) : undefined;
  const keyId = key?.relatedCryptoMaterial?.fingerprint?.content ?? c.subjectPublicKeyRef;
  if (!keyId) return null;
  const signature = c.signatureAlgorithmRef ? byRef.get(c.signatureAlgorithmRef)?.name ?? c.signatureAlgorithmRef : '';
  return `certificate:${digest([keyId, signature, dn(c.subjectName), dn(c.issuerName), c.notValidBefore ?? '', c.notValidAfter ?? ''].join('|'))}`;
}

/** What the certificate says about itself; two certificates sharing an identity but not this are kept apart. */
export const certificateStatement = (asset: CryptoAsset): string => {
  const c = asset.certificate ?? {};
  return [fold(c.subjectName), fold(c.issuerName), fold(c.serialNumber), c.notValidBefore ?? '', c.notValidAfter ?? ''].join('|');
};

/** The subject's common name (or the whole subject when it has none). */
export const subjectCommonName = (asset: CryptoAsset): string | null => commonName(asset.certificate?.subjectName) ?? asset.certificate?.subjectName ?? null;

export { digest as shortDigest };
