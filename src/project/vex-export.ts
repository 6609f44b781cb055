// What a survey's VEX says (issue 23): the composition report's findings, each with the decision that
// covers it now (src/triage/match.ts); src/vex/write.ts writes them as CycloneDX or OpenVEX.
import { invalidRequest } from '../lib/errors';
import type { JsonObject } from '../lib/json';
import type { DecisionState } from '../triage/decision';
import { rowDecision } from '../triage/match';
import type { VexFinding } from '../vex/write';
import { decisionIndex } from './decisions';
import { requireReport } from './reports';
import type { ProjectState } from './state';

/** The report's subject and its findings in report order (severity sections, then position). */
export function vexFindings(state: ProjectState, reportId: string): { subject: string; findings: VexFinding[] } {
  const report = requireReport(state, reportId);
  if (report.type !== 'composition') {
    throw invalidRequest(`VEX covers the advisories of a composition report; report ${reportId} is a ${report.type} report.`);
  }
  const index = decisionIndex(state);
  const findings: VexFinding[] = [];
  const rows = state.sql.exec<{ data: string }>('SELECT data FROM report_entries WHERE report_id = ? ORDER BY section, position', reportId);
  for (const row of rows) {
    const data = JSON.parse(row.data) as JsonObject;
    const d = rowDecision(index, report.subject, 'vuln_finding', data);
    findings.push({
      advisory_id: String(data.advisory_id), aliases: Array.isArray(data.aliases) ? data.aliases as string[] : [],
      purl: typeof data.purl === 'string' ? data.purl : null, name: String(data.name ?? ''), version: typeof data.version === 'string' ? data.version : null,
      severity: String(data.section ?? (data.severity as JsonObject | undefined)?.label ?? 'unknown'),
      decision: d && { state: d.state as DecisionState, justification: d.justification, response: d.response, detail: d.detail, decided_at: d.decided_at },
    });
  }
  return { subject: report.subject, findings };
}
