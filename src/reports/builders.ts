// What each report type is made of (ARCHITECTURE section 5): which analysis rows become its entries,
// its sections, its headline figures and non-list sections. Plain functions over plain data; the
// report consumer (src/queues/reports.ts) feeds them rows and writes what they answer.
import { statedDate } from '../lib/dates';
import type { JsonObject } from '../lib/json';
import type { AnalysisRow, ContentKind } from '../analysis/types';
import type { ReportType } from './report-types';
import { cycloneDxComponentOf } from './cyclonedx';
import type { EntryDecision } from '../triage/match';

/**
 * The decision an analysis row's finding falls under (triage): its entry carries it, and a finding it
 * suppresses is counted apart (`suppressed`), outside the figures the CLI's gate reads.
 */
export type EntryDecider = (row: AnalysisRow, kind: ContentKind) => EntryDecision | null;
const undecided: EntryDecider = () => null;

/** An entry before it has a position in its section. */
export interface EntryDraft {
  section: string;
  key: string;
  purl: string | null;
  name: string;
  explanation: string | null;
  data: JsonObject;
}

/** Collects one report's entries and answers its figures and non-list sections. */
export interface ReportTally {
  add(row: AnalysisRow, kind: ContentKind): EntryDraft | null;
  /** The step's headline figures (without changes, which the project object adds). */
  figures(): JsonObject;
  /** Non-list sections, whole (e.g. `overview`). */
  objects(): Record<string, JsonObject>;
}

export interface ReportBuilder {
  type: ReportType;
  /** The analysis rows read for entries, in this order. */
  kinds: ContentKind[];
  listSections: readonly string[];
  objectSections: readonly string[];
  /** The sections whose `new`/`gone` counts the figures carry (none for the cbom). */
  changeSections: readonly string[];
  tally(decide?: EntryDecider): ReportTally;
}

export const PQC_SECTIONS = ['red', 'yellow', 'transition', 'green', 'unclassified'] as const;
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'unknown'] as const;
export const ASSET_SECTIONS = ['algorithm', 'certificate', 'protocol', 'related-crypto-material'] as const;

/** Findings a decision suppressed, counted apart from the figures (`suppressed`, present when any was): their total and per section or severity. */
export function suppressedFigure(counts: Record<string, number>, by: 'sections' | 'severities'): JsonObject {
  const findings = Object.values(counts).reduce((a, b) => a + b, 0);
  return findings ? { suppressed: { findings, [by]: counts } } : {};
}

const zeroes = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, 0])) as Record<string, number>;
const str = (v: unknown) => (typeof v === 'string' ? v : null);

const pqcInventory: ReportBuilder = {
  type: 'pqc-inventory',
  kinds: ['crypto_finding', 'runtime_finding'],
  listSections: PQC_SECTIONS,
  objectSections: ['overview'],
  changeSections: PQC_SECTIONS,
  tally(decide = undecided) {
    const sections = zeroes(PQC_SECTIONS);
    const suppressed = zeroes(PQC_SECTIONS);
    const primitives: Record<string, number> = {};
    const cnsa2 = { approved: 0, not_approved: 0 };
    let nearest: string | null = null;
    let overdue = 0;
    let observed = 0;
    const today = new Date().toISOString().slice(0, 10);
    return {
      add(row, kind) {
        const d = row.data;
        const section = PQC_SECTIONS.includes(d.section) ? (d.section as string) : 'unclassified';
        const decision = decide(row, kind);
        const entry = { section, key: row.key, purl: row.purl, name: row.name, explanation: str(d.explanation), data: { ...d, section, ...(decision ? { decision } : {}) } };
        if (decision?.suppressed) {
          suppressed[section]! += 1;
          return entry;
        }
        sections[section]! += 1;
        const primitive = str(d.primitive) ?? 'unknown';
        primitives[primitive] = (primitives[primitive] ?? 0) + 1;
        if (d.cnsa2?.approved) cnsa2.approved += 1;
        else cnsa2.not_approved += 1;
        // The nearest date still ahead; dates already passed (disallowed since) are counted as overdue.
        const deadline = str(d.deadline);
        if (deadline && section !== 'green' && deadline < today) overdue += 1;
        else if (deadline && section !== 'green' && (!nearest || deadline < nearest)) nearest = deadline;
        if (typeof d.observed === 'number') observed += d.observed;
        return entry;
      },
      figures: () => ({ sections, cnsa2, nearest_deadline: nearest, overdue, ...suppressedFigure(suppressed, 'sections') }),
      objects: () => ({
        overview: {
          total: Object.values(sections).reduce((a, b) => a + b, 0), sections, primitives, cnsa2, nearest_deadline: nearest, overdue,
          ...(observed ? { observed_uses: observed } : {}), ...suppressedFigure(suppressed, 'sections'),
        },
      }),
    };
  },
};

