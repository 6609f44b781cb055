// What the portfolio pages read from the API (spec 4.1; field names from src/routes/portfolios/
// portfolios.schemas.ts) and the plain functions shaping it into rows: members typed from a form,
// history grouped by axis, the ranked-fix selection carried in the URL and turned into simulated fixes.
export const AXES = ['pqc', 'vuln', 'agility'] as const;
export type Axis = (typeof AXES)[number];
export type Band = 'strong' | 'fair' | 'weak' | 'critical' | null;

export const AXIS_LABEL: Record<Axis, string> = { pqc: 'Post-quantum (pqc)', vuln: 'Vulnerabilities (vuln)', agility: 'Crypto agility (agility)' };

export interface Member { member_type: 'subject' | 'package'; value: string }
export interface PortfolioEntry {
  portfolio_id: string;
  name: string;
  is_implicit: boolean;
  members: Member[];
  scoring: 'unscored' | 'rescoring' | 'scored';
  score: number | null;
  band: Band;
  scored_at: string | null;
  created_at: string;
  updated_at: string;
}
export interface Portfolio extends PortfolioEntry {
  settings: { bands?: { strong?: number; fair?: number; weak?: number }; [key: string]: unknown };
}

export interface Score {
  score: number | null;
  band: Band;
  axes: Record<Axis, { score: number | null; band: Band }>;
}
export interface Costly { subject?: string; axis: Axis; finding_key: string; item_key: string | null; points: number; name: string | null; explanation?: string | null }
export interface SubjectScore {
  subject: string;
  criticality: string;
  weight: number;
  score: number | null;
  band: Band;
  axes: Record<Axis, number | null>;
  findings: number;
  costliest: Costly[];
}
export interface State {
  portfolio_id: string;
  name: string;
  score: Score;
  subjects: number;
  findings: number;
  fixes: number;
  breakdown: {
    axes: Record<Axis, { score: number | null; band: Band; weight: number; findings: number; costliest: Costly[] }>;
    subjects: SubjectScore[];
  };
  computed_at: string;
  as_of: string;
}

export type Cause = 'survey' | 'membership' | 'rating' | 'vulnerability-data' | 'snapshot' | 'backfill' | 'decision';
export interface HistoryRow { axis: Axis; score: number; band: Band; cause: Cause; at: string }

export const CAUSE_LABEL: Record<Cause, string> = {
  survey: 'a survey completed',
  membership: 'members changed',
  rating: 'a subject was rated',
  'vulnerability-data': 'new vulnerability data',
  snapshot: 'daily snapshot',
  backfill: 'replayed past survey',
  decision: 'a finding was decided',
};
/** The letter a chart point carries for its cause (the legend and the table say it in words). */
export const CAUSE_MARK: Record<Cause, string> = { survey: 'S', membership: 'M', rating: 'R', 'vulnerability-data': 'V', snapshot: 'D', backfill: 'B', decision: 'T' };

export interface RankFinding {
  finding_key: string; axis: Axis; points: number; subjects: number;
  advisory_id?: string; summary?: string | null; severity?: string | null; library?: string; name?: string | null; section?: string | null;
  /** The decision keeping it counted (in triage, exploitable), when one covers it everywhere. */
  decision?: { id: string; state: string };
}
export interface RankRow {
  rank: number;
  item_key: string;
  kind: 'package' | 'algorithm';
  name: string;
  action: 'upgrade' | 'migrate';
  gain: { overall: number } & Record<Axis, number>;
  fix_version: string | null;
  replacement: string | null;
  findings: RankFinding[];
  findings_total?: number;
  reach: { count: number; subjects: string[] };
  dependencies: { purl: string | null; name: string; versions: string[] }[];
}
export interface RankPage { rows: RankRow[]; total: number; offset: number; limit: number }

export interface Fix { item_key: string; finding_key?: string; dependency?: string }
export interface Simulation {
  current: Score;
  projected: Score & { projected: true };
  gain: { overall: number } & Record<Axis, number>;
  fixes: (Fix & { findings_fixed: number; subjects: number; gain: number })[];
  rank?: { rank: number; previous_rank: number | null; item_key: string; name: string | null; kind: string | null; gain: { overall: number }; fix_version: string | null }[];
}

export const portfolioApi = (projectId: string, portfolioId = '') =>
  `/api/v1/project/${projectId}/v1/portfolio${portfolioId ? `/${encodeURIComponent(portfolioId)}` : ''}`;
export const portfolioHref = (projectId: string, portfolioId = '') =>
  `/projects/${projectId}/portfolios${portfolioId ? `/${portfolioId}` : ''}`;

