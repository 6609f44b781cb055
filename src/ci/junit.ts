// A survey's findings as JUnit XML (docs/ci.md), in the shape GitLab's `artifacts:reports:junit` and
// most CI systems read: one testsuite per finding report (pqc-inventory, composition), one testcase per
// group of findings (an algorithm in a section; a component with its advisories), failed when the gate
// (`failOn`) would trip on it, or without a gate when it is red or critical/high. A group whose every
// finding a decision suppressed is skipped; green algorithms pass.
import type { CiFinding, CiSurveyData } from '../project/ci-findings';
import { failsByDefault, gateTrips, type GateResult, type GateToken } from './gate';

const SECTION_ORDER = ['red', 'yellow', 'transition', 'unclassified', 'green', 'critical', 'high', 'medium', 'low', 'unknown'];

/** XML 1.0 text: the five escapes, and no character XML forbids (control characters). */
export function xmlText(value: string): string {
  return value
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const attrs = (values: Record<string, string | number>) => Object.entries(values).map(([k, v]) => ` ${k}="${xmlText(String(v))}"`).join('');
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

interface Group {
  section: string;
  name: string;
  findings: CiFinding[];
}

/** Crypto findings by section and algorithm; vulnerability findings by section and component. */
function groupsOf(findings: CiFinding[]): Group[] {
  const groups = new Map<string, Group>();
  for (const f of findings) {
    const name = f.report === 'composition'
      ? `${f.name}${str(f.data.version) ? ` ${String(f.data.version)}` : ''}${f.purl ? ` (${f.purl})` : ''}`
      : str(f.data.algorithm) ?? f.name;
    const id = `${f.section}\n${name}`;
    const group = groups.get(id) ?? { section: f.section, name, findings: [] };
    group.findings.push(f);
    groups.set(id, group);
  }
  return [...groups.values()].sort((a, b) => SECTION_ORDER.indexOf(a.section) - SECTION_ORDER.indexOf(b.section));
}

function findingLine(f: CiFinding): string {
  const d = f.data;
  const decided = f.decision ? ` [decision ${f.decision.state}${f.decision.suppressed ? ', suppressed' : ''}]` : '';
  const isNew = f.isNew ? ' [new]' : '';
  if (f.report === 'composition') {
    const fix = str(d.fix_version) ? ` Fixed in ${String(d.fix_version)}.` : '';
    const summary = (str(d.summary) ?? str(d.explanation) ?? '').replace(/([^.!?])$/, '$1.');
    return `- ${str(d.advisory_id) ?? '?'} (${f.section}): ${summary}${fix}${isNew}${decided}`;
  }
  const where = f.occurrences.slice(0, 3).map((o) => (o.line ? `${o.location}:${o.line}` : o.location)).join(', ');
  return `- ${f.name}: ${str(d.explanation) ?? ''}${str(d.replacement) ? ` Move to ${String(d.replacement)}.` : ''}${where ? ` At ${where}.` : ''}${isNew}${decided}`;
}

/**
 * The JUnit XML document. `tokens` is the gate (`failOn`), empty for the default; `gate` its result,
 * written as a testsuite of its own when there is a gate.
 */
export function junitXml(data: CiSurveyData, tokens: GateToken[], gate: GateResult | null): string {
  const fails = (f: CiFinding) => (tokens.length ? gateTrips(tokens, f) : failsByDefault(f));
  const suites: string[] = [];
  let allTests = 0;
  let allFailures = 0;
  const timestamp = (data.survey.finished_at ?? data.survey.created_at).replace(/Z$/, '');
  for (const type of ['pqc-inventory', 'composition'] as const) {
    const report = data.reports.find((r) => r.type === type);
    if (!report) continue;
    const cases: string[] = [];
    let failures = 0;
    let skipped = 0;
    for (const group of groupsOf(data.findings.filter((f) => f.report === type))) {
      const failing = group.findings.filter(fails);
      const open = group.findings.filter((f) => !f.decision?.suppressed);
      const classname = `posture.${type}.${group.section}`;
      const body = group.findings.map(findingLine).join('\n');
      const count = `${group.findings.length} finding${group.findings.length === 1 ? '' : 's'}`;
      let inner: string;
      if (failing.length) {
        failures++;
        inner = `<failure${attrs({ type: group.section, message: `${group.name}: ${failing.length} of ${count} ${tokens.length ? `trip${failing.length === 1 ? 's' : ''} --fail-on ${tokens.map((t) => t.token).join(',')}` : `${failing.length === 1 ? 'is' : 'are'} ${group.section}`}` })}>${xmlText(body)}</failure>`;
      } else if (!open.length) {
        skipped++;
        inner = `<skipped${attrs({ message: `every finding is covered by a decision that suppresses it` })}/>`;
      } else {
        inner = `<system-out>${xmlText(body)}</system-out>`;
      }
      cases.push(`    <testcase${attrs({ classname, name: `${group.name} (${group.section}, ${count})`, time: 0 })}>${inner}</testcase>`);
    }
    allTests += cases.length;
    allFailures += failures;
    suites.push([
      `  <testsuite${attrs({ name: `posture ${type}${data.subject ? ` ${data.subject}` : ''}`, tests: cases.length, failures, errors: 0, skipped, time: 0, timestamp, hostname: 'posture' })}>`,
      `    <properties>${[['survey_id', data.survey.id], ['report_id', report.id], ['subject', data.subject ?? ''], ...(data.omitted ? [['findings_left_out', String(data.omitted)]] : [])]
        .map(([name, value]) => `<property${attrs({ name: name!, value: value! })}/>`).join('')}</properties>`,
      ...cases,
      '  </testsuite>',
    ].join('\n'));
  }
  if (gate && gate.fail_on.length) {
    const failed = !gate.passed;
    allTests += 1;
    allFailures += failed ? 1 : 0;
    const failure = failed ? `<failure${attrs({ type: 'gate', message: `tripped: ${gate.tripped.map((t) => `${t.token} ${t.count}`).join(', ')}` })}/>` : '';
    suites.push([
      `  <testsuite${attrs({ name: 'posture gate', tests: 1, failures: failed ? 1 : 0, errors: 0, skipped: 0, time: 0, timestamp, hostname: 'posture' })}>`,
      `    <testcase${attrs({ classname: 'posture.gate', name: `--fail-on ${gate.fail_on.join(',')}`, time: 0 })}>${failure}</testcase>`,
      '  </testsuite>',
    ].join('\n'));
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: `posture survey ${data.survey.id}`, tests: allTests, failures: allFailures, errors: 0, time: 0 })}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