const cbom: ReportBuilder = {
  type: 'cbom',
  kinds: ['crypto_asset', 'observation'],
  listSections: ASSET_SECTIONS,
  objectSections: [],
  changeSections: [],
  tally() {
    const assetTypes = zeroes(ASSET_SECTIONS);
    return {
      add(row, kind) {
        const component = cycloneDxComponentOf(row, kind);
        const section = (component.cryptoProperties as JsonObject).assetType as string;
        assetTypes[section]! += 1;
        return { section, key: row.key, purl: row.purl, name: row.name, explanation: null, data: component };
      },
      figures: () => ({ asset_types: assetTypes }),
      objects: () => ({}),
    };
  },
};

/**
 * Composition: one entry per finding (a component and an advisory affecting it), in the section of the
 * advisory's severity. Its figures count both, labelled: `findings` (the pairs, which the sections and
 * `severities` add up to) and `advisories` (distinct ids, which `advisory_severities` add up to).
 */
const composition: ReportBuilder = {
  type: 'composition',
  kinds: ['vuln_finding'],
  listSections: SEVERITIES,
  objectSections: ['overview'],
  changeSections: SEVERITIES,
  tally(decide = undecided) {
    const severities = zeroes(SEVERITIES);
    const suppressed = zeroes(SEVERITIES);
    const vulnerable = new Set<string>();
    const fixable = new Set<string>();
    const advisories = new Map<string, string>();
    const counts = () => {
      const advisorySeverities = zeroes(SEVERITIES);
      for (const severity of advisories.values()) advisorySeverities[severity]! += 1;
      const findings = Object.values(severities).reduce((sum, n) => sum + n, 0);
      return {
        vulnerable_components: vulnerable.size, advisories: advisories.size, findings, fixable: fixable.size, severities, advisory_severities: advisorySeverities,
        ...suppressedFigure(suppressed, 'severities'),
      };
    };
    // `components` (every component, vulnerable or not) is counted by the consumer as it writes the document.
    return {
      add(row, kind) {
        const d = row.data;
        const section = SEVERITIES.includes(d.severity?.label) ? (d.severity.label as string) : 'unknown';
        const decision = decide(row, kind);
        const data = { ...d, section, published: statedDate(d.published), modified: statedDate(d.modified), ...(decision ? { decision } : {}) };
        const entry = { section, key: row.key, purl: row.purl, name: row.name, explanation: str(d.explanation), data };
        if (decision?.suppressed) {
          suppressed[section]! += 1;
          return entry;
        }
        severities[section]! += 1;
        const component = String(d.component_key ?? row.purl ?? row.name);
        vulnerable.add(component);
        if (d.fix_version) fixable.add(component);
        // An advisory has one severity; the first seen stands should records ever disagree.
        if (!advisories.has(String(d.advisory_id))) advisories.set(String(d.advisory_id), section);
        return entry;
      },
      figures: counts,
      objects: () => ({ overview: counts() }),
    };
  },
};

export const REPORT_BUILDERS: Record<ReportType, ReportBuilder> = { 'pqc-inventory': pqcInventory, cbom, composition };

/** The summary's section list: list sections with their totals, then the non-list ones. */
export function sectionList(builder: ReportBuilder, totals: Record<string, number>): JsonObject[] {
  return [
    ...builder.objectSections.map((name) => ({ name, kind: 'object' })),
    ...builder.listSections.map((name) => ({ name, kind: 'list', total: totals[name] ?? 0 })),
  ];
}
