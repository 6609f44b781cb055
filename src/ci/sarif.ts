// A survey's findings as SARIF 2.1.0 (docs/ci.md): one rule per classification rule (crypto findings)
// and per advisory, a result per finding with its level from the section or severity, the files the
// CBOM's evidence names, fingerprints stable across surveys and decisions as suppressions. Kept within
// GitHub code scanning's upload limits (25,000 results a run, 10 MB gzipped): past them the most severe
// results stay and the run's invocation says what was left out.
import { ANALYSIS_VERSION, CLASSIFICATION_VERSION } from '../analysis/versions';
import { sha256Hex } from '../lib/ids';
import type { JsonObject } from '../lib/json';
import type { CiFinding, CiOccurrence, CiSurveyData } from '../project/ci-findings';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
/** GitHub code scanning: at most this many results in one run. */
export const SARIF_MAX_RESULTS = 25_000;
/** GitHub code scanning: at most this many bytes of gzipped SARIF in one upload. */
export const SARIF_MAX_GZIP_BYTES = 10 * 1024 * 1024;
/** GitHub reads at most this many locations of a result. */
const MAX_LOCATIONS = 10;

export type SarifLevel = 'error' | 'warning' | 'note';

const LEVEL: Record<string, SarifLevel> = {
  red: 'error', yellow: 'warning', transition: 'note', unclassified: 'note',
  critical: 'error', high: 'error', medium: 'warning', low: 'note', unknown: 'note',
};
const LEVEL_RANK: Record<SarifLevel, number> = { error: 0, warning: 1, note: 2 };
/** GitHub ranks alerts by a rule's `security-severity` (0-10): the section's or severity's usual score. */
const SECURITY_SEVERITY: Record<string, string> = {
  red: '8.0', yellow: '5.0', transition: '3.0', unclassified: '3.0', critical: '9.5', high: '8.0', medium: '5.5', low: '3.0', unknown: '3.0',
};

export interface SarifOptions {
  /** The service's public address (`tool.driver.informationUri`). */
  informationUri: string;
  /** The survey's page, named in the run's properties. */
  surveyUri?: string;
  maxResults?: number;
  maxGzipBytes?: number;
  /**
   * The uploaded path, relative to the repository (a directory ends with `/`): a result whose finding
   * names no file is placed on it (the document it was seen in, inside a directory), since GitHub code
   * scanning needs a file on every result. Without it, the document's name in the bundle.
   */
  artifact?: string;
}

/** Where a finding with no file of its own is placed when nothing better is known. */
export const FALLBACK_ARTIFACT = 'bom.json';

/** Whether a finding is one SARIF reports (a green algorithm is not a problem). */
export const isSarifFinding = (f: CiFinding) => f.section in LEVEL;

export const levelOf = (f: CiFinding): SarifLevel => LEVEL[f.section] ?? 'note';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The rule a finding falls under: its classification rule (crypto) or its advisory. */
export function ruleIdOf(f: CiFinding): string {
  if (f.report === 'composition') return str(f.data.advisory_id) ?? 'advisory/unknown';
  return `crypto/${str(f.data.rule) ?? 'unclassified'}`;
}

/** The finding's identity across surveys: its key (component and advisory, or the asset), never a survey's id. */
const identityOf = (f: CiFinding) => f.key;

