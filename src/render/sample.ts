// Synthetic render models for renderer tests, the local render route and `npm run bench:render`: a
// pqc-inventory-shaped report whose entries carry names in several scripts and hostile strings
// (markup, spreadsheet formulas, quotes, line breaks), so every format's escaping is exercised; laid
// out by hand as plain tables (sampleModel), or stored-like entries laid out as the render queue does,
// grouped (samplePqcModel).
import type { JsonObject } from '../lib/json';
import type { RenderModel, SectionModel } from './model';
import { reportModel } from './report-model';

/** Strings a renderer must show as text, never run: markup, formulas, CSV metacharacters. */
export const HOSTILE = [
  '<script>alert("x")</script>',
  '=HYPERLINK("http://evil.example","click")',
  '+SUM(1,2)',
  '-2+3',
  '@cmd',
  '\tTabbed',
  '\rCarriage',
  'Quote " and, comma',
  'Line\nbreak',
  '&amp; already escaped',
] as const;

/** Names in non-Latin scripts (Greek, Cyrillic, CJK, Arabic, Hebrew, Devanagari, Thai) and accents. */
export const SCRIPTS = ['Κρυπτογραφία', 'Шифрование', '暗号化ライブラリ', '加密库', '암호화', 'تشفير', 'הצפנה', 'कूटलेखन', 'การเข้ารหัส', 'Çiğdem-Łódź'] as const;

const SECTIONS: { name: string; title: string; color: string; description: string }[] = [
  { name: 'red', title: 'Red: quantum-vulnerable or broken', color: '#c62828', description: 'Move away first: broken now, or breakable by a quantum computer.' },
  { name: 'yellow', title: 'Yellow: retiring or non-standard', color: '#f9a825', description: 'Allowed today, but retiring or outside NIST standards.' },
  { name: 'transition', title: 'Transition: hybrid', color: '#1565c0', description: 'Hybrid classical and post-quantum: keep until pure PQC is possible.' },
  { name: 'green', title: 'Green: quantum-resistant', color: '#2e7d32', description: 'Fine as it is.' },
  { name: 'unclassified', title: 'Unclassified', color: '#757575', description: 'Not in the classification table: review by hand.' },
];

const COLUMNS: SectionModel['columns'] = [
  { key: 'name', header: 'Name', kind: 'text', width: 28 },
  { key: 'primitive', header: 'Primitive', kind: 'text', width: 14 },
  { key: 'component', header: 'Component', kind: 'text', width: 30 },
  { key: 'explanation', header: 'Explanation', kind: 'text', width: 60 },
  { key: 'replacement', header: 'Move to', kind: 'text', width: 22 },
  { key: 'deadline', header: 'Deadline', kind: 'date', width: 12 },
  { key: 'occurrences', header: 'Occurrences', kind: 'number', width: 12 },
];

/** A report of `entries` entries spread over the five sections (red gets half), hostile and non-Latin strings among them. */
export function sampleModel(entries = 60, reportId = '0195f0c0-0000-7000-8000-000000000001'): RenderModel {
  const bySection = new Map<string, Record<string, string | number | null>[]>(SECTIONS.map((s) => [s.name, []]));
  for (let i = 0; i < entries; i++) {
    const section = i % 2 === 0 ? 'red' : SECTIONS[1 + ((i >> 1) % 4)]!.name;
    const special = i < HOSTILE.length ? HOSTILE[i]! : i < HOSTILE.length + SCRIPTS.length ? SCRIPTS[i - HOSTILE.length]! : null;
    bySection.get(section)!.push({
      name: special ?? `RSA-${1024 + (i % 4) * 1024}`,
      primitive: i % 3 === 0 ? 'signature' : 'pke',
      component: `pkg:maven/org.example/library-${i}@1.${i % 10}.0`,
      explanation: `${special ?? 'RSA'} is quantum-vulnerable public-key cryptography: a large enough quantum computer breaks it (NIST IR 8547 ipd, table 2). Replace it with ML-KEM or ML-DSA; entry ${i} with a long explanation that has to wrap across several lines in a table cell.`,
      replacement: i % 5 === 0 ? null : 'ML-KEM-768 (FIPS 203)',
      deadline: i % 7 === 0 ? null : i % 2 ? '2030-12-31' : '2035-12-31',
      occurrences: (i * 7) % 23,
    });
  }
  const sections = SECTIONS.map((s) => ({ ...s, columns: COLUMNS, rows: bySection.get(s.name)!, total: bySection.get(s.name)!.length }));
  return {
    reportId,
    reportType: 'pqc-inventory',
    title: 'Post-quantum cryptography inventory',
    project: { id: '0195f0c0-0000-7000-8000-0000000000aa', name: 'Payments <platform> & "core"' },
    subject: 'payments-gateway 暗号',
    survey: { id: '0195f0c0-0000-7000-8000-0000000000bb', tag: 'release-2026.11 =1+1', type: 'INVENTORY_SURVEY', target: 'payments-gateway 暗号' },
    producedAt: '2026-11-24T10:15:00.000Z',
    figures: [
      { label: 'Cryptographic assets', value: entries },
      { label: 'Red', value: sections[0]!.total, detail: 'move first' },
      { label: 'CNSA 2.0 approved', value: Math.floor(entries / 10) },
      { label: 'Nearest deadline', value: '2030-12-31', detail: `${Math.floor(entries / 7)} overdue` },
    ],
    chart: { title: 'Entries per section', bars: sections.map((s) => ({ label: s.name, value: s.total, color: s.color })) },
    sections,
    notes: ['Sections follow NIST IR 8547 ipd; CNSA 2.0 verdicts are shown beside them.', 'A <b>note</b> with markup & "quotes".'],
  };
}