/** Scores as the API shows them (one decimal), or a dash. */
export const scoreText = (score: number | null | undefined): string => (score == null ? '–' : score.toFixed(1));
/** A signed change in points: "+3.2", "−1.0", "0.0". */
export const deltaText = (delta: number): string => (delta > 0 ? `+${delta.toFixed(1)}` : delta < 0 ? `−${Math.abs(delta).toFixed(1)}` : '0.0');

/**
 * Members typed one per line: a package URL (`pkg:…`) is a package, anything else a subject. Blank
 * lines and repeats are dropped; the API checks the rest (a version in a package URL is its 400).
 */
export function membersOf(text: string): { type: 'subject' | 'package'; value: string }[] {
  const seen = new Set<string>();
  const members: { type: 'subject' | 'package'; value: string }[] = [];
  for (const line of text.split(/\r?\n/)) {
    const value = line.trim();
    if (!value) continue;
    const type = value.startsWith('pkg:') ? 'package' : 'subject';
    if (seen.has(`${type}\u0000${value}`)) continue;
    seen.add(`${type}\u0000${value}`);
    members.push({ type, value });
  }
  return members;
}

/** History rows per axis, oldest first (the API lists them in time order, axes interleaved). */
export function historyByAxis(rows: HistoryRow[]): Record<Axis, HistoryRow[]> {
  const by: Record<Axis, HistoryRow[]> = { pqc: [], vuln: [], agility: [] };
  for (const row of rows) by[row.axis]?.push(row);
  for (const axis of AXES) by[axis].sort((a, b) => a.at.localeCompare(b.at));
  return by;
}

// ---- the ranked-fix selection, as it lives in the URL ----
// `row=<item_key>` fixes a whole row; `finding=<item_key> <finding_key>` one finding of it;
// `dep=<item_key> <library>` upgrades a library the row bundles. In the pairs both parts are
// URI-encoded, so the space between them is never part of either.

export interface Selection { rows: string[]; findings: [string, string][]; deps: [string, string][] }

export const pairValue = (itemKey: string, other: string) => `${encodeURIComponent(itemKey)} ${encodeURIComponent(other)}`;

function pairOf(value: string): [string, string] | null {
  const at = value.indexOf(' ');
  if (at <= 0 || at === value.length - 1) return null;
  try {
    return [decodeURIComponent(value.slice(0, at)), decodeURIComponent(value.slice(at + 1))];
  } catch {
    return null;
  }
}

/** At most this many ticks are read from a URL (the API takes 1,000 fixes). */
const MAX_TICKS = 1000;

export function selectionOf(query: (name: string) => string[] | undefined): Selection {
  const unique = <T>(list: T[], key: (t: T) => string) => [...new Map(list.map((t) => [key(t), t])).values()].slice(0, MAX_TICKS);
  const rows = unique((query('row') ?? []).filter((v) => v.length > 0 && v.length <= 2048), (v) => v);
  const pairs = (name: string) => unique((query(name) ?? []).map(pairOf).filter((p): p is [string, string] => p !== null), (p) => JSON.stringify(p));
  return { rows, findings: pairs('finding'), deps: pairs('dep') };
}

export const selectionSize = (s: Selection) => s.rows.length + s.findings.length + s.deps.length;

/**
 * The fixes to simulate: every ticked row whole, single findings of rows not ticked whole (a whole
 * row already fixes them), and upgrades of bundled libraries whose own row is not ticked whole (that
 * row already fixes the library everywhere; naming its findings twice would count them twice).
 */
export function fixesOf(s: Selection): Fix[] {
  const whole = new Set(s.rows);
  return [
    ...s.rows.map((item_key) => ({ item_key })),
    ...s.findings.filter(([item]) => !whole.has(item)).map(([item_key, finding_key]) => ({ item_key, finding_key })),
    ...s.deps.filter(([, library]) => !whole.has(library)).map(([item_key, dependency]) => ({ item_key, dependency })),
  ];
}

/** The selection as query parameters (for links and hidden inputs). */
export function selectionParams(s: Selection): [string, string][] {
  return [
    ...s.rows.map((v): [string, string] => ['row', v]),
    ...s.findings.map(([a, b]): [string, string] => ['finding', pairValue(a, b)]),
    ...s.deps.map(([a, b]): [string, string] => ['dep', pairValue(a, b)]),
  ];
}

export function hrefWith(path: string, params: [string, string | number | null | undefined][]): string {
  const search = new URLSearchParams();
  for (const [name, value] of params) if (value !== null && value !== undefined && value !== '') search.append(name, String(value));
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

/** A non-negative page offset from the query, a multiple of nothing in particular (the API keeps ranks). */
export const offsetOf = (raw: string | undefined): number => {
  const n = Number(raw ?? 0);
  return Number.isInteger(n) && n >= 0 && n <= 10_000_000 ? n : 0;
};