/** A location's path as a relative URI when it names a file, else null (a package URL, a library name). */
export function fileUri(location: string): string | null {
  let path = location.trim();
  if (/^file:\/\//i.test(path)) path = path.replace(/^file:\/\/[^/]*/i, '');
  else if (/^[a-z][a-z0-9+.-]*:(?![\\/])/i.test(path) || /^[a-z][a-z0-9+.-]+:\/\//i.test(path)) return null;
  path = path.replace(/\\/g, '/').replace(/^[a-z]:\//i, '').replace(/^(\.\/|\/)+/, '');
  if (!path || !path.includes('/') && !path.includes('.')) return null;
  return path.split('/').map((part) => encodeURIComponent(part)).join('/');
}

/** The file a finding with no file evidence is placed on: the uploaded document it came from. */
export function documentUri(f: CiFinding, artifact: string | undefined): string {
  const doc = str(f.data.seen_in);
  if (artifact) {
    const base = artifact.replace(/\\/g, '/');
    if (!base.endsWith('/')) return fileUri(base) ?? base;
    return fileUri(doc ? `${base}${doc}` : base.replace(/\/+$/, '')) ?? base;
  }
  return (doc && fileUri(doc)) ?? FALLBACK_ARTIFACT;
}

function locationsOf(f: CiFinding, artifact: string | undefined): JsonObject[] {
  const files = f.occurrences.flatMap((o: CiOccurrence) => {
    const uri = fileUri(o.location);
    if (!uri) return [];
    return [{ physicalLocation: { artifactLocation: { uri }, ...(o.line && o.line > 0 ? { region: { startLine: o.line } } : {}) } }];
  });
  if (files.length) return files.slice(0, MAX_LOCATIONS);
  // The package (or library, or asset) by name, on the document it was found in: GitHub code scanning
  // refuses a result without a physical location.
  const name = f.purl ?? str(f.data.library) ?? f.name;
  return [{
    physicalLocation: { artifactLocation: { uri: documentUri(f, artifact) } },
    logicalLocations: [{ name, fullyQualifiedName: name, kind: f.purl ? 'package' : 'module' }],
  }];
}

function messageOf(f: CiFinding): string {
  const d = f.data;
  if (f.report === 'composition') {
    const version = str(d.version);
    const what = `${str(d.advisory_id) ?? 'An advisory'} in ${f.name}${version ? ` ${version}` : ''}`;
    const summary = str(d.summary) ?? str(d.explanation);
    const fix = str(d.fix_version) ? ` Fixed in ${String(d.fix_version)}.` : ' No fixed version is known.';
    return `${what}${summary ? `: ${summary}` : ''}.${fix}`.replace(/\.\./g, '.');
  }
  const explanation = str(d.explanation);
  const move = str(d.replacement) ? ` Move to ${String(d.replacement)}.` : '';
  const deadline = str(d.deadline) ? ` Deadline ${String(d.deadline).slice(0, 10)}.` : '';
  return `${f.name} (${f.section})${explanation ? `: ${explanation}` : ''}${move}${deadline}`;
}

function ruleOf(id: string, f: CiFinding): JsonObject {
  const d = f.data;
  if (f.report === 'composition') {
    const summary = str(d.summary) ?? `Advisory ${id}`;
    const aliases = Array.isArray(d.aliases) ? d.aliases.filter((a: unknown) => typeof a === 'string') : [];
    const severity = (d.severity ?? {}) as JsonObject;
    const score = typeof severity.score === 'number' ? severity.score.toFixed(1) : SECURITY_SEVERITY[f.section];
    return {
      id, name: id.replace(/[^A-Za-z0-9]+/g, ''), shortDescription: { text: summary.slice(0, 1000) }, fullDescription: { text: (str(d.explanation) ?? summary).slice(0, 4000) },
      helpUri: `https://osv.dev/vulnerability/${encodeURIComponent(id)}`,
      help: { text: `${summary}${aliases.length ? ` (also ${aliases.join(', ')})` : ''}. Upgrade the component to a fixed version.` },
      defaultConfiguration: { level: levelOf(f) },
      properties: { tags: ['security', 'vulnerability', 'supply-chain'], 'security-severity': score, ...(aliases.length ? { aliases } : {}) },
    };
  }
  const rule = str(d.rule);
  const text = rule ? `Cryptography classified by rule ${rule}` : 'Cryptography the classification table does not know';
  return {
    id, name: `Crypto${(rule ?? 'unclassified').replace(/(^|[^A-Za-z0-9]+)([a-zA-Z0-9])/g, (_m, _s, c: string) => c.toUpperCase())}`,
    shortDescription: { text: `${text} (${f.section})` },
    fullDescription: { text: `${text}: its findings are ${f.section}.` },
    help: { text: str(d.replacement) ? `Move to ${String(d.replacement)}.` : 'See the classification table for what to move to.' },
    defaultConfiguration: { level: levelOf(f) },
    properties: { tags: ['security', 'cryptography', 'post-quantum'], 'security-severity': SECURITY_SEVERITY[f.section], section: f.section },
  };
}

function suppressionOf(f: CiFinding): JsonObject[] | null {
  const decision = f.decision;
  if (!decision?.suppressed) return null;
  const why = [decision.state.replace(/_/g, ' '), decision.justification?.replace(/_/g, ' '), decision.detail, decision.expires ? `until ${decision.expires}` : null]
    .filter(Boolean).join(': ');
  return [{ kind: 'external', status: 'accepted', justification: `Decision ${decision.id}: ${why}`, properties: { decision_id: decision.id, state: decision.state } }];
}

/**
 * The SARIF log of a survey's findings (most severe first). `maxResults` caps the run (25,000 for
 * GitHub); findings the project object already left out (`data.omitted`) are counted in the note too.
 */
export async function sarifLog(data: CiSurveyData, options: SarifOptions): Promise<JsonObject> {
  return (await sarifDocument(data, options)).log;
}

/** The SARIF log and its JSON text (measured against the gzip limit once, not written twice). */
export async function sarifDocument(data: CiSurveyData, options: SarifOptions): Promise<{ log: JsonObject; text: string }> {
  const maxResults = options.maxResults ?? SARIF_MAX_RESULTS;
  const findings = data.findings.filter(isSarifFinding)
    .map((f, i) => ({ f, i })).sort((a, b) => LEVEL_RANK[levelOf(a.f)] - LEVEL_RANK[levelOf(b.f)] || a.i - b.i).map((x) => x.f);
  const kept = findings.slice(0, maxResults);
  const left = findings.length - kept.length + data.omitted;
  const rules: JsonObject[] = [];
  const ruleIndex = new Map<string, number>();
  const results: JsonObject[] = [];
  for (const f of kept) {
    const ruleId = ruleIdOf(f);
    if (!ruleIndex.has(ruleId)) {
      ruleIndex.set(ruleId, rules.length);
      rules.push(ruleOf(ruleId, f));
    }
    const suppressions = suppressionOf(f);
    results.push({
      ruleId, ruleIndex: ruleIndex.get(ruleId)!, level: levelOf(f), message: { text: messageOf(f) }, locations: locationsOf(f, options.artifact),
      partialFingerprints: { 'postureFinding/v1': await sha256Hex(`${ruleId}\n${identityOf(f)}`) },
      ...(suppressions ? { suppressions } : {}),
      properties: {
        report: f.report, section: f.section, key: f.key, new: f.isNew, ...(f.purl ? { purl: f.purl } : {}),
        ...(f.decision && !f.decision.suppressed ? { decision: { id: f.decision.id, state: f.decision.state } } : {}),
      },
    });
  }
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'posture', fullName: 'Posture analysis service', version: ANALYSIS_VERSION, semanticVersion: ANALYSIS_VERSION,
          informationUri: options.informationUri, rules,
          properties: { classification_version: CLASSIFICATION_VERSION },
        },
      },
      // One category per subject: GitHub closes a subject's alerts only when that subject's next run lacks them.
      automationDetails: { id: `posture/${data.subject ?? 'survey'}/` },
      invocations: [invocationOf(data, left, findings.length)],
      results,
      properties: { survey_id: data.survey.id, subject: data.subject, ...(options.surveyUri ? { survey_uri: options.surveyUri } : {}) },
    }],
  };
  return fitGzip(log, options.maxGzipBytes ?? SARIF_MAX_GZIP_BYTES);
}

