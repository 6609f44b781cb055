// Decisions about findings as plain functions (src/triage): the rules a decision follows, what
// suppresses a finding, and VERS ranges (the ranges of the CycloneDX VEX fixtures among them).
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/lib/errors';
import { normalAssessment, normalScope, suppresses } from '../../src/triage/decision';
import { parseVers, versContains, type Vers } from '../../src/triage/vers';

const range = (text: string) => parseVers(text) as Vers;
const rejects = (work: () => unknown, words: RegExp) => {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_request');
    expect((error as ApiError).message).toMatch(words);
    return;
  }
  throw new Error('expected a 400');
};

describe('triage: VERS ranges', () => {
  it('read the ranges CycloneDX VEX documents carry, in the package\'s own order', () => {
    // From the CISA use cases (fixtures/vex/cyclonedx): vers:generic/>=2.9|<=4.1.
    const cisa = range('vers:generic/>=2.9|<=4.1');
    expect(['2.9', '3.0', '4.1'].map((v) => versContains(cisa, v, null))).toEqual([true, true, true]);
    expect(['2.8', '4.2', '10.0'].map((v) => versContains(cisa, v, null))).toEqual([false, false, false]);
    // Two intervals and a single version; Maven's order (1.0-alpha before 1.0).
    const maven = range('vers:maven/>=1.0|<2.0|>=3.0|<3.5|=4.1');
    expect(['1.0-alpha', '1.5', '2.0', '3.2', '3.5', '4.1', '4.2'].map((v) => versContains(maven, v, 'Maven')))
      .toEqual([false, true, false, true, false, true, false]);
    expect(versContains(range('vers:npm/>=1.0.0|!=1.2.0'), '1.2.0', 'npm')).toBe(false);
    expect(versContains(range('vers:npm/>=1.0.0|!=1.2.0'), '1.3.0', 'npm')).toBe(true);
    expect(versContains(range('vers:npm/*'), '0.0.1', 'npm')).toBe(true);
    expect(versContains(range('vers:pypi/<1.0'), '1.0rc1', 'PyPI')).toBe(true);
  });

  it('say what is wrong with a range that is not VERS', () => {
    expect(parseVers('>=1.0 <2.0')).toMatch(/vers:<scheme>/);
    expect(parseVers('vers:npm/>=1.0.0||<2')).toMatch(/empty or misplaced/);
    expect(parseVers('vers:npm/>=*')).toMatch(/empty or misplaced/);
  });
});

describe('triage: a decision\'s rules', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  const vuln = normalScope({ type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' });
  const crypto = normalScope({ type: 'crypto', algorithm: 'RSA', subject: 'shop' });

  it('normalise the scope: a purl\'s version is the one version, the package is its fix row\'s key', () => {
    expect(vuln).toMatchObject({ type: 'vulnerability', package: 'pkg:maven/org.apache.logging.log4j/log4j-core', version: '2.14.1', version_range: null, subject: null });
    expect(normalScope({ type: 'vulnerability', advisory_id: ' GHSA-jfh8-c2jp-5v3q ', package: 'pkg:npm/lodash', version_range: 'vers:npm/<4.17.21' }))
      .toMatchObject({ advisory_id: 'GHSA-jfh8-c2jp-5v3q', package: 'pkg:npm/lodash', version: null, version_range: 'vers:npm/<4.17.21' });
    expect(crypto).toMatchObject({ type: 'crypto', algorithm: 'RSA', asset: null, subject: 'shop', advisory_id: null });
  });

  it('refuse a scope that names nothing or contradicts itself, saying why', () => {
    rejects(() => normalScope({ type: 'crypto' }), /algorithm.*asset/);
    rejects(() => normalScope({ type: 'vulnerability', advisory_id: ' ' }), /advisory_id/);
    rejects(() => normalScope({ type: 'vulnerability', advisory_id: 'CVE-1', version: '1.0' }), /name the package/);
    rejects(() => normalScope({ type: 'vulnerability', advisory_id: 'CVE-1', package: 'pkg:npm/a', version: '1', version_range: 'vers:npm/<2' }), /not both/);
    rejects(() => normalScope({ type: 'vulnerability', advisory_id: 'CVE-1', package: 'pkg:npm/a@1.0.0', version: '2.0.0' }), /names version 1.0.0/);
    rejects(() => normalScope({ type: 'vulnerability', advisory_id: 'CVE-1', package: 'lodash' }), /package URL/);
    rejects(() => normalScope({ type: 'vulnerability', advisory_id: 'CVE-1', package: 'pkg:npm/a', version_range: '<2' }), /version_range.*vers:/);
  });

  it('require a justification for not_affected, and keep expiry to accepted cryptography in the future', () => {
    rejects(() => normalAssessment(vuln, { state: 'not_affected' }, now), /justification/);
    expect(normalAssessment(vuln, { state: 'not_affected', justification: 'code_not_reachable', response: ['will_not_fix', 'will_not_fix'] }, now))
      .toEqual({ state: 'not_affected', justification: 'code_not_reachable', response: ['will_not_fix'], detail: null, expires: null });
    rejects(() => normalAssessment(vuln, { state: 'exploitable', expires: '2027-06-30' }, now), /does not expire/);
    rejects(() => normalAssessment(crypto, { state: 'in_triage', expires: '2027-06-30' }, now), /in_triage/);
    rejects(() => normalAssessment(crypto, { state: 'exploitable', expires: '2026-11-01' }, now), /future/);
    rejects(() => normalAssessment(crypto, { state: 'exploitable', expires: 'next June' }, now), /a date/);
    expect(normalAssessment(crypto, { state: 'exploitable', response: ['will_not_fix'], expires: '2027-06-30' }, now).expires).toBe('2027-06-30');
  });

  it('suppress not_affected, false_positive and resolved findings, and an acceptance until it expires', () => {
    const at = (state: any, expires: string | null = null) => suppresses({ state, expires }, now);
    expect(['not_affected', 'false_positive', 'resolved', 'resolved_with_pedigree'].map((s) => at(s))).toEqual([true, true, true, true]);
    expect(['exploitable', 'in_triage', 'withdrawn'].map((s) => at(s))).toEqual([false, false, false]);
    expect(at('exploitable', '2027-06-30')).toBe(true);
    expect(at('exploitable', '2026-11-28T11:59:59Z')).toBe(false);
    expect(at('not_affected', '2026-11-01')).toBe(false);
  });
});
