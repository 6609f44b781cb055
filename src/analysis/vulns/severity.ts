// How severe an advisory is: its CVSS vector scored with ae-cvss-calculator, else the label the record
// gives itself.
import * as cvssModule from 'ae-cvss-calculator';
import { memoized } from '../../lib/memo';
import type { OsvAffected, OsvRecord, OsvSeverity, SeverityLabel } from './osv-types';

// A CommonJS bundle: Vite (workerd) hands its classes over under `default`, Node's CommonJS loader as
// named exports; take whichever holds them.
const cvss = ((cvssModule as { default?: typeof cvssModule }).default ?? cvssModule) as typeof cvssModule;
const { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } = cvss;

export interface Severity {
  label: SeverityLabel;
  /** The CVSS base score, when a vector gave the label. */
  score: number | null;
  vector: string | null;
  /** `CVSS_V4`, `CVSS_V3`, `CVSS_V2`, or null for a label the record states. */
  type: string | null;
}

/** The CVSS v3.x / v4.0 qualitative rating of a base score: 9.0+ critical, 7.0+ high, 4.0+ medium, 0.1+ low. */
export function ratingOf(score: number): SeverityLabel {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'unknown';
}

/** CVSS v2 has no "critical": NVD's v2 bands are low (0-3.9), medium (4-6.9), high (7-10). */
const ratingOfV2 = (score: number): SeverityLabel => (score >= 7 ? 'high' : ratingOf(score));

// Scoring a v4 vector takes about 0.3 ms and a survey meets the same few vectors again and again
// (every vulnerable component of a package, every survey of a subject): remember them, boundedly.
const scoreOfVector = memoized((key: string) => {
  const bar = key.indexOf('|');
  return calculateBaseScore({ type: key.slice(0, bar), score: key.slice(bar + 1) });
}, 10_000);

/** The base score of a vector, or null when the calculator cannot read it whole. */
const baseScore = (entry: OsvSeverity): number | null => scoreOfVector(`${entry.type}|${entry.score.trim()}`);

function calculateBaseScore(entry: OsvSeverity): number | null {
  const vector = entry.score.trim();
  try {
    const calculator = entry.type === 'CVSS_V4' && vector.startsWith('CVSS:4.0/') ? new Cvss4P0(vector)
      : entry.type === 'CVSS_V3' && vector.startsWith('CVSS:3.1/') ? new Cvss3P1(vector)
        : entry.type === 'CVSS_V3' && vector.startsWith('CVSS:3.0/') ? new Cvss3P0(vector)
          : entry.type === 'CVSS_V2' && !vector.startsWith('CVSS:') ? new Cvss2(vector) : null;
    // v4's `base` folds in threat and environmental metrics when the vector has them; the CVSS-B score
    // (base metrics only) is the one the rating scale is applied to, as for v3's base score.
    const scores = calculator?.calculateScores() as { base?: number; baseMetricsOnly?: number } | undefined;
    const score = entry.type === 'CVSS_V4' ? scores?.baseMetricsOnly ?? scores?.base : scores?.base;
    return typeof score === 'number' && Number.isFinite(score) ? score : null;
  } catch {
    return null;
  }
}

// The words advisories use: GHSA (LOW, MODERATE, HIGH, CRITICAL), Ubuntu priorities (negligible ...
// critical), Red Hat impacts (low, moderate, important, critical).
const LABELS = new Map<string, SeverityLabel>([
  ['critical', 'critical'], ['important', 'high'], ['high', 'high'], ['moderate', 'medium'], ['medium', 'medium'], ['low', 'low'], ['negligible', 'low'],
]);

/**
 * The advisory's severity for one affected package: a CVSS vector scored, the package's own vectors
 * before the record's. CVSS v4.0 is preferred over v3.x when both are given: it is the current FIRST
 * standard and the newer assessment of the same vulnerability by the same authors (GHSA and NVD add v4
 * to records that already had v3); the vector is returned so a reader can see which one spoke. v2 only
 * when nothing newer scores. Without a vector that scores above 0, the record's own label
 * (`database_specific.severity` as GHSA's `MODERATE`, `ecosystem_specific.severity`, an `Ubuntu`
 * severity entry), else `unknown`.
 */
export function severityOf(record: OsvRecord, affected?: OsvAffected): Severity {
  const entries = [...(affected?.severity ?? []), ...(record.severity ?? [])];
  for (const type of ['CVSS_V4', 'CVSS_V3', 'CVSS_V2']) {
    for (const entry of entries.filter((s) => s.type === type)) {
      const score = baseScore(entry);
      if (score !== null && score > 0) {
        return { label: type === 'CVSS_V2' ? ratingOfV2(score) : ratingOf(score), score, vector: entry.score, type };
      }
    }
  }
  const stated = [
    affected?.ecosystem_specific?.severity, affected?.database_specific?.severity, record.database_specific?.severity,
    ...entries.filter((s) => s.type === 'Ubuntu').map((s) => s.score),
  ];
  const label = stated.map((s) => (typeof s === 'string' ? LABELS.get(s.trim().toLowerCase()) : undefined)).find((l) => l !== undefined);
  return { label: label ?? 'unknown', score: null, vector: null, type: null };
}

const ORDER: SeverityLabel[] = ['critical', 'high', 'medium', 'low', 'unknown'];

/** Sorts labels worst first: critical, high, medium, low, unknown. */
export const severityRank = (label: SeverityLabel): number => ORDER.indexOf(label);
