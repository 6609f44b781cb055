// Which decision a finding falls under: a vulnerability by its advisory (or an alias), package and
// version; a cryptographic finding (the post-quantum axis) by its algorithm's fix row or its asset; both
// narrowed to a subject when the decision names one. Of several decisions, the one decided last applies.
import type { JsonObject } from '../lib/json';
import { algorithmItemKey, packageItemKey, type ScoredFinding } from '../scoring/findings';
import { parseVers, versContains, type Vers } from './vers';
import { suppresses, type NormalScope, type StoredState } from './decision';

/** A decision's current version as matching reads it. */
export interface ScopedDecision extends NormalScope {
  id: string;
  state: StoredState;
  justification: string | null;
  response: string[];
  detail: string | null;
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

/** The finding a report entry's analysis row stands for, as matching reads it (vulnerability and post-quantum findings only). */
function findingOfRow(subject: string, kind: string, data: JsonObject): ScoredFinding | null {
  if (kind === 'vuln_finding' && typeof data.advisory_id === 'string' && typeof data.purl === 'string') {
    return { subject, id: '', axis: 'vuln', findingKey: data.advisory_id, itemKey: packageItemKey(data.purl), penalty: 0, detail: data };
  }
  if (kind === 'crypto_finding' || kind === 'runtime_finding') {
    return { subject, id: '', axis: 'pqc', findingKey: String(data.key), itemKey: algorithmItemKey(data), penalty: 0, detail: data };
  }
  return null;
}

/** A decision as a report entry carries it. */
export type EntryDecision = { id: string; state: StoredState; justification: string | null; response: string[]; expires: string | null; suppressed: boolean };

/** The decision an analysis row (its kind and data) falls under, or null. */
export function rowDecision(index: DecisionIndex, subject: string, kind: string, data: JsonObject): ScopedDecision | null {
  const finding = findingOfRow(subject, kind, data);
  return finding && decisionOf(index, finding);
}

/** The decision a report entry (its analysis row's kind and data) falls under, as the entry carries it; null when none. */
export function entryDecision(index: DecisionIndex, subject: string, kind: string, data: JsonObject, now: Date): EntryDecision | null {
  const d = rowDecision(index, subject, kind, data);
  if (!d) return null;
  return { id: d.id, state: d.state, justification: d.justification, response: d.response, expires: d.expires, suppressed: suppresses(d, now) };
}

/** Whether any decision is indexed (reports and summaries skip matching when none is). */
export const hasDecisions = (index: DecisionIndex): boolean => index.vulnerability.size + index.algorithm.size + index.asset.size > 0;
