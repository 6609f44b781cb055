// Which decision a finding falls under: a vulnerability by its advisory (or an alias), package and
// version; a cryptographic finding (the post-quantum axis) by its algorithm's fix row or its asset; both
// narrowed to a subject when the decision names one. Of several decisions, the one decided last applies.
import type { ScoredFinding } from '../scoring/findings';
import { parseVers, versContains, type Vers } from './vers';
import type { NormalScope, StoredState } from './decision';

/** A decision's current version as matching reads it. */
export interface ScopedDecision extends NormalScope {
  id: string;
  state: StoredState;
  expires: string | null;
  decided_at: string;
}

/** Decisions prepared for matching many findings: ranges parsed once. */
export interface DecisionIndex {
  vulnerability: Map<string, (ScopedDecision & { range: Vers | null })[]>;
  algorithm: Map<string, ScopedDecision[]>;
  asset: Map<string, ScopedDecision[]>;
}

const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** Indexes decisions by advisory, algorithm and asset. */
export function indexDecisions(decisions: ScopedDecision[]): DecisionIndex {
  const index: DecisionIndex = { vulnerability: new Map(), algorithm: new Map(), asset: new Map() };
  for (const d of decisions) {
    if (d.type === 'vulnerability' && d.advisory_id) {
      const range = d.version_range ? parseVers(d.version_range) : null;
      push(index.vulnerability, d.advisory_id.toUpperCase(), { ...d, range: typeof range === 'string' ? null : range });
    } else if (d.algorithm) push(index.algorithm, d.algorithm.toUpperCase(), d);
    else if (d.asset) push(index.asset, d.asset, d);
  }
  return index;
}

const inSubject = (d: ScopedDecision, subject: string) => d.subject === null || d.subject === subject;
const later = (d: ScopedDecision, best: ScopedDecision | null) => !best || d.decided_at > best.decided_at || (d.decided_at === best.decided_at && d.id > best.id);

/** The decision a scored finding falls under, or null. */
export function decisionOf(index: DecisionIndex, finding: ScoredFinding): ScopedDecision | null {
  const detail = finding.detail;
  if (finding.axis === 'vuln') {
    const ids = [finding.findingKey, ...(Array.isArray(detail.aliases) ? detail.aliases as string[] : [])];
    const version = typeof detail.version === 'string' ? detail.version : null;
    const ecosystem = typeof detail.ecosystem === 'string' ? detail.ecosystem : null;
    let best: ScopedDecision | null = null;
    for (const id of ids) {
      for (const d of index.vulnerability.get(String(id).toUpperCase()) ?? []) {
        if (!inSubject(d, finding.subject) || (d.package !== null && d.package !== finding.itemKey)) continue;
        if (d.version !== null && d.version !== version) continue;
        if (d.version_range !== null && (!d.range || version === null || !versContains(d.range, version, ecosystem))) continue;
        if (later(d, best)) best = d;
      }
    }
    return best;
  }
  if (finding.axis !== 'pqc') return null;
  const algorithm = finding.itemKey?.startsWith('algorithm:') ? finding.itemKey.slice('algorithm:'.length).toUpperCase() : null;
  const candidates = [...(algorithm ? index.algorithm.get(algorithm) ?? [] : []), ...(index.asset.get(finding.findingKey) ?? [])];
  let best: ScopedDecision | null = null;
  for (const d of candidates) if (inSubject(d, finding.subject) && later(d, best)) best = d;
  return best;
}
