// The survey's headline figures and the release gate (`--fail-on`). An upload pass cannot read
// reports, so the figures come from the survey's REPORT steps: a COMPLETED step carries its
// report's headline figures in `metadata.figures` (docs/cli.md, "Figures and --fail-on").
import { CliError, UsageError } from './errors.mjs';

/** @typedef {import('./events.mjs').Job} Job */
/** @typedef {Record<string, any>} StepFigures the `metadata.figures` of one REPORT step, as sent */
/** @typedef {{ 'pqc-inventory': StepFigures | null, cbom: StepFigures | null, composition: StepFigures | null }} Figures */
/**
 * One `--fail-on` token, parsed.
 * @typedef {object} GateToken
 * @property {string} token as written, lower case: `red`, `new-critical`, `high+`
 * @property {'pqc-inventory' | 'composition'} report the REPORT step whose figures it reads
 * @property {boolean} isNew counts from `changes.new` instead of the totals
 * @property {string[]} names the sections or severities whose counts are added up
 */
/**
 * @typedef {object} Gate
 * @property {string[]} fail_on the tokens, lower case, as given
 * @property {{ token: string, count: number }[]} tripped the tokens whose count is above zero
 * @property {boolean} passed nothing tripped and every figure the gate needs was there
 * @property {string[]} missing REPORT steps the gate needs whose figures the survey did not carry
 */

export const REPORT_LABELS = /** @type {const} */ (['pqc-inventory', 'cbom', 'composition']);
export const SECTIONS = /** @type {const} */ (['red', 'yellow', 'transition', 'green', 'unclassified']);
export const SEVERITIES = /** @type {const} */ (['critical', 'high', 'medium', 'low', 'unknown']);
/** Ordered severities a `+` threshold counts from (`unknown` has no place in the order). */
const RANKED = ['critical', 'high', 'medium', 'low'];

/** Exit code: the survey found what `--fail-on` names. */
export const EXIT_GATE = 3;
/** Exit code: `--fail-on` could not be checked, the survey's REPORT steps carry no figures. */
export const EXIT_NO_FIGURES = 4;

const TOKEN_HELP = `sections ${SECTIONS.join(', ')}; severities ${SEVERITIES.join(', ')}; `
  + "a severity and above, e.g. high+; each also as new-<token>";

/**
 * Parses the `--fail-on` values (each a comma-separated list; case and spaces do not matter).
 * @param {string[]} values
 * @param {{ runtime: boolean }} options a runtime survey has no vulnerability figures
 * @returns {GateToken[]}
 */
export function parseFailOn(values, { runtime }) {
  /** @type {GateToken[]} */
  const tokens = [];
  for (const raw of values.flatMap((v) => v.split(','))) {
    const token = raw.trim().toLowerCase();
    if (token === '' || tokens.some((t) => t.token === token)) continue;
    const m = /^(new-)?([a-z]+)(\+?)$/.exec(token);
    const name = m?.[2] ?? '';
    const plus = m?.[3] === '+';
    /** @type {GateToken} */
    let parsed;
    if (m && !plus && /** @type {readonly string[]} */ (SECTIONS).includes(name)) {
      parsed = { token, report: 'pqc-inventory', isNew: Boolean(m[1]), names: [name] };
    } else if (m && (plus ? RANKED.includes(name) : /** @type {readonly string[]} */ (SEVERITIES).includes(name))) {
      parsed = { token, report: 'composition', isNew: Boolean(m[1]), names: plus ? RANKED.slice(0, RANKED.indexOf(name) + 1) : [name] };
    } else {
      throw new UsageError(`--fail-on: unknown token '${raw.trim()}' (${TOKEN_HELP})`);
    }
    if (runtime && parsed.report === 'composition') {
      throw new UsageError(`--fail-on: '${token}' names a severity, but a runtime survey (--runtime) has no vulnerability figures`);
    }
    tokens.push(parsed);
  }
  if (tokens.length === 0) throw new UsageError(`--fail-on: no tokens given (${TOKEN_HELP})`);
  return tokens;
}

/**
 * Watches a survey's job updates and keeps the last figures of each REPORT step.
 */
export class FiguresCollector {
  constructor() {
    /** @type {Map<string, StepFigures>} figures by step label */
    this.byLabel = new Map();
  }

  /** @param {Job} job a step's update, or the survey's (whose `steps` carry their metadata too) */
  see(job) {
    if (!job || typeof job !== 'object') return;
    if (Array.isArray(job.steps)) for (const step of job.steps) this.see(step);
    if (job.step_type !== 'REPORT' || typeof job.step_label !== 'string') return;
    const figures = /** @type {any} */ (job.metadata)?.figures;
    if (job.status === 'COMPLETED' && figures && typeof figures === 'object' && !Array.isArray(figures)) {
      this.byLabel.set(job.step_label, figures);
    }
  }

