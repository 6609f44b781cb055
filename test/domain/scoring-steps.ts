// Ranking and the breakdown as the scoring consumer runs them (src/scoring/portfolio.ts): in steps that
// pause, with the same answer as computed at once, and the same as the plain definitions they replaced
// (every finding's gain through `gainOf`, the costliest findings as the first of a stable sort).
import { describe, expect, it } from 'vitest';
import { AXES, type Axis } from '../../src/scoring/model';
import type { ScoredFinding } from '../../src/scoring/findings';
import {
  breakdown, breakdownSteps, FINDINGS_PER_PAUSE, gainOf, rankFixes, rankFixesSteps, rounded, throughout, type PortfolioModel, type Steps,
} from '../../src/scoring/portfolio';
import { seededRandom } from '../../src/lib/random';

/**
 * A portfolio with many ties (penalties from a few values, keys repeated across subjects) and, unlike
 * stored findings, findings named twice within a subject (the same id), some subjects with dozens in one row.
 */
function tied(seed: number, count: number) {
  const next = seededRandom(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const subjects = Array.from({ length: 3 + Math.floor(next() * 20) }, (_, i) => ({ name: `s${i}`, criticality: 'medium', weight: pick([1, 2, 2, 4]) }));
  const findings: ScoredFinding[] = [];
  for (let i = 0; i < count; i++) {
    const subject = pick(subjects).name;
    const axis = pick(AXES);
    const id = `${axis}|f${Math.floor(next() * count * 0.8)}`;
    findings.push({
      subject, id, axis, findingKey: pick(['CVE-1', 'cve-2', 'CVE-10', 'Ä-key', 'a-key', 'b', `k${i % 7}`]),
      itemKey: next() < 0.9 ? pick(['pkg:npm/a', 'pkg:npm/B', 'algorithm:RSA', 'algorithm:rsa', `pkg:npm/p${i % 5}`]) : null,
      penalty: pick([0, 1, 2.5, 3, 5.6, 9.6]), detail: { name: `n${i % 3}`, kind: pick(['advisory', 'library', 'crypto']), explanation: `e${i}` },
    });
  }
  const model: PortfolioModel = { subjects: Object.fromEntries(subjects.map((s) => [s.name, [s.weight, 0, 0, 0]])) };
  const index = { pqc: 1, vuln: 2, agility: 3 } as const;
  for (const f of findings) model.subjects[f.subject]![index[f.axis]] += f.penalty;
  return { subjects, findings, model };
}

/** Runs steps, counting their pauses. */
function pauses<T>(steps: Steps<T>): { value: T; pauses: number } {
  let count = 0;
  for (;;) {
    const next = steps.next();
    if (next.done) return { value: next.value, pauses: count };
    count++;
  }
}

/** The costliest findings as the breakdown defined them before it kept them while reading: a stable sort, its first `limit`. */
function costliestBySort(model: PortfolioModel, findings: ScoredFinding[], limit: number, totalWeight: number) {
  const index = { pqc: 1, vuln: 2, agility: 3 } as const;
  const score = (p: number) => 100 * Math.exp(-Math.max(0, p) / 25);
  const priced = findings.map((f) => {
    const entry = model.subjects[f.subject]!;
    const p = entry[index[f.axis]];
    return { f, points: (entry[0] * (score(p - f.penalty) - score(p))) / totalWeight };
  });
  priced.sort((x, y) => y.points - x.points || x.f.findingKey.localeCompare(y.f.findingKey));
  return priced.slice(0, limit).map(({ f, points }) => ({ subject: f.subject, finding_key: f.findingKey, points: rounded(points) }));
}

describe('ranking and breakdown in steps', () => {
  it('pause at least every FINDINGS_PER_PAUSE findings, and answer as computed at once', () => {
    const { subjects, findings, model } = tied(7, 30_000);
    const ranked = pauses(rankFixesSteps(model, findings, { fixVersionOf: () => null }));
    expect(ranked.pauses).toBeGreaterThanOrEqual(Math.floor(findings.length / FINDINGS_PER_PAUSE));
    expect(ranked.value).toEqual(rankFixes(model, findings, { fixVersionOf: () => null }));
    const broken = pauses(breakdownSteps(model, subjects, findings));
    expect(broken.pauses).toBeGreaterThanOrEqual(Math.floor(findings.length / FINDINGS_PER_PAUSE));
    expect(broken.value).toEqual(throughout(breakdownSteps(model, subjects, findings)));
  });

  it('pause within one row of many findings (an algorithm every subject uses), with the same row as computed at once', () => {
    const { findings, model } = tied(11, 30_000);
    const oneRow = findings.map((f) => ({ ...f, itemKey: 'algorithm:RSA' }));
    const ranked = pauses(rankFixesSteps(model, oneRow, { fixVersionOf: () => null }));
    expect(ranked.value).toHaveLength(1);
    // Grouping the row pauses once or twice; placing its findings must pause many times more.
    expect(ranked.pauses).toBeGreaterThanOrEqual(Math.floor((2 * oneRow.length) / FINDINGS_PER_PAUSE));
    expect(ranked.value).toEqual(rankFixes(model, oneRow, { fixVersionOf: () => null }));
  });

  it('give every row the gain gainOf gives its effects, to the last bit, findings named twice counted once', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { findings, model } = tied(seed, 50 + seed * 40);
      for (const row of rankFixes(model, findings, { fixVersionOf: () => null })) {
        expect(row.gain).toEqual(gainOf(model, row.effects));
        for (const merged of row.row.findings as { finding_key: string; points: number }[]) {
          const same = row.effects.filter((e) => e.k === merged.finding_key);
          expect(merged.points).toBe(rounded(gainOf(model, same).overall));
        }
      }
    }
  });

  it('name the costliest findings per axis as the first of a stable sort by points, then key', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { subjects, findings, model } = tied(seed, 20 + seed * 25);
      const totalWeight = subjects.reduce((sum, s) => sum + s.weight, 0);
      const answer = breakdown(model, subjects, findings) as { axes: Record<Axis, { costliest: { subject: string; finding_key: string; points: number }[] }> };
      for (const axis of AXES) {
        const shown = answer.axes[axis].costliest.map(({ subject, finding_key, points }) => ({ subject, finding_key, points }));
        expect(shown).toEqual(costliestBySort(model, findings.filter((f) => f.axis === axis), 5, totalWeight));
      }
    }
  });
});
