// What-if simulation (spec 4.1 rules 11 and 12): each fix names a ranked row and what of it is fixed;
// the projected scores come from the same computation as ranking (portfolio.ts `gainOf`), over the
// stored model, so nothing is recomputed from the findings and nothing is stored.
import { packageOf } from '../analysis/vulns/ecosystem';
import { compareVersions } from '../analysis/vulns/versions';
import { invalidRequest } from '../lib/errors';
import type { JsonObject } from '../lib/json';
import { packageItemKey } from './findings';
import { gainAnswer, gainOf, portfolioScores, rounded, scoreAnswer, totalWeightOf, withoutEffects, type Effect, type PortfolioModel } from './portfolio';

export interface Fix {
  item_key?: string;
  finding_key?: string;
  dependency?: string;
  upgrade_to?: string;
}

export interface StoredRow {
  itemKey: string;
  row: JsonObject;
  effects: Effect[];
}

/** The most fixes one simulation takes (before repeats are dropped): every row of a large portfolio's first rank page. */
export const MAX_FIXES = 1000;

/** The fixes of a request body: one fix, a list, or `{fixes: [...]}`, each once; 400 when none or more than MAX_FIXES. */
export function fixesOf(body: unknown): Fix[] {
  const list = Array.isArray(body) ? body
    : body && typeof body === 'object' && Array.isArray((body as { fixes?: unknown }).fixes) ? (body as { fixes: unknown[] }).fixes
      : body && typeof body === 'object' && Object.keys(body).length ? [body] : [];
  if (!list.length) throw invalidRequest('Give at least one fix: {item_key, finding_key?, dependency?, upgrade_to?}, a list of them, or {fixes: [...]}.');
  if (list.length > MAX_FIXES) throw invalidRequest(`At most ${MAX_FIXES.toLocaleString('en')} fixes can be simulated at once; this request has ${list.length}.`);
  const unique = new Map<string, Fix>();
  list.forEach((raw, i) => {
    const fix = raw as Fix;
    const at = list.length > 1 ? ` (fix ${i + 1})` : '';
    if (!fix || typeof fix !== 'object' || typeof fix.item_key !== 'string' || !fix.item_key) throw invalidRequest(`Every fix names a ranked row by item_key${at}.`);
    if (fix.finding_key !== undefined && fix.dependency !== undefined) throw invalidRequest(`A fix gives finding_key or dependency, never both${at}.`);
    for (const field of ['finding_key', 'dependency', 'upgrade_to'] as const) {
      if (fix[field] !== undefined && (typeof fix[field] !== 'string' || !fix[field])) throw invalidRequest(`${field} is a non-empty string${at}.`);
    }
    // The same fix twice is one fix: it is resolved (and its upgrade checked) once.
    const clean: Fix = { item_key: fix.item_key, finding_key: fix.finding_key, dependency: fix.dependency, upgrade_to: fix.upgrade_to };
    const key = JSON.stringify([clean.item_key, clean.finding_key ?? null, clean.dependency ?? null, clean.upgrade_to ?? null]);
    if (!unique.has(key)) unique.set(key, Object.fromEntries(Object.entries(clean).filter(([, v]) => v !== undefined)) as Fix);
  });
  return [...unique.values()];
}

/** The item keys simulation must read: each fix's row and, for a dependency, the library's own row. */
export const rowsNeeded = (fixes: Fix[]): string[] => fixes.flatMap((f) => [f.item_key!, ...(f.dependency ? [packageItemKey(f.dependency)] : [])]);

/** A library the row bundles, matched by package URL (with or without version) or name. */
function bundled(row: JsonObject, dependency: string): JsonObject | undefined {
  const wanted = dependency.startsWith('pkg:') ? packageItemKey(dependency) : dependency;
  return (row.dependencies as JsonObject[] | undefined ?? []).find((d) => (d.purl && packageItemKey(String(d.purl)) === wanted) || d.name === wanted);
}

/** An upgrade a fix asks for: the row's packages (every installed flavour) and the version. */
export interface UpgradeAsk {
  itemKey: string;
  items: JsonObject[];
  version: string;
}

/**
 * Checks upgrades against the vulnerability data: for each asked upgrade, in order, the advisory ids
 * its version is still affected by. Called once per simulation with every upgrade, so the data is
 * read in one lookup however many fixes there are.
 */
export interface UpgradeCheck {
  stillAffected: (asks: UpgradeAsk[]) => Promise<Set<string>[]>;
}

export interface ResolvedFix {
  fix: Fix;
  effects: Effect[];
}

/** Which findings (effects) each fix removes; 400 for every case of rule 12. */
export async function resolveFixes(fixes: Fix[], rows: Map<string, StoredRow>, check: UpgradeCheck): Promise<ResolvedFix[]> {
  const drafts = fixes.map((fix, i) => draftFix(fix, rows, fixes.length > 1 ? ` (fix ${i + 1})` : ''));
  const upgrades = drafts.filter((d) => d.fix.upgrade_to !== undefined);
  for (const d of upgrades) refuseDowngrade(d.target, d.fix.upgrade_to!, d.at);
  const affected = upgrades.length
    ? await check.stillAffected(upgrades.map((d) => ({ itemKey: d.target.itemKey, items: itemsOf(d.target), version: d.fix.upgrade_to! })))
    : [];
  upgrades.forEach((d, i) => (d.effects = upgraded(d.target, d.effects, d.fix.upgrade_to!, affected[i]!, d.at)));
  return drafts.map(({ fix, effects }) => ({ fix, effects }));
}

interface DraftFix {
  fix: Fix;
  /** The row an upgrade applies to: the fix's own, or the library's row for a `dependency`. */
  target: StoredRow;
  effects: Effect[];
  /** " (fix n)" in messages of a request with several fixes. */
  at: string;
}