  /** @returns {Figures} */
  figures() {
    return {
      'pqc-inventory': this.byLabel.get('pqc-inventory') ?? null,
      cbom: this.byLabel.get('cbom') ?? null,
      composition: this.byLabel.get('composition') ?? null,
    };
  }
}

/** @param {unknown} n */
const isCount = (n) => typeof n === 'number' && Number.isFinite(n) && n >= 0;

/**
 * The count a token reads, or null when the figures do not hold it.
 * @param {Figures} figures
 * @param {GateToken} token
 */
export function countOf(figures, token) {
  const step = figures[token.report];
  const totals = token.isNew ? step?.changes?.new : token.report === 'pqc-inventory' ? step?.sections : step?.severities;
  if (!totals || typeof totals !== 'object') return null;
  let sum = 0;
  for (const name of token.names) {
    if (!isCount(totals[name])) return null;
    sum += totals[name];
  }
  return sum;
}

/**
 * @param {Figures} figures
 * @param {GateToken[]} tokens (none: no gate, it passes)
 * @returns {Gate}
 */
export function evaluateGate(figures, tokens) {
  /** @type {Gate} */
  const gate = { fail_on: tokens.map((t) => t.token), tripped: [], passed: true, missing: [] };
  for (const token of tokens) {
    const count = countOf(figures, token);
    if (count === null) {
      if (!gate.missing.includes(token.report)) gate.missing.push(token.report);
    } else if (count > 0) {
      gate.tripped.push({ token: token.token, count });
    }
  }
  gate.passed = gate.tripped.length === 0 && gate.missing.length === 0;
  return gate;
}

/**
 * The error that ends a run whose gate did not pass (null when it passed). A tripped gate wins over
 * missing figures: the survey did find what was named.
 * @param {Gate} gate
 * @param {string} surveyId
 */
export function gateError(gate, surveyId) {
  if (gate.tripped.length) {
    const found = gate.tripped.map((t) => `${t.token} ${t.count}`).join(', ');
    const also = gate.missing.length ? `; ${gate.missing.join(', ')} not checked: no figures` : '';
    return new CliError(`survey ${surveyId}: --fail-on tripped: ${found}${also} (gate)`, { code: 'gate', exitCode: EXIT_GATE, jsonEvent: false });
  }
  if (gate.missing.length) {
    const steps = gate.missing.join(', ');
    return new CliError(
      `survey ${surveyId} completed, but its ${steps} report step${gate.missing.length > 1 ? 's carry' : ' carries'} no figures: `
        + `--fail-on ${gate.fail_on.join(',')} cannot be checked (is the service older than this CLI?) (no_figures)`,
      { code: 'no_figures', exitCode: EXIT_NO_FIGURES, jsonEvent: false },
    );
  }
  return null;
}

// ---- the human form -------------------------------------------------------------------------

const ANSI = /** @type {const} */ ({ red: '31', yellow: '33', green: '32', cyan: '36', magenta: '35', bold: '1', dim: '2' });
/** @typedef {keyof typeof ANSI} Style */
/** @typedef {{ text: string, style?: Style | Style[], sep?: string }} Item a piece of a line that is never broken; `sep` goes before it (default ` · `) */

/**
 * Colour on stdout only for a terminal, and never when NO_COLOR is set (no-color.org) or TERM=dumb.
 * @param {{ isTTY?: boolean }} stream
 * @param {NodeJS.ProcessEnv} env
 */
export function useColor(stream, env) {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
}

const SECTION_STYLE = /** @type {Record<string, Style>} */ ({ red: 'red', yellow: 'yellow', transition: 'cyan', green: 'green', unclassified: 'magenta' });
const SEVERITY_STYLE = /** @type {Record<string, Style | Style[]>} */ ({ critical: ['bold', 'red'], high: 'red', medium: 'yellow', low: 'cyan' });
const LABEL_WIDTH = 17;

/**
 * @param {string} name
 * @param {unknown} n
 * @param {Style | Style[] | undefined} style applied when the count is above zero
 * @returns {Item}
 */
const count = (name, n, style) => ({ text: `${name} ${isCount(n) ? n : '?'}`, style: isCount(n) && /** @type {number} */ (n) > 0 ? style : undefined });

/**
 * The figures block printed after a COMPLETED survey (and the gate's line with --fail-on).
 * @param {Figures} figures
 * @param {Gate | null} gate
 * @param {{ color?: boolean, width?: number }} [options]
 * @returns {string[]}
 */
