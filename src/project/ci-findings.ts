// What a CI run reads of one finished survey (src/ci renders it as SARIF, JUnit or markdown): its
// reports, their findings with today's decisions and whether each is new since the subject's previous
// report, the files the CBOM's evidence names, and the top ranked fixes of the project's portfolios.
// Only the fields the renderers use are read (json_extract), in severity order, at most `limit`.
import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import { conflict, forbidden, notFound } from '../lib/errors';
import type { JsonObject } from '../lib/json';
import { entryDecision, hasDecisions, type EntryDecision } from '../triage/match';
import { decisionIndex } from './decisions';
import { requireSurvey } from './jobs';
import { portfolioResults, portfolios, reports } from './schema';
import type { ProjectState } from './state';

/** The report types whose entries are findings (a decision can be about them). */
export const CI_FINDING_REPORTS = ['pqc-inventory', 'composition'] as const;
export type CiFindingReport = (typeof CI_FINDING_REPORTS)[number];

const KIND: Record<CiFindingReport, string> = { 'pqc-inventory': 'crypto_finding', composition: 'vuln_finding' };

/** Most severe first: what a capped run keeps (red and critical/high are errors in SARIF). */
const SECTION_RANK: Record<string, number> = { red: 0, critical: 0, high: 1, yellow: 2, medium: 2, transition: 3, low: 3, unclassified: 4, unknown: 4, green: 5 };

export interface CiOccurrence {
  location: string;
  line?: number;
}

export interface CiFinding {
  report: CiFindingReport;
  section: string;
  key: string;
  name: string;
  purl: string | null;
  /** The entry's fields the renderers read (the rest of its record stays in the report). */
  data: JsonObject;
  /** Where the CBOM's evidence found it (crypto findings), else the entry's own locations. */
  occurrences: CiOccurrence[];
  decision: (EntryDecision & { detail: string | null }) | null;
  /** Not in the subject's previous report of this type (every finding of a first survey). */
  isNew: boolean;
}

export interface CiReport {
  id: string;
  type: string;
  produced_at: string;
  /** The REPORT step's figures as produced (sections or severities, changes). */
  figures: JsonObject;
  previous_report_id: string | null;
  /** List-section totals (every finding, green included, before any cap). */
  totals: Record<string, number>;
}

export interface CiFix {
  portfolio: string;
  rank: number;
  summary: JsonObject;
}

export interface CiSurveyData {
  survey: { id: string; type: string; status: string; tag: string | null; target: string | null; created_at: string; finished_at: string | null; started_by: string | null };
  subject: string | null;
  reports: CiReport[];
  findings: CiFinding[];
  /** Findings of the finding reports left out by `limit` (least severe first). */
  omitted: number;
  fixes: CiFix[];
}

/** How many ranked fixes the summary lists, over the project's portfolios. */
export const CI_FIXES = 5;

type Row = {
  section: string; key: string; name: string; purl: string | null; data: string; occurrences: string | null; seen: number;
};

// The fields SARIF, JUnit and the summary read, and the ones decision matching reads.
const FIELDS = ['advisory_id', 'aliases', 'version', 'ecosystem', 'family', 'quantumVulnerable', 'rule', 'source', 'primitive', 'algorithm',
  'replacement', 'deadline', 'locations', 'occurrences', 'bom_ref', 'summary', 'fix_version', 'severity', 'component_key', 'seen', 'seen_in', 'observed', 'library'];
const DATA = `json_object(${FIELDS.map((f) => `'${f}', json_extract(e.data, '$.${f}')`).join(', ')}, 'explanation', substr(json_extract(e.data, '$.explanation'), 1, 2000))`;

/**
 * The survey's CI view. 404 for a survey not in the project, 403 when `pass` (an upload pass's id) did
 * not start it, 409 while it is not finished or when it did not complete (no reports to read).
 * `limit` caps the findings, most severe kept.
 */
