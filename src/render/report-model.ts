// A stored survey report laid out for the renderers (src/render/model.ts): its headline figures as
// people read them, the chart of its sections, and each list section's entries as table rows, the most
// important first (PDF and PPTX show the top of a large section). Plain functions over plain data.
import { statedDate } from '../lib/dates';
import type { JsonObject } from '../lib/json';
import { compositionGrouper, compositionGroups, pqcGroups, pqcGrouper, pqcVerdict, type Grouper, type PqcVerdict } from './groups';
import type { Cell, Column, Figure, GroupModel, RenderModel, SectionModel } from './model';

export interface StoredReport {
  id: string;
  type: string;
  subject: string;
  producedAt: string;
  /** The summary as stored: `headline` figures, `sections` (name, kind, total), `objects`. */
  summary: JsonObject;
}

export interface ReportContext {
  report: StoredReport;
  project: { id: string; name: string };
  survey: RenderModel['survey'];
  /** Each list section's entries: every one, in stored order, or the section laid out already (sectionDigest, streamedSection). */
  entries: Map<string, JsonObject[] | LaidOutSection>;
}

/** A section's rows as the renderers take them (SectionModel's `total`, `rows`, `groups` and `everyRow`). */
export interface LaidOutSection {
  total: number;
  rows: Record<string, Cell>[];
  groups?: GroupModel[];
  everyRow?: () => AsyncIterable<Record<string, Cell>>;
}

/**
 * What a digest of a section too large to hold keeps: the first rows of each group, or the first rows of
 * a plain section. At least what the PDF shows (PDF_GROUP_ROWS, PDF_MAX_SECTION_ROWS; the PPTX and the
 * HTML show no more), so those documents read the same as from the whole section.
 */
export const DIGEST_GROUP_ROWS = 10;
export const DIGEST_ROWS = 500;

interface SectionLook {
  title: string;
  description: string;
  color: string;
}

const GREY = '#757575';

// Colours people read as the sections' meaning; red/yellow/green as in the API, severities as NVD shows them.
const LOOKS: Record<string, Record<string, SectionLook>> = {
  'pqc-inventory': {
    red: { title: 'Red: broken or quantum-vulnerable', color: '#c62828', description: 'Classically broken or disallowed now, or public-key cryptography a quantum computer breaks. Move away first, before the NIST IR 8547 deadline shown.' },
    yellow: { title: 'Yellow: retiring or outside the standards', color: '#f9a825', description: 'Allowed today but retiring (112-bit security, SHA-1 in HMAC or KDFs), pre-standard post-quantum names, or algorithms no NIST standard covers. Plan the move.' },
    transition: { title: 'Transition: hybrid', color: '#1565c0', description: 'Hybrid classical and post-quantum key establishment or composite signatures: safe now; move to pure post-quantum when peers allow.' },
    green: { title: 'Green: quantum-resistant', color: '#2e7d32', description: 'Standardised post-quantum algorithms and symmetric cryptography and hashes of sufficient strength. Nothing to do.' },
    unclassified: { title: 'Unclassified', color: GREY, description: 'Algorithms the classification table does not know yet, with what the bill of materials said. Review them by hand.' },
  },
  composition: {
    critical: { title: 'Critical', color: '#7b1fa2', description: 'Findings (a component and an advisory affecting it) whose advisory is scored 9.0 or more, by component. Upgrade now.' },
    high: { title: 'High', color: '#c62828', description: 'Findings whose advisory is scored 7.0 to 8.9, by component.' },
    medium: { title: 'Medium', color: '#ef6c00', description: 'Findings whose advisory is scored 4.0 to 6.9, by component.' },
    low: { title: 'Low', color: '#f9a825', description: 'Findings whose advisory is scored below 4.0, by component.' },
    unknown: { title: 'Unknown severity', color: GREY, description: 'Findings whose advisory has no score or severity label, by component.' },
  },
  posture: {
    fixes: { title: 'Ranked fixes', color: '#2e7d32', description: 'What raises the portfolio\'s score the most, best first: the points each fix alone would add, the version that fixes it or what to move to, and how many subjects it reaches.' },
    subjects: { title: 'Subjects', color: '#1565c0', description: 'Every subject of the portfolio with its criticality, its score overall and per axis, and its change since the previous snapshot; weakest first.' },
    movements: { title: 'Movements since the previous snapshot', color: '#6a1b9a', description: 'How the overall score, each axis and each subject moved since the previous daily snapshot.' },
  },
  cbom: {
    algorithm: { title: 'Algorithms', color: '#1565c0', description: 'Cryptographic algorithms found in the code, configuration or at run time.' },
    certificate: { title: 'Certificates', color: '#00838f', description: 'Certificates, with their signature and key algorithms.' },
    protocol: { title: 'Protocols', color: '#6a1b9a', description: 'Protocols (TLS, SSH, IPsec) with their cipher suites.' },
    'related-crypto-material': { title: 'Keys and related material', color: '#5d4037', description: 'Keys, secrets, salts and other material related to cryptography.' },
  },
};