function invocationOf(data: CiSurveyData, left: number, total: number): JsonObject {
  const notes: JsonObject[] = [];
  if (left > 0) {
    notes.push({
      level: 'warning', descriptor: { id: 'posture/results-capped' },
      message: { text: `${left} of ${total + data.omitted} findings were left out: a run holds at most ${SARIF_MAX_RESULTS.toLocaleString('en-US')} results, the most severe kept. The survey's reports list every finding.` },
    });
  }
  return {
    executionSuccessful: true, startTimeUtc: data.survey.created_at, ...(data.survey.finished_at ? { endTimeUtc: data.survey.finished_at } : {}),
    ...(notes.length ? { toolExecutionNotifications: notes } : {}),
  };
}

/** Bytes of the text gzipped. */
export async function gzipSize(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  let size = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) size += chunk.byteLength;
  return size;
}

/** Drops the least severe results (the tail) until the gzipped log fits, saying so in the invocation. */
async function fitGzip(log: { runs: { results: JsonObject[]; invocations: JsonObject[] }[] } & JsonObject, maxBytes: number): Promise<{ log: JsonObject; text: string }> {
  const run = log.runs[0]!;
  const all = run.results;
  let text = JSON.stringify(log);
  let size = await gzipSize(text);
  if (size <= maxBytes) return { log, text };
  const existing = (run.invocations[0]!.toolExecutionNotifications ?? []) as JsonObject[];
  let keep = all.length;
  while (size > maxBytes && keep > 0) {
    keep = Math.floor(keep * Math.min(0.95, maxBytes / size));
    run.results = all.slice(0, keep);
    run.invocations[0]!.toolExecutionNotifications = [...existing, {
      level: 'warning', descriptor: { id: 'posture/size-capped' },
      message: { text: `${all.length - keep} of the least severe results were left out to keep the log under ${Math.round(maxBytes / 1024 / 1024)} MB gzipped. The survey's reports list every finding.` },
    }];
    text = JSON.stringify(log);
    size = await gzipSize(text);
  }
  return { log, text };
}
