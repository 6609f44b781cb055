// Shaping the report API's answers for the report pages (plain functions over plain data): which
// section to open, the headline figures as labelled values, an entry's cells per report type, the
// latest render job of each format, the reports a survey row links to, and the page addresses.
export type ReportType = 'pqc-inventory' | 'cbom' | 'composition';

export interface Summary {
  report_id: string;
  type: ReportType;
  subject: string;
  produced_at: string;
  survey: { id: string; type: string; tag: string | null };
  headline: Record<string, unknown>;
  sections: { name: string; kind: 'list' | 'object'; total?: number }[];
}

export type Entry = Record<string, unknown> & { key: string; section: string };

export interface SectionPage {
  section: string;
  entries: Entry[];
  offset: number;
  limit: number;
  pagination: { total: number; hasMore: boolean };
}

export interface Brief { key: string; name: string; purl: string | null; section: string }
export interface Moved { key: string; name: string; purl: string | null; from: string; to: string }

export interface Comparison {
  type: string;
  from: { report_id: string; survey_id: string; produced_at: string };
  to: { report_id: string; survey_id: string; produced_at: string };
  added: Brief[];
  removed: Brief[];
  moved: Moved[];
  unchanged: number;
}

export interface Job {
  id: string;
  type: string;
  status: string;
  message: string | null;
  created_at: string;
  finished_at: string | null;
  metadata: Record<string, unknown>;
  parent_id: string | null;
  step_type?: string;
  step_label?: string;
  failure_class?: string | null;
  tag?: string | null;
  target?: string | null;
  steps?: Job[];
}

export interface JobPage {
  jobs: Job[];
  pagination: { firstId: string | null; lastId: string | null; hasMore: boolean; total: number };
}

export interface Provenance {
  format: string;
  report: { id: string; type: string; subject: string; produced_at: string };
  survey: { id: string; type: string; tag: string | null };
  bundle: { id: string; sha256: string } | null;
  versions: { analysis: string; classification: string; vulnerability_data: Record<string, unknown>; template?: { format: string; version: string }; renderer?: string };
  analysis_source: { survey_id: string; attempt: number };
  rendered_at: string;
  duration_ms: number | null;
  bytes: number | null;
  render_job_id: string | null;
}

export interface StaleDocument {
  survey_id: string;
  report_id: string;
  report_type: string;
  format: string;
  job_id: string;
  rendered_at: string;
  reasons: { reason: 'analysis_version' | 'template_version' | 'source_replaced'; rendered_with?: string; current?: string; replaced_by?: string }[];
}

/** Rows a page shows at most (the list budget). */
export const PAGE_ROWS = 100;

/** The rendered formats, in the order downloads are offered. */
export const RENDERED_FORMATS = ['pdf', 'xlsx', 'csv', 'html', 'pptx'] as const;
/** Every download: the rendered formats, the JSON export (`{data: …}`) and the full document (a CycloneDX file for cbom and composition). */
export const DOWNLOADS = [...RENDERED_FORMATS, 'json', 'cyclonedx'] as const;
export type Download = (typeof DOWNLOADS)[number];

export const FORMAT_LABELS: Record<Download, string> = {
  pdf: 'PDF', xlsx: 'Excel (XLSX)', csv: 'CSV', html: 'HTML', pptx: 'PowerPoint (PPTX)', json: 'JSON', cyclonedx: 'CycloneDX 1.6 (JSON)',
};

export const TYPE_LABELS: Record<string, string> = { 'pqc-inventory': 'Post-quantum inventory', cbom: 'Cryptography bill of materials', composition: 'Software composition' };
export const typeLabel = (type: string) => TYPE_LABELS[type] ?? type;

/** Where the report pages are. */
export const paths = (projectId: string, reportId?: string) => {
  const reports = `/projects/${projectId}/reports`;
  const report = `${reports}/${reportId ?? ''}`;
  return {
    index: reports,
    report,
    documents: `${report}/documents`,
    compare: `${report}/compare`,
    download: (format: Download) => `${report}/export/${format}`,
    render: `${report}/render`,
    regenerate: `${report}/regenerate`,
    survey: (surveyId: string) => `/projects/${projectId}/surveys/${surveyId}`,
  };
};