const TITLES: Record<string, string> = {
  'pqc-inventory': 'Post-quantum cryptography inventory',
  composition: 'Software composition and known vulnerabilities',
  cbom: 'Cryptography bill of materials',
  posture: 'Portfolio posture',
};

const NOTES: Record<string, string[]> = {
  'pqc-inventory': [
    'Sections follow NIST IR 8547 (initial public draft), SP 800-131A and SP 800-57; the deadline is the date after which NIST deprecates or disallows the algorithm.',
    'CNSA 2.0 (NSA) is stricter: each entry also says whether CNSA 2.0 approves it and by when it must be gone for national security systems.',
  ],
  composition: [
    'Advisories come from OSV records matched by package URL and version with each ecosystem\'s own version order. A finding is one advisory affecting one component: an advisory affecting two components is two findings, so there are at least as many findings as advisories.',
    'The fix version is the smallest version above the installed one that none of the component\'s advisories affects, when one is known.',
  ],
  cbom: ['Every cryptographic asset found, as a CycloneDX 1.6 cryptography bill of materials (the JSON export holds the full document).'],
  posture: [
    'Scores run from 0 to 100 (100: nothing to fix) on three axes: known vulnerabilities, post-quantum cryptography and crypto-agility; the overall score weighs them 0.4, 0.4 and 0.2. Bands: strong 85 and up, fair 65, weak 40, critical below.',
    'A portfolio\'s score is the criticality-weighted mean of its subjects\' scores (high 4, medium 2, low 1, unclassified 2). How every score is computed is documented in the service\'s docs/scoring.md.',
  ],
};

const col = (key: string, header: string, width: number, kind: Column['kind'] = 'text'): Column => ({ key, header, kind, width });

const COLUMNS: Record<string, Column[]> = {
  'pqc-inventory': [
    col('algorithm', 'Algorithm', 22), col('name', 'Name', 26), col('primitive', 'Primitive', 12), col('where', 'Where', 30), col('explanation', 'Explanation', 56),
    col('replacement', 'Move to', 24), col('deadline', 'Deadline', 14, 'date'), col('cnsa2', 'CNSA 2.0', 16), col('occurrences', 'Occurrences', 11, 'number'),
  ],
  composition: [
    col('component', 'Component', 26), col('version', 'Installed', 12), col('advisory', 'Advisory', 26), col('aliases', 'Also known as', 18),
    col('score', 'Score', 7, 'number'), col('fix_version', 'Fix version', 12), col('summary', 'Summary', 50), col('purl', 'Package URL', 32),
    col('published', 'Published', 14, 'date'),
  ],
  cbom: [
    col('name', 'Name', 30), col('where', 'Where', 30), col('details', 'Details', 44), col('oid', 'OID', 22), col('occurrences', 'Occurrences', 11, 'number'),
  ],
};

