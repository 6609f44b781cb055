// A survey's summary in markdown, the same text for every CI system (GitHub's job summary, a GitLab
// MR note, a shell script's output): the figures, what is new since the subject's previous survey, the
// top ranked fixes of the project's portfolios, and links to the reports and their PDF.
import type { JsonObject } from '../lib/json';
import type { CiFinding, CiSurveyData } from '../project/ci-findings';
import { GATE_SECTIONS, GATE_SEVERITIES, type GateResult } from './gate';

export interface SummaryLinks {
  /** The dashboard's base URL (DASHBOARD_URL). */
  dashboard: string;
  /** The API's base URL (API_URL). */
  api: string;
  projectId: string;
}

/** How many new findings the summary names one by one. */
const NEW_LISTED = 10;

/** Markdown table cell text: no pipes or line breaks. */
const cell = (v: unknown) => String(v ?? '').replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function countsTable(label: string, names: readonly string[], counts: JsonObject | undefined, changes: JsonObject | null): string[] {
  const row = names.map((n) => {
    const value = num(counts?.[n]) ?? 0;
    const added = num((changes?.new as JsonObject | undefined)?.[n]) ?? 0;
    return added > 0 && changes?.previous_report_id ? `${value} (+${added})` : String(value);
  });
  return [`| ${label} | ${names.join(' | ')} |`, `|---|${names.map(() => '---:').join('|')}|`, `| findings | ${row.join(' | ')} |`];
}

function newLine(f: CiFinding): string {
  if (f.report === 'composition') {
    const fix = str(f.data.fix_version) ? `, fixed in ${String(f.data.fix_version)}` : '';
    return `- **${f.section}** ${cell(str(f.data.advisory_id))} in \`${cell(f.purl ?? f.name)}\`${fix}`;
  }
  const move = str(f.data.replacement) ? `, move to ${cell(f.data.replacement)}` : '';
  return `- **${f.section}** ${cell(f.name)}${move}`;
}

function fixLine(summary: JsonObject): string {
  const gain = (summary.gain ?? {}) as JsonObject;
  const reach = (summary.reach ?? {}) as JsonObject;
  const what = summary.action === 'upgrade'
    ? `Upgrade \`${cell(summary.name)}\`${str(summary.fix_version) ? ` to ${cell(summary.fix_version)}` : ''}`
    : `Move away from ${cell(summary.name)}${str(summary.replacement) ? ` to ${cell(summary.replacement)}` : ''}`;
  const points = num(gain.overall) ?? num(summary.gain);
  const findings = num(summary.findings_total);
  const subjects = num(reach.count);
  const details = [points !== null ? `+${points} points` : null, findings !== null ? `${findings} finding${findings === 1 ? '' : 's'}` : null,
    subjects !== null ? `${subjects} subject${subjects === 1 ? '' : 's'}` : null].filter(Boolean).join(', ');
  return `${what}${details ? ` (${details})` : ''}`;
}