/** An address with its query, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== null && value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** A non-negative whole offset from the address (0 otherwise). */
export const offsetOf = (raw: string | undefined): number => {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 0;
};

export const listSections = (summary: Summary) => summary.sections.filter((s) => s.kind === 'list');

/** The section the page opens: the one asked for, else the first with entries, else the first. */
export function openSection(summary: Summary, asked: string | undefined): string | null {
  const lists = listSections(summary);
  if (asked && lists.some((s) => s.name === asked)) return asked;
  return (lists.find((s) => (s.total ?? 0) > 0) ?? lists[0])?.name ?? null;
}

export const humanize = (name: string): string => {
  const text = name.replace(/[_-]+/g, ' ').trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
};

export interface Figure {
  label: string;
  /** A single value, or named counts (entries per section, per severity, per asset type). */
  value: string | number | null;
  parts?: { label: string; value: number }[];
}

/** Headline figures named for people; others are humanized from their key. */
const FIGURE_LABELS: Record<string, string> = {
  sections: 'Entries', cnsa2: 'CNSA 2.0', nearest_deadline: 'Nearest deadline', overdue: 'Past their deadline',
  asset_types: 'Crypto assets', severities: 'Findings by severity', advisory_severities: 'Advisories by severity',
  vulnerable_components: 'Vulnerable components', fixable: 'Fixable components',
};
const figureLabel = (name: string) => FIGURE_LABELS[name] ?? humanize(name);

/** The headline as labelled figures: numbers and dates alone, counts by name together; `changes` apart. */
export function figuresOf(headline: Record<string, unknown>): Figure[] {
  const figures: Figure[] = [];
  for (const [name, value] of Object.entries(headline)) {
    if (name === 'changes') continue;
    if (name === 'undecided' && value && typeof value === 'object') {
      // The triage queue's share: findings no decision covers, and how many of them are new since the last survey.
      const { findings = 0, new: fresh = 0 } = value as { findings?: number; new?: number };
      figures.push({ label: 'Undecided', value: fresh ? `${findings} (${fresh} new)` : findings });
      continue;
    }
    if (typeof value === 'number' || typeof value === 'string' || value === null) figures.push({ label: figureLabel(name), value });
    else if (value && typeof value === 'object' && !Array.isArray(value)) {
      const parts = Object.entries(value as Record<string, unknown>).filter((e): e is [string, number] => typeof e[1] === 'number').map(([label, n]) => ({ label: humanize(label), value: n }));
      if (parts.length) figures.push({ label: figureLabel(name), value: parts.reduce((sum, p) => sum + p.value, 0), parts });
    }
  }
  return figures;
}

/** What changed since the subject's previous survey (pqc-inventory and composition): `+2 red, −1 green`, or null. */
export function changesOf(headline: Record<string, unknown>): { previousSurveyId: string | null; previousReportId: string | null; parts: string[] } | null {
  const changes = headline.changes as { previous_survey_id?: string | null; previous_report_id?: string | null; new?: Record<string, number>; gone?: Record<string, number> } | undefined;
  if (!changes) return null;
  const parts: string[] = [];
  for (const [section, n] of Object.entries(changes.new ?? {})) if (n) parts.push(`${n} new ${section}`);
  for (const [section, n] of Object.entries(changes.gone ?? {})) if (n) parts.push(`${n} gone from ${section}`);
  return { previousSurveyId: changes.previous_survey_id ?? null, previousReportId: changes.previous_report_id ?? null, parts };
}