/** How a type's sections are grouped: what an entry shows under its group (what the heading does not say, with width hints for that narrower table), what a group's title names, the column naming its members. */
const GROUPING: Record<string, { columns: Record<string, number>; title: string; members?: { key: string; header: string } }> = {
  'pqc-inventory': { columns: { name: 24, where: 48, cnsa2: 14, occurrences: 10 }, title: 'Algorithm' },
  composition: { columns: { advisory: 22, aliases: 20, score: 7, summary: 56, published: 12 }, title: 'Component', members: { key: 'advisory', header: 'Advisories' } },
};

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const dateOnly = (v: unknown): string | null => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : null);
/** The day of a date a record really has (statedDate: Go's zero time and anything before 1900 are not stated). */
export const knownDate = (v: unknown): string | null => statedDate(v)?.slice(0, 10) ?? null;

/**
 * Where an entry is, as a developer looks for it: its evidence locations (`path:line`, one a line, and
 * how many more there are), else the package, the library seen at run time, and only then its bom-ref.
 */
function whereOf(e: JsonObject, bomRef: unknown): string | null {
  const locations = Array.isArray(e.locations) ? e.locations.filter((l: unknown): l is string => typeof l === 'string' && l !== '') : [];
  if (locations.length) {
    const more = (num(e.occurrences) ?? 0) - locations.length;
    return more > 0 ? `${locations.join('\n')}\nand ${more.toLocaleString('en-US')} more` : locations.join('\n');
  }
  return text(e.purl) ?? text(e.library) ?? text(bomRef) ?? text(e.seen_in);
}

/** CycloneDX evidence occurrences as `location:line` strings (a cbom entry). */
function evidenceLocations(component: JsonObject): string[] {
  const occurrences = (component.evidence as JsonObject | undefined)?.occurrences;
  if (!Array.isArray(occurrences)) return [];
  return occurrences.flatMap((o: JsonObject) => (typeof o?.location === 'string' ? [typeof o.line === 'number' ? `${o.location}:${o.line}` : o.location] : []));
}

/** A CNSA 2.0 verdict as people read it; an unclassified entry is not judged (the JSON says so in its note). */
function cnsa2Text(e: JsonObject, section: string): string | null {
  const cnsa2 = e.cnsa2 as JsonObject | undefined;
  if (section === 'unclassified' || /^not judged/i.test(String(cnsa2?.note ?? ''))) return 'not judged';
  if (!cnsa2) return null;
  return cnsa2.approved ? 'approved' : `not approved${cnsa2.deadline ? ` (by ${String(cnsa2.deadline).slice(0, 10)})` : ''}`;
}

/** The posture report's sections have columns of their own. */
const POSTURE_COLUMNS: Record<string, Column[]> = {
  fixes: [
    // The fix first: slides keep the first column (the entry's name) and the explanation.
    col('name', 'Fix', 28), col('rank', 'Rank', 6, 'number'), col('action', 'Action', 10), col('gain', 'Points', 8, 'number'), col('target', 'Upgrade to / move to', 24),
    col('subjects', 'Subjects', 9, 'number'), col('findings', 'Findings', 9, 'number'), col('explanation', 'Explanation', 56),
  ],
  subjects: [
    col('subject', 'Subject', 28), col('criticality', 'Criticality', 12), col('score', 'Score', 8, 'number'), col('band', 'Band', 10), col('pqc', 'PQC', 8, 'number'),
    col('vuln', 'Vulnerabilities', 8, 'number'), col('agility', 'Agility', 8, 'number'), col('change', 'Change', 8, 'number'), col('findings', 'Findings', 9, 'number'),
  ],
  movements: [col('what', 'What', 30), col('from', 'From', 8, 'number'), col('to', 'To', 8, 'number'), col('change', 'Change', 8, 'number'), col('since', 'Since', 14, 'date')],
};

