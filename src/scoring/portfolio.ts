// A portfolio's scores, their breakdown and its ranked fixes (docs/scoring.md). One computation serves
// ranking and simulation: `gainOf` answers how the portfolio's scores rise when some findings are gone,
// touching only the subjects they are in, so the gain of every one of 10,000 rows costs the size of
// that row, not of the portfolio. Ranking and the breakdown of a large portfolio are steps (generators)
// that pause every FINDINGS_PER_PAUSE findings, so the scoring consumer can let other work run between
// them; `rankFixes` and `breakdown` run them through at once.
import type { JsonObject } from '../lib/json';
import { packageItemKey, type ScoredFinding } from './findings';
import { AXES, AXIS_WEIGHT, bandOf, overallOf, scoreOf, shown, type Axis, type Band } from './model';

export type AxisScores = Record<Axis, number>;

/** What simulation needs of a portfolio: its subjects' weights and penalties (stored with its result). */
export interface PortfolioModel {
  /** name -> [weight, pqc penalty, vuln penalty, agility penalty] */
  subjects: Record<string, [number, number, number, number]>;
}

/** One finding's share of a row: which subject's penalty on which axis it removes. */
export interface Effect {
  /** subject */
  s: string;
  a: Axis;
  /** the finding's id in the subject (removed once however often named) */
  f: string;
  /** its finding key in the row (what `finding_key` selects) */
  k: string;
  p: number;
}
export const effectOf = (f: ScoredFinding): Effect => ({ s: f.subject, a: f.axis, f: f.id, k: f.findingKey, p: f.penalty });

const AXIS_INDEX: Record<Axis, 1 | 2 | 3> = { pqc: 1, vuln: 2, agility: 3 };
const zeroes = (): AxisScores => ({ pqc: 0, vuln: 0, agility: 0 });

export interface Scores {
  axes: AxisScores;
  overall: number;
}

/** The portfolio's scores: per axis the criticality-weighted mean of its subjects' scores; null without subjects. */
export function portfolioScores(model: PortfolioModel): Scores | null {
  const sums = zeroes();
  let weight = 0;
  for (const [w, ...penalties] of Object.values(model.subjects)) {
    weight += w;
    for (const axis of AXES) sums[axis] += w * scoreOf(penalties[AXIS_INDEX[axis] - 1]!);
  }
  if (weight === 0) return null;
  const axes = zeroes();
  for (const axis of AXES) axes[axis] = sums[axis] / weight;
  return { axes, overall: overallOf(axes) };
}

