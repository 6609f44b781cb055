// Reading a VEX document (issue 23): a CycloneDX BOM with `vulnerabilities[].analysis` (1.4 to 1.6,
// standalone or inside a BOM) or an OpenVEX 0.2.0 document (checked against its JSON schema), into
// claims in our terms: one vulnerability, one thing it is about (a product, a component of it, or
// both), and an assessment in CycloneDX's words. A bad document is one 400 naming its first problem.
import { Validator } from '@cfworker/json-schema';
import { invalidRequest } from '../lib/errors';
import { normalizePurl } from '../analysis/components';
import { parseVers } from '../triage/vers';
import { DECISION_STATES, JUSTIFICATIONS, RESPONSES, versionOfPurl, type DecisionState } from '../triage/decision';
import { JUSTIFICATION_OF_OPENVEX, STATE_OF_STATUS, type OpenVexJustification, type OpenVexStatus } from './mapping';
import openVexSchema from './openvex-0.2.0.schema.json';

export interface VexSource {
  format: 'cyclonedx' | 'openvex';
  spec_version: string;
  author: string | null;
  document_id: string | null;
  timestamp: string | null;
  version: number | null;
}

/** A product version a statement names: one version or a VERS range. */
export type VersionRule = { version: string } | { range: string };

/** The product a claim is about: a subject of the project, found by name, package URL or BOM serial number. */
export interface VexProduct {
  label: string;
  name: string | null;
  purl: string | null;
  /** A BOM-link's serial number (the uuid), matched against the serial numbers of the subjects' BOMs. */
  serial: string | null;
  /** The product versions the statement speaks about; empty for every version. */
  versions: VersionRule[];
}

/** A component (package) a claim is about, at one version, a range, or every version. */
export interface VexComponent {
  label: string;
  purl: string;
  version: string | null;
  range: string | null;
}

export interface VexAssessment {
  state: DecisionState;
  justification: string | null;
  response: string[];
  detail: string | null;
}

/** One vulnerability about one product or component: what becomes (at most) one decision. */
export interface VexClaim {
  /** The statement's place in the document (0-based: CycloneDX `vulnerabilities[]`, OpenVEX `statements[]`). */
  statement: number;
  vulnerability: string;
  aliases: string[];
  /** The product: the claim is about it (no component), or about the component inside it. */
  product: VexProduct | null;
  component: VexComponent | null;
  /** An OpenVEX product named by a package URL, without subcomponents: a subject, or else a package. */
  either?: true;
  assessment: VexAssessment;
  /** When the statement was made (for superseding): the statement's own time, else the document's. */
  timestamp: string | null;
}

export interface VexDocument {
  source: VexSource;
  statements: number;
  claims: VexClaim[];
  /** Statements that make no claim we can use (no analysis, no product), with the reason. */
  unusable: { statement: number; vulnerability: string; reason: string }[];
}

type Raw = Record<string, unknown>;
const record = (value: unknown): Raw | null => (value && typeof value === 'object' && !Array.isArray(value) ? value as Raw : null);
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The document as claims; 400 when it is neither format, or breaks its format's rules. */
export function readVex(document: unknown): VexDocument {
  const root = record(document);
  if (!root) throw invalidRequest('A VEX document is a JSON object: a CycloneDX BOM with vulnerabilities, or an OpenVEX document.');
  if (root.bomFormat === 'CycloneDX') return readCycloneDx(root);
  if ('@context' in root) return readOpenVex(root);
  throw invalidRequest('Not a VEX document: expected a CycloneDX BOM (`bomFormat`: CycloneDX) or an OpenVEX document (`@context`).');
}

// ---- CycloneDX ----