/** A pqc-inventory entry as a table row, with the verdict it groups by (pqcGroups judged it once). */
function pqcRow(e: JsonObject, section: string, verdict: PqcVerdict): Record<string, Cell> {
  return {
    algorithm: verdict.role ? `${verdict.algorithm} (${verdict.role})` : verdict.algorithm,
    name: text(e.name), primitive: text(e.primitive), where: whereOf(e, e.bom_ref),
    explanation: text(e.explanation), replacement: text(e.replacement), deadline: dateOnly(e.deadline), cnsa2: cnsa2Text(e, section),
    occurrences: num(e.observed) ?? num(e.occurrences) ?? (Array.isArray(e.locations) && e.locations.length ? e.locations.length : null),
  };
}

/** One entry as a table row of its report type's columns (pqc-inventory: pqcRow). */
function rowOf(type: string, e: JsonObject, section = ''): Record<string, Cell> {
  if (type === 'posture') {
    const row: Record<string, Cell> = {};
    for (const column of POSTURE_COLUMNS[section] ?? []) {
      const value = column.key === 'target' ? e.fix_version ?? e.replacement : e[column.key];
      row[column.key] = column.kind === 'number' ? num(value) : column.kind === 'date' ? dateOnly(value) : text(value);
    }
    return row;
  }
  if (type === 'composition') {
    const severity = e.severity as JsonObject | undefined;
    return {
      component: text(e.name), version: text(e.version), advisory: text(e.advisory_id),
      aliases: Array.isArray(e.aliases) ? e.aliases.filter((a: unknown) => typeof a === 'string').join(', ') || null : null,
      score: num(severity?.score), fix_version: text(e.fix_version), summary: text(e.summary) ?? text(e.explanation), purl: text(e.purl),
      published: knownDate(e.published) ?? 'unknown',
    };
  }
  const crypto = (e.cryptoProperties ?? {}) as JsonObject;
  const details = Object.entries(crypto)
    .filter(([key, value]) => key !== 'assetType' && key !== 'oid' && value && typeof value === 'object')
    .flatMap(([, value]) => Object.entries(value as JsonObject).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v)}`));
  const properties = Array.isArray(e.properties) ? (e.properties as JsonObject[]) : [];
  const counted = properties.find((p) => p.name === 'posture:occurrences' || p.name === 'posture:observed-count');
  const where = evidenceLocations(e);
  return {
    name: text(e.name), where: where.length ? where.join('\n') : text(e['bom-ref']), details: details.join('; ') || null, oid: text(crypto.oid),
    occurrences: counted ? Number(counted.value) : null,
  };
}

/** Most important first (posture and cbom sections keep their stored order). */
function ordered(type: string, section: string, entries: JsonObject[]): LaidOutSection {
  const rowFor = (e: JsonObject) => rowOf(type, e, section);
  const groups = type === 'pqc-inventory' ? pqcGroups(section, entries, (e, verdict) => pqcRow(e, section, verdict))
    : type === 'composition' ? compositionGroups(entries, rowFor) : null;
  return groups ? { total: entries.length, rows: groups.flatMap((group) => group.rows), groups } : { total: entries.length, rows: entries.map(rowFor) };
}

/** An entry of the section as its table row, one at a time, as the report stores them. */
export function sectionRow(type: string, section: string): (entry: JsonObject) => Record<string, Cell> {
  return type === 'pqc-inventory' ? (e) => pqcRow(e, section, pqcVerdict(e)) : (e) => rowOf(type, e, section);
}

/** How a section of the type is grouped, each group keeping its first `keep` rows; null when it is not. */
function grouperOf(type: string, section: string, keep: number): Grouper | null {
  if (type === 'pqc-inventory') return pqcGrouper(section, (e, verdict) => pqcRow(e, section, verdict), keep);
  if (type === 'composition') return compositionGrouper((e) => rowOf(type, e, section), keep);
  return null;
}

/**
 * A section too large to hold, read once as it comes: its total and groups with their first rows (a
 * plain section: its first rows), in the order the whole section has them. What the PDF, the PPTX and
 * a large report's HTML show.
 */
export async function sectionDigest(type: string, section: string, entries: AsyncIterable<JsonObject>): Promise<LaidOutSection> {
  const grouper = grouperOf(type, section, DIGEST_GROUP_ROWS);
  const rowFor = sectionRow(type, section);
  const rows: Record<string, Cell>[] = [];
  let total = 0;
  for await (const entry of entries) {
    total++;
    if (grouper) grouper.add(entry);
    else if (rows.length < DIGEST_ROWS) rows.push(rowFor(entry));
  }
  if (!grouper) return { total, rows };
  const groups = grouper.groups();
  return { total, rows: groups.flatMap((group) => group.rows), groups };
}

/**
 * A section too large to hold, for the documents that list every entry (CSV, XLSX): its total as the
 * summary counts it and its rows read page by page as the document is written, in stored order.
 */
export function streamedSection(type: string, section: string, total: number, entries: () => AsyncIterable<JsonObject>): LaidOutSection {
  const rowFor = sectionRow(type, section);
  return {
    total, rows: [],
    everyRow: async function* () {
      for await (const entry of entries()) yield rowFor(entry);
    },
  };
}

/** The headline figures of a report type, labelled for people. */
function figuresOf(type: string, headline: JsonObject, sectionTotals: Map<string, number>): Figure[] {
  const changes = headline.changes as JsonObject | undefined;
  const changeDetail = (section: string) => {
    const added = Number((changes?.new as JsonObject | undefined)?.[section] ?? 0);
    const gone = Number((changes?.gone as JsonObject | undefined)?.[section] ?? 0);
    return changes?.previous_report_id ? `${added} new, ${gone} gone since the previous survey` : 'first survey of this subject';
  };
  const total = [...sectionTotals.values()].reduce((a, b) => a + b, 0);
  if (type === 'pqc-inventory') {
    const cnsa2 = (headline.cnsa2 ?? {}) as JsonObject;
    // Unclassified entries are not judged: the stored `not_approved` counts them, the figure says them apart.
    const notJudged = sectionTotals.get('unclassified') ?? 0;
    const notApproved = Number(cnsa2.not_approved ?? 0) - notJudged;
    return [
      { label: 'Cryptographic findings', value: total },
      { label: 'Red', value: sectionTotals.get('red') ?? 0, detail: changeDetail('red') },
      { label: 'Yellow', value: sectionTotals.get('yellow') ?? 0, detail: changeDetail('yellow') },
      { label: 'CNSA 2.0 approved', value: Number(cnsa2.approved ?? 0), detail: `${notApproved} not approved, ${notJudged} not judged` },
      { label: 'Nearest deadline', value: text(headline.nearest_deadline) ?? 'none', detail: `${Number(headline.overdue ?? 0)} past their deadline` },
    ];
  }
  if (type === 'composition') {
    // Advisories are distinct ids; findings are (component, advisory) pairs, which the chart and sections count.
    const bySeverity = headline.advisory_severities as JsonObject | undefined;
    const advisoryParts = bySeverity ? [...sectionTotals.keys()].map((severity) => `${Number(bySeverity[severity] ?? 0)} ${severity}`).join(', ') : null;
    return [
      { label: 'Components', value: Number(headline.components ?? 0) },
      { label: 'Vulnerable components', value: Number(headline.vulnerable_components ?? 0), detail: `${Number(headline.fixable ?? 0)} with a fix version` },
      { label: 'Advisories', value: Number(headline.advisories ?? 0), detail: advisoryParts ? `distinct: ${advisoryParts}` : 'distinct advisory ids' },
      { label: 'Findings', value: total, detail: 'advisory and component pairs, as the chart and sections count them' },
      { label: 'Critical findings', value: sectionTotals.get('critical') ?? 0, detail: changeDetail('critical') },
      { label: 'High findings', value: sectionTotals.get('high') ?? 0, detail: changeDetail('high') },
    ];
  }
  if (type === 'posture') {
    const axes = (headline.axes ?? {}) as Record<string, { score?: number | null; band?: string | null }>;
    const change = num(headline.change);
    const axis = (name: string, label: string) => ({ label, value: axes[name]?.score ?? 'none', detail: axes[name]?.band ?? undefined });
    return [
      { label: 'Overall score', value: num(headline.score) ?? 'none', detail: `${text(headline.band) ?? 'no band'}${change !== null ? `, ${change >= 0 ? '+' : ''}${change} since ${String(headline.previous_as_of)}` : ''}` },
      axis('vuln', 'Known vulnerabilities'), axis('pqc', 'Post-quantum cryptography'), axis('agility', 'Crypto-agility'),
      { label: 'Subjects', value: Number(headline.subjects ?? 0), detail: `${Number(headline.fixes ?? 0)} ranked fixes` },
    ];
  }
  return [{ label: 'Cryptographic assets', value: total }, ...[...sectionTotals].map(([name, value]) => ({ label: LOOKS.cbom?.[name]?.title ?? name, value }))];
}

/** The posture report's chart: its scores; the others': entries per section. */
function chartOf(type: string, headline: JsonObject, sections: SectionModel[]): RenderModel['chart'] {
  if (type === 'posture') {
    const axes = (headline.axes ?? {}) as Record<string, { score?: number | null }>;
    const colors: Record<string, string> = { overall: '#263238', vuln: '#c62828', pqc: '#6a1b9a', agility: '#1565c0' };
    const bars = [['overall', num(headline.score)], ...['vuln', 'pqc', 'agility'].map((a) => [a, axes[a]?.score ?? null])] as [string, number | null][];
    return { title: 'Score overall and per axis (0 to 100)', bars: bars.map(([label, value]) => ({ label, value: value ?? 0, color: colors[label]! })) };
  }
  return {
    title: type === 'composition' ? 'Findings (advisory and component pairs) per severity' : type === 'cbom' ? 'Assets per type' : 'Findings per section',
    bars: sections.map((s) => ({ label: s.name, value: s.total, color: s.color })),
  };
}

export function reportModel(context: ReportContext): RenderModel {
  const { report } = context;
  const type = report.type;
  const listed = ((report.summary.sections ?? []) as JsonObject[]).filter((s) => s.kind === 'list');
  const sections: SectionModel[] = listed.map((s) => {
    const name = String(s.name);
    const look = LOOKS[type]?.[name] ?? { title: name, description: '', color: GREY };
    const columns = (type === 'posture' ? POSTURE_COLUMNS[name] : COLUMNS[type]) ?? [];
    const given = context.entries.get(name) ?? [];
    const { total, rows, groups, everyRow } = Array.isArray(given) ? ordered(type, name, given) : given;
    const section: SectionModel = { name, ...look, total, columns, rows, ...(everyRow ? { everyRow } : {}) };
    const grouping = GROUPING[type];
    if (groups && grouping) {
      const shown = columns.filter((column) => column.key in grouping.columns).map((column) => ({ ...column, width: grouping.columns[column.key]! }));
      section.groups = { title: grouping.title, columns: shown, list: groups, ...(grouping.members ? { members: grouping.members } : {}) };
    }
    return section;
  });
  const totals = new Map(sections.map((s) => [s.name, s.total]));
  const headline = (report.summary.headline ?? {}) as JsonObject;
  return {
    reportId: report.id, reportType: type, title: TITLES[type] ?? type,
    project: context.project, subject: report.subject, survey: context.survey, producedAt: report.producedAt,
    figures: figuresOf(type, headline, totals),
    chart: chartOf(type, headline, sections),
    sections, notes: NOTES[type] ?? [],
  };
}