/** Verdicts the synthetic pqc-inventory entries are spread over, as the classifier words them (a few dozen groups, as real CBOMs have). */
const VERDICTS = [
  { algorithm: 'RSA-2048-SHA1', section: 'red', deadline: '2013-12-31', replacement: 'ML-DSA-65 or ML-DSA-87 (FIPS 204)', why: 'signs a SHA-1 digest, and SHA-1 collisions are practical: signatures like this have been disallowed since 2013 and can be forged. Re-sign with SHA-256 or better now, and plan ML-DSA.' },
  { algorithm: 'RSA-2048', section: 'red', deadline: '2030-12-31', replacement: 'ML-KEM-768 or ML-KEM-1024 (FIPS 203), or a hybrid such as X25519MLKEM768 meanwhile', why: 'gives 112 bits of security and a large quantum computer breaks it with Shor\'s algorithm: NIST IR 8547 deprecates it after 2030 and disallows it after 2035.' },
  { algorithm: 'ECDSA-SHA384', section: 'red', deadline: '2030-12-31', replacement: 'ML-DSA-65 or ML-DSA-87 (FIPS 204)', why: '(curve unknown) is quantum-vulnerable: a large quantum computer breaks it with Shor\'s algorithm.' },
  { algorithm: 'RSA-4096', section: 'red', deadline: '2035-12-31', replacement: 'ML-KEM-768 or ML-KEM-1024 (FIPS 203)', why: 'is strong classically but a large quantum computer breaks it with Shor\'s algorithm: NIST IR 8547 disallows it after 2035.' },
  { algorithm: 'HMAC-SHA1', section: 'yellow', deadline: '2030-12-31', replacement: 'HMAC with SHA-256 or SHA-384', why: 'is still safe, but NIST retires every SHA-1 use after 2030.' },
  { algorithm: 'X25519MLKEM768', section: 'transition', deadline: null, replacement: 'ML-KEM-1024 (FIPS 203) when peers allow', why: 'is a hybrid of X25519 and ML-KEM-768: safe now.' },
  { algorithm: 'AES-256-GCM', section: 'green', deadline: null, replacement: null, why: 'is approved and stays so.' },
  { algorithm: 'Magma-X', section: 'unclassified', deadline: null, replacement: null, why: 'is not an algorithm the classification table knows; review it by hand.' },
] as const;

/**
 * pqc-inventory entries as the classifier stores them, `entries` of them over the verdicts above: every
 * third a certificate whose signature decides (its own name in front of the shared explanation), the
 * others algorithms and keys, each with source locations. Hostile and non-Latin names among them.
 */
export function samplePqcEntries(entries: number): Map<string, JsonObject[]> {
  const bySection = new Map<string, JsonObject[]>(SECTIONS.map((s) => [s.name, []]));
  for (let i = 0; i < entries; i++) {
    const entry = samplePqcEntry(i);
    bySection.get(String(entry.section))!.push(entry);
  }
  return bySection;
}

/** The section of the `i`th synthetic pqc-inventory entry (samplePqcEntry), without making it. */
export const samplePqcSection = (i: number): string => VERDICTS[(i * 7) % VERDICTS.length]!.section;

/** The `i`th synthetic pqc-inventory entry of samplePqcEntries, with its `section`. */
export function samplePqcEntry(i: number): JsonObject {
  const verdict = VERDICTS[(i * 7) % VERDICTS.length]!;
  const special = i < HOSTILE.length ? HOSTILE[i]! : i < HOSTILE.length + SCRIPTS.length ? SCRIPTS[i - HOSTILE.length]! : null;
  const certificate = i % 3 === 0;
  const name = special ?? (certificate ? `service-${i}.example.com` : i % 3 === 1 ? `${verdict.algorithm} public-key` : verdict.algorithm);
  const why = `${verdict.algorithm} ${verdict.why}`;
  const locations = Array.from({ length: 1 + (i % 3) }, (_, n) => `src/main/java/org/example/module${i % 40}/Crypto${n}.java:${100 + i}`);
  return {
    name, section: verdict.section, assetType: certificate ? 'certificate' : 'algorithm', primitive: certificate ? null : 'signature',
    explanation: certificate ? `${name}: ${verdict.algorithm} (signature) decides. ${why}` : why,
    replacement: verdict.replacement, deadline: verdict.deadline,
    cnsa2: verdict.section === 'unclassified' ? { approved: false, deadline: null, note: 'Not judged: the algorithm is not known.' } : { approved: verdict.section === 'green', deadline: null, note: '' },
    bom_ref: `asset-${i}`, occurrences: locations.length + (i % 5 === 0 ? 30 : 0), locations,
  };
}

/** A pqc-inventory report of `entries` synthetic entries laid out as the render queue lays out a stored one (grouped). */
export function samplePqcModel(entries = 60, reportId = '0195f0c0-0000-7000-8000-000000000002'): RenderModel {
  const bySection = samplePqcEntries(entries);
  const totals = [...bySection].map(([name, list]) => ({ name, kind: 'list', total: list.length }));
  return reportModel({
    report: { id: reportId, type: 'pqc-inventory', subject: 'payments-gateway 暗号', producedAt: '2026-11-24T10:15:00.000Z', summary: { headline: {}, sections: totals } },
    project: { id: '0195f0c0-0000-7000-8000-0000000000aa', name: 'Payments <platform> & "core"' },
    survey: { id: '0195f0c0-0000-7000-8000-0000000000bb', tag: null, type: 'INVENTORY_SURVEY', target: 'payments-gateway 暗号' },
    entries: bySection,
  });
}