/** A fix's row and the effects it removes before any upgrade is checked; 400 for a row, finding or library it does not name. */
function draftFix(fix: Fix, rows: Map<string, StoredRow>, at: string): DraftFix {
  const row = rows.get(fix.item_key!);
  if (!row) throw invalidRequest(`${JSON.stringify(fix.item_key)} is not a row of the portfolio's ranked fixes${at}.`);
  let target = row;
  let effects = row.effects;
  if (fix.finding_key !== undefined) {
    effects = row.effects.filter((e) => e.k === fix.finding_key);
    if (!effects.length) throw invalidRequest(`The row ${fix.item_key} carries no finding ${JSON.stringify(fix.finding_key)}${at}.`);
  } else if (fix.dependency !== undefined) {
    const library = bundled(row.row, fix.dependency);
    if (!library) throw invalidRequest(`The row ${fix.item_key} bundles no library ${JSON.stringify(fix.dependency)}${at}.`);
    // The library's own findings, in the subjects this row reaches (where it bundles the library).
    const reach = new Set((row.row.reach as { subjects: string[] }).subjects);
    const own = library.purl ? rows.get(packageItemKey(String(library.purl))) : undefined;
    effects = own ? own.effects.filter((e) => reach.has(e.s)) : [];
    if (own) target = own;
  }
  return { fix, target, effects, at };
}

const itemsOf = (row: StoredRow) => (row.row.items as JsonObject[] | undefined) ?? [];

/** 400 when the row is a migration, or `version` is below a version installed in some subject. */
function refuseDowngrade(row: StoredRow, version: string, at: string): void {
  if (!row.itemKey.startsWith('pkg:')) throw invalidRequest(`${row.itemKey} is a migration, not a package: upgrade_to cannot apply to it${at}.`);
  const ecosystem = packageOf(`${row.itemKey}@${version}`)?.ecosystem;
  for (const item of itemsOf(row)) {
    const installed = typeof item.version === 'string' ? item.version : null;
    if (!installed || !ecosystem) continue;
    let order: number;
    try {
      order = compareVersions(ecosystem, version, installed);
    } catch {
      continue;
    }
    if (order < 0) throw invalidRequest(`upgrade_to ${version} is below the installed version ${installed} (${String(item.subject)})${at}.`);
  }
}

/** The effects an upgrade to `version` removes (`affected`: the advisories it is still inside); 400 when it cannot fix them. */
function upgraded(row: StoredRow, effects: Effect[], version: string, affected: Set<string>, at: string): Effect[] {
  const ecosystem = packageOf(`${row.itemKey}@${version}`)?.ecosystem;
  const still = effects.filter((e) => e.a === 'vuln' && affected.has(e.k));
  if (still.length) throw invalidRequest(`${version} is still inside an affected range of ${[...new Set(still.map((e) => e.k))].join(', ')}${at}: it cannot fix them.`);
  // A crypto library's post-quantum support comes with the release that added it.
  const findings = (row.row.findings as JsonObject[] | undefined) ?? [];
  return effects.filter((e) => {
    if (e.a !== 'agility') return true;
    const since = findings.find((f) => f.finding_key === e.k)?.upgrade_to;
    if (typeof since !== 'string' || !ecosystem) return true;
    try {
      return compareVersions(ecosystem, version, since) >= 0;
    } catch {
      return true;
    }
  });
}

/** The simulation answer: current and projected scores, the gain, what each fix does; with `rank`, the rows re-ranked. */
export function simulation(model: PortfolioModel, resolved: ResolvedFix[], allRows?: StoredRow[]): JsonObject {
  const effects = resolved.flatMap((r) => r.effects);
  const current = portfolioScores(model);
  const after = withoutEffects(model, effects);
  const projected = portfolioScores(after);
  const totalWeight = totalWeightOf(model);
  const gain = gainOf(model, effects, totalWeight);
  const answer: JsonObject = {
    current: scoreAnswer(current) as unknown as JsonObject,
    projected: { ...scoreAnswer(projected), projected: true } as unknown as JsonObject,
    gain: gainAnswer(gain),
    fixes: resolved.map(({ fix, effects: fixed }) => ({
      ...fix, findings_fixed: new Set(fixed.map((e) => `${e.s}\u0000${e.f}`)).size, subjects: new Set(fixed.map((e) => e.s)).size,
      gain: rounded(gainOf(model, fixed, totalWeight).overall),
    })),
  };
  if (allRows) answer.rank = rerank(after, effects, allRows) as unknown as JsonObject;
  return answer;
}

/** Every row still worth something after the fixes, ordered by its gain from there. */
function rerank(after: PortfolioModel, applied: Effect[], rows: StoredRow[]): JsonObject[] {
  const gone = new Set(applied.map((e) => `${e.s}\u0000${e.a}\u0000${e.f}`));
  const totalWeight = totalWeightOf(after);
  const ranked = rows.map((r) => {
    const left = r.effects.filter((e) => !gone.has(`${e.s}\u0000${e.a}\u0000${e.f}`));
    return { r, left, gain: left.length ? gainOf(after, left, totalWeight) : null };
  }).filter((x) => x.gain && x.gain.overall > 0);
  ranked.sort((a, b) => b.gain!.overall - a.gain!.overall || a.r.itemKey.localeCompare(b.r.itemKey));
  return ranked.map(({ r, gain }, i) => ({
    rank: i + 1, previous_rank: r.row.rank ?? null, item_key: r.itemKey, name: r.row.name ?? null, kind: r.row.kind ?? null,
    gain: { overall: rounded(gain!.overall) }, fix_version: r.row.fix_version ?? null,
  }));
}
