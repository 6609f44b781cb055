// The scoring model (docs/scoring.md): the worked example computed by the code, and properties on
// generated data: scores saturate (never outside 0..100), are monotone (fixing never lowers a score,
// adding a finding never raises one), and ranking gains agree with simulation's projection.
import { describe, expect, it } from 'vitest';
import { bandOf, overallOf, pqcPenalty, SCALE, scoreOf, shown, usageFactor, vulnPenalty, type Axis } from '../../src/scoring/model';
import { effectOf, gainOf, portfolioScores, rankFixes, withoutEffects, type PortfolioModel } from '../../src/scoring/portfolio';
import type { ScoredFinding } from '../../src/scoring/findings';
import { seededRandom } from '../../src/lib/random';

const AXES: Axis[] = ['pqc', 'vuln', 'agility'];

/** A generated portfolio: subjects with weights, findings with penalties from the real penalty functions. */
function generated(seed: number) {
  const next = seededRandom(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const subjects = Array.from({ length: 1 + Math.floor(next() * 12) }, (_, i) => ({ name: `s${i}`, weight: pick([1, 2, 2, 4]) }));
  const findings: ScoredFinding[] = [];
  const count = Math.floor(next() * 200);
  for (let i = 0; i < count; i++) {
    const subject = pick(subjects).name;
    const axis = pick(AXES);
    const penalty = axis === 'vuln'
      ? vulnPenalty({ score: next() < 0.2 ? null : Math.round(next() * 100) / 10, label: pick([null, 'high', 'low']), fixAvailable: next() < 0.7, uses: 1 + Math.floor(next() * 40) })
      : axis === 'pqc'
        ? pqcPenalty({ section: pick(['red', 'yellow', 'unclassified', 'green', 'transition']), deadline: pick([null, '2013-12-31', '2027-06-30', '2030-12-31', '2035-12-31']), uses: 1 + Math.floor(next() * 100) }, '2026-11-24T00:00:00.000Z')
        : pick([1, 3, 4]) * (next() < 0.3 ? usageFactor(1 + Math.floor(next() * 20)) : 1);
    findings.push({ subject, id: `f${i}`, axis, findingKey: `k${i % 17}`, itemKey: next() < 0.8 ? `pkg:npm/p${i % 23}` : null, penalty, detail: { name: `f${i}` } });
  }
  return { subjects, findings, next };
}

function modelOf(subjects: { name: string; weight: number }[], findings: ScoredFinding[]): PortfolioModel {
  const model: PortfolioModel = { subjects: Object.fromEntries(subjects.map((s) => [s.name, [s.weight, 0, 0, 0]])) };
  const index = { pqc: 1, vuln: 2, agility: 3 } as const;
  for (const f of findings) model.subjects[f.subject]![index[f.axis]] += f.penalty;
  return model;
}

describe('the scoring model', () => {
  it('computes the worked example of docs/scoring.md', () => {
    const vuln = [
      vulnPenalty({ score: 9.1, label: 'critical', fixAvailable: true, uses: 1 }),
      vulnPenalty({ score: 7.2, label: 'high', fixAvailable: true, uses: 1 }),
      vulnPenalty({ score: 5.3, label: 'medium', fixAvailable: false, uses: 1 }),
      vulnPenalty({ score: 9.8, label: 'critical', fixAvailable: true, uses: 3 }),
    ];
    expect(vuln.map((p) => Math.round(p * 100) / 100)).toEqual([8.28, 5.18, 2.11, 24.83]);
    const asOf = '2026-11-24T12:00:00.000Z';
    const pqc = [
      pqcPenalty({ section: 'red', deadline: '2030-12-31', uses: 3 }, asOf),
      pqcPenalty({ section: 'red', deadline: '2013-12-31', uses: 1 }, asOf),
      pqcPenalty({ section: 'yellow', deadline: '2030-12-31', uses: 1 }, asOf),
    ];
    expect(pqc.map((p) => Math.round(p * 100) / 100)).toEqual([19.39, 12, 2.5]);
    const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);
    const scores = { vuln: scoreOf(sum(vuln)), pqc: scoreOf(sum(pqc)), agility: scoreOf(5) };
    expect([shown(scores.vuln), shown(scores.pqc), shown(scores.agility), shown(overallOf(scores))]).toEqual([19.9, 25.8, 81.9, 34.6]);
    expect([bandOf(shown(scores.vuln)), bandOf(81.9), bandOf(85), bandOf(65), bandOf(40), bandOf(39.9)]).toEqual(['critical', 'fair', 'strong', 'fair', 'weak', 'critical']);

    // The best fix of the example: minimist in a portfolio with a medium subject that does not use it.
    const model: PortfolioModel = { subjects: { 'payments-api': [4, sum(pqc), sum(vuln), 5], other: [2, 0, 0, 0] } };
    const minimist = gainOf(model, [{ s: 'payments-api', a: 'vuln', f: 'm', k: 'GHSA-xvch-5gv4-984h', p: vuln[3]! }]);
    const lodash = gainOf(model, vuln.slice(0, 3).map((p, i) => ({ s: 'payments-api', a: 'vuln' as const, f: `l${i}`, k: `l${i}`, p })));
    expect([Math.round(minimist.overall * 10) / 10, Math.round(lodash.overall * 10) / 10]).toEqual([9, 4.6]);
  });

  it('saturates: every score stays within 0..100 however many findings there are', () => {
    expect(scoreOf(0)).toBe(100);
    expect(scoreOf(1e9)).toBeGreaterThanOrEqual(0);
    expect(scoreOf(SCALE)).toBeCloseTo(100 / Math.E, 10);
    for (let seed = 1; seed <= 200; seed++) {
      const { subjects, findings } = generated(seed);
      const scores = portfolioScores(modelOf(subjects, findings))!;
      for (const value of [...Object.values(scores.axes), scores.overall]) {
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(100);
      }
    }
  });

  it('is monotone: fixing any set of findings never lowers a score; adding one never raises it', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const { subjects, findings, next } = generated(seed);
      const before = portfolioScores(modelOf(subjects, findings))!;
      const kept = findings.filter(() => next() < 0.6);
      const after = portfolioScores(modelOf(subjects, kept))!;
      for (const axis of AXES) expect(after.axes[axis]).toBeGreaterThanOrEqual(before.axes[axis] - 1e-9);
      expect(after.overall).toBeGreaterThanOrEqual(before.overall - 1e-9);
      expect(shown(after.overall)).toBeGreaterThanOrEqual(shown(before.overall));
      // Each subject on its own too.
      const model = modelOf(subjects, findings);
      const fixed = modelOf(subjects, kept);
      for (const name of Object.keys(model.subjects)) {
        for (const i of [1, 2, 3] as const) expect(scoreOf(fixed.subjects[name]![i])).toBeGreaterThanOrEqual(scoreOf(model.subjects[name]![i]) - 1e-9);
      }
      const extra: ScoredFinding = { subject: subjects[0]!.name, id: 'extra', axis: 'vuln', findingKey: 'x', itemKey: null, penalty: 1 + next() * 20, detail: {} };
      const worse = portfolioScores(modelOf(subjects, [...findings, extra]))!;
      expect(worse.axes.vuln).toBeLessThan(before.axes.vuln);
      expect(worse.overall).toBeLessThan(before.overall);
    }
  });

  it('ranks by the same computation as simulation: a row\'s gain is the projected score minus the current one', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const { subjects, findings } = generated(seed);
      const model = modelOf(subjects, findings);
      const rows = rankFixes(model, findings, { fixVersionOf: () => null });
      const current = portfolioScores(model)!;
      for (const row of rows) {
        const projected = portfolioScores(withoutEffects(model, row.effects))!;
        expect(row.gain.overall).toBeCloseTo(projected.overall - current.overall, 9);
        expect(row.gain.overall).toBeGreaterThanOrEqual(0);
      }
      for (let i = 1; i < rows.length; i++) expect(rows[i - 1]!.gain.overall).toBeGreaterThanOrEqual(rows[i]!.gain.overall);
      expect(rows.map((r) => r.row.rank)).toEqual(rows.map((_, i) => i + 1));
      // Every finding with a row is in exactly one row.
      expect(rows.reduce((n, r) => n + r.effects.length, 0)).toBe(findings.filter((f) => f.itemKey).length);
    }
  });

  it('counts a finding once however many fixes name it', () => {
    const finding: ScoredFinding = { subject: 'a', id: 'f', axis: 'vuln', findingKey: 'k', itemKey: 'pkg:npm/x', penalty: 10, detail: {} };
    const model: PortfolioModel = { subjects: { a: [2, 0, 10, 0] } };
    expect(gainOf(model, [effectOf(finding), effectOf(finding)]).overall).toBeCloseTo(gainOf(model, [effectOf(finding)]).overall, 12);
    expect(portfolioScores(withoutEffects(model, [effectOf(finding), effectOf(finding)]))!.axes.vuln).toBe(100);
  });
});

describe('migration rows', () => {
  it('group quantum-vulnerable cryptography by family, anything else by its normalised name', async () => {
    const { judge } = await import('../../src/analysis/crypto/classify');
    const { algorithmItemKey } = await import('../../src/scoring/findings');
    const keyOf = (name: string, keyBits?: number) => algorithmItemKey(judge({ name, keyBits }) as never);
    expect(keyOf('RSA', 2048)).toBe('algorithm:RSA');
    expect(keyOf('RSA', 4096)).toBe('algorithm:RSA');
    expect(keyOf('ECDSA-P256')).toBe(keyOf('ECDSA-P384'));
    const sha224 = judge({ name: 'SHA-224' });
    expect(sha224.quantumVulnerable).toBe(false);
    expect(algorithmItemKey(sha224 as never)).toBe(`algorithm:${sha224.name}`);
    expect(keyOf('SHA-224')).not.toBe(keyOf('SHA-256'));
    expect(keyOf('MD5')).toBe(`algorithm:${judge({ name: 'MD5' }).name}`);
  });
});