/** The markdown summary; `gate` is the `failOn` gate's result when one was asked for. */
export function summaryMarkdown(data: CiSurveyData, links: SummaryLinks, gate: GateResult | null): string {
  const dashboard = links.dashboard.replace(/\/+$/, '');
  const api = links.api.replace(/\/+$/, '');
  const surveyUrl = `${dashboard}/projects/${links.projectId}/surveys/${data.survey.id}`;
  const lines: string[] = [];
  const title = [data.subject ?? 'survey', data.survey.tag].filter(Boolean).join(' @ ');
  lines.push(`## Posture: ${cell(title)}`, '');
  lines.push(`Survey [\`${data.survey.id}\`](${surveyUrl}) completed ${data.survey.finished_at ?? ''}.`.trim(), '');
  if (gate && gate.fail_on.length) {
    lines.push(gate.passed
      ? `**Gate passed** (\`--fail-on ${gate.fail_on.join(',')}\`).`
      : `**Gate tripped**: ${gate.tripped.map((t) => `${t.token} ${t.count}`).join(', ')} (\`--fail-on ${gate.fail_on.join(',')}\`).`, '');
  }
  const pqc = data.reports.find((r) => r.type === 'pqc-inventory');
  const comp = data.reports.find((r) => r.type === 'composition');
  const cbom = data.reports.find((r) => r.type === 'cbom');
  if (pqc) {
    lines.push('### Cryptography', '', ...countsTable('Section', GATE_SECTIONS, pqc.figures.sections as JsonObject, (pqc.figures.changes ?? null) as JsonObject | null), '');
    const cnsa2 = pqc.figures.cnsa2 as JsonObject | undefined;
    const more = [cnsa2 ? `CNSA 2.0: ${num(cnsa2.approved) ?? 0} approved, ${num(cnsa2.not_approved) ?? 0} not` : null,
      str(pqc.figures.nearest_deadline) ? `nearest deadline ${String(pqc.figures.nearest_deadline)}` : null,
      num(pqc.figures.overdue) ? `${String(pqc.figures.overdue)} past their deadline` : null].filter(Boolean);
    if (more.length) lines.push(more.join(' · '), '');
  }
  if (comp) {
    lines.push('### Vulnerabilities', '', ...countsTable('Severity', GATE_SEVERITIES, comp.figures.severities as JsonObject, (comp.figures.changes ?? null) as JsonObject | null), '');
    const f = comp.figures;
    lines.push(`${num(f.advisories) ?? 0} advisories in ${num(f.vulnerable_components) ?? 0} components${num(f.fixable) !== null ? `, ${String(f.fixable)} fixable` : ''}.`, '');
  }
  if (cbom && cbom.figures.asset_types && typeof cbom.figures.asset_types === 'object') {
    lines.push(`Crypto assets: ${Object.entries(cbom.figures.asset_types as JsonObject).map(([k, v]) => `${k} ${String(v)}`).join(' · ')}.`, '');
  }
  const suppressed = [pqc, comp].reduce((sum, r) => sum + (num((r?.figures.suppressed as JsonObject | undefined)?.findings) ?? 0), 0);
  if (suppressed) lines.push(`${suppressed} finding${suppressed === 1 ? ' is' : 's are'} covered by decisions and left out of the counts.`, '');

  lines.push('### New since the previous survey', '');
  const first = [pqc, comp].filter(Boolean).every((r) => !r!.previous_report_id);
  const fresh = data.findings.filter((f) => f.isNew && !f.decision?.suppressed && f.section !== 'green');
  if (first) lines.push('This is the subject\'s first survey: every finding is new.', '');
  else if (!fresh.length) lines.push('Nothing new.', '');
  if (!first && fresh.length) {
    lines.push(...fresh.slice(0, NEW_LISTED).map(newLine));
    if (fresh.length > NEW_LISTED) lines.push(`- and ${fresh.length - NEW_LISTED} more`);
    lines.push('');
  }

  if (data.fixes.length) {
    lines.push('### Top ranked fixes', '');
    const portfolios = new Set(data.fixes.map((f) => f.portfolio));
    for (const fix of data.fixes) lines.push(`${fix.rank}. ${fixLine(fix.summary)}${portfolios.size > 1 ? ` (${cell(fix.portfolio)})` : ''}`);
    lines.push('');
  }

  lines.push('### Reports', '');
  for (const report of data.reports) {
    const page = `${dashboard}/projects/${links.projectId}/reports/${report.id}`;
    const pdf = `${api}/api/v1/project/${links.projectId}/v1/report/${report.id}/export/pdf`;
    lines.push(`- [${report.type}](${page}) ([PDF](${pdf}))`);
  }
  lines.push('');
  if (data.omitted) lines.push(`_${data.omitted} least severe findings were not read for this summary; the reports list every finding._`, '');
  return lines.join('\n');
}