export function ciSurveyData(state: ProjectState, surveyId: string, limit: number, pass: string | null = null): CiSurveyData {
  const survey = requireSurvey(state.db, surveyId);
  // Before anything about the survey's state: another pass learns nothing of it.
  if (pass !== null && startedBy(survey.metadata) !== pass) throw forbidden('An upload pass reads the CI outputs only of the surveys it started.');
  if (survey.status !== 'COMPLETED') {
    throw conflict(['PENDING', 'RUNNING'].includes(survey.status)
      ? `The survey is ${survey.status}: its CI outputs are ready once it completes.`
      : `The survey ended ${survey.status}: it has no reports to render.`);
  }
  const rows = state.db.select().from(reports).where(eq(reports.surveyId, surveyId)).all();
  if (!rows.length) throw notFound('The survey has no reports.');
  const ciReports: CiReport[] = rows.map((r) => {
    const headline = (r.summary.headline ?? {}) as JsonObject;
    const changes = (headline.changes ?? null) as JsonObject | null;
    const sections = (r.summary.sections ?? []) as { name: string; kind: string; total?: number }[];
    return {
      id: r.id, type: r.type, produced_at: r.producedAt, figures: headline,
      previous_report_id: typeof changes?.previous_report_id === 'string' ? changes.previous_report_id : null,
      totals: Object.fromEntries(sections.filter((s) => s.kind === 'list').map((s) => [s.name, s.total ?? 0])),
    };
  });
  const cbom = ciReports.find((r) => r.type === 'cbom');
  const index = decisionIndex(state);
  const decided = hasDecisions(index);
  const now = new Date();
  const findings: CiFinding[] = [];
  let omitted = 0;
  const ordered = CI_FINDING_REPORTS.flatMap((type) => {
    const report = ciReports.find((r) => r.type === type);
    return report ? Object.keys(report.totals).map((section) => ({ report, type, section })) : [];
  }).sort((a, b) => (SECTION_RANK[a.section] ?? 9) - (SECTION_RANK[b.section] ?? 9));
  for (const { report, type, section } of ordered) {
    const room = limit - findings.length;
    if (room <= 0) {
      omitted += report.totals[section] ?? 0;
      continue;
    }
    const found = state.sql.exec<Row>(
      `SELECT e.section, e.key, e.name, e.purl, ${DATA} AS data,
         (SELECT json_extract(c.data, '$.evidence.occurrences') FROM report_entries c WHERE c.report_id = ?3 AND c.key = e.key LIMIT 1) AS occurrences,
         (?2 IS NULL OR EXISTS (SELECT 1 FROM report_entries o WHERE o.report_id = ?2 AND o.key = e.key)) AS seen
       FROM report_entries e WHERE e.report_id = ?1 AND e.section = ?4 ORDER BY e.position LIMIT ?5`,
      report.id, report.previous_report_id, cbom?.id ?? null, section, room + 1,
    ).toArray();
    if (found.length > room) {
      omitted += (report.totals[section] ?? found.length) - room;
      found.length = room;
    }
    for (const row of found) {
      const data = JSON.parse(row.data) as JsonObject;
      const decision = decided ? entryDecision(index, rows.find((r) => r.id === report.id)!.subject, KIND[type], { ...data, key: row.key, name: row.name, purl: row.purl, aliases: data.aliases ?? [], quantumVulnerable: data.quantumVulnerable === true || data.quantumVulnerable === 1 }, now) : null;
      findings.push({
        report: type, section: row.section, key: row.key, name: row.name, purl: row.purl, data,
        occurrences: occurrencesOf(row.occurrences, data.locations), decision: decision && { ...decision, detail: null }, isNew: !report.previous_report_id || !row.seen,
      });
    }
  }
  addDetails(state, findings);
  return {
    survey: {
      id: survey.id, type: survey.type, status: survey.status, tag: survey.tag, target: survey.target, created_at: survey.createdAt, finished_at: survey.finishedAt,
      started_by: startedBy(survey.metadata),
    },
    subject: rows[0]!.subject, reports: ciReports, findings, omitted, fixes: topFixes(state),
  };
}

/** The credential (an upload pass's id) that started the survey, as recorded at its start. */
export function startedBy(metadata: JsonObject): string | null {
  const by = metadata.started_by as JsonObject | undefined;
  return typeof by?.credential_id === 'string' ? by.credential_id : null;
}

/** The CBOM's evidence occurrences, else the entry's `path:line` locations (a line only when the last part is a number). */
function occurrencesOf(evidence: string | null, locations: unknown): CiOccurrence[] {
  const parsed = evidence ? (JSON.parse(evidence) as unknown) : null;
  if (Array.isArray(parsed) && parsed.length) {
    return parsed.flatMap((o: JsonObject) => (typeof o?.location === 'string' ? [{ location: o.location, ...(typeof o.line === 'number' ? { line: o.line } : {}) }] : []));
  }
  if (!Array.isArray(locations)) return [];
  return locations.flatMap((l: unknown) => {
    if (typeof l !== 'string' || !l) return [];
    const m = /^(.*):(\d+)$/.exec(l);
    return [m ? { location: m[1]!, line: Number(m[2]) } : { location: l }];
  });
}

/** The decisions' free-text detail (a SARIF suppression's justification says why). */
function addDetails(state: ProjectState, findings: CiFinding[]): void {
  const ids = [...new Set(findings.flatMap((f) => (f.decision ? [f.decision.id] : [])))];
  const details = new Map<string, string | null>();
  for (let i = 0; i < ids.length; i += 50) {
    const slice = ids.slice(i, i + 50);
    for (const r of state.sql.exec<{ id: string; detail: string | null }>(
      `SELECT d.id, d.detail FROM decisions d WHERE d.id IN (${slice.map(() => '?').join(',')})
         AND d.version = (SELECT max(version) FROM decisions x WHERE x.id = d.id)`, ...slice,
    )) details.set(r.id, r.detail);
  }
  for (const f of findings) if (f.decision) f.decision.detail = details.get(f.decision.id) ?? null;
}

/** How many portfolios' fixes the summary lists (the project's own first, then by name). */
export const CI_FIX_PORTFOLIOS = 3;

/** The first ranked fixes of the scored portfolios (none before a portfolio was scored). */
function topFixes(state: ProjectState): CiFix[] {
  const fixes: CiFix[] = [];
  const current = state.db.select({ id: portfolioResults.portfolioId, build: portfolioResults.build, name: portfolios.name })
    .from(portfolioResults).innerJoin(portfolios, and(eq(portfolios.id, portfolioResults.portfolioId), isNull(portfolios.deletedAt)))
    .orderBy(desc(portfolios.isImplicit), asc(portfolios.name)).limit(CI_FIX_PORTFOLIOS).all();
  for (const p of current) {
    for (const r of state.sql.exec<{ rank: number; summary: string }>('SELECT rank, summary FROM portfolio_fixes WHERE build = ? ORDER BY rank LIMIT ?', p.build, CI_FIXES)) {
      fixes.push({ portfolio: p.name, rank: r.rank, summary: JSON.parse(r.summary) as JsonObject });
    }
  }
  return fixes;
}