export function formatFigures(figures, gate, { color = false, width = 80 } = {}) {
  /** @type {[string, Item[][]][]} label, then lines of items */
  const rows = [];
  const pqc = figures['pqc-inventory'];
  const comp = figures.composition;
  const cbom = figures.cbom;
  if (pqc) {
    const lines = [SECTIONS.map((s) => count(s, pqc.sections?.[s], SECTION_STYLE[s]))];
    /** @type {Item[]} */
    const more = [];
    if (pqc.cnsa2) more.push({ text: `CNSA 2.0: ${pqc.cnsa2.approved ?? '?'} approved, ${pqc.cnsa2.not_approved ?? '?'} not` });
    if (typeof pqc.nearest_deadline === 'string') more.push({ text: `nearest deadline ${pqc.nearest_deadline}` });
    if (more.length) lines.push(more);
    rows.push(['Cryptography', lines]);
  }
  if (comp) {
    const lines = [SEVERITIES.map((s) => count(s, comp.severities?.[s], SEVERITY_STYLE[s]))];
    const advisories = isCount(comp.advisories) ? `${comp.advisories} advisor${comp.advisories === 1 ? 'y' : 'ies'} in ` : '';
    const of = isCount(comp.components) ? ` of ${comp.components}` : '';
    /** @type {Item[]} */
    const more = [{ text: `${advisories}${comp.vulnerable_components ?? '?'}${of} components` }];
    if (isCount(comp.fixable)) more.push({ text: `${comp.fixable} fixable` });
    lines.push(more);
    rows.push(['Vulnerabilities', lines]);
  }
  if (cbom?.asset_types && typeof cbom.asset_types === 'object') {
    rows.push(['Crypto assets', [Object.entries(cbom.asset_types).map(([type, n]) => count(type, n, undefined))]]);
  }
  const changes = [pqc?.changes, comp?.changes].filter((c) => c && typeof c === 'object');
  if (changes.length) {
    if (changes.every((c) => !c.previous_survey_id)) {
      rows.push(['Since previous', [[{ text: 'first survey of this subject' }]]]);
    } else {
      /** @type {Item[]} */
      const items = [];
      for (const [c, names, styles] of /** @type {const} */ ([[pqc?.changes, SECTIONS, SECTION_STYLE], [comp?.changes, SEVERITIES, SEVERITY_STYLE]])) {
        if (!c?.previous_survey_id) continue;
        for (const n of names) if (isCount(c.new?.[n]) && c.new[n] > 0) items.push({ text: `+${c.new[n]} ${n}`, style: styles[n] });
        for (const n of names) if (isCount(c.gone?.[n]) && c.gone[n] > 0) items.push({ text: `-${c.gone[n]} ${n}`, style: 'dim' });
      }
      rows.push(['Since previous', [items.length ? items : [{ text: 'no change' }]]]);
    }
  }
  if (!pqc && !comp && !cbom) rows.push(['Figures', [[{ text: 'none reported by the service' }]]]);
  if (gate && gate.fail_on.length) {
    /** @type {Item[]} */
    const items = gate.tripped.length
      ? [{ text: 'tripped:', style: ['bold', 'red'] }, ...gate.tripped.map((t, i) => ({ text: `${t.token} ${t.count}`, style: /** @type {Style} */ ('red'), sep: i ? ', ' : ' ' }))]
      : gate.missing.length ? [] : [{ text: 'passed', style: 'green' }];
    if (gate.missing.length) items.push({ text: `not checked: no figures from ${gate.missing.join(', ')}`, style: 'red', sep: '; ' });
    items.push({ text: `(--fail-on ${gate.fail_on.join(',')})`, style: 'dim', sep: ' ' });
    rows.push(['Gate', [items]]);
  }
  return rows.flatMap(([label, lines]) => layout(label, lines, { color, width }));
}

/**
 * A label column, then the items separated by ` · `, wrapped at `width` (items are never split).
 * Below 50 columns the label gets a line of its own.
 * @param {string} label
 * @param {Item[][]} lines
 * @param {{ color: boolean, width: number }} options
 */
function layout(label, lines, { color, width }) {
  const narrow = width < 50;
  const indent = narrow ? '  ' : ' '.repeat(LABEL_WIDTH);
  /** @type {string[]} */
  const out = narrow ? [paint(label, 'bold', color)] : [];
  let first = !narrow;
  for (const items of lines) {
    let text = '';
    let length = 0;
    const flush = () => {
      out.push(`${first ? paint(label, 'bold', color) + ' '.repeat(LABEL_WIDTH - label.length) : indent}${text}`);
      first = false;
      text = '';
      length = 0;
    };
    for (const item of items) {
      const separator = item.sep ?? ' · ';
      if (length > 0 && indent.length + length + separator.length + item.text.length > width) flush();
      const sep = length === 0 ? '' : separator;
      text += sep + paint(item.text, item.style, color);
      length += sep.length + item.text.length;
    }
    flush();
  }
  return out;
}

/**
 * @param {string} text
 * @param {Style | Style[] | undefined} style
 * @param {boolean} color
 */
function paint(text, style, color) {
  if (!color || !style) return text;
  const codes = (Array.isArray(style) ? style : [style]).map((s) => ANSI[s]).join(';');
  return `\u001b[${codes}m${text}\u001b[0m`;
}
