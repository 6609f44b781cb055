// How severe an advisory is: its CVSS vector scored (ae-cvss-calculator), else its own label.
// A CommonJS bundle: its classes come through the default export in every runtime (Node, workerd).
import cvss from 'ae-cvss-calculator';

const { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } = cvss;
import type { OsvAffected, OsvRecord, SeverityLabel } from './osv-types';

/** The CVSS qualitative rating of a base score (the same bands in v2 advice, v3 and v4). */
export function ratingOf(score: number): SeverityLabel {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'unknown';
}

function scoreVector(vector: string): number | null {
  try {
    const calculator = vector.startsWith('CVSS:4.0/') ? new Cvss4P0(vector)
      : vector.startsWith('CVSS:3.1/') ? new Cvss3P1(vector)
        : vector.startsWith('CVSS:3.0/') ? new Cvss3P0(vector) : new Cvss2(vector);
    const score = calculator.calculateScores().base;
    return typeof score === 'number' && Number.isFinite(score) ? score : null;
  } catch {
    return null;
  }
}

const LABELS: Record<string, SeverityLabel> = { critical: 'critical', high: 'high', moderate: 'medium', medium: 'medium', low: 'low' };

/**
 * The advisory's severity for one affected package: the newest CVSS version it gives (v4 over v3 over
 * v2: the newer standard is what the advisory's authors scored last), the package's entry first;
 * without a vector that scores, the record's own label (GHSA's `database_specific.severity`,
 * `ecosystem_specific.severity`), else `unknown`.
 */
export function severityOf(record: OsvRecord, affected?: OsvAffected): { label: SeverityLabel; score: number | null; vector: string | null; type: string | null } {
  const vectors = [...(affected?.severity ?? []), ...(record.severity ?? [])];
  for (const type of ['CVSS_V4', 'CVSS_V3', 'CVSS_V2']) {
    const entry = vectors.find((s) => s.type === type);
    const score = entry ? scoreVector(entry.score) : null;
    if (entry && score !== null) return { label: ratingOf(score), score, vector: entry.score, type };
  }
  const text = [record.database_specific?.severity, affected?.ecosystem_specific?.severity, affected?.database_specific?.severity]
    .find((v): v is string => typeof v === 'string');
  return { label: (text && LABELS[text.toLowerCase()]) || 'unknown', score: null, vector: null, type: null };
}
