// Writing a survey's vulnerabilities as VEX (issue 23): CycloneDX VEX 1.6 and OpenVEX 0.2.0, every
// matched advisory with its current decision (in triage / under investigation where none). The
// CycloneDX document names each affected component by a bom-ref inside it and the subject as its
// `metadata.component`, so importing it into a project that surveyed the same subject decides the same.
import type { DecisionState } from '../triage/decision';
import { OPENVEX_OF_JUSTIFICATION, STATUS_OF_STATE } from './mapping';

/** One finding of the composition report with the decision over it now. */
export interface VexFinding {
  advisory_id: string;
  aliases: string[];
  purl: string | null;
  name: string;
  version: string | null;
  severity: string;
  decision: { state: DecisionState; justification: string | null; response: string[]; detail: string | null; decided_at: string } | null;
}

export interface VexExportInput {
  subject: string;
  /** Who publishes: the project's name. */
  author: string;
  /** The document's id (a `urn:uuid:`) and time. */
  id: string;
  timestamp: string;
  findings: VexFinding[];
}

const SEVERITIES = new Set(['critical', 'high', 'medium', 'low', 'info', 'none', 'unknown']);
const componentRef = (f: VexFinding) => f.purl ?? `component:${f.name}@${f.version ?? ''}`;

export function cycloneDxVex(input: VexExportInput): Record<string, unknown> {
  const components = new Map<string, Record<string, unknown>>();
  for (const f of input.findings) {
    const ref = componentRef(f);
    if (!components.has(ref)) components.set(ref, { type: 'library', 'bom-ref': ref, name: f.name, ...(f.version ? { version: f.version } : {}), ...(f.purl ? { purl: f.purl } : {}) });
  }
  return {
    bomFormat: 'CycloneDX', specVersion: '1.6', serialNumber: input.id, version: 1,
    metadata: {
      timestamp: input.timestamp,
      tools: { components: [{ type: 'application', name: 'posture-service' }] },
      authors: [{ name: input.author }],
      component: { type: 'application', name: input.subject, 'bom-ref': 'subject' },
    },
    components: [...components.values()],
    vulnerabilities: input.findings.map((f) => {
      const d = f.decision;
      return {
        id: f.advisory_id,
        ...(f.aliases.length ? { references: f.aliases.map((id) => ({ id, source: { name: id.split('-')[0] } })) } : {}),
        ratings: [{ severity: SEVERITIES.has(f.severity) ? f.severity : 'unknown' }],
        analysis: {
          state: d?.state ?? 'in_triage',
          ...(d?.justification ? { justification: d.justification } : {}),
          ...(d?.response.length ? { response: d.response } : {}),
          ...(d?.detail ? { detail: d.detail } : {}),
          ...(d ? { lastUpdated: d.decided_at } : {}),
        },
        affects: [{ ref: componentRef(f) }],
      };
    }),
  };
}

export function openVex(input: VexExportInput): Record<string, unknown> {
  return {
    '@context': 'https://openvex.dev/ns/v0.2.0', '@id': input.id, author: input.author, timestamp: input.timestamp, version: 1, tooling: 'posture-service',
    statements: input.findings.map((f) => {
      const d = f.decision;
      const status = d ? STATUS_OF_STATE[d.state] : 'under_investigation';
      const justification = d?.justification ? OPENVEX_OF_JUSTIFICATION[d.justification] : undefined;
      return {
        vulnerability: { name: f.advisory_id, ...(f.aliases.length ? { aliases: f.aliases } : {}) },
        products: [{ '@id': componentRef(f) }],
        status,
        ...(d ? { timestamp: d.decided_at } : {}),
        ...(status === 'not_affected' && justification ? { justification } : {}),
        // OpenVEX asks why a product is not affected (a justification or an impact statement) and what to do when it is.
        ...(status === 'not_affected' && (d?.detail || !justification) ? { impact_statement: d?.detail ?? `Decided ${d?.state ?? 'not affected'}.` } : {}),
        ...(status === 'affected' ? { action_statement: d?.detail ?? 'No action was recorded with the decision.' } : {}),
        ...(status !== 'not_affected' && status !== 'affected' && d?.detail ? { status_notes: d.detail } : {}),
      };
    }),
  };
}
