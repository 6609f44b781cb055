// Keys and other related crypto material are judged by what they belong to: the algorithm their
// `algorithmRef` (or 1.7 related asset) names, else the algorithms the documents' dependency graph
// ties them to (`dependsOn`, `provides`, either way; a key tied to another key leads on to that key's
// algorithm), else what their own name says ("key:aes", "RSA-2048 private key"). Material stays
// unclassified only when nothing in the document says what it is, and its entry says what was missing.
import type { CryptoAsset } from '../types';
import { algorithmInput, combine, judge, linked, unknown, type ClassifyContext, type Judgement, type Part } from './judge';

/** Where a key's verdict came from, for its reasons. */
interface Found {
  judged: Judgement;
  via: string;
}

/** The algorithm assets tied to a key by the dependency graph, directly or through a key it is tied to. */
function linkedAlgorithms(asset: CryptoAsset, context: ClassifyContext): CryptoAsset[] {
  const direct = linked(asset, context);
  const algorithms = direct.filter((a) => a.assetType === 'algorithm');
  if (algorithms.length) return algorithms;
  const keys = direct.filter((a) => a.assetType === 'related-crypto-material' && a !== asset);
  return keys.flatMap((key) => [
    ...(key.relatedCryptoMaterial?.algorithmRef ? [context.byRef.get(key.relatedCryptoMaterial.algorithmRef)] : []),
    ...linked(key, context),
  ]).filter((a): a is CryptoAsset => a?.assetType === 'algorithm');
}

const known = (j: Judgement) => j.section !== 'unclassified';

/** What a key's algorithm asset says, with the key's size. */
const keyJudgement = (algorithm: CryptoAsset, size: number | undefined) => judge(algorithmInput(algorithm, { key: true, keyBits: size }));

/** A key (or other material, or an algorithm named as a certificate's key), and what decided it. */
export function judgeMaterial(asset: CryptoAsset, context: ClassifyContext): Found {
  if (asset.assetType === 'algorithm') return { judged: judge(algorithmInput(asset, { key: true })), via: 'algorithm' };
  const m = asset.relatedCryptoMaterial ?? {};
  const explicit = m.algorithmRef ? context.byRef.get(m.algorithmRef) : undefined;
  const explicitJudged = explicit?.assetType === 'algorithm' ? keyJudgement(explicit, m.size) : undefined;
  if (explicitJudged && known(explicitJudged)) return { judged: explicitJudged, via: `algorithmRef ${explicit!.name}` };
  const seen = new Set<string>();
  const parts: Part[] = [];
  for (const algorithm of linkedAlgorithms(asset, context)) {
    const judged = keyJudgement(algorithm, m.size);
    if (!known(judged) || seen.has(judged.name)) continue;
    seen.add(judged.name);
    parts.push({ label: `tied by dependencies to ${algorithm.name}`, judged });
  }
  if (parts.length === 1) return { judged: parts[0]!.judged, via: parts[0]!.label };
  if (parts.length > 1) return { judged: combine(asset.name, asset.name, parts), via: 'dependencies' };
  const own = judge({ name: asset.name, oid: asset.oid, keyBits: m.size, key: true });
  if (known(own)) return { judged: own, via: 'named so' };
  return { judged: explicitJudged ?? own, via: 'nothing' };
}

/** Why a key is unclassified: what the document lacks. */
function missing(asset: CryptoAsset, context: ClassifyContext): string {
  const ref = asset.relatedCryptoMaterial?.algorithmRef;
  if (ref && !context.byRef.has(ref)) return `its algorithmRef ${ref} is not in the BOM, no dependency ties it to an algorithm, and its name names none`;
  const tied = [...(ref ? [context.byRef.get(ref)!] : []), ...linkedAlgorithms(asset, context)].map((a) => a.name);
  if (tied.length) return `the algorithm it belongs to (${[...new Set(tied)].join(', ')}) is not one the classification table knows`;
  return 'nothing in the document says which algorithm it belongs to: it has no algorithmRef, no dependency ties it to an algorithm, and its name names none';
}

/** The entry of a key or other related crypto material (name, seen, reasons and the verdict). */
export function materialJudgement(asset: CryptoAsset, context: ClassifyContext): Judgement {
  const m = asset.relatedCryptoMaterial ?? {};
  const { judged, via } = judgeMaterial(asset, context);
  const label = m.type ?? 'material';
  const algorithm = m.algorithmRef ? context.byRef.get(m.algorithmRef)?.name ?? `${m.algorithmRef} (not in the BOM)` : undefined;
  const tied = linked(asset, context).map((a) => a.name);
  const seen = [asset.name, m.type, m.size && `${m.size} bits`, algorithm && `algorithm ${algorithm}`, tied.length && `tied to ${[...new Set(tied)].join(', ')}`, asset.oid && `oid ${asset.oid}`]
    .filter(Boolean).join(', ');
  if (!known(judged)) return unknown(asset.name, seen, `${asset.name} (${label}) is not classified: ${missing(asset, context)}. Review it by hand.`);
  const name = `${judged.algorithm ?? judged.name} ${m.type ?? 'key'}`;
  const from = via.startsWith('algorithmRef') || via === 'algorithm' ? '' : `, ${via}`;
  return { ...judged, name, seen, reasons: [`${label}: ${judged.algorithm ?? judged.name} (${judged.section})${from}`] };
}