const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The cells an entry shows, by report type (the API's entry fields differ per type). */
export interface EntryCells {
  name: string;
  /** A second line under the name: a package URL or a bom-ref. */
  ref: string | null;
  kind: string | null;
  detail: string | null;
  extra: string | null;
  count: string | null;
}

export const COLUMN_LABELS: Record<ReportType, { kind: string; detail: string; extra: string; count: string }> = {
  'pqc-inventory': { kind: 'Primitive', detail: 'Why', extra: 'Deadline · replace with', count: 'Uses' },
  composition: { kind: 'Advisory', detail: 'Summary', extra: 'Version · fix', count: 'Score' },
  cbom: { kind: 'Asset type', detail: 'Details', extra: 'Occurrences', count: 'Uses' },
};

export function cellsOf(type: string, entry: Entry): EntryCells {
  if (type === 'composition') {
    const severity = obj(entry.severity);
    const aliases = Array.isArray(entry.aliases) ? (entry.aliases as unknown[]).map(String) : [];
    const version = text(entry.version);
    const fix = text(entry.fix_version) ?? text(entry.fixed_version);
    return {
      name: text(entry.name) ?? text(entry.purl) ?? entry.key,
      ref: text(entry.purl),
      kind: [text(entry.advisory_id), ...aliases].filter(Boolean).join(' · ') || null,
      detail: text(entry.summary) ?? text(entry.explanation),
      extra: [version, fix ? `fixed in ${fix}` : 'no fix known'].filter(Boolean).join(' · '),
      count: text(severity.score),
    };
  }
  if (type === 'cbom') {
    const crypto = obj(entry.cryptoProperties);
    const props = obj(crypto.algorithmProperties ?? crypto.certificateProperties ?? crypto.protocolProperties ?? crypto.relatedCryptoMaterialProperties);
    const detail = Object.entries(props).filter(([, v]) => typeof v === 'string' || typeof v === 'number').slice(0, 3).map(([k, v]) => `${k}: ${v}`).join(', ');
    const occurrences = Array.isArray(obj(entry.evidence).occurrences) ? (obj(entry.evidence).occurrences as unknown[]).length : null;
    return {
      name: text(entry.name) ?? entry.key,
      ref: text(entry['bom-ref']),
      kind: text(crypto.assetType),
      detail: detail || null,
      extra: occurrences === null ? null : String(occurrences),
      count: null,
    };
  }
  const deadline = text(entry.deadline);
  const replacement = text(entry.replacement);
  const uses = typeof entry.observed === 'number' ? entry.observed : typeof entry.occurrences === 'number' ? entry.occurrences : null;
  return {
    name: text(entry.name) ?? entry.key,
    ref: text(entry.purl) ?? text(entry.bom_ref),
    kind: text(entry.primitive) ?? text(entry.assetType),
    detail: text(entry.explanation),
    extra: [deadline ? `by ${deadline}` : null, replacement ? `→ ${replacement}` : null].filter(Boolean).join(' · ') || null,
    count: uses === null ? null : String(uses),
  };
}

/** A survey's completed reports (its REPORT steps), in the survey's order. */
export const reportsOf = (survey: Job): Job[] => (survey.steps ?? []).filter((s) => s.step_type === 'REPORT' && s.status === 'COMPLETED');

/** The subject a survey analysed, as far as the job says. */
export const subjectOf = (survey: Job): string => text(survey.metadata?.subject) ?? survey.target ?? 'Unnamed subject';

/** The latest render job of each format (jobs under the report labelled `render:<format>`), and whether a document was ever completed. */
export function renderStatus(jobs: Job[]): Map<string, { latest: Job; completed: Job | null }> {
  const byFormat = new Map<string, { latest: Job; completed: Job | null }>();
  const ordered = [...jobs].sort((a, b) => (a.created_at === b.created_at ? a.id.localeCompare(b.id) : a.created_at.localeCompare(b.created_at)));
  for (const job of ordered) {
    const format = job.step_label?.startsWith('render:') ? job.step_label.slice('render:'.length) : null;
    if (!format) continue;
    const known = byFormat.get(format);
    byFormat.set(format, { latest: job, completed: job.status === 'COMPLETED' ? job : known?.completed ?? null });
  }
  return byFormat;
}

export const REASON_TEXT: Record<StaleDocument['reasons'][number]['reason'], string> = {
  analysis_version: 'the analysis logic is newer than the one this report came from',
  template_version: 'the document template changed since it was rendered',
  source_replaced: 'its survey was replaced by a regenerated one',
};

export const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

export const formatBytes = (n: number | null | undefined): string => {
  if (n == null) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
};
