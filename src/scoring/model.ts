// The scoring model (docs/scoring.md is its definition; the constants here are the ones it names).
// Every finding costs a penalty >= 0; a subject's score on an axis is 100 * e^(-P / SCALE) where P is
// the sum of its findings' penalties on that axis. So a score never leaves 0..100 (saturates), and
// removing any finding can only raise it (monotone). Plain functions: the scoring consumer, ranking,
// simulation and the tests all call these.

export const AXES = ['pqc', 'vuln', 'agility'] as const;
export type Axis = (typeof AXES)[number];

export const BANDS = ['strong', 'fair', 'weak', 'critical'] as const;
export type Band = (typeof BANDS)[number];

export const CRITICALITIES = ['high', 'medium', 'low', 'unclassified'] as const;
export type Criticality = (typeof CRITICALITIES)[number];

/** How much a subject counts in its portfolio's mean (ARCHITECTURE section 6). */
export const CRITICALITY_WEIGHT: Record<Criticality, number> = { high: 4, medium: 2, low: 1, unclassified: 2 };

/** The penalty that takes a score from 100 to 100/e (about 37). */
export const SCALE = 25;

/** How the axes combine into the overall score. */
export const AXIS_WEIGHT: Record<Axis, number> = { vuln: 0.4, pqc: 0.4, agility: 0.2 };

/** A score from the sum of penalties on one axis. */
export const scoreOf = (penalty: number): number => 100 * Math.exp(-Math.max(0, penalty) / SCALE);

export function bandOf(score: number): Band {
  if (score >= 85) return 'strong';
  if (score >= 65) return 'fair';
  if (score >= 40) return 'weak';
  return 'critical';
}

/** Scores as answers show them: one decimal. Rounding never breaks monotonicity (it is monotone itself). */
export const shown = (score: number): number => Math.round(score * 10) / 10;

export const overallOf = (scores: Record<Axis, number>): number => AXES.reduce((sum, axis) => sum + AXIS_WEIGHT[axis] * scores[axis], 0);

/** How many places use a thing: 1 place counts 1, each doubling adds 1, at most 4 (8 places and more). */
export const usageFactor = (places: number | null | undefined): number => Math.min(4, 1 + Math.log2(Math.max(1, places ?? 1)));

// ---- vuln ----

/** The CVSS base score assumed when an advisory has none (a medium, as Dependency-Track's "unassigned" is). */
export const UNKNOWN_CVSS = 5;
/** Scores by label, for advisories that state only a label. */
const LABEL_CVSS: Record<string, number> = { critical: 9.5, high: 7.5, medium: 5.5, low: 2.5 };
/** A vulnerability nobody can fix yet by upgrading counts less: it can only be mitigated, and has no patch to diff. */
export const NO_FIX_FACTOR = 0.75;

export interface VulnInput {
  /** CVSS base score, when known. */
  score: number | null;
  label: string | null;
  fixAvailable: boolean;
  /** Places the vulnerable component is used. */
  uses: number;
}

/** Severity weight: the CVSS score squared over 10 (critical 9.8 -> 9.6, high 7.5 -> 5.6, medium 5.0 -> 2.5, low 2.0 -> 0.4). */
export const severityWeight = (score: number | null, label: string | null): number => {
  const s = score ?? (label ? LABEL_CVSS[label] : undefined) ?? UNKNOWN_CVSS;
  return (s * s) / 10;
};

export const vulnPenalty = (f: VulnInput): number =>
  severityWeight(f.score, f.label) * (f.fixAvailable ? 1 : NO_FIX_FACTOR) * usageFactor(f.uses);

// ---- pqc ----

/** Section weights: what is broken or quantum-vulnerable costs most; transition and green cost nothing. */
export const SECTION_WEIGHT: Record<string, number> = { red: 6, unclassified: 3, yellow: 2, transition: 0, green: 0 };

const DAY_MS = 86_400_000;
/** Closer deadlines cost more: passed 2, within 2 years 1.5, within 5 years 1.25, later or none 1. */
export function urgencyFactor(deadline: string | null, asOf: string): number {
  if (!deadline) return 1;
  const days = (Date.parse(`${deadline.slice(0, 10)}T23:59:59Z`) - Date.parse(asOf)) / DAY_MS;
  if (Number.isNaN(days)) return 1;
  if (days < 0) return 2;
  if (days <= 2 * 365) return 1.5;
  if (days <= 5 * 365) return 1.25;
  return 1;
}

export interface PqcInput {
  section: string;
  deadline: string | null;
  /** Occurrences in the BOM's evidence, or how often a runtime survey observed it. */
  uses: number;
}

export const pqcPenalty = (f: PqcInput, asOf: string): number =>
  (SECTION_WEIGHT[f.section] ?? SECTION_WEIGHT.unclassified!) * urgencyFactor(f.deadline, asOf) * usageFactor(f.uses);

// ---- agility ----

/** The agility penalties, by what makes cryptography hard to replace. */
export const AGILITY_PENALTY = {
  /** An algorithm chosen in first-party source code (per use, times usage). */
  hardCoded: 1,
  /** A crypto library with no release that supports ML-KEM / ML-DSA: it has to be replaced. */
  libraryWithoutPqc: 4,
  /** A crypto library below its first release with ML-KEM / ML-DSA: an upgrade away. */
  libraryBelowPqc: 3,
  /** A crypto library whose version is unknown: it may or may not be capable. */
  libraryVersionUnknown: 1,
  /** A protocol pinned to one cipher suite, or of a kind that does not negotiate algorithms. */
  fixedProtocol: 1,
  /** Each implementation of a primitive beyond the first: every one has to be migrated. */
  extraImplementation: 1,
} as const;