/** Sums effects per subject and axis, each (subject, axis, finding) once however often it was named. */
function removals(effects: Iterable<Effect>): Map<string, AxisScores> {
  const seen = new Set<string>();
  const bySubject = new Map<string, AxisScores>();
  for (const e of effects) {
    const id = `${e.s}\u0000${e.a}\u0000${e.f}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const removed = bySubject.get(e.s) ?? zeroes();
    removed[e.a] += e.p;
    bySubject.set(e.s, removed);
  }
  return bySubject;
}

/** How much each axis and the overall score rise when the effects' findings are gone (incremental: only their subjects). */
export function gainOf(model: PortfolioModel, effects: Iterable<Effect>, totalWeight = totalWeightOf(model)): Scores {
  const gain = zeroes();
  if (totalWeight === 0) return { axes: gain, overall: 0 };
  for (const [subject, removed] of removals(effects)) addGain(gain, model, subject, removed, totalWeight);
  return { axes: gain, overall: overallOf(gain) };
}

/** Adds to `gain` what removing `removed` penalty points from one subject's axes raises the portfolio by. */
function addGain(gain: AxisScores, model: PortfolioModel, subject: string, removed: AxisScores, totalWeight: number): void {
  const entry = model.subjects[subject];
  if (!entry) return;
  const [w] = entry;
  for (const axis of AXES) {
    if (removed[axis] === 0) continue;
    const p = entry[AXIS_INDEX[axis]];
    gain[axis] += (w * (scoreOf(p - removed[axis]) - scoreOf(p))) / totalWeight;
  }
}

/**
 * `gainOf` of the findings' effects, without making them: the same sums in the same order (each
 * finding counted once per subject, axis and id), for ranking, which prices every row and every
 * finding key of every row.
 */
function gainOfFindings(model: PortfolioModel, findings: ScoredFinding[], totalWeight: number): Scores {
  const gain = zeroes();
  if (totalWeight === 0) return { axes: gain, overall: 0 };
  if (findings.length === 1) {
    // Most finding keys of a row are one finding: the same sums, without the bookkeeping.
    const [f] = findings as [ScoredFinding];
    const entry = model.subjects[f.subject];
    if (entry && f.penalty !== 0) {
      const p = entry[AXIS_INDEX[f.axis]];
      gain[f.axis] += (entry[0] * (scoreOf(p - f.penalty) - scoreOf(p))) / totalWeight;
    }
    return { axes: gain, overall: overallOf(gain) };
  }
  const bySubject = new Map<string, { removed: AxisScores; taken: ScoredFinding[]; ids?: Set<string> }>();
  for (const f of findings) {
    let entry = bySubject.get(f.subject);
    if (!entry) bySubject.set(f.subject, (entry = { removed: zeroes(), taken: [] }));
    if (alreadyTaken(entry, f)) continue;
    entry.removed[f.axis] += f.penalty;
  }
  for (const [subject, { removed }] of bySubject) addGain(gain, model, subject, removed, totalWeight);
  return { axes: gain, overall: overallOf(gain) };
}

/** Whether a subject's finding with this axis and id was counted already (notes it if not). A row names few per subject: a list, a set past 16. */
function alreadyTaken(entry: { taken: ScoredFinding[]; ids?: Set<string> }, f: ScoredFinding): boolean {
  if (entry.ids) {
    const id = `${f.axis}\u0000${f.id}`;
    if (entry.ids.has(id)) return true;
    entry.ids.add(id);
    return false;
  }
  if (entry.taken.some((t) => t.axis === f.axis && t.id === f.id)) return true;
  entry.taken.push(f);
  if (entry.taken.length > 16) entry.ids = new Set(entry.taken.map((t) => `${t.axis}\u0000${t.id}`));
  return false;
}

export const totalWeightOf = (model: PortfolioModel): number => Object.values(model.subjects).reduce((sum, [w]) => sum + w, 0);

/** The model after the effects' findings are gone (for re-ranking a simulation). */
export function withoutEffects(model: PortfolioModel, effects: Iterable<Effect>): PortfolioModel {
  const subjects = { ...model.subjects };
  for (const [subject, removed] of removals(effects)) {
    const entry = subjects[subject];
    if (!entry) continue;
    subjects[subject] = [entry[0], Math.max(0, entry[1] - removed.pqc), Math.max(0, entry[2] - removed.vuln), Math.max(0, entry[3] - removed.agility)];
  }
  return { subjects };
}

// ---- answers ----

export interface ScoreAnswer {
  score: number | null;
  band: Band | null;
  axes: Record<Axis, { score: number | null; band: Band | null }>;
}

export function scoreAnswer(scores: Scores | null): ScoreAnswer {
  const of = (value: number | null) => ({ score: value === null ? null : shown(value), band: value === null ? null : bandOf(shown(value)) });
  const axes = Object.fromEntries(AXES.map((axis) => [axis, of(scores?.axes[axis] ?? null)])) as ScoreAnswer['axes'];
  return { ...of(scores?.overall ?? null), axes };
}

/** Points and gains as answers show them: two decimals. */
export const rounded = (value: number) => Math.round(value * 100) / 100;
export const gainAnswer = (gain: Scores) => ({ overall: rounded(gain.overall), ...Object.fromEntries(AXES.map((a) => [a, rounded(gain.axes[a])])) });

// ---- pacing ----

/**
 * Findings a step handles before it pauses: about 10 ms of work on the bench's machine, far from the
 * 50 ms a step may hold the thread. A finding placed in a row counts ROW_WORK (merged, listed, priced).
 */
export const FINDINGS_PER_PAUSE = 10_000;
const ROW_WORK = 5;

/** A computation in steps: it yields where it may pause and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs steps through without pausing (tests, small portfolios, simulation). */
export function throughout<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Counts the work done since the last pause. */
class Pace {
  private done = 0;

  /** Notes `findings` more handled; true when it is time to pause. */
  due(findings: number): boolean {
    this.done += findings;
    if (this.done < FINDINGS_PER_PAUSE) return false;
    this.done = 0;
    return true;
  }
}

/** Text order of rows and findings: the default collation, as `localeCompare` without arguments (one collator, not one per call). */
const compareText = new Intl.Collator().compare;

// ---- breakdown ----

/** What one finding alone costs its axis of the portfolio, in points (`gainOf` of that one finding, without its bookkeeping). */
function findingPoints(model: PortfolioModel, f: ScoredFinding, totalWeight: number): number {
  const entry = model.subjects[f.subject];
  if (!entry || totalWeight === 0) return 0;
  const p = entry[AXIS_INDEX[f.axis]];
  return (entry[0] * (scoreOf(p - f.penalty) - scoreOf(p))) / totalWeight;
}

type Priced = { f: ScoredFinding; points: number };
const byCost = (x: Priced, y: Priced) => y.points - x.points || compareText(x.f.findingKey, y.f.findingKey);

/**
 * The findings that cost the most points, each priced as if it alone were fixed; `explained` adds their
 * explanations. The first `limit` of a stable sort by cost, kept while reading (ties keep the earlier).
 */
function* costliest(model: PortfolioModel, findings: ScoredFinding[], limit: number, totalWeight: number, explained: boolean, pace: Pace): Steps<JsonObject[]> {
  const best: Priced[] = [];
  for (const f of findings) {
    const priced = { f, points: findingPoints(model, f, totalWeight) };
    let at = best.length;
    while (at > 0 && byCost(priced, best[at - 1]!) < 0) at--;
    if (at < limit) {
      best.splice(at, 0, priced);
      if (best.length > limit) best.pop();
    }
    if (pace.due(1)) yield;
  }
  return best.map(({ f, points }) => ({
    ...(explained ? { subject: f.subject } : {}), axis: f.axis, finding_key: f.findingKey, item_key: f.itemKey, points: rounded(points),
    name: f.detail.name ?? f.detail.library ?? null, ...(explained ? { explanation: f.detail.explanation ?? null } : {}),
  }));
}

export interface SubjectInfo {
  name: string;
  criticality: string;
  weight: number;
}

/**
 * The state's breakdown: per axis its score and the findings costing the most portfolio points; per
 * subject its own scores and the findings costing it the most.
 */
export const breakdown = (model: PortfolioModel, subjects: SubjectInfo[], findings: ScoredFinding[]): JsonObject => throughout(breakdownSteps(model, subjects, findings));

/** `breakdown` in steps. */
export function* breakdownSteps(model: PortfolioModel, subjects: SubjectInfo[], findings: ScoredFinding[]): Steps<JsonObject> {
  const pace = new Pace();
  const totalWeight = totalWeightOf(model);
  const scores = portfolioScores(model);
  const byAxis: Record<string, ScoredFinding[]> = { pqc: [], vuln: [], agility: [] };
  const bySubject = new Map<string, ScoredFinding[]>();
  for (const f of findings) {
    byAxis[f.axis]!.push(f);
    const list = bySubject.get(f.subject) ?? [];
    list.push(f);
    bySubject.set(f.subject, list);
  }
  const shownScores = scoreAnswer(scores);
  const axes: Record<string, JsonObject> = {};
  for (const axis of AXES) {
    const costly = yield* costliest(model, byAxis[axis]!, 5, totalWeight, true, pace);
    axes[axis] = { ...shownScores.axes[axis], weight: AXIS_WEIGHT[axis], findings: byAxis[axis]!.length, costliest: costly };
  }
  const subjectRows = [];
  for (const s of subjects) {
    const entry = model.subjects[s.name]!;
    const own: PortfolioModel = { subjects: { [s.name]: [1, entry[1], entry[2], entry[3]] } };
    const answer = scoreAnswer(portfolioScores(own));
    const list = bySubject.get(s.name) ?? [];
    subjectRows.push({
      subject: s.name, criticality: s.criticality, weight: s.weight, score: answer.score, band: answer.band,
      axes: Object.fromEntries(AXES.map((axis) => [axis, answer.axes[axis].score])), findings: list.length,
      costliest: yield* costliest(own, list, 3, 1, false, pace),
    });
  }
  subjectRows.sort((a, b) => (a.score ?? 100) - (b.score ?? 100) || compareText(a.subject, b.subject));
  return { axes, subjects: subjectRows };
}

// ---- ranked fixes ----

export interface FixRow {
  itemKey: string;
  gain: Scores;
  /** The row as rank answers it, and its summary form. */
  row: JsonObject;
  summary: JsonObject;
  effects: Effect[];
}

export interface BundledLibrary {
  purl: string | null;
  name: string;
  versions: string[];
}

const SUMMARY_LIMIT = 10;

/** Orders rows best first: the portfolio gain, then the penalty removed, then the key (a stable order). */
function byGain(a: { gain: Scores; removed: number; itemKey: string }, b: { gain: Scores; removed: number; itemKey: string }): number {
  return b.gain.overall - a.gain.overall || b.removed - a.removed || compareText(a.itemKey, b.itemKey);
}

type RankOptions = { fixVersionOf: (itemKey: string, candidates: string[]) => string | null };

/**
 * The ranked fix rows of a portfolio: one per package to upgrade or algorithm to migrate, ordered by the
 * portfolio score gain if that row alone were fixed. `fixVersionOf` picks the version fixing every
 * instance (ecosystem order); `dependencies` lists what each package bundles.
 */
export const rankFixes = (model: PortfolioModel, findings: ScoredFinding[], options: RankOptions): FixRow[] => throughout(rankFixesSteps(model, findings, options));

/** `rankFixes` in steps: pauses between rows and within a row of many findings (one algorithm can reach every subject). */
export function* rankFixesSteps(model: PortfolioModel, findings: ScoredFinding[], options: RankOptions): Steps<FixRow[]> {
  const pace = new Pace();
  const groups = new Map<string, ScoredFinding[]>();
  for (const f of findings) {
    if (!f.itemKey) continue;
    const list = groups.get(f.itemKey) ?? [];
    list.push(f);
    groups.set(f.itemKey, list);
  }
  const totalWeight = totalWeightOf(model);
  const ranked = [];
  for (const [itemKey, list] of groups) {
    const effects = list.map(effectOf);
    const gain = gainOfFindings(model, list, totalWeight);
    const removed = effects.reduce((sum, e) => sum + e.p, 0);
    ranked.push({ itemKey, list, effects, gain, removed });
    if (pace.due(list.length)) yield;
  }
  ranked.sort(byGain);
  const rows: FixRow[] = [];
  for (const [index, { itemKey, list, effects, gain }] of ranked.entries()) {
    const row = yield* fixRow(model, itemKey, list, gain, totalWeight, options, pace);
    rows.push({ itemKey, gain, effects, row: { rank: index + 1, ...row }, summary: { rank: index + 1, ...summarised(row) } });
  }
  return rows;
}

/** The row's findings merged across subjects, most important (most points) first. */
function* rowFindings(model: PortfolioModel, list: ScoredFinding[], totalWeight: number, pace: Pace): Steps<JsonObject[]> {
  const byKey = new Map<string, ScoredFinding[]>();
  for (const f of list) {
    const same = byKey.get(f.findingKey) ?? [];
    same.push(f);
    byKey.set(f.findingKey, same);
  }
  const merged: JsonObject[] = [];
  for (const [key, same] of byKey) {
    merged.push(mergedFinding(model, key, same, totalWeight));
    if (pace.due(ROW_WORK * same.length)) yield;
  }
  return merged.sort((a, b) => (b.points as number) - (a.points as number) || compareText(String(a.finding_key), String(b.finding_key)));
}

/** One finding key of a row, its findings across subjects merged. */
function mergedFinding(model: PortfolioModel, key: string, same: ScoredFinding[], totalWeight: number): JsonObject {
  const points = rounded(gainOfFindings(model, same, totalWeight).overall);
  const d = same[0]!.detail;
  const axis = same[0]!.axis;
  const subjects = same.length === 1 ? 1 : new Set(same.map((f) => f.subject)).size;
  // The decision it is under when every instance is under the same one (triage: in triage or exploitable).
  const decision = d.decision && same.every((f) => (f.detail.decision as JsonObject | undefined)?.id === (d.decision as JsonObject).id) ? { decision: d.decision } : {};
  // No per-finding explanation here: a row can carry thousands of findings; each is explained in its subject's contents and reports.
  // Written out in full rather than spread from common fields: a row can merge thousands.
  if (d.kind === 'advisory') {
    return {
      finding_key: key, axis, points, subjects,
      advisory_id: d.advisory_id, aliases: d.aliases, summary: d.summary, severity: d.severity, cvss: d.cvss, fixed_version: d.fixed_version, ...decision,
    };
  }
  if (d.kind === 'library') return { finding_key: key, axis, points, subjects, library: d.library, pqc_since: d.pqc_since, upgrade_to: d.upgrade_to, source: d.source };
  return {
    finding_key: key, axis, points, subjects,
    name: d.name, asset_type: d.asset_type ?? null, primitive: d.primitive, section: d.section, deadline: d.deadline, replacement: d.replacement, ...decision,
  };
}

/** The libraries a package bundles, across its instances: one entry per package, with the versions seen. */
function bundledLibraries(itemKey: string, list: ScoredFinding[]): BundledLibrary[] {
  const byPackage = new Map<string, BundledLibrary>();
  for (const f of list) {
    for (const b of (f.detail.bundles ?? []) as JsonObject[]) {
      const purl = typeof b.purl === 'string' ? packageItemKey(b.purl) : null;
      const id = purl ?? String(b.name);
      if (id === itemKey) continue;
      const entry = byPackage.get(id) ?? { purl, name: String(b.name), versions: [] };
      if (typeof b.version === 'string' && !entry.versions.includes(b.version)) entry.versions.push(b.version);
      byPackage.set(id, entry);
    }
  }
  return [...byPackage.values()].sort((a, b) => compareText(a.purl ?? a.name, b.purl ?? b.name));
}

function* fixRow(model: PortfolioModel, itemKey: string, list: ScoredFinding[], gain: Scores, totalWeight: number, options: RankOptions, pace: Pace): Steps<JsonObject> {
  const kind = itemKey.startsWith('pkg:') ? 'package' : 'algorithm';
  const ordered = [...list].sort((a, b) => b.penalty - a.penalty);
  const items = new Map<string, JsonObject>();
  const occurrences: JsonObject[] = [];
  for (const f of ordered) {
    const d = f.detail;
    if (kind === 'package') {
      const id = `${f.subject}\u0000${String(d.component_key ?? d.version)}`;
      if (!items.has(id)) {
        items.set(id, { subject: f.subject, name: d.name, version: d.version, purl: d.purl, component_key: d.component_key });
        occurrences.push({ subject: f.subject, version: d.version, source: d.source ?? null, uses: d.uses ?? 1 });
      }
    } else {
      const id = `${f.subject}\u0000${f.findingKey}`;
      if (items.has(id)) continue;
      items.set(id, { subject: f.subject, key: f.findingKey, name: d.name, asset_type: d.asset_type ?? (d.kind === 'runtime' ? 'observation' : null), section: d.section });
      const locations = Array.isArray(d.locations) ? d.locations as string[] : [];
      if (d.kind === 'runtime') occurrences.push({ subject: f.subject, name: d.name, observed: d.uses, library: d.library ?? null });
      else if (locations.length) for (const location of locations) occurrences.push({ subject: f.subject, name: d.name, location });
      else occurrences.push({ subject: f.subject, name: d.name, location: null, uses: d.uses ?? 1 });
    }
    if (pace.due(ROW_WORK)) yield;
  }
  const reach = [...new Set(list.map((f) => f.subject))].sort();
  const first = ordered[0]!.detail;
  const candidates = kind === 'package'
    ? list.flatMap((f) => [f.detail.fix_version, f.detail.upgrade_to]).filter((v): v is string => typeof v === 'string' && v !== '')
    : [];
  return {
    item_key: itemKey,
    kind,
    name: kind === 'package' ? String(first.name ?? itemKey) : itemKey.slice('algorithm:'.length),
    action: kind === 'package' ? 'upgrade' : 'migrate',
    gain: gainAnswer(gain),
    fix_version: kind === 'package' ? options.fixVersionOf(itemKey, candidates) : null,
    replacement: kind === 'algorithm' ? (first.replacement ?? null) : null,
    findings: yield* rowFindings(model, list, totalWeight, pace),
    items: [...items.values()],
    occurrences,
    reach: { count: reach.length, subjects: reach },
    dependencies: kind === 'package' ? bundledLibraries(itemKey, list) : [],
  };
}

/** The summary form: no items, at most 10 findings, occurrences and reached subjects named; reach still counts every subject. */
function summarised(row: JsonObject): JsonObject {
  const { items: _items, findings, occurrences, ...rest } = row;
  const reach = row.reach as { count: number; subjects: string[] };
  return {
    ...rest,
    reach: { count: reach.count, subjects: reach.subjects.slice(0, SUMMARY_LIMIT) },
    findings: (findings as JsonObject[]).slice(0, SUMMARY_LIMIT), findings_total: (findings as JsonObject[]).length,
    occurrences: (occurrences as JsonObject[]).slice(0, SUMMARY_LIMIT), occurrences_total: (occurrences as JsonObject[]).length,
  };
}