const CYCLONEDX_VERSIONS = ['1.4', '1.5', '1.6'];
const BOM_LINK = /^urn:cdx:([0-9a-f-]{36})(?:\/(\d+))?(?:#(.+))?$/i;

interface BomComponent { ref: string | null; name: string | null; version: string | null; purl: string | null }

function bomComponent(raw: Raw): BomComponent {
  const purl = text(raw.purl);
  return { ref: text(raw['bom-ref']), name: text(raw.name), version: text(raw.version), purl: purl ? normalizePurl(purl) ?? purl : null };
}

/** Every component with a bom-ref, nested ones too. */
function componentsByRef(root: Raw): Map<string, BomComponent> {
  const byRef = new Map<string, BomComponent>();
  const visit = (items: unknown[]) => {
    for (const item of items) {
      const raw = record(item);
      if (!raw) continue;
      const c = bomComponent(raw);
      if (c.ref) byRef.set(c.ref, c);
      visit(list(raw.components));
    }
  };
  visit(list(root.components));
  return byRef;
}

function cycloneDxAuthor(metadata: Raw | null): string | null {
  if (!metadata) return null;
  const named = (value: unknown) => text(record(value)?.name);
  return named(metadata.supplier) ?? named(metadata.manufacturer) ?? named(metadata.manufacture)
    ?? list(metadata.authors).map(named).find(Boolean) ?? null;
}

function readCycloneDx(root: Raw): VexDocument {
  const specVersion = text(root.specVersion);
  if (!specVersion || !CYCLONEDX_VERSIONS.includes(specVersion)) {
    throw invalidRequest(`specVersion: CycloneDX VEX is read from specVersion 1.4 to 1.6, not ${specVersion ?? 'none'}.`);
  }
  if (!Array.isArray(root.vulnerabilities) || root.vulnerabilities.length === 0) {
    throw invalidRequest('vulnerabilities: a CycloneDX VEX lists its statements in `vulnerabilities[]`, and this document has none.');
  }
  const metadata = record(root.metadata);
  const serial = text(root.serialNumber)?.replace(/^urn:uuid:/i, '') ?? null;
  const rawProduct = record(metadata?.component);
  const product = rawProduct ? bomComponent(rawProduct) : null;
  const byRef = componentsByRef(root);
  const source: VexSource = {
    format: 'cyclonedx', spec_version: specVersion, author: cycloneDxAuthor(metadata), document_id: text(root.serialNumber),
    timestamp: text(metadata?.timestamp), version: typeof root.version === 'number' ? root.version : null,
  };
  const claims: VexClaim[] = [];
  const unusable: VexDocument['unusable'] = [];
  root.vulnerabilities.forEach((value, i) => {
    const where = `vulnerabilities[${i}]`;
    const v = record(value);
    if (!v) throw invalidRequest(`${where}: a vulnerability is an object.`);
    const id = text(v.id);
    if (!id) throw invalidRequest(`${where}.id: every vulnerability names its advisory id.`);
    const analysis = record(v.analysis);
    if (!analysis) {
      unusable.push({ statement: i, vulnerability: id, reason: 'The vulnerability has no `analysis`: it states nothing about the product.' });
      return;
    }
    const assessment = cycloneDxAssessment(analysis, where);
    const affects = list(v.affects);
    if (!affects.length) throw invalidRequest(`${where}.affects: a VEX statement names what it is about in \`affects[]\`.`);
    const aliases = list(v.references).map((r) => text(record(r)?.id)).filter((a): a is string => a !== null);
    const timestamp = text(analysis.lastUpdated) ?? text(v.updated) ?? text(v.published) ?? source.timestamp;
    affects.forEach((a, j) => {
      const affect = record(a);
      const ref = text(affect?.ref);
      if (!affect || !ref) throw invalidRequest(`${where}.affects[${j}].ref: each affected item is named by a bom-ref, a BOM-link or a package URL.`);
      const versions = list(affect.versions).map((entry, k) => versionRule(entry, `${where}.affects[${j}].versions[${k}]`));
      for (const target of cycloneDxTargets(ref, versions, product, serial, byRef)) {
        claims.push({ statement: i, vulnerability: id, aliases, ...target, assessment, timestamp });
      }
    });
  });
  return { source, statements: root.vulnerabilities.length, claims, unusable };
}

function cycloneDxAssessment(analysis: Raw, where: string): VexAssessment {
  const state = text(analysis.state);
  if (!state || !(DECISION_STATES as readonly string[]).includes(state)) {
    throw invalidRequest(`${where}.analysis.state: one of ${DECISION_STATES.join(', ')}, not ${state ?? 'none'}.`);
  }
  const justification = text(analysis.justification);
  if (justification && !(JUSTIFICATIONS as readonly string[]).includes(justification)) {
    throw invalidRequest(`${where}.analysis.justification: one of ${JUSTIFICATIONS.join(', ')}, not ${justification}.`);
  }
  const response = list(analysis.response).map((r) => String(r));
  const unknown = response.find((r) => !(RESPONSES as readonly string[]).includes(r));
  if (unknown) throw invalidRequest(`${where}.analysis.response: each one of ${RESPONSES.join(', ')}, not ${unknown}.`);
  return { state: state as DecisionState, justification, response: [...new Set(response)], detail: text(analysis.detail) };
}

function versionRule(entry: unknown, where: string): VersionRule {
  const raw = record(entry);
  const version = text(raw?.version);
  const range = text(raw?.range);
  if (version) return { version };
  if (range) {
    const parsed = parseVers(range);
    if (typeof parsed === 'string') throw invalidRequest(`${where}.range: ${parsed}.`);
    return { range };
  }
  throw invalidRequest(`${where}: a version entry has \`version\` or \`range\`.`);
}

/**
 * What an `affects[].ref` names. The BOM's own product (its `metadata.component`, or a BOM-link to
 * another BOM) is a product: a subject. A component of the BOM with a package URL, or a package URL,
 * is a component, inside the BOM's product when it names one; its versions narrow the package.
 */
function cycloneDxTargets(ref: string, versions: VersionRule[], product: BomComponent | null, serial: string | null, byRef: Map<string, BomComponent>):
  Pick<VexClaim, 'product' | 'component'>[] {
  const link = BOM_LINK.exec(ref);
  const localRef = link ? (link[3] ? decodeURIComponent(link[3]) : null) : ref;
  const linkSerial = link ? link[1]!.toLowerCase() : serial?.toLowerCase() ?? null;
  const asProduct = (c: BomComponent | null, rules: VersionRule[]): VexProduct => ({
    label: ref, name: c?.name ?? null, purl: c?.purl ?? null, serial: link ? linkSerial : null,
    versions: rules.length ? rules : c?.version ? [{ version: c.version }] : [],
  });
  if (link && (!localRef || (product?.ref !== localRef && !byRef.has(localRef)))) return [{ product: asProduct(null, versions), component: null }];
  if (localRef && product && product.ref === localRef) return [{ product: asProduct(product, versions), component: null }];
  const inDocument = localRef ? byRef.get(localRef) : undefined;
  const purl = inDocument?.purl ?? (ref.startsWith('pkg:') ? normalizePurl(ref) ?? ref : null);
  if (!purl) return [{ product: asProduct(inDocument ?? null, versions), component: null }];
  const around = product ? { ...asProduct(product, []), label: product.ref ?? product.name ?? ref } : null;
  const component = (version: string | null, range: string | null): VexComponent => ({ label: ref, purl, version, range });
  // Without versions, the component at the version the document gives it (a BOM lists one version of it).
  if (!versions.length) return [{ product: around, component: component(inDocument?.version ?? versionOfPurl(purl), null) }];
  return versions.map((rule) => ({ product: around, component: 'version' in rule ? component(rule.version, null) : component(null, rule.range) }));
}

// ---- OpenVEX ----

const OPENVEX_CONTEXT = 'https://openvex.dev/ns/v0.2.0';
let openVexValidator: Validator | null = null;

/** The schema's first complaint, where it is and what it says. */
function schemaProblem(document: unknown): string | null {
  openVexValidator ??= new Validator(openVexSchema as never, '2020-12', false);
  const result = openVexValidator.validate(document);
  if (result.valid) return null;
  // Errors come outermost first ("statements does not match"); the deepest says what is wrong.
  const deepest = [...result.errors].sort((a, b) => b.instanceLocation.length - a.instanceLocation.length)[0]!;
  const at = deepest.instanceLocation.replace(/^#\/?/, '').replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.') || 'document';
  return `${at}: ${deepest.error}`;
}

function readOpenVex(root: Raw): VexDocument {
  const context = text(root['@context']);
  if (context !== OPENVEX_CONTEXT && !context?.startsWith(`${OPENVEX_CONTEXT}/`)) {
    throw invalidRequest(`@context: OpenVEX is read in version 0.2.0 (${OPENVEX_CONTEXT}), not ${context ?? 'none'}.`);
  }
  const problem = schemaProblem(root);
  if (problem) throw invalidRequest(`Not a valid OpenVEX 0.2.0 document (its JSON schema): ${problem}`);
  const documentTime = text(root.last_updated) ?? text(root.timestamp);
  const source: VexSource = {
    format: 'openvex', spec_version: '0.2.0', author: text(root.author), document_id: text(root['@id']),
    timestamp: text(root.timestamp), version: typeof root.version === 'number' ? root.version : null,
  };
  const claims: VexClaim[] = [];
  const unusable: VexDocument['unusable'] = [];
  const statements = list(root.statements).map((s) => record(s)!);
  statements.forEach((s, i) => {
    const vulnerability = record(s.vulnerability)!;
    const name = text(vulnerability.name)!;
    const aliases = [...list(vulnerability.aliases).map(text), text(vulnerability['@id'])].filter((a): a is string => a !== null && a !== name);
    const status = s.status as OpenVexStatus;
    const justification = text(s.justification) as OpenVexJustification | null;
    const assessment: VexAssessment = {
      state: STATE_OF_STATUS[status],
      justification: justification ? JUSTIFICATION_OF_OPENVEX[justification] : null,
      response: [],
      detail: [text(s.impact_statement), text(s.action_statement), text(s.status_notes)].filter(Boolean).join('\n') || null,
    };
    const timestamp = text(s.last_updated) ?? text(s.timestamp) ?? documentTime;
    const products = list(s.products).map((p) => record(p)!);
    if (!products.length) {
      unusable.push({ statement: i, vulnerability: name, reason: 'The statement names no product.' });
      return;
    }
    for (const p of products) {
      const product = openVexItem(p);
      const subcomponents = list(p.subcomponents).map((c) => openVexItem(record(c)!));
      const base = { statement: i, vulnerability: name, aliases, assessment, timestamp };
      const asProduct: VexProduct = { label: product.label, name: product.purl ? null : product.label, purl: product.purl, serial: null, versions: [] };
      if (!subcomponents.length) {
        claims.push(product.purl ? { ...base, product: asProduct, component: componentOf(product), either: true } : { ...base, product: asProduct, component: null });
        continue;
      }
      for (const sub of subcomponents) {
        if (!sub.purl) {
          unusable.push({ statement: i, vulnerability: name, reason: `The subcomponent ${sub.label} has no package URL.` });
          continue;
        }
        claims.push({ ...base, product: asProduct, component: componentOf(sub) });
      }
    }
  });
  return { source, statements: statements.length, claims, unusable };
}

/** An OpenVEX product or subcomponent: its `@id`, or its package URL among `identifiers`. */
function openVexItem(raw: Raw): { label: string; purl: string | null } {
  const id = text(raw['@id']);
  const purl = text(record(raw.identifiers)?.purl) ?? (id?.startsWith('pkg:') ? id : null);
  return { label: id ?? purl ?? text(record(raw.identifiers)?.cpe23) ?? text(record(raw.identifiers)?.cpe22) ?? 'unnamed', purl: purl ? normalizePurl(purl) ?? purl : null };
}

/** A package URL as a component: its own version (if it names one) is the version the claim is about. */
const componentOf = (item: { label: string; purl: string | null }): VexComponent => ({ label: item.label, purl: item.purl!, version: versionOfPurl(item.purl!), range: null });
