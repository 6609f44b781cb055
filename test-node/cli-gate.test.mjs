// The CLI in CI: the survey's headline figures after --wait, and the release gate --fail-on,
// against the fake service whose REPORT steps carry figures (test-node/fake-service.mjs).
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  EXIT_GATE, EXIT_NO_FIGURES, FiguresCollector, evaluateGate, formatFigures, parseFailOn, useColor,
} from '../cli/lib/figures.mjs';
import { artifactPath } from '../cli/lib/upload.mjs';
import { mintPass, reportFigures, startFake } from './fake-service.mjs';
import { bom, runCli, tempDir } from './helpers.mjs';

const PROJECT = randomUUID();
/** @type {string} */ let dir;
/** @type {string} */ let pass;
/** @type {string} */ let bomFile;
/** @type {Awaited<ReturnType<typeof startFake>> | null} */ let fake = null;

beforeAll(async () => {
  dir = await tempDir();
  pass = await mintPass(PROJECT);
  bomFile = path.join(dir, 'app.cdx.json');
  await writeFile(bomFile, bom('payments-api'));
});
afterEach(async () => {
  await fake?.close();
  fake = null;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** @param {Partial<import('./fake-service.mjs').FakeOptions>} [options] */
async function serve(options = {}) {
  fake = await startFake({ projectId: PROJECT, stepDelayMs: 10, ...options });
  return fake;
}
const env = (/** @type {Record<string, string>} */ extra = {}) => ({ POSTURE_API: fake?.url ?? '', POSTURE_PASS: pass, ...extra });
const upload = (/** @type {string[]} */ args, /** @type {Record<string, string>} */ extra = {}) =>
  runCli(['upload', bomFile, '--project', PROJECT, '--target', 'payments-api', ...args], env(extra));
const keys = (/** @type {string} */ prefix, /** @type {number} */ n) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/** 3 red, 1 yellow, 12 green, 2 unclassified; 7 advisories (1 critical, 4 high, 2 medium) in 5 of 1115 components. */
const FINDINGS = {
  crypto: { red: ['RSA-2048', 'SHA-1', 'ECDSA-P256'], yellow: ['SHA-224'], green: keys('AES', 12), unclassified: ['FOO', 'BAR'] },
  vulns: {
    critical: ['pkg:npm/a@1 GHSA-1'],
    high: ['pkg:npm/a@1 GHSA-2', 'pkg:npm/b@2 GHSA-3', 'pkg:npm/c@3 GHSA-4', 'pkg:npm/d@4 GHSA-5'],
    medium: ['pkg:npm/e@5 GHSA-6', 'pkg:npm/a@1 GHSA-7'],
  },
  components: 1115, fixable: 4,
};
const CLEAN = { crypto: { green: ['AES-256-GCM'] }, components: 10 };

describe('figures after --wait', () => {
  it('prints the headline figures as an aligned block after the survey completes (no colour off a terminal)', async () => {
    const f = await serve({ findings: FINDINGS });
    const res = await upload(['--wait'], { FORCE_COLOR: '1' });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const [surveyId] = f.state.surveys.keys();
    const after = res.stdout.split(`survey ${surveyId} COMPLETED\n`)[1];
    expect(after.split('\n')).toEqual([
      'Cryptography     red 3 · yellow 1 · transition 0 · green 12 · unclassified 2',
      '                 CNSA 2.0: 12 approved, 6 not · nearest deadline 2030-12-31',
      'Vulnerabilities  critical 1 · high 4 · medium 2 · low 0 · unknown 0',
      '                 7 advisories in 5 of 1115 components · 4 fixable',
      'Crypto assets    algorithm 18 · certificate 0 · protocol 0',
      '                 related-crypto-material 0',
      'Since previous   first survey of this subject',
      '',
    ]);
    expect(res.stdout).not.toContain('\u001b[');
  });

  it('says what changed since the subject\'s previous survey', async () => {
    await serve({ findings: [FINDINGS, { ...FINDINGS, crypto: { ...FINDINGS.crypto, red: [...FINDINGS.crypto.red, 'DSA-1024', 'MD5'], yellow: [] }, vulns: { ...FINDINGS.vulns, high: [...FINDINGS.vulns.high, 'pkg:npm/f@1 GHSA-8'] } }] });
    expect((await upload(['--wait'])).code).toBe(0);
    const res = await upload(['--wait']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('\nSince previous   +2 red · -1 yellow · +1 high\n');
  });

  it('a runtime survey has cryptography and assets, no vulnerabilities', async () => {
    await serve({ findings: FINDINGS });
    const res = await upload(['--wait', '--runtime', '--fail-on', 'new-green']);
    expect(res.code).toBe(EXIT_GATE);
    expect(res.stdout).toContain('\nCryptography     red 3');
    expect(res.stdout).not.toContain('Vulnerabilities');
    expect(res.stdout).toContain('\nGate             tripped: new-green 12 (--fail-on new-green)\n');
  });

  it('without figures from the service (an older one) and without --fail-on, says so and exits 0', async () => {
    await serve({ withoutFigures: ['pqc-inventory', 'cbom', 'composition'] });
    const res = await upload(['--wait']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/ COMPLETED\nFigures          none reported by the service\n$/);
  });
});

describe('--fail-on', () => {
  const trips = [
    ['a section', 'red', 'red 3'],
    ['a section, any case', 'YELLOW', 'yellow 1'],
    ['unclassified', 'unclassified', 'unclassified 2'],
    ['a severity', 'critical', 'critical 1'],
    ['a severity threshold (high+: high or critical)', 'high+', 'high+ 5'],
    ['medium+', 'medium+', 'medium+ 7'],
    ['new in a section (no previous survey: everything is new)', 'new-red', 'new-red 3'],
    ['new in a severity', 'new-high', 'new-high 4'],
    ['new over a threshold', 'new-high+', 'new-high+ 5'],
  ];
  it.each(trips)('trips on %s (%s): prints it, exits 3', async (_what, token, found) => {
    const f = await serve({ findings: FINDINGS });
    const res = await upload(['--wait', '--fail-on', `low,${token}`]);
    const [surveyId] = f.state.surveys.keys();
    expect(res.code).toBe(EXIT_GATE);
    expect(res.stderr).toBe(`posture: survey ${surveyId}: --fail-on tripped: ${found} (gate)\n`);
    expect(res.stdout).toContain(`\nGate             tripped: ${found} (--fail-on low,${token.toLowerCase()})\n`);
  });

  it('lists every token that tripped, with its count; repeated flags add up', async () => {
    await serve({ findings: FINDINGS });
    const res = await upload(['--fail-on', 'red, critical', '--fail-on', 'green,transition']);
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/--fail-on tripped: red 3, critical 1, green 12 \(gate\)\n$/);
  });

  it('passes (exit 0) when nothing named was found', async () => {
    await serve({ findings: CLEAN });
    const res = await upload(['--wait', '--fail-on', 'red,yellow,high+,new-red,new-unknown']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('\nGate             passed (--fail-on red,yellow,high+,new-red,new-unknown)\n');
  });

  it('implies --wait', async () => {
    const f = await serve({ findings: CLEAN });
    const res = await upload(['--fail-on', 'red', '--json']);
    expect(res.code).toBe(0);
    expect(f.state.streams).toBe(1);
    expect(res.lines().at(-1)).toMatchObject({ event: 'done', status: 'COMPLETED', gate: { passed: true } });
  });

  it('new-red with a previous survey counts only the red entries it did not have', async () => {
    const second = { ...FINDINGS, crypto: { ...FINDINGS.crypto, red: [...FINDINGS.crypto.red, 'MD5'] } };
    const f = await serve({ findings: [FINDINGS, FINDINGS, second] });
    const first = await upload(['--fail-on', 'new-red']);
    expect(first.code).toBe(EXIT_GATE); // the subject's first survey: all 3 are new
    expect(first.stderr).toContain('tripped: new-red 3 (gate)');
    const same = await upload(['--fail-on', 'new-red']);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0); // still 3 red, none new
    expect(same.stdout).toContain('\nSince previous   no change\n');
    const more = await upload(['--fail-on', 'new-red', '--json']);
    expect(more.code).toBe(EXIT_GATE);
    const done = more.lines().at(-1);
    const surveys = [...f.state.surveys.keys()];
    expect(done.figures['pqc-inventory'].changes).toEqual({
      previous_survey_id: surveys[1],
      new: { red: 1, yellow: 0, transition: 0, green: 0, unclassified: 0 },
      gone: { red: 0, yellow: 0, transition: 0, green: 0, unclassified: 0 },
    });
    expect(done.gate).toEqual({ fail_on: ['new-red'], tripped: [{ token: 'new-red', count: 1 }], passed: false, missing: [] });
  });

  it('a survey that FAILED keeps exit 1', async () => {
    await serve({ outcome: 'FAILED', findings: FINDINGS });
    const res = await upload(['--fail-on', 'red']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/failed: analysis failed \(FAILED\)\n$/);
    expect(res.stdout).not.toContain('Gate');
  });

  it('exits 4 when a REPORT step the gate needs carries no figures (an older service)', async () => {
    const f = await serve({ findings: FINDINGS, withoutFigures: ['composition'] });
    const res = await upload(['--fail-on', 'critical,new-transition', '--json']);
    const [surveyId] = f.state.surveys.keys();
    expect(res.code).toBe(EXIT_NO_FIGURES);
    expect(res.stderr).toBe(`posture: survey ${surveyId} completed, but its composition report step carries no figures: `
      + '--fail-on critical,new-transition cannot be checked (is the service older than this CLI?) (no_figures)\n');
    const done = res.lines().at(-1);
    expect(done.figures.composition).toBe(null);
    expect(done.gate).toEqual({ fail_on: ['critical', 'new-transition'], tripped: [], passed: false, missing: ['composition'] });
  });

  it('a step that lacks figures the gate does not need does not matter', async () => {
    await serve({ findings: CLEAN, withoutFigures: ['composition', 'cbom'] });
    const res = await upload(['--fail-on', 'red']);
    expect(res.code).toBe(0);
    expect(res.stdout).not.toContain('Vulnerabilities');
  });

  it('a tripped token wins over missing figures (exit 3, both said)', async () => {
    await serve({ findings: FINDINGS, withoutFigures: ['composition'] });
    const res = await upload(['--fail-on', 'red,critical']);
    expect(res.code).toBe(EXIT_GATE);
    expect(res.stderr).toMatch(/--fail-on tripped: red 3; composition not checked: no figures \(gate\)\n$/);
    expect(res.stdout).toContain('\nGate             tripped: red 3; not checked: no figures from composition\n'
      + '                 (--fail-on red,critical)\n');
  });

  it('--json: the last line is `done` with the figures by step label and the gate; no error event', async () => {
    const f = await serve({ findings: FINDINGS });
    const res = await upload(['--fail-on', 'new-red,critical,low', '--json']);
    expect(res.code).toBe(EXIT_GATE);
    const lines = res.lines();
    const [surveyId] = f.state.surveys.keys();
    expect(lines.some((l) => l.event === 'error')).toBe(false);
    expect(lines.at(-1)).toEqual({
      event: 'done', status: 'COMPLETED', surveyId, bundleId: f.state.bundles[0].bundleId, message: null,
      figures: {
        'pqc-inventory': reportFigures('pqc-inventory', FINDINGS, null),
        cbom: reportFigures('cbom', FINDINGS, null),
        composition: reportFigures('composition', FINDINGS, null),
      },
      gate: { fail_on: ['new-red', 'critical', 'low'], tripped: [{ token: 'new-red', count: 3 }, { token: 'critical', count: 1 }], passed: false, missing: [] },
    });
    expect(lines.at(-1).figures.composition).toMatchObject({ components: 1115, vulnerable_components: 5, advisories: 7, fixable: 4 });
    expect(res.stderr).toBe(`posture: survey ${surveyId}: --fail-on tripped: new-red 3, critical 1 (gate)\n`);
  });
});

describe('--fail-on usage errors (exit 2, before any upload)', () => {
  const cases = [
    [['--fail-on', 'red,purple'], "--fail-on: unknown token 'purple'"],
    [['--fail-on', 'new-'], "--fail-on: unknown token 'new-'"],
    [['--fail-on', 'red+'], "--fail-on: unknown token 'red+'"],
    [['--fail-on', 'unknown+'], "--fail-on: unknown token 'unknown+'"],
    [['--fail-on', 'Critical, old-red'], "--fail-on: unknown token 'old-red'"],
    [['--fail-on', ' , '], '--fail-on: no tokens given'],
    [['--runtime', '--fail-on', 'red,high+'], "--fail-on: 'high+' names a severity, but a runtime survey (--runtime) has no vulnerability figures"],
  ];
  it.each(cases)('%j', async (args, message) => {
    const f = await serve();
    const res = await upload(/** @type {string[]} */ (args));
    expect(res.code).toBe(2);
    expect(res.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(res.stderr).toContain(`posture: ${message}`);
    expect(res.stdout).toBe('');
    expect(f.state.requests).toEqual([]);
  });

  it('--help documents --fail-on and the exit codes', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toContain('--fail-on LIST');
    expect(help.stdout).toMatch(/3 --fail-on found what it names, 4 --fail-on\s+could not be checked/);
  });
});

describe('figures: the parts', () => {
  it('parses tokens: sections, severities, thresholds, new-, any case, duplicates once', () => {
    const tokens = parseFailOn(['RED,new-Critical', 'high+,red', 'new-low+'], { runtime: false });
    expect(tokens).toEqual([
      { token: 'red', report: 'pqc-inventory', isNew: false, names: ['red'] },
      { token: 'new-critical', report: 'composition', isNew: true, names: ['critical'] },
      { token: 'high+', report: 'composition', isNew: false, names: ['critical', 'high'] },
      { token: 'new-low+', report: 'composition', isNew: true, names: ['critical', 'high', 'medium', 'low'] },
    ]);
  });

  it('collects figures from step updates and from the finished survey\'s steps (a late reconnect sees only the survey)', () => {
    const figures = { sections: { red: 1 } };
    const fromSurvey = new FiguresCollector();
    fromSurvey.see(/** @type {any} */ ({
      id: 's', status: 'COMPLETED', steps: [
        { id: 'a', step_type: 'REPORT', step_label: 'pqc-inventory', status: 'COMPLETED', metadata: { figures } },
        { id: 'b', step_type: 'REPORT', step_label: 'composition', status: 'COMPLETED', metadata: {} },
        { id: 'c', step_type: 'ANALYZE', step_label: 'analyze', status: 'COMPLETED', metadata: { figures: { x: 1 } } },
      ],
    }));
    expect(fromSurvey.figures()).toEqual({ 'pqc-inventory': figures, cbom: null, composition: null });
    const fromSteps = new FiguresCollector();
    fromSteps.see(/** @type {any} */ ({ id: 'a', step_type: 'REPORT', step_label: 'cbom', status: 'RUNNING', metadata: { figures: { stale: true } } }));
    expect(fromSteps.figures().cbom).toBe(null);
    fromSteps.see(/** @type {any} */ ({ id: 'a', step_type: 'REPORT', step_label: 'cbom', status: 'COMPLETED', metadata: { figures: { asset_types: {} } } }));
    expect(fromSteps.figures().cbom).toEqual({ asset_types: {} });
  });

  it('a figure the step lacks (a section left out) counts as missing, not as zero', () => {
    const gate = evaluateGate(
      { 'pqc-inventory': { sections: { red: 0 } }, cbom: null, composition: null },
      parseFailOn(['red,yellow,new-red'], { runtime: false }),
    );
    expect(gate).toEqual({ fail_on: ['red', 'yellow', 'new-red'], tripped: [], passed: false, missing: ['pqc-inventory'] });
  });

  it('wraps on a narrow terminal, label on its own line below 50 columns, items never split', () => {
    const figures = { 'pqc-inventory': reportFigures('pqc-inventory', FINDINGS, null), cbom: null, composition: null };
    const lines = formatFigures(figures, null, { width: 40 });
    expect(lines.slice(0, 5)).toEqual([
      'Cryptography',
      '  red 3 · yellow 1 · transition 0',
      '  green 12 · unclassified 2',
      '  CNSA 2.0: 12 approved, 6 not',
      '  nearest deadline 2030-12-31',
    ]);
    for (const line of formatFigures(figures, null, { width: 60 })) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('colours counts above zero only when asked; colour only on a terminal without NO_COLOR', () => {
    const figures = { 'pqc-inventory': reportFigures('pqc-inventory', FINDINGS, null), cbom: null, composition: null };
    const [line] = formatFigures(figures, null, { color: true });
    expect(line).toContain('\u001b[31mred 3\u001b[0m');
    expect(line).toContain(' · transition 0 · '); // zero: plain
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(useColor({}, {})).toBe(false);
  });
});

describe('--sarif, --junit, --summary-md', () => {
  const files = () => ({ sarif: path.join(dir, `${randomUUID()}.sarif`), junit: path.join(dir, `${randomUUID()}.xml`), md: path.join(dir, `${randomUUID()}.md`) });

  it('write the survey\'s CI outputs once it completes (they imply --wait), as the service renders them', async () => {
    const f = await serve({ findings: FINDINGS });
    const out = files();
    const res = await upload(['--sarif', out.sarif, '--junit', out.junit, '--summary-md', out.md, '--json']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const [surveyId] = f.state.surveys.keys();
    expect(f.state.streams).toBe(1);
    expect(JSON.parse(await readFile(out.sarif, 'utf8'))).toMatchObject({ version: '2.1.0', runs: [{ properties: { survey_id: surveyId } }] });
    expect(await readFile(out.junit, 'utf8')).toContain(`<testsuites name="posture survey ${surveyId}"`);
    expect(await readFile(out.md, 'utf8')).toBe(`## Posture: payments-api\n\nSurvey \`${surveyId}\` completed.\n`);
    // SARIF names the uploaded file (relative to the working directory) for findings that name none; here it is outside it.
    expect(f.state.ciReads).toEqual(['sarif', 'junit', 'markdown'].map((format) => ({ surveyId, format, failOn: null })));
    expect(artifactPath(bomFile, false)).toBe(undefined);
    expect(artifactPath('build/sbom.json', false, '/repo')).toBe('build/sbom.json');
    expect(artifactPath('./bom', true, '/repo')).toBe('bom/');
    expect(artifactPath('/repo/bom/', true, '/repo')).toBe('bom/');
    expect(artifactPath('.', true, '/repo')).toBe(undefined);
    expect(artifactPath('../elsewhere/sbom.json', false, '/repo')).toBe(undefined);
    const events = res.lines();
    expect(events.filter((e) => e.event === 'wrote')).toEqual([
      { event: 'wrote', format: 'SARIF', file: out.sarif }, { event: 'wrote', format: 'JUnit XML', file: out.junit }, { event: 'wrote', format: 'markdown summary', file: out.md },
    ]);
    // Written after the survey's figures.
    expect(events.findIndex((e) => e.event === 'done')).toBeLessThan(events.findIndex((e) => e.event === 'wrote'));
  });

  it('still write them when --fail-on trips (exit 3), passing the gate\'s tokens along', async () => {
    const f = await serve({ findings: FINDINGS });
    const out = files();
    const res = await upload(['--fail-on', 'red,High+', '--sarif', out.sarif, '--junit', out.junit]);
    expect(res.code).toBe(EXIT_GATE);
    expect(res.stdout).toContain(`wrote the SARIF to ${out.sarif}\n`);
    expect(res.stdout).toContain(`wrote the JUnit XML to ${out.junit}\n`);
    expect(await readFile(out.junit, 'utf8')).toContain('--fail-on red,high+');
    expect(f.state.ciReads.map((r) => r.failOn)).toEqual(['red,high+', 'red,high+']);
  });

  it('exit 1 with the service\'s message when the outputs cannot be read, and refuse one file named twice', async () => {
    await serve({ findings: CLEAN, fail: { ci: [{ status: 403, code: 'forbidden' }] } });
    const out = files();
    const res = await upload(['--sarif', out.sarif]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^posture: reading the survey's SARIF: .*\(forbidden\)\n$/);
    const twice = await upload(['--sarif', out.md, '--summary-md', out.md]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('--sarif, --junit and --summary-md must name different files');
  });

  it('are listed in the help', async () => {
    const res = await runCli(['--help']);
    expect(res.stdout).toMatch(/--sarif FILE {8}write the survey's findings as SARIF 2\.1\.0/);
    expect(res.stdout).toContain('--junit FILE');
    expect(res.stdout).toContain('--summary-md FILE');
  });
});
