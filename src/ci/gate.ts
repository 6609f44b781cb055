// The release gate as the CLI's `--fail-on` reads it (cli/lib/figures.mjs): the same tokens, counted
// from the same figures (the REPORT steps' headline, suppressed findings left out), so a JUnit report
// and a summary fail exactly what the CLI's exit code fails.
import { invalidParameter } from '../lib/errors';
import type { JsonObject } from '../lib/json';
import type { CiFinding, CiReport } from '../project/ci-findings';

export const GATE_SECTIONS = ['red', 'yellow', 'transition', 'green', 'unclassified'] as const;
export const GATE_SEVERITIES = ['critical', 'high', 'medium', 'low', 'unknown'] as const;
const RANKED = ['critical', 'high', 'medium', 'low'];

export interface GateToken {
  token: string;
  report: 'pqc-inventory' | 'composition';
  isNew: boolean;
  names: string[];
}

export interface GateResult {
  fail_on: string[];
  tripped: { token: string; count: number }[];
  passed: boolean;
}

/** `red,new-critical,high+` as tokens; 400 naming `failOn` for a token the CLI would refuse too. */
export function parseFailOn(raw: string | undefined): GateToken[] {
  const tokens: GateToken[] = [];
  for (const part of (raw ?? '').split(',')) {
    const token = part.trim().toLowerCase();
    if (!token || tokens.some((t) => t.token === token)) continue;
    const m = /^(new-)?([a-z]+)(\+?)$/.exec(token);
    const name = m?.[2] ?? '';
    const plus = m?.[3] === '+';
    if (m && !plus && (GATE_SECTIONS as readonly string[]).includes(name)) tokens.push({ token, report: 'pqc-inventory', isNew: Boolean(m[1]), names: [name] });
    else if (m && (plus ? RANKED.includes(name) : (GATE_SEVERITIES as readonly string[]).includes(name))) {
      tokens.push({ token, report: 'composition', isNew: Boolean(m[1]), names: plus ? RANKED.slice(0, RANKED.indexOf(name) + 1) : [name] });
    } else {
      throw invalidParameter('failOn', `failOn: unknown token '${part.trim()}' (sections ${GATE_SECTIONS.join(', ')}; severities ${GATE_SEVERITIES.join(', ')}; a severity and above, e.g. high+; each also as new-<token>).`);
    }
  }
  return tokens;
}

/** The gate over the reports' figures (a missing figure counts nothing: the CLI says so on its own). */
export function evaluateGate(reports: CiReport[], tokens: GateToken[]): GateResult {
  const tripped: GateResult['tripped'] = [];
  for (const token of tokens) {
    const figures = reports.find((r) => r.type === token.report)?.figures;
    const totals = (token.isNew ? (figures?.changes as JsonObject | undefined)?.new : token.report === 'pqc-inventory' ? figures?.sections : figures?.severities) as Record<string, unknown> | undefined;
    const count = token.names.reduce((sum, n) => sum + (typeof totals?.[n] === 'number' ? (totals[n] as number) : 0), 0);
    if (count > 0) tripped.push({ token: token.token, count });
  }
  return { fail_on: tokens.map((t) => t.token), tripped, passed: tripped.length === 0 };
}

/** Whether a finding is one the gate counts (an unsuppressed one of a named section or severity, new when the token says so). */
export function gateTrips(tokens: GateToken[], f: CiFinding): boolean {
  if (f.decision?.suppressed) return false;
  return tokens.some((t) => t.report === f.report && t.names.includes(f.section) && (!t.isNew || f.isNew));
}

/** Without `--fail-on`: what fails a CI run by default (red cryptography, critical or high advisories). */
export const failsByDefault = (f: CiFinding) => !f.decision?.suppressed && ['red', 'critical', 'high'].includes(f.section);
